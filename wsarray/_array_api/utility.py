"""Utility functions of the array API standard: ``all``, ``any``, ``diff``."""

import numpy as _np

from .._annotations import array_function as _F

__all__ = ["all", "any", "diff"]

all = _F(_np.all, "all")  # noqa: A001
any = _F(_np.any, "any")  # noqa: A001
diff = _F(_np.diff, "diff")
