"""NumPy's ndarray subclasses and their modules (``ma``, ``matrix``, ``memmap``, ``recarray``,
``rec``): NumPy's own classes. Their arrays live in NumPy's memory; a wsarray function given one
calls NumPy without routing into a workspace, so it returns NumPy's subclass as NumPy does (such
arrays are never checked for staleness: they never hold workspace memory)."""

import numpy as _np


__all__ = [
    "asmatrix", "bmat", "ma", "matrix", "memmap", "rec", "recarray", "record"
]


# NumPy's own objects: they hold no workspace memory.
asmatrix = _np.asmatrix
bmat = _np.bmat
ma = _np.ma
matrix = _np.matrix
memmap = _np.memmap
rec = _np.rec
recarray = _np.recarray
record = _np.record
