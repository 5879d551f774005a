"""``wsarray.ndarray``: the name NumPy programs use in isinstance checks, subclass and call. It is
``wsarray.Array`` itself, the class of every array wsarray returns (a subclass of ``numpy.ndarray``
whose type is ``type``, as ``numpy.ndarray``'s):

* ``type(x) is wsarray.ndarray`` for wsarray's arrays (type-keyed tables, ``type(x) is np.ndarray``);
* ``isinstance(x, wsarray.ndarray)`` for them; NumPy's own arrays are instances of
  ``numpy.ndarray`` only (``isinstance(x, numpy.ndarray)`` holds for both);
* ``class Named(wsarray.ndarray)`` makes a class that behaves as a NumPy ndarray subclass: its
  instances are NumPy's (``wsarray.asarray(x).view(Named)``, ``Named(shape)``), and what it
  inherits, ``super()`` calls included, is ``numpy.ndarray``'s (src/python/array_subclasses.cpp);
* ``wsarray.ndarray(shape, dtype)`` makes a wsarray array in the current workspace.
"""

import numpy as _numpy

from .._native import Array as ndarray  # noqa: N813  (NumPy's name)

__all__ = ["ndarray"]

# NumPy recognises only its own defaults of these protocols: a subclass that does not override
# them gets NumPy's objects themselves, so that NumPy treats it as any plain ndarray subclass.
_NUMPY_DEFAULTS = ("__array_ufunc__", "__array_function__")


def _init_subclass(cls, **kwargs):
    for name in _NUMPY_DEFAULTS:
        if getattr(cls, name) is getattr(ndarray, name):
            setattr(cls, name, vars(_numpy.ndarray)[name])
    super(ndarray, cls).__init_subclass__(**kwargs)


ndarray.__init_subclass__ = classmethod(_init_subclass)
