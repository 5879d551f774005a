"""Set routines beyond the standard (NumPy's reference: Set routines)."""

import numpy as _np

from ._routing import numpy_function as _F

__all__ = [
    "intersect1d", "setdiff1d", "setxor1d", "union1d", "unique"
]

# Routed: NumPy runs with its allocations in the current workspace; NumPy's scalars come back.
intersect1d = _F(_np.intersect1d, "intersect1d")
setdiff1d = _F(_np.setdiff1d, "setdiff1d")
setxor1d = _F(_np.setxor1d, "setxor1d")
union1d = _F(_np.union1d, "union1d")
unique = _F(_np.unique, "unique")
