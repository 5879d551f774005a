"""Searching, sorting, sets and logical utilities."""

import numpy as _np

from ._core import Function as _F

__all__ = ["all", "allclose", "any", "argsort", "array_equal", "count_nonzero", "diff", "isclose",
           "nonzero", "searchsorted", "sort", "unique", "unique_all", "unique_counts",
           "unique_inverse", "unique_values", "where"]

all = _F(_np.all, "all")  # noqa: A001
allclose = _F(_np.allclose, "allclose")
any = _F(_np.any, "any")  # noqa: A001
argsort = _F(_np.argsort, "argsort")
array_equal = _F(_np.array_equal, "array_equal")
count_nonzero = _F(_np.count_nonzero, "count_nonzero")
diff = _F(_np.diff, "diff")
isclose = _F(_np.isclose, "isclose")
nonzero = _F(_np.nonzero, "nonzero")
searchsorted = _F(_np.searchsorted, "searchsorted")
sort = _F(_np.sort, "sort")
unique = _F(_np.unique, "unique")
unique_all = _F(_np.unique_all, "unique_all")
unique_counts = _F(_np.unique_counts, "unique_counts")
unique_inverse = _F(_np.unique_inverse, "unique_inverse")
unique_values = _F(_np.unique_values, "unique_values")
where = _F(_np.where, "where")
