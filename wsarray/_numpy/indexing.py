"""Indexing routines beyond the standard (NumPy's reference: Indexing routines).

NumPy's index-notation builders ``r_``, ``c_``, ``mgrid`` and ``ogrid``: ``np.r_[a, 0, 1:4]`` indexes
NumPy's object with the key (wsarray arrays in it unwrapped) through the engine, so the concatenated
or grid arrays are allocated in the current workspace. ``s_`` and ``index_exp`` build plain index
tuples and are NumPy's own.
"""

import numpy as _np

from .._native import Function as _Function
from ._routing import numpy_function as _F

__all__ = [
    "choose", "compress", "diag_indices", "diag_indices_from", "diagonal", "fill_diagonal",
    "flatiter", "index_exp", "indices", "ix_", "mask_indices", "ndenumerate", "ndindex",
    "nditer", "nested_iters", "place", "put", "put_along_axis", "putmask", "ravel_multi_index",
    "s_", "select", "tril_indices", "tril_indices_from", "triu_indices", "triu_indices_from",
    "unravel_index", "c_", "mgrid", "ogrid", "r_"
]

# Routed: NumPy runs with its allocations in the current workspace; NumPy's scalars come back.
choose = _F(_np.choose, "choose")
compress = _F(_np.compress, "compress")
diag_indices = _F(_np.diag_indices, "diag_indices")
diag_indices_from = _F(_np.diag_indices_from, "diag_indices_from")
diagonal = _F(_np.diagonal, "diagonal")
fill_diagonal = _F(_np.fill_diagonal, "fill_diagonal")
indices = _F(_np.indices, "indices")
ix_ = _F(_np.ix_, "ix_")
mask_indices = _F(_np.mask_indices, "mask_indices")
place = _F(_np.place, "place")
put = _F(_np.put, "put")
put_along_axis = _F(_np.put_along_axis, "put_along_axis")
putmask = _F(_np.putmask, "putmask")
ravel_multi_index = _F(_np.ravel_multi_index, "ravel_multi_index")
select = _F(_np.select, "select")
tril_indices = _F(_np.tril_indices, "tril_indices")
tril_indices_from = _F(_np.tril_indices_from, "tril_indices_from")
triu_indices = _F(_np.triu_indices, "triu_indices")
triu_indices_from = _F(_np.triu_indices_from, "triu_indices_from")
unravel_index = _F(_np.unravel_index, "unravel_index")

# NumPy's own objects: they hold no workspace memory.
flatiter = _np.flatiter
index_exp = _np.index_exp
ndenumerate = _np.ndenumerate
ndindex = _np.ndindex
nditer = _np.nditer
nested_iters = _np.nested_iters
s_ = _np.s_


class _IndexBuilder:
    """An object used with ``[...]`` whose result NumPy's ``name`` object computes, routed."""

    __slots__ = ("_getitem", "_name")

    def __init__(self, numpy_object, name):
        self._getitem = _Function(numpy_object.__getitem__, name)
        self._name = name

    def __getitem__(self, key):
        return self._getitem(key)

    def __repr__(self):
        return f"<wsarray index builder {self._name}[...]>"


r_ = _IndexBuilder(_np.r_, "r_")
c_ = _IndexBuilder(_np.c_, "c_")
mgrid = _IndexBuilder(_np.mgrid, "mgrid")
ogrid = _IndexBuilder(_np.ogrid, "ogrid")
