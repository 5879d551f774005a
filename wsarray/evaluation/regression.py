"""``RegressionEvaluation``: MSE, MAE, RMSE, relative squared error, R² and Pearson correlation per
column over a stream, from moments merged batch by batch (Chan et al.'s pairwise update: no
catastrophic cancellation, and ``merge`` of two streams gives what one stream would)."""

import math
import warnings

import numpy

from ._inputs import EvaluationError, EvaluationWarning, scores_batch, warn
from ._metric import Metric, unrouted

__all__ = ["RegressionEvaluation"]

# Rows of the state: means of labels and predictions, their sums of squared deviations, the
# co-moment, the sums of squared and absolute errors.
_MEAN_Y, _MEAN_P, _M2_Y, _M2_P, _C_YP, _SSE, _SAE = range(7)


class RegressionEvaluation(Metric):
    """Regression metrics per column (Deeplearning4j's RegressionEvaluation). ``columns``: fixed up
    front or taken from the first batch; ``names``: column names for ``stats()``. Labels and
    predictions (n,), (n, columns) or (batch, columns, time) with a (batch, time) mask. Each score
    takes ``column`` (None: the mean over the columns, Deeplearning4j's averages)."""

    _size_setting = "columns"

    def __init__(self, columns=None, *, names=None):
        if columns is not None and (not isinstance(columns, (int, numpy.integer)) or columns < 1):
            raise ValueError(f"RegressionEvaluation: columns must be a positive integer (or None), not {columns!r}")
        self._columns = None if columns is None else int(columns)
        self.names = None if names is None else [str(x) for x in names]
        if self.names is not None and self._columns is not None and len(self.names) != self._columns:
            raise ValueError(f"RegressionEvaluation: {len(self.names)} names for {self._columns} columns")
        self._moments = None  # (7, columns) float64
        self._count = None  # (1,) int64
        if self._columns is not None:
            self._allocate(self._columns)

    def _allocate(self, k):
        self._columns = k
        self._moments = numpy.zeros((7, k))
        self._count = numpy.zeros(1, dtype=numpy.int64)

    def _settings(self):
        return {"columns": self._columns}

    def _accumulate(self, labels, predictions, mask, where):
        y, p = scores_batch(labels, predictions, mask, self._columns, where)
        if self.names is not None and len(self.names) != y.shape[1]:
            raise EvaluationError(f"{where}: {len(self.names)} names, the predictions have {y.shape[1]} columns")
        if self._moments is None:
            unrouted(self._allocate, y.shape[1])
        nb = y.shape[0]
        if nb == 0:
            return
        mean_y, mean_p = y.mean(axis=0), p.mean(axis=0)
        dy, dp = y - mean_y, p - mean_p
        err = y - p
        batch = numpy.stack([mean_y, mean_p, numpy.einsum("ij,ij->j", dy, dy), numpy.einsum("ij,ij->j", dp, dp),
                             numpy.einsum("ij,ij->j", dy, dp), numpy.einsum("ij,ij->j", err, err),
                             numpy.abs(err).sum(axis=0)])
        self._combine(batch, nb)

    def _combine(self, batch, nb):
        """Chan's update of the state with another set of moments over ``nb`` rows (in place)."""
        m, na = self._moments, int(self._count[0])
        n = na + nb
        delta_y = batch[_MEAN_Y] - m[_MEAN_Y]
        delta_p = batch[_MEAN_P] - m[_MEAN_P]
        weight = na * nb / n
        m[_M2_Y] += batch[_M2_Y] + delta_y * delta_y * weight
        m[_M2_P] += batch[_M2_P] + delta_p * delta_p * weight
        m[_C_YP] += batch[_C_YP] + delta_y * delta_p * weight
        m[_MEAN_Y] += delta_y * (nb / n)
        m[_MEAN_P] += delta_p * (nb / n)
        m[_SSE] += batch[_SSE]
        m[_SAE] += batch[_SAE]
        self._count[0] = n

    def _merge_state(self, other):
        if other._moments is None:
            return
        if self._moments is None:
            self._allocate(other._columns)
        if other._count[0]:
            self._combine(other._moments, int(other._count[0]))

    def _clear(self):
        if self._moments is not None:
            self._moments[...] = 0
            self._count[...] = 0

    @property
    def num_columns(self):
        return self._columns

    @property
    def num_samples(self):
        return 0 if self._count is None else int(self._count[0])

    def _values(self, what, column, fn):
        if self._moments is None:
            raise EvaluationError(f"RegressionEvaluation.{what}: no batch has been evaluated yet")
        if column is not None and (not isinstance(column, (int, numpy.integer)) or not 0 <= column < self._columns):
            raise ValueError(f"RegressionEvaluation.{what}: column must be in [0, {self._columns}), not {column!r}")
        n = int(self._count[0])
        if n == 0:
            warn(f"RegressionEvaluation.{what}: no rows were evaluated")
            return math.nan
        values = fn(self._moments, n)
        return float(values.mean() if column is None else values[column])

    def mean_squared_error(self, column=None):
        return self._values("mean_squared_error", column, lambda m, n: m[_SSE] / n)

    def mean_absolute_error(self, column=None):
        return self._values("mean_absolute_error", column, lambda m, n: m[_SAE] / n)

    def root_mean_squared_error(self, column=None):
        return self._values("root_mean_squared_error", column, lambda m, n: numpy.sqrt(m[_SSE] / n))

    def relative_squared_error(self, column=None):
        """Sum of squared errors over the labels' sum of squared deviations (inf for constant labels
        with errors, nan when both are 0)."""
        def rse(m, n):
            with numpy.errstate(divide="ignore", invalid="ignore"):
                return m[_SSE] / m[_M2_Y]
        return self._values("relative_squared_error", column, rse)

    def r_squared(self, column=None):
        """Coefficient of determination as scikit-learn's r2_score: for constant labels 1.0 if the
        predictions are perfect, else 0.0."""
        def r2(m, n):
            constant = m[_M2_Y] == 0
            out = numpy.where(m[_SSE] == 0, 1.0, 0.0)
            numpy.subtract(1.0, m[_SSE] / numpy.where(constant, 1.0, m[_M2_Y]), out=out, where=~constant)
            return out
        return self._values("r_squared", column, r2)

    def pearson_correlation(self, column=None):
        """Pearson correlation of labels and predictions (nan when either is constant)."""
        def pearson(m, n):
            with numpy.errstate(divide="ignore", invalid="ignore"):
                return m[_C_YP] / numpy.sqrt(m[_M2_Y] * m[_M2_P])
        return self._values("pearson_correlation", column, pearson)

    def _headline(self):
        return {"mse": self.mean_squared_error, "r2": self.r_squared}

    def stats(self):
        """A text report: one row per column."""
        if self._moments is None:
            raise EvaluationError("RegressionEvaluation.stats: no batch has been evaluated yet")
        header = f"{'column':<12}{'MSE':>12}{'MAE':>12}{'RMSE':>12}{'RSE':>12}{'R^2':>12}{'PC':>12}"
        lines = ["", f"RegressionEvaluation: {self.num_samples} rows", header]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EvaluationWarning)
            for c in range(self._columns):
                name = self.names[c] if self.names else str(c)
                values = (self.mean_squared_error(c), self.mean_absolute_error(c), self.root_mean_squared_error(c),
                          self.relative_squared_error(c), self.r_squared(c), self.pearson_correlation(c))
                lines.append(f"{name:<12}" + "".join(f"{v:>12.5g}" for v in values))
        return "\n".join(lines)
