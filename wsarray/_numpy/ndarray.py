"""``wsarray.ndarray``: the name NumPy programs use in isinstance checks, subclass and call. It is
``wsarray.Array`` itself, the class of every array wsarray returns (a subclass of ``numpy.ndarray``):

* ``type(x) is wsarray.ndarray`` for wsarray's arrays (type-keyed tables, ``type(x) is np.ndarray``);
* ``isinstance(x, wsarray.ndarray)`` for them and for NumPy's arrays (its metaclass answers as
  ``numpy.ndarray`` would), and not for NumPy's scalars;
* ``class Named(wsarray.ndarray)`` makes a NumPy ndarray subclass, as with NumPy
  (``wsarray.asarray(x).view(Named)`` gives NumPy's subclass instance, a view over the array);
* ``wsarray.ndarray(shape, dtype)`` makes a wsarray array in the current workspace.
"""

from .._native import Array as ndarray  # noqa: N813  (NumPy's name)

__all__ = ["ndarray"]
