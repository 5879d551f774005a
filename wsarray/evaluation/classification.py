"""``Evaluation`` (single-label classification: a confusion matrix and what follows from it) and
``EvaluationBinary`` (multi-label outputs, each a binary decision), Deeplearning4j's metrics with
scikit-learn's definitions.

State is a few integer counters allocated once (the (C, C) confusion matrix, the top-N count;
per-output tp/fp/tn/fn), so a long evaluation holds no per-sample memory. Undefined ratios (a class
never predicted, never present) follow ``zero_division`` as scikit-learn's do: by default 0 with an
EvaluationWarning.
"""

import math
import warnings

import numpy

from ._inputs import EvaluationError, EvaluationWarning, classification_batch, multilabel_batch, warn
from ._metric import Metric, unrouted

__all__ = ["Evaluation", "EvaluationBinary"]

_AVERAGES = ("macro", "micro", "weighted")


def _zero_division_value(zero_division, where):
    if isinstance(zero_division, str):
        if zero_division != "warn":
            raise ValueError(f"{where}: zero_division must be 'warn', 0, 1 or nan, not {zero_division!r}")
        return 0.0
    value = float(zero_division)
    if not (value in (0.0, 1.0) or math.isnan(value)):
        raise ValueError(f"{where}: zero_division must be 'warn', 0, 1 or nan, not {zero_division!r}")
    return value


def _ratio(numerator, denominator, zero_division, what, undefined_because):
    """numerator / denominator elementwise; where the denominator is 0, ``zero_division``'s value
    (and a warning naming the entries, for 'warn')."""
    numerator = numpy.asarray(numerator, dtype=numpy.float64)
    denominator = numpy.asarray(denominator, dtype=numpy.float64)
    zero = denominator == 0
    out = numpy.divide(numerator, denominator, out=numpy.zeros(numerator.shape), where=~zero)
    if zero.any():
        out[zero] = _zero_division_value(zero_division, what)
        if isinstance(zero_division, str):
            which = numpy.flatnonzero(zero).tolist() if zero.ndim else []
            named = f" (classes {which})" if which else ""
            warn(f"{what} is ill-defined and set to 0.0{named}: {undefined_because}. Use zero_division "
                          "to choose the value")
    return out


def _check_average(average, where):
    if average not in _AVERAGES:
        raise ValueError(f"{where}: average must be one of {_AVERAGES} (or cls= for one class), not {average!r}")


class Evaluation(Metric):
    """Single-label classification metrics over a stream of batches (Deeplearning4j's Evaluation).

    ``num_classes``: fixed up front, or taken from the first batch's predictions. ``top_n``: the
    top-N accuracy's N. ``binary_decision_threshold``: with two classes, predict class 1 when its
    score is above it (instead of the larger score). ``cost_array``: predict the class with the
    largest ``score * cost``. ``labels``: class names for ``stats()``. ``zero_division``: the value of
    a ratio whose denominator is 0 ('warn': 0 with an EvaluationWarning; 0, 1 or nan).
    Averages: ``macro`` (the mean over all ``num_classes`` classes, as scikit-learn with
    ``labels=range(num_classes)``), ``micro`` (from the summed counts), ``weighted`` (by support).
    """

    _size_setting = "num_classes"

    def __init__(self, num_classes=None, *, top_n=1, binary_decision_threshold=None, cost_array=None, labels=None,
                 zero_division="warn"):
        where = "Evaluation"
        if num_classes is not None and (not isinstance(num_classes, (int, numpy.integer)) or num_classes < 2):
            raise ValueError(f"{where}: num_classes must be an integer >= 2 (or None), not {num_classes!r}")
        if not isinstance(top_n, (int, numpy.integer)) or top_n < 1:
            raise ValueError(f"{where}: top_n must be a positive integer, not {top_n!r}")
        if binary_decision_threshold is not None:
            binary_decision_threshold = float(binary_decision_threshold)
            if not math.isfinite(binary_decision_threshold):
                raise ValueError(f"{where}: binary_decision_threshold must be a finite number, not "
                                 f"{binary_decision_threshold!r}")
            if num_classes not in (None, 2):
                raise ValueError(f"{where}: binary_decision_threshold needs 2 classes, not {num_classes}")
            if cost_array is not None:
                raise ValueError(f"{where}: give binary_decision_threshold or cost_array, not both")
        if cost_array is not None:
            cost_array = numpy.array(cost_array, dtype=numpy.float64)
            if cost_array.ndim != 1 or (num_classes is not None and cost_array.shape[0] != num_classes):
                raise ValueError(f"{where}: cost_array must have one entry per class, not shape {cost_array.shape}")
            if not numpy.all(numpy.isfinite(cost_array)) or (cost_array < 0).any():
                raise ValueError(f"{where}: cost_array entries must be finite and >= 0")
        if labels is not None:
            labels = [str(x) for x in labels]
            if num_classes is not None and len(labels) != num_classes:
                raise ValueError(f"{where}: {len(labels)} labels for {num_classes} classes")
        _zero_division_value(zero_division, where)
        self._classes = None if num_classes is None else int(num_classes)
        self.top_n = int(top_n)
        self.binary_decision_threshold = binary_decision_threshold
        self.cost_array = cost_array
        self.labels = labels
        self.zero_division = zero_division
        self._cm = None
        self._top_correct = None
        if self._classes is not None:
            self._allocate(self._classes)

    # -- state ---------------------------------------------------------------------------------
    def _allocate(self, k):
        self._classes = k
        self._cm = numpy.zeros((k, k), dtype=numpy.int64)
        self._top_correct = numpy.zeros(1, dtype=numpy.int64)

    def _settings(self):
        cost = None if self.cost_array is None else self.cost_array.tolist()
        return {"num_classes": self._classes, "top_n": self.top_n,
                "binary_decision_threshold": self.binary_decision_threshold, "cost_array": cost}

    def _accumulate(self, labels, predictions, mask, where):
        batch, k = classification_batch(labels, predictions, mask, self._classes, where)
        if self.binary_decision_threshold is not None and k != 2:
            raise EvaluationError(f"{where}: binary_decision_threshold needs 2 classes, the predictions have {k}")
        if self.cost_array is not None and self.cost_array.shape[0] != k:
            raise EvaluationError(f"{where}: cost_array has {self.cost_array.shape[0]} entries, the predictions "
                                  f"{k} classes")
        if self.labels is not None and len(self.labels) != k:
            raise EvaluationError(f"{where}: {len(self.labels)} labels, the predictions have {k} classes")
        if self._cm is None:
            unrouted(self._allocate, k)
        scores, y = batch.scores, batch.labels
        if self.binary_decision_threshold is not None:
            predicted = scores[:, 1] > self.binary_decision_threshold
        elif self.cost_array is not None:
            predicted = numpy.argmax(scores * self.cost_array, axis=1)
        else:
            predicted = numpy.argmax(scores, axis=1)
        if k * k <= 4 * y.shape[0] + 4096:  # a dense count of every cell, then one addition
            self._cm.reshape(-1)[:] += numpy.bincount(y * k + predicted, minlength=k * k)
        else:  # many classes, few rows: only the cells the rows fall in (k * k int64 would be huge)
            numpy.add.at(self._cm, (y, predicted.astype(numpy.intp)), 1)
        self._top_correct[0] += self._top_n_hits(scores, y)

    def _top_n_hits(self, scores, y):
        """Rows whose true class is among the top_n scores, ties ordered as scikit-learn's
        top_k_accuracy_score orders them (a later class first)."""
        if scores.shape[0] == 0:
            return 0
        true_score = numpy.take_along_axis(scores, y[:, None], axis=1)
        above = numpy.count_nonzero(scores > true_score, axis=1)
        tied_after = numpy.count_nonzero((scores == true_score) & (numpy.arange(scores.shape[1]) > y[:, None]), axis=1)
        return int(numpy.count_nonzero(above + tied_after < self.top_n))

    def _merge_state(self, other):
        if other._cm is None:
            return
        if self._cm is None:
            self._allocate(other._classes)
        self._cm += other._cm
        self._top_correct += other._top_correct

    def _clear(self):
        if self._cm is not None:
            self._cm[...] = 0
            self._top_correct[...] = 0

    # -- counts --------------------------------------------------------------------------------
    @property
    def num_classes(self):
        return self._classes

    @property
    def num_samples(self):
        """Rows evaluated (after masks)."""
        return 0 if self._cm is None else int(self._cm.sum())

    def confusion_matrix(self):
        """The (C, C) int64 confusion matrix, rows the actual class, columns the predicted (a copy)."""
        self._need_data("confusion_matrix")
        return self._cm.copy()

    def _need_data(self, what):
        if self._cm is None:
            raise EvaluationError(f"Evaluation.{what}: no batch has been evaluated yet (num_classes unknown)")

    def _class(self, cls, what):
        if not isinstance(cls, (int, numpy.integer)) or not 0 <= cls < self._classes:
            raise ValueError(f"Evaluation.{what}: cls must be a class id in [0, {self._classes}), not {cls!r}")
        return int(cls)

    def counts(self, cls):
        """One-vs-rest counts of class ``cls``: dict of true/false positives/negatives."""
        self._need_data("counts")
        c = self._class(cls, "counts")
        tp = int(self._cm[c, c])
        fp = int(self._cm[:, c].sum()) - tp
        fn = int(self._cm[c, :].sum()) - tp
        return {"tp": tp, "fp": fp, "fn": fn, "tn": self.num_samples - tp - fp - fn}

    def support(self):
        """Rows of each class (actual), int64 (C,)."""
        self._need_data("support")
        return self._cm.sum(axis=1)

    # -- scores --------------------------------------------------------------------------------
    def accuracy(self):
        """Fraction of rows whose predicted class is the actual one."""
        self._need_data("accuracy")
        n = self.num_samples
        if n == 0:
            warn("Evaluation.accuracy: no rows were evaluated (all masked)")
            return math.nan
        return float(numpy.trace(self._cm) / n)

    def top_n_accuracy(self):
        """Fraction of rows whose actual class is among the ``top_n`` highest scores."""
        self._need_data("top_n_accuracy")
        n = self.num_samples
        return math.nan if n == 0 else float(self._top_correct[0] / n)

    def _prf(self, what, beta, cls, average):
        self._need_data(what)
        cm = self._cm
        tp = numpy.diagonal(cm).astype(numpy.float64)
        pred = cm.sum(axis=0).astype(numpy.float64)
        true = cm.sum(axis=1).astype(numpy.float64)
        if cls is None:
            _check_average(average, f"Evaluation.{what}")
            if average == "micro":
                tp, pred, true = tp.sum(), pred.sum(), true.sum()
        else:
            c = self._class(cls, what)
            tp, pred, true = tp[c], pred[c], true[c]
        zd = self.zero_division
        if what == "precision":
            value = _ratio(tp, pred, zd, "Precision", "no predicted samples")
        elif what == "recall":
            value = _ratio(tp, true, zd, "Recall", "no true samples")
        else:
            b2 = beta * beta
            value = _ratio((1 + b2) * tp, b2 * true + pred, zd, "F-score", "no true nor predicted samples")
        if cls is None and average == "macro":
            return float(value.mean())
        if cls is None and average == "weighted":
            total = true.sum()
            if total == 0:
                return _zero_division_value(zd, what)
            return float(numpy.average(value, weights=true))
        return float(value)

    def precision(self, cls=None, average="macro"):
        """Precision of class ``cls``, or averaged over the classes (``average``)."""
        return self._prf("precision", 1.0, cls, average)

    def recall(self, cls=None, average="macro"):
        """Recall of class ``cls``, or averaged over the classes (``average``)."""
        return self._prf("recall", 1.0, cls, average)

    def f1(self, cls=None, average="macro"):
        """F1 of class ``cls``, or averaged over the classes (``average``)."""
        return self._prf("f1", 1.0, cls, average)

    def f_beta(self, beta, cls=None, average="macro"):
        """F-beta of class ``cls``, or averaged over the classes (``average``)."""
        beta = float(beta)
        if not beta >= 0 or math.isinf(beta):
            raise ValueError(f"Evaluation.f_beta: beta must be finite and >= 0, not {beta}")
        return self._prf("f_beta", beta, cls, average)

    def matthews_correlation(self, cls=None):
        """Matthews correlation: multiclass (scikit-learn's matthews_corrcoef) for ``cls=None``, else
        of class ``cls`` against the rest. 0 where it is undefined (a constant prediction or truth)."""
        self._need_data("matthews_correlation")
        cm = self._cm
        if cls is not None:
            k = self.counts(cls)
            tp, fp, fn, tn = (float(k[x]) for x in ("tp", "fp", "fn", "tn"))
            cm = numpy.array([[tn, fp], [fn, tp]])
        t_sum = cm.sum(axis=1, dtype=numpy.float64)
        p_sum = cm.sum(axis=0, dtype=numpy.float64)
        n_correct = numpy.trace(cm, dtype=numpy.float64)
        n = p_sum.sum()
        cov_ytyp = n_correct * n - numpy.dot(t_sum, p_sum)
        cov_ypyp = n**2 - numpy.dot(p_sum, p_sum)
        cov_ytyt = n**2 - numpy.dot(t_sum, t_sum)
        product = cov_ypyp * cov_ytyt
        return 0.0 if product == 0 else float(cov_ytyp / numpy.sqrt(product))

    def false_positive_rate(self, cls):
        """FP / (FP + TN) of class ``cls`` against the rest."""
        k = self.counts(cls)
        return float(_ratio(k["fp"], k["fp"] + k["tn"], self.zero_division, "False positive rate", "no negatives"))

    def false_negative_rate(self, cls):
        """FN / (FN + TP) of class ``cls`` against the rest."""
        k = self.counts(cls)
        return float(_ratio(k["fn"], k["fn"] + k["tp"], self.zero_division, "False negative rate", "no positives"))

    # -- reports -------------------------------------------------------------------------------
    def _headline(self):
        return {"accuracy": self.accuracy, "f1": self.f1}

    def _name(self, c):
        return self.labels[c] if self.labels is not None else str(c)

    def stats(self, confusion=True):
        """A text report as Deeplearning4j's Evaluation.stats(): the scores, the averaging, and the
        confusion matrix (``confusion=False`` leaves it out)."""
        self._need_data("stats")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EvaluationWarning)
            rows = [("# of classes", f"{self._classes}"), ("# of samples", f"{self.num_samples}"),
                    ("Accuracy", f"{self.accuracy():.4f}"), ("Precision", f"{self.precision():.4f}"),
                    ("Recall", f"{self.recall():.4f}"), ("F1 Score", f"{self.f1():.4f}"),
                    ("Matthews corr.", f"{self.matthews_correlation():.4f}")]
            if self.top_n > 1:
                rows.append((f"Top {self.top_n} accuracy", f"{self.top_n_accuracy():.4f}"))
            never = [self._name(c) for c in range(self._classes) if self._cm[:, c].sum() == 0]
        lines = ["", "=" * 26 + "Evaluation Metrics" + "=" * 26]
        lines += [f" {name + ':':<18}{value}" for name, value in rows]
        lines.append(f"Precision, recall & F1: macro-averaged (equally weighted avg. of {self._classes} classes)")
        if self.binary_decision_threshold is not None:
            lines.append(f"Binary decision threshold: {self.binary_decision_threshold}")
        if self.cost_array is not None:
            lines.append(f"Cost array: {self.cost_array.tolist()}")
        if never:
            lines.append(f"Warning: {len(never)} class(es) never predicted by the model: {', '.join(never)} "
                         "(their precision counts as 0 in the averages)")
        if confusion:
            names = [self._name(c) for c in range(self._classes)]
            width = max(max(len(x) for x in names), len(str(int(self._cm.max()))) if self._cm.size else 1) + 1
            lines += ["", "=" * 27 + "Confusion Matrix" + "=" * 27,
                      " " * (width + 1) + "".join(f"{x:>{width}}" for x in names) + "   <- predicted"]
            for c in range(self._classes):
                lines.append(f"{names[c]:>{width}} " + "".join(f"{v:>{width}}" for v in self._cm[c].tolist()))
            lines.append("(rows: actual class)")
        lines.append("=" * 70)
        return "\n".join(lines)

    def plot_confusion(self, ax=None, normalize=None):
        """Draw the confusion matrix with matplotlib (the ``[plot]`` extra); ``normalize``: None,
        'true' (rows sum to 1) or 'pred' (columns). Returns the axes."""
        from ._plots import plot_confusion
        self._need_data("plot_confusion")
        return plot_confusion(self, ax=ax, normalize=normalize)


class EvaluationBinary(Metric):
    """Per-output binary metrics of a multi-label output (Deeplearning4j's EvaluationBinary): labels
    and predictions ``(n, outputs)``; an output is predicted positive where its score is above its
    ``threshold`` (a number, or one per output). ``mask`` may be ``(n,)`` or ``(n, outputs)`` (a
    per-output mask drops single entries). Scores per output ``i``, or averaged over the outputs
    (macro) with ``i=None``."""

    _size_setting = "num_outputs"

    def __init__(self, num_outputs=None, *, threshold=0.5, labels=None, zero_division="warn"):
        where = "EvaluationBinary"
        if num_outputs is not None and (not isinstance(num_outputs, (int, numpy.integer)) or num_outputs < 1):
            raise ValueError(f"{where}: num_outputs must be a positive integer (or None), not {num_outputs!r}")
        threshold = numpy.array(threshold, dtype=numpy.float64)
        if threshold.ndim > 1 or not numpy.all(numpy.isfinite(threshold)):
            raise ValueError(f"{where}: threshold must be a finite number or one per output")
        if threshold.ndim == 1 and num_outputs is not None and threshold.shape[0] != num_outputs:
            raise ValueError(f"{where}: {threshold.shape[0]} thresholds for {num_outputs} outputs")
        _zero_division_value(zero_division, where)
        self._outputs = None if num_outputs is None else int(num_outputs)
        self.threshold = threshold
        self.labels = None if labels is None else [str(x) for x in labels]
        self.zero_division = zero_division
        self._counts = None  # (4, outputs) int64: tp, fp, tn, fn
        if self._outputs is not None:
            self._allocate(self._outputs)

    def _allocate(self, k):
        self._outputs = k
        self._counts = numpy.zeros((4, k), dtype=numpy.int64)

    def _settings(self):
        return {"num_outputs": self._outputs, "threshold": self.threshold.tolist()}

    def _accumulate(self, labels, predictions, mask, where):
        batch, k, keep = multilabel_batch(labels, predictions, mask, self._outputs, where)
        if self.threshold.ndim == 1 and self.threshold.shape[0] != k:
            raise EvaluationError(f"{where}: {self.threshold.shape[0]} thresholds, the predictions have {k} outputs")
        if self._counts is None:
            unrouted(self._allocate, k)
        actual = batch.labels
        predicted = batch.scores > self.threshold
        if keep is None:
            keep = numpy.ones_like(actual)
        self._counts[0] += numpy.count_nonzero(actual & predicted & keep, axis=0)
        self._counts[1] += numpy.count_nonzero(~actual & predicted & keep, axis=0)
        self._counts[2] += numpy.count_nonzero(~actual & ~predicted & keep, axis=0)
        self._counts[3] += numpy.count_nonzero(actual & ~predicted & keep, axis=0)

    def _merge_state(self, other):
        if other._counts is None:
            return
        if self._counts is None:
            self._allocate(other._outputs)
        self._counts += other._counts

    def _clear(self):
        if self._counts is not None:
            self._counts[...] = 0

    @property
    def num_outputs(self):
        return self._outputs

    def _need_data(self, what):
        if self._counts is None:
            raise EvaluationError(f"EvaluationBinary.{what}: no batch has been evaluated yet (num_outputs unknown)")

    def counts(self, i):
        """Counts of output ``i``: dict of true/false positives/negatives."""
        self._need_data("counts")
        if not isinstance(i, (int, numpy.integer)) or not 0 <= i < self._outputs:
            raise ValueError(f"EvaluationBinary.counts: output must be in [0, {self._outputs}), not {i!r}")
        tp, fp, tn, fn = self._counts[:, i].tolist()
        return {"tp": tp, "fp": fp, "tn": tn, "fn": fn}

    def _per_output(self, what, i, fn):
        self._need_data(what)
        tp, fp, tn, fn_ = (self._counts[j].astype(numpy.float64) for j in range(4))
        values = fn(tp, fp, tn, fn_)
        if i is None:
            return float(values.mean())
        self.counts(i)  # checks i
        return float(values[i])

    def accuracy(self, i=None):
        return self._per_output("accuracy", i, lambda tp, fp, tn, fn: _ratio(
            tp + tn, tp + fp + tn + fn, self.zero_division, "Accuracy", "no entries"))

    def precision(self, i=None):
        return self._per_output("precision", i, lambda tp, fp, tn, fn: _ratio(
            tp, tp + fp, self.zero_division, "Precision", "no predicted positives"))

    def recall(self, i=None):
        return self._per_output("recall", i, lambda tp, fp, tn, fn: _ratio(
            tp, tp + fn, self.zero_division, "Recall", "no actual positives"))

    def f1(self, i=None):
        return self._per_output("f1", i, lambda tp, fp, tn, fn: _ratio(
            2 * tp, 2 * tp + fp + fn, self.zero_division, "F-score", "no actual nor predicted positives"))

    def false_positive_rate(self, i=None):
        return self._per_output("false_positive_rate", i, lambda tp, fp, tn, fn: _ratio(
            fp, fp + tn, self.zero_division, "False positive rate", "no actual negatives"))

    def matthews_correlation(self, i=None):
        def mcc(tp, fp, tn, fn):
            denominator = numpy.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
            out = numpy.zeros_like(tp)
            numpy.divide(tp * tn - fp * fn, denominator, out=out, where=denominator != 0)
            return out
        return self._per_output("matthews_correlation", i, mcc)

    def _headline(self):
        return {"accuracy": self.accuracy, "f1": self.f1}

    def stats(self):
        """A text report: one row per output."""
        self._need_data("stats")
        lines = ["", f"{'output':<10}{'accuracy':>10}{'precision':>11}{'recall':>9}{'F1':>9}{'MCC':>9}"
                 f"{'TP':>9}{'FP':>9}{'TN':>9}{'FN':>9}"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EvaluationWarning)
            for i in range(self._outputs):
                name = self.labels[i] if self.labels and i < len(self.labels) else str(i)
                k = self.counts(i)
                lines.append(f"{name:<10}{self.accuracy(i):>10.4f}{self.precision(i):>11.4f}{self.recall(i):>9.4f}"
                             f"{self.f1(i):>9.4f}{self.matthews_correlation(i):>9.4f}"
                             f"{k['tp']:>9}{k['fp']:>9}{k['tn']:>9}{k['fn']:>9}")
        return "\n".join(lines)
