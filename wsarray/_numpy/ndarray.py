"""``wsarray.ndarray``: the name NumPy programs use in isinstance checks, subclass and call. It is
``wsarray.Array`` itself, the class of every array wsarray returns (a subclass of ``numpy.ndarray``
whose type is ``type``, as ``numpy.ndarray``'s):

* ``type(x) is wsarray.ndarray`` for wsarray's arrays (type-keyed tables, ``type(x) is np.ndarray``);
* ``isinstance(x, wsarray.ndarray)`` for them; NumPy's own arrays are instances of
  ``numpy.ndarray`` only (``isinstance(x, numpy.ndarray)`` holds for both);
* ``class Named(wsarray.ndarray)`` makes a class that behaves as a NumPy ndarray subclass: its
  instances are NumPy's (``wsarray.asarray(x).view(Named)``, ``Named(shape)``), and what it
  inherits, ``super()`` calls included, is ``numpy.ndarray``'s (src/python/types/array_subclasses.cpp),
  but for ``__array_namespace__()``, which gives wsarray (NumPy's subclasses give NumPy);
* ``wsarray.ndarray(shape, dtype)`` makes a wsarray array in the current workspace.
"""

import sys as _sys

import numpy as _numpy

from .._native import Array as ndarray  # noqa: N813  (NumPy's name)
from .protocols import translate_overrides

__all__ = ["ndarray"]

# NumPy recognises only its own defaults of these protocols: a subclass that does not override
# them gets NumPy's objects themselves, so that NumPy treats it as any plain ndarray subclass.
_NUMPY_DEFAULTS = ("__array_ufunc__", "__array_function__")


def _array_namespace(self, /, *, api_version=None):
    """wsarray: ``class Sub(np.ndarray)`` written with ``import wsarray as np`` names ``np`` as its
    namespace, as NumPy's subclasses name NumPy (xarray and others compare it with their ``np``)."""
    namespace = _sys.modules["wsarray"]
    if api_version is not None and api_version not in namespace._SUPPORTED_API_VERSIONS:
        raise ValueError(f"{type(self).__name__}.__array_namespace__(): unsupported api_version {api_version!r}")
    return namespace


def _init_subclass(cls, **kwargs):
    translate_overrides(cls)  # the overrides it defines see wsarray's names (wsarray/_numpy/protocols.py)
    for name in _NUMPY_DEFAULTS:
        if getattr(cls, name) is getattr(ndarray, name):
            setattr(cls, name, vars(_numpy.ndarray)[name])
    if cls.__array_namespace__ is ndarray.__array_namespace__:
        cls.__array_namespace__ = _array_namespace
    # wsarray's arrays have a high __array_priority__ (NumPy's binary operators defer to them); a
    # subclass that sets none has NumPy's, 0.0, so that NumPy picks result types for it as for any
    # plain ndarray subclass (np.concatenate of two gives a plain array, as NumPy's does).
    for klass in cls.__mro__:
        if klass is ndarray:
            cls.__array_priority__ = 0.0
            break
        if "__array_priority__" in vars(klass):
            break
    super(ndarray, cls).__init_subclass__(**kwargs)


ndarray.__init_subclass__ = classmethod(_init_subclass)


def _refresh_numpy_subclasses():
    """The core put wsarray.Array into numpy.ndarray's MRO (isinstance(numpy_array,
    wsarray.ndarray)): NumPy's subclasses made before (np.ma.MaskedArray, np.matrix, np.memmap,
    other libraries' classes) compute theirs again, as classes made later do from the start."""
    seen, todo = set(), list(type.__subclasses__(_numpy.ndarray))
    while todo:
        cls = todo.pop()
        if cls in seen or issubclass(cls, ndarray) and ndarray in cls.__mro__[: cls.__mro__.index(_numpy.ndarray)]:
            continue  # wsarray's own subclasses: Array already comes before ndarray
        seen.add(cls)
        todo.extend(type.__subclasses__(cls))
        if ndarray not in cls.__mro__:
            try:
                cls.__bases__ = cls.__bases__  # recomputes the MRO
            except TypeError:  # a static type or an order C3 cannot make: left as it is
                pass


_refresh_numpy_subclasses()
