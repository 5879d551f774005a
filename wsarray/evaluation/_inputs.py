"""What every metric's ``update`` takes, checked and brought to one shape before any state changes.

Labels are class ids ``(n,)`` or one-hot / probability rows ``(n, classes)``; predictions are scores
``(n, classes)`` (a binary metric also takes ``(n,)``, the positive class's score); a 3-D output
``(batch, classes, time)`` is a sequence (Deeplearning4j's RNN layout): its time steps become rows,
and a ``(batch, time)`` mask drops the padded ones. A ``(n,)`` mask drops rows of a 2-D batch.
Inputs may be wsarray arrays (their memory is only read, inside the cycle that made them), NumPy
arrays, lists, or arrays on a device (copied to the host). Every error names the metric, the batch
(the number of the update that failed) and what is wrong, and is raised before the metric's state
changes.
"""

import os
import sys
import warnings

import numpy

__all__ = ["EvaluationError", "EvaluationWarning", "warn", "Batch", "host", "classification_batch", "multilabel_batch",
           "scores_batch"]


class EvaluationError(ValueError):
    """Labels, predictions or a mask that a metric cannot take (the message says why)."""


class EvaluationWarning(UserWarning):
    """A metric that is undefined for the data seen (a class never predicted, one class only)."""


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn(message):
    """An EvaluationWarning attributed to the first caller outside wsarray (however many of its
    frames, locks and routed calls lie between)."""
    level, frame = 2, sys._getframe(1)  # stacklevel 1 is this function
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    warnings.warn(message, EvaluationWarning, stacklevel=level)


def host(x, what, where):
    """``x`` as a NumPy array over the same memory where it can be (a wsarray array, NumPy's), a new
    array for a list (arrays on a device were copied to the host by Metric.update already)."""
    try:
        return numpy.asarray(x)
    except (TypeError, ValueError) as e:
        raise EvaluationError(f"{where}: {what} is not an array ({type(x).__name__}: {e})") from None


class Batch:
    """An update's inputs, checked: ``labels`` (n,) int64 class ids (or (n, k) 0/1 for multi-label
    metrics), ``scores`` (n, k) float, ``n`` rows after the mask."""

    __slots__ = ("labels", "scores", "n")

    def __init__(self, labels, scores):
        self.labels, self.scores, self.n = labels, scores, scores.shape[0]


def _rows_of(y, p, labels, predictions, where):
    for what, a, given in (("labels", y, labels), ("predictions", p, predictions)):
        if a.ndim == 0:
            raise EvaluationError(f"{where}: {what} must be an array with one entry per row, not a "
                                  f"{type(given).__name__}")


def _sequence_rows(x, mask, what, where):
    """A (batch, k, time) array as (batch * time, k) rows, and the mask as a row mask."""
    rows = numpy.moveaxis(x, 1, 2).reshape(-1, x.shape[1])
    if mask is not None:
        if mask.shape != (x.shape[0], x.shape[2]):
            raise EvaluationError(f"{where}: the mask of a (batch, classes, time) {what} must be "
                                  f"(batch, time) = {(x.shape[0], x.shape[2])}, not {mask.shape}")
        mask = mask.reshape(-1)
    return rows, mask


def _mask(mask, n, where):
    if mask is None:
        return None
    if mask.ndim != 1 or mask.shape[0] != n:
        raise EvaluationError(f"{where}: the mask must have one entry per row ({n}), not shape {mask.shape}")
    if mask.dtype.kind not in "biuf":
        raise EvaluationError(f"{where}: the mask must be numbers or booleans, not {mask.dtype}")
    if mask.dtype.kind == "f" and numpy.isnan(mask).any():
        raise EvaluationError(f"{where}: the mask holds NaN (neither keep nor drop)")
    return mask != 0


def _float_scores(p, where):
    """Scores as float64, which every metric compares and sums them in (booleans as 0/1); an
    integer beyond 2**53 would silently become its neighbour."""
    if p.dtype.kind in "iu" and p.size and max(abs(int(p.min())), abs(int(p.max()))) > 2**53:
        raise EvaluationError(f"{where}: integer predictions beyond 2**53 in magnitude cannot be compared "
                              "exactly (metrics compute in float64)")
    return p.astype(numpy.float64, copy=False) if p.dtype.kind in "biu" else p


def classification_batch(labels, predictions, mask, classes, where, multilabel=False):
    """Check and shape one update of a classification metric. ``classes``: the metric's class
    count, or None to take it from the predictions. Returns (Batch, classes)."""
    y = host(labels, "labels", where)
    p = host(predictions, "predictions", where)
    m = None if mask is None else host(mask, "mask", where)
    _rows_of(y, p, labels, predictions, where)
    if p.dtype.kind not in "biuf":
        raise EvaluationError(f"{where}: predictions must be numbers, not {p.dtype}")
    p = _float_scores(p, where)
    if p.ndim == 3:
        if y.ndim != 3 or y.shape[0] != p.shape[0] or y.shape[2] != p.shape[2]:
            raise EvaluationError(f"{where}: labels {y.shape} do not match predictions {p.shape} "
                                  "(batch, classes, time)")
        p, m = _sequence_rows(p, m, "output", where)
        y, _ = _sequence_rows(y, None, "labels", where)
    if p.ndim == 1:
        if multilabel:
            p = p[:, None]
        else:
            p = numpy.stack([1.0 - p.astype(numpy.float64), p.astype(numpy.float64)], axis=1)
    if p.ndim != 2:
        raise EvaluationError(f"{where}: predictions must be (n,), (n, classes) or (batch, classes, time), "
                              f"not shape {p.shape}")
    n, k = p.shape
    if k < (1 if multilabel else 2):
        raise EvaluationError(f"{where}: predictions have {k} column(s); " + (
            "a multi-label metric needs one per output" if multilabel else
            "a classifier needs one per class, 2 or more (a binary output may give (n,) scores of "
            "the positive class)"))
    if classes is not None and k != classes:
        raise EvaluationError(f"{where}: predictions have {k} columns; this metric has {classes} classes")
    if y.shape[0] != n:
        raise EvaluationError(f"{where}: labels have {y.shape[0]} rows, predictions {n}")
    if numpy.isnan(p).any():
        raise EvaluationError(f"{where}: predictions hold NaN")
    keep = _mask(m, n, where)
    if multilabel:
        if y.ndim == 1 and k == 1:
            y = y[:, None]
        if y.shape != (n, k):
            raise EvaluationError(f"{where}: multi-label labels must be (n, outputs) = {(n, k)}, not {y.shape}")
        if y.dtype.kind not in "biuf" or numpy.isnan(y.astype(numpy.float64)).any():
            raise EvaluationError(f"{where}: labels must be 0/1 numbers")
        y = y != 0
    elif y.ndim == 2:
        if y.shape[1] != k:
            raise EvaluationError(f"{where}: one-hot labels have {y.shape[1]} columns, predictions {k}")
        if y.dtype.kind not in "biuf" or not numpy.isfinite(y).all():
            raise EvaluationError(f"{where}: one-hot or probability rows of labels must be finite numbers"
                                  + ("" if y.dtype.kind in "biuf" else f", not {y.dtype}"))
        kept = y if keep is None else y[keep]
        empty = int(numpy.count_nonzero(~(kept != 0).any(axis=1)))
        if empty:  # argmax would count them as class 0
            raise EvaluationError(f"{where}: {empty} row(s) of one-hot labels have no class (all zeros); "
                                  "drop them with the mask")
        y = numpy.argmax(y, axis=1)
    elif y.ndim == 1:
        if y.dtype.kind == "f":
            if not numpy.all(numpy.isfinite(y)) or numpy.any(y != numpy.floor(y)):
                raise EvaluationError(f"{where}: class ids must be whole numbers")
            if n and (y.min() < 0 or y.max() >= k):  # before the cast: ids past int64 would wrap
                raise EvaluationError(f"{where}: class ids must be in [0, {k}), found {y.min():g}..{y.max():g}")
            y = y.astype(numpy.int64)
        elif y.dtype.kind == "b":
            y = y.astype(numpy.int64)
        elif y.dtype.kind not in "iu":
            raise EvaluationError(f"{where}: labels must be class ids or one-hot rows, not {y.dtype}")
        if n and (y.min() < 0 or y.max() >= k):
            raise EvaluationError(f"{where}: class ids must be in [0, {k}), found {int(y.min())}..{int(y.max())}")
        y = y.astype(numpy.int64, copy=False)  # cell indices (y * k + ...) must not wrap in int8 or uint8
    else:
        raise EvaluationError(f"{where}: labels must be (n,) class ids or (n, classes) rows, not shape {y.shape}")
    if keep is not None:
        y, p = y[keep], p[keep]
    return Batch(y, p), k


def multilabel_batch(labels, predictions, mask, outputs, where):
    """Check and shape one update of a multi-label metric, whose mask may be ``(n,)`` (drops rows)
    or ``(n, outputs)`` (drops single entries). Returns (Batch, outputs, keep): ``keep`` the
    per-entry boolean mask, or None."""
    entry_mask = None
    if mask is not None:
        m = host(mask, "mask", where)
        # (n, outputs) drops single entries; for (batch, outputs, time) predictions a 2-D mask is
        # the sequences' (batch, time) mask, as for the other metrics.
        if m.ndim == 2 and host(predictions, "predictions", where).ndim != 3:
            entry_mask, mask = m, None
    batch, k = classification_batch(labels, predictions, mask, outputs, where, multilabel=True)
    if entry_mask is None:
        return batch, k, None
    if entry_mask.shape != batch.scores.shape:
        raise EvaluationError(f"{where}: a per-output mask must be (n, outputs) = {batch.scores.shape}, "
                              f"not {entry_mask.shape}")
    return batch, k, _mask(entry_mask.reshape(-1), entry_mask.size, where).reshape(entry_mask.shape)


def scores_batch(labels, predictions, mask, columns, where):
    """Check and shape one update of a regression metric: (n, columns) float64 pairs."""
    y = host(labels, "labels", where)
    p = host(predictions, "predictions", where)
    m = None if mask is None else host(mask, "mask", where)
    _rows_of(y, p, labels, predictions, where)
    if p.ndim == 3:
        if y.shape != p.shape:
            raise EvaluationError(f"{where}: labels {y.shape} do not match predictions {p.shape}")
        p, m = _sequence_rows(p, m, "output", where)
        y, _ = _sequence_rows(y, None, "labels", where)
    if p.ndim == 1:
        p = p[:, None]
    if y.ndim == 1:
        y = y[:, None]
    if p.ndim != 2 or y.shape != p.shape:
        raise EvaluationError(f"{where}: labels {y.shape} and predictions {p.shape} must be the same (n, columns)")
    if columns is not None and p.shape[1] != columns:
        raise EvaluationError(f"{where}: predictions have {p.shape[1]} columns; this metric has {columns}")
    for what, a in (("labels", y), ("predictions", p)):
        if a.dtype.kind not in "biuf":
            raise EvaluationError(f"{where}: {what} must be numbers, not {a.dtype}")
        if not numpy.isfinite(a).all():  # one inf makes every moment NaN for good
            raise EvaluationError(f"{where}: {what} hold " + ("NaN" if numpy.isnan(a).any() else "inf"))
    keep = _mask(m, p.shape[0], where)
    if keep is not None:
        y, p = y[keep], p[keep]
    return y.astype(numpy.float64, copy=False), p.astype(numpy.float64, copy=False)
