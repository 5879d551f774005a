"""Reductions and statistics."""

import numpy as _np

from ._core import Function as _F

__all__ = [
    "amax",
    "amin",
    "argmax",
    "argmin",
    "average",
    "cumprod",
    "cumsum",
    "cumulative_prod",
    "cumulative_sum",
    "max",
    "mean",
    "median",
    "min",
    "nanmax",
    "nanmean",
    "nanmin",
    "nanstd",
    "nansum",
    "nanvar",
    "percentile",
    "prod",
    "ptp",
    "quantile",
    "std",
    "sum",
    "var",
]

amax = _F(_np.amax, "amax")
amin = _F(_np.amin, "amin")
argmax = _F(_np.argmax, "argmax")
argmin = _F(_np.argmin, "argmin")
average = _F(_np.average, "average")
cumprod = _F(_np.cumprod, "cumprod")
cumsum = _F(_np.cumsum, "cumsum")
cumulative_prod = _F(_np.cumulative_prod, "cumulative_prod")
cumulative_sum = _F(_np.cumulative_sum, "cumulative_sum")
max = _F(_np.max, "max")  # noqa: A001
mean = _F(_np.mean, "mean")
median = _F(_np.median, "median")
min = _F(_np.min, "min")  # noqa: A001
nanmax = _F(_np.nanmax, "nanmax")
nanmean = _F(_np.nanmean, "nanmean")
nanmin = _F(_np.nanmin, "nanmin")
nanstd = _F(_np.nanstd, "nanstd")
nansum = _F(_np.nansum, "nansum")
nanvar = _F(_np.nanvar, "nanvar")
percentile = _F(_np.percentile, "percentile")
prod = _F(_np.prod, "prod")
ptp = _F(_np.ptp, "ptp")
quantile = _F(_np.quantile, "quantile")
std = _F(_np.std, "std")
sum = _F(_np.sum, "sum")  # noqa: A001
var = _F(_np.var, "var")
