"""``EvaluationCalibration``: how well predicted probabilities match outcomes (Deeplearning4j's
EvaluationCalibration): the reliability diagram per class, histograms of the residuals
|label - probability| and of the probabilities, and the expected calibration error. State is a few
fixed count and sum arrays per class."""

import math

import numpy

from ._inputs import EvaluationError, classification_batch, warn
from ._metric import Metric, unrouted

__all__ = ["EvaluationCalibration"]


class EvaluationCalibration(Metric):
    """Calibration of a classifier's probabilities. ``reliability_bins`` equal bins of [0, 1] for the
    reliability diagram (a probability on an edge goes to the lower bin, as scikit-learn's
    calibration_curve bins it); ``histogram_bins`` for the histograms. Predictions must be
    probabilities in [0, 1], (n, classes) or (n,) for a binary output."""

    _size_setting = "num_classes"

    def __init__(self, num_classes=None, *, reliability_bins=10, histogram_bins=50):
        for name, value in (("reliability_bins", reliability_bins), ("histogram_bins", histogram_bins)):
            if not isinstance(value, (int, numpy.integer)) or value < 1:
                raise ValueError(f"EvaluationCalibration: {name} must be a positive integer, not {value!r}")
        if num_classes is not None and (not isinstance(num_classes, (int, numpy.integer)) or num_classes < 2):
            raise ValueError("EvaluationCalibration: num_classes must be an integer >= 2 (or None), "
                             f"not {num_classes!r}")
        self.reliability_bins = int(reliability_bins)
        self.histogram_bins = int(histogram_bins)
        self._classes = None if num_classes is None else int(num_classes)
        self._edges = numpy.linspace(0.0, 1.0, self.reliability_bins + 1)
        self._reliability = None  # (3, classes, bins): rows, sum of probabilities, positives
        self._histograms = None  # (3, classes, histogram_bins): residuals, probabilities, of the true class
        if self._classes is not None:
            self._allocate(self._classes)

    def _allocate(self, k):
        self._classes = k
        self._reliability = numpy.zeros((3, k, self.reliability_bins))
        self._histograms = numpy.zeros((3, k, self.histogram_bins), dtype=numpy.int64)

    def _settings(self):
        return {"num_classes": self._classes, "reliability_bins": self.reliability_bins,
                "histogram_bins": self.histogram_bins}

    def _accumulate(self, labels, predictions, mask, where):
        batch, k = classification_batch(labels, predictions, mask, self._classes, where)
        p = batch.scores
        if p.size and (p.min() < 0 or p.max() > 1):
            raise EvaluationError(f"{where}: calibration needs probabilities in [0, 1], found "
                                  f"{float(p.min())}..{float(p.max())}")
        if self._reliability is None:
            unrouted(self._allocate, k)
        n, bins, hbins = p.shape[0], self.reliability_bins, self.histogram_bins
        positive = batch.labels[:, None] == numpy.arange(k)
        column = numpy.arange(k) * bins
        cell = (numpy.searchsorted(self._edges[1:-1], p) + column).reshape(-1)
        size = k * bins
        self._reliability[0].reshape(-1)[:] += numpy.bincount(cell, minlength=size)
        self._reliability[1].reshape(-1)[:] += numpy.bincount(cell, weights=p.reshape(-1), minlength=size)
        self._reliability[2].reshape(-1)[:] += numpy.bincount(cell, weights=positive.reshape(-1), minlength=size)
        hcolumn = numpy.arange(k) * hbins
        hsize = k * hbins
        residual = numpy.abs(positive - p)
        for row, values in ((0, residual), (1, p)):
            at = numpy.minimum((values * hbins).astype(numpy.int64), hbins - 1) + hcolumn
            self._histograms[row].reshape(-1)[:] += numpy.bincount(at.reshape(-1), minlength=hsize)
        if n:
            true_p = numpy.take_along_axis(p, batch.labels[:, None], axis=1)[:, 0]
            at = numpy.minimum((true_p * hbins).astype(numpy.int64), hbins - 1) + batch.labels * hbins
            self._histograms[2].reshape(-1)[:] += numpy.bincount(at, minlength=hsize)

    def _merge_state(self, other):
        if other._reliability is None:
            return
        if self._reliability is None:
            self._allocate(other._classes)
        self._reliability += other._reliability
        self._histograms += other._histograms

    def _clear(self):
        if self._reliability is not None:
            self._reliability[...] = 0
            self._histograms[...] = 0

    @property
    def num_classes(self):
        return self._classes

    def _need(self, what, cls):
        if self._reliability is None:
            raise EvaluationError(f"EvaluationCalibration.{what}: no batch has been evaluated yet")
        if cls is not None and (not isinstance(cls, (int, numpy.integer)) or not 0 <= cls < self._classes):
            raise ValueError(f"EvaluationCalibration.{what}: cls must be in [0, {self._classes}), not {cls!r}")

    def reliability_diagram(self, cls):
        """(fraction of positives, mean predicted probability, rows) of the non-empty bins of class
        ``cls``: the first two are scikit-learn's calibration_curve(y == cls, p[:, cls])."""
        self._need("reliability_diagram", cls)
        rows, sums, positives = self._reliability[:, cls]
        used = rows > 0
        return positives[used] / rows[used], sums[used] / rows[used], rows[used].astype(numpy.int64)

    def expected_calibration_error(self, cls=None):
        """Sum over bins of |fraction positive - mean probability| weighted by the bin's rows: of class
        ``cls``, or over every class's probabilities (``None``)."""
        self._need("expected_calibration_error", cls)
        rows, sums, positives = self._reliability if cls is None else self._reliability[:, cls:cls + 1]
        total = rows.sum()
        if total == 0:
            warn("EvaluationCalibration.expected_calibration_error: no rows")
            return math.nan
        return float(numpy.abs(positives - sums).sum() / total)

    def _histogram(self, row, what, cls):
        self._need(what, cls)
        counts = self._histograms[row]
        counts = counts.sum(axis=0) if cls is None else counts[cls].copy()
        return counts, numpy.linspace(0.0, 1.0, self.histogram_bins + 1)

    def residual_histogram(self, cls=None):
        """(counts, edges) of |label - probability| over every class's entries, or of class ``cls``."""
        return self._histogram(0, "residual_histogram", cls)

    def probability_histogram(self, cls=None):
        """(counts, edges) of the predicted probabilities, of every class or of class ``cls``."""
        return self._histogram(1, "probability_histogram", cls)

    def true_class_probability_histogram(self, cls=None):
        """(counts, edges) of the probability given to each row's actual class (rows of class ``cls``,
        or all)."""
        return self._histogram(2, "true_class_probability_histogram", cls)

    def _headline(self):
        return {"ece": self.expected_calibration_error}

    def stats(self):
        """A text report: the expected calibration error and the reliability diagram of each class."""
        self._need("stats", None)
        lines = ["", f"EvaluationCalibration: {self._classes} classes, {self.reliability_bins} bins",
                 f"Expected calibration error: {self.expected_calibration_error():.4f}"]
        for c in range(self._classes):
            fraction, mean, rows = self.reliability_diagram(c)
            points = ", ".join(f"{m:.2f}->{f:.2f} ({r})" for f, m, r in zip(fraction, mean, rows))
            lines.append(f"class {c}: ECE {self.expected_calibration_error(c):.4f}; predicted->actual (rows): {points}")
        return "\n".join(lines)

    def plot(self, classes=None, ax=None):
        """Draw the reliability diagram of ``classes`` (default: all) (the ``[plot]`` extra)."""
        from ._plots import plot_calibration
        self._need("plot", None)
        return plot_calibration(self, range(self._classes) if classes is None else classes, ax=ax)
