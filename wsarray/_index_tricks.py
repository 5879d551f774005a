"""NumPy's index-notation builders ``r_``, ``c_``, ``mgrid`` and ``ogrid`` with wsarray results.

``np.r_[a, 0, 1:4]`` indexes NumPy's object with the key (wsarray arrays in it unwrapped) through
the engine, so the concatenated or grid arrays are allocated in the current workspace.
``s_`` and ``index_exp`` build plain index tuples and are NumPy's own (see _numpy_extras.py).
"""

import numpy as _np

from ._core import Function as _F

__all__ = ["c_", "mgrid", "ogrid", "r_"]


class _IndexBuilder:
    """An object used with ``[...]`` whose result NumPy's ``name`` object computes, routed."""

    __slots__ = ("_getitem", "_name")

    def __init__(self, numpy_object, name):
        self._getitem = _F(numpy_object.__getitem__, name)
        self._name = name

    def __getitem__(self, key):
        return self._getitem(key)

    def __repr__(self):
        return f"<wsarray index builder {self._name}[...]>"


r_ = _IndexBuilder(_np.r_, "r_")
c_ = _IndexBuilder(_np.c_, "c_")
mgrid = _IndexBuilder(_np.mgrid, "mgrid")
ogrid = _IndexBuilder(_np.ogrid, "ogrid")
