"""``wsarray.ndarray``: the name NumPy programs use in isinstance checks, subclass and call.

* ``isinstance(x, wsarray.ndarray)`` is true for wsarray arrays and for NumPy arrays, and false for
  scalar results (a 0-d ``Array`` standing for ``np.float64`` & co, as NumPy scalars are no
  ndarrays);
* ``class Named(wsarray.ndarray)`` makes a NumPy ndarray subclass, as with NumPy
  (``wsarray.asarray(x).view(Named)`` gives NumPy's subclass instance, a view over the array);
* ``wsarray.ndarray(shape, dtype)`` makes a wsarray array in the current workspace.

``type(x) is wsarray.ndarray`` is false for wsarray arrays (their type is ``wsarray.Array``);
``isinstance(x, numpy.ndarray)`` holds for them as well (``Array.__class__``, README).
"""

import numpy as _np

from .._core import Array as _Array
from .._core import Function as _F

__all__ = ["ndarray"]

_new_ndarray = _F(_np.ndarray, "ndarray")


def _is_array(obj):
    if isinstance(obj, _np.ndarray):
        return True
    # A scalar result reports NumPy's scalar type as __class__ (see Array.__class__).
    return type(obj) is _Array and not issubclass(obj.__class__, _np.generic)


class _NdarrayType(type):
    """Metaclass of wsarray.ndarray: isinstance/issubclass accept wsarray.Array and numpy.ndarray."""

    def __instancecheck__(cls, obj):
        if cls is ndarray:
            return _is_array(obj)
        return type.__instancecheck__(cls, obj)

    def __subclasscheck__(cls, sub):
        if cls is ndarray:
            return isinstance(sub, type) and issubclass(sub, (_Array, _np.ndarray))
        return type.__subclasscheck__(cls, sub)


class ndarray(_np.ndarray, metaclass=_NdarrayType):  # noqa: N801  (NumPy's name)
    """NumPy's ndarray as wsarray programs see it (see the module docstring)."""

    def __new__(cls, *args, **kwargs):
        if cls is ndarray:
            return _new_ndarray(*args, **kwargs)
        return super().__new__(cls, *args, **kwargs)
