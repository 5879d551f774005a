"""Utility functions: ``all``, ``any``, ``diff`` and NumPy's comparisons of whole arrays."""
import numpy as _np

from ._core import Function as _F

__all__ = ["all", "allclose", "any", "array_equal", "diff", "isclose"]

all = _F(_np.all, "all")  # noqa: A001
allclose = _F(_np.allclose, "allclose")
any = _F(_np.any, "any")  # noqa: A001
array_equal = _F(_np.array_equal, "array_equal")
diff = _F(_np.diff, "diff")
isclose = _F(_np.isclose, "isclose")
