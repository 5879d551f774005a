"""Statistical functions of the array API standard (reductions)."""

import numpy as _np

from .._annotations import array_function as _F

__all__ = ["cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum", "var"]

cumulative_prod = _F(_np.cumulative_prod, "cumulative_prod")
cumulative_sum = _F(_np.cumulative_sum, "cumulative_sum")
max = _F(_np.max, "max")  # noqa: A001
mean = _F(_np.mean, "mean")
min = _F(_np.min, "min")  # noqa: A001
prod = _F(_np.prod, "prod")
std = _F(_np.std, "std")
sum = _F(_np.sum, "sum")  # noqa: A001
var = _F(_np.var, "var")
