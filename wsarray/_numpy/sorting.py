"""Sorting, searching and counting beyond the standard (NumPy's reference)."""

import numpy as _np

from ._routing import numpy_function as _F

__all__ = [
    "argpartition", "argwhere", "extract", "flatnonzero", "lexsort", "nanargmax", "nanargmin",
    "partition", "sort_complex"
]

# Routed: NumPy runs with its allocations in the current workspace; NumPy's scalars come back.
argpartition = _F(_np.argpartition, "argpartition")
argwhere = _F(_np.argwhere, "argwhere")
extract = _F(_np.extract, "extract")
flatnonzero = _F(_np.flatnonzero, "flatnonzero")
lexsort = _F(_np.lexsort, "lexsort")
nanargmax = _F(_np.nanargmax, "nanargmax")
nanargmin = _F(_np.nanargmin, "nanargmin")
partition = _F(_np.partition, "partition")
sort_complex = _F(_np.sort_complex, "sort_complex")
