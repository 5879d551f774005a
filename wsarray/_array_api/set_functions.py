"""Set functions of the array API standard: ``isin`` and the ``unique_*`` family (NumPy's
``unique`` is in wsarray/_numpy/sets.py)."""

import numpy as _np

from .._annotations import array_function as _F
from .._annotations import numpy_typed as _N
from ._impl import sets as _impl

__all__ = [
    "isin", "unique_all", "unique_counts", "unique_inverse", "unique_values"
]

isin = _F(_np.isin, "isin")
unique_all = _N(_np.unique_all, "unique_all")
unique_counts = _N(_np.unique_counts, "unique_counts")
unique_inverse = _N(_np.unique_inverse, "unique_inverse")
unique_values = _F(_impl.unique_values, "unique_values")
