"""Searching: ``nonzero``, ``where``, ``searchsorted``, ``count_nonzero`` (``argmax``/``argmin``
live with the reductions in _statistical_functions)."""
import numpy as _np

from ._core import Function as _F

__all__ = ["count_nonzero", "nonzero", "searchsorted", "where"]


count_nonzero = _F(_np.count_nonzero, "count_nonzero")
nonzero = _F(_np.nonzero, "nonzero")
searchsorted = _F(_np.searchsorted, "searchsorted")
where = _F(_np.where, "where")
