"""Statistics beyond the standard (NumPy's reference: Statistics)."""

import numpy as _np

from ._routing import numpy_function as _F

__all__ = [
    "amax", "amin", "average", "bincount", "corrcoef", "correlate", "cov", "digitize",
    "histogram", "histogram2d", "histogram_bin_edges", "histogramdd", "median", "nanmax",
    "nanmean", "nanmedian", "nanmin", "nanpercentile", "nanquantile", "nanstd", "nanvar",
    "percentile", "ptp", "quantile"
]

# Routed: NumPy runs with its allocations in the current workspace; NumPy's scalars come back.
amax = _F(_np.amax, "amax")
amin = _F(_np.amin, "amin")
average = _F(_np.average, "average")
bincount = _F(_np.bincount, "bincount")
corrcoef = _F(_np.corrcoef, "corrcoef")
correlate = _F(_np.correlate, "correlate")
cov = _F(_np.cov, "cov")
digitize = _F(_np.digitize, "digitize")
histogram = _F(_np.histogram, "histogram")
histogram2d = _F(_np.histogram2d, "histogram2d")
histogram_bin_edges = _F(_np.histogram_bin_edges, "histogram_bin_edges")
histogramdd = _F(_np.histogramdd, "histogramdd")
median = _F(_np.median, "median")
nanmax = _F(_np.nanmax, "nanmax")
nanmean = _F(_np.nanmean, "nanmean")
nanmedian = _F(_np.nanmedian, "nanmedian")
nanmin = _F(_np.nanmin, "nanmin")
nanpercentile = _F(_np.nanpercentile, "nanpercentile")
nanquantile = _F(_np.nanquantile, "nanquantile")
nanstd = _F(_np.nanstd, "nanstd")
nanvar = _F(_np.nanvar, "nanvar")
percentile = _F(_np.percentile, "percentile")
ptp = _F(_np.ptp, "ptp")
quantile = _F(_np.quantile, "quantile")
