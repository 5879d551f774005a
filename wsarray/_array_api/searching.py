"""Searching functions of the array API standard."""

import numpy as _np

from .._annotations import array_function as _F
from .._annotations import numpy_typed as _N

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]

argmax = _F(_np.argmax, "argmax")
argmin = _F(_np.argmin, "argmin")
count_nonzero = _F(_np.count_nonzero, "count_nonzero")
nonzero = _N(_np.nonzero, "nonzero")
searchsorted = _F(_np.searchsorted, "searchsorted")
where = _F(_np.where, "where")
