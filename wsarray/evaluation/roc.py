"""ROC and precision-recall over a stream: ``ROC`` (one binary output), ``ROCBinary`` (each output of a
multi-label output), ``ROCMultiClass`` (each class against the rest).

``thresholds=0`` (exact): the state is every distinct score with its positive and total counts, kept
as sorted runs merged as they grow (a log-structured merge: O(n log n) work over the stream, memory
O(distinct scores)); rows are staged in a fixed buffer and folded in ``buffer_rows`` at a time (by
default as many as fit 16 MiB).
AUC and average precision then equal scikit-learn's ``roc_auc_score`` and
``average_precision_score`` on the whole stream (ties included, no interpolation). ``max_bytes``
bounds the runs (the staging buffer, ``buffer_rows`` x columns x 10 bytes, is apart): past it the
metric switches to ``fallback_thresholds`` bins and warns.

``thresholds=N`` (binned): per column, the positive and negative counts of N equal bins of [0, 1]
(scores outside fall into the end bins); memory O(N) whatever the stream. The AUC is then exact for
pairs in different bins and counts pairs within a bin as ties: its error is at most
``auc_error_bound()`` = sum over bins of pos_b * neg_b / (2 * P * N).
"""

import math
import warnings

import numpy

from ._inputs import EvaluationError, EvaluationWarning, classification_batch, multilabel_batch, warn
from ._metric import Metric, unrouted

__all__ = ["ROC", "ROCBinary", "ROCMultiClass"]


_U32_MAX = (1 << 32) - 1
STAGING_BYTES = 16 << 20


class _Runs:
    """Distinct scores of one column with their total and positive counts, as sorted runs merged
    FAN at a time (size-tiered: a run stands for 1, FAN, FAN**2... flushes and merges with FAN - 1
    others of its weight, so each score is merged about log_FAN(flushes) times).

    12 bytes per distinct score where it can be: values as float32 when every one of them is a
    float32 exactly (model outputs usually are), counts as uint32 until a merged count could pass
    2**32 - 1 (then int64). Runs of float32 scores merge by sorting packed (score, count) keys,
    which NumPy sorts several times faster than it finds places (searchsorted)."""

    FAN = 16
    __slots__ = ("runs", "weights")

    def __init__(self):
        self.runs = []  # [(values ascending, total counts, positive counts)]
        self.weights = []  # flushes each run stands for

    @staticmethod
    def from_scores(scores, positive):
        values, total = numpy.unique(scores, return_counts=True)
        pos_values, pos_counts = numpy.unique(scores[positive], return_counts=True)
        pos = numpy.zeros(values.shape, dtype=numpy.uint32)
        pos[numpy.searchsorted(values, pos_values)] = pos_counts
        narrow = (values + 0.0).astype(numpy.float32)  # + 0.0: -0.0 is 0.0 (one threshold)
        if values.dtype != numpy.float32 and numpy.array_equal(narrow, values):
            values = narrow
        return values, total.astype(numpy.uint32), pos  # a flush holds fewer than 2**31 rows

    @staticmethod
    def _merge(*runs):
        wide = any(r[1].dtype != numpy.uint32 for r in runs) or (
            sum(int(r[1].max(initial=0)) for r in runs) > _U32_MAX)
        if not wide and all(r[0].dtype == numpy.float32 for r in runs):
            return _Runs._merge_packed(runs)
        values = numpy.unique(numpy.concatenate([r[0] for r in runs]))  # float64 if any run is
        count_type = numpy.int64 if wide else numpy.uint32
        total = numpy.zeros(values.shape, dtype=count_type)
        pos = numpy.zeros(values.shape, dtype=count_type)
        for run in runs:
            at = numpy.searchsorted(values, run[0])  # distinct values: distinct places
            total[at] += run[1]
            pos[at] += run[2]
        return values, total, pos

    @staticmethod
    def _merge_packed(runs):
        """Merge float32 runs: sort (orderable score bits << 32 | count) keys, sum counts per score."""
        bits = numpy.concatenate([r[0] for r in runs]).view(numpy.uint32)
        # IEEE order as unsigned order: flip every bit of negatives, the sign bit of the rest
        flip = numpy.where(bits >> 31 != 0, numpy.uint32(0xFFFFFFFF), numpy.uint32(0x80000000))
        high = (bits ^ flip).astype(numpy.uint64) << numpy.uint64(32)
        low = numpy.uint64(_U32_MAX)
        by_total = numpy.sort(high | numpy.concatenate([r[1] for r in runs]))
        by_pos = numpy.sort(high | numpy.concatenate([r[2] for r in runs]))
        keys = by_total >> numpy.uint64(32)
        starts = numpy.flatnonzero(numpy.r_[True, keys[1:] != keys[:-1]])
        total = numpy.add.reduceat(by_total & low, starts).astype(numpy.uint32)
        pos = numpy.add.reduceat(by_pos & low, starts).astype(numpy.uint32)
        ordered = keys[starts].astype(numpy.uint32)
        unflip = numpy.where(ordered >> 31 != 0, numpy.uint32(0x80000000), numpy.uint32(0xFFFFFFFF))
        return (ordered ^ unflip).view(numpy.float32), total, pos

    def add(self, run, weight=1):
        if run[0].size == 0:
            return
        self.runs.append(run)
        self.weights.append(weight)
        fan = self.FAN
        while len(self.runs) >= fan and len(set(self.weights[-fan:])) == 1:
            merged = self._merge(*self.runs[-fan:])
            total_weight = sum(self.weights[-fan:])
            del self.runs[-fan:], self.weights[-fan:]
            self.runs.append(merged)
            self.weights.append(total_weight)

    def merged(self):
        """All runs as one (kept so: later queries reuse it)."""
        if len(self.runs) > 1:
            self.runs = [self._merge(*self.runs)]
            self.weights = [sum(self.weights)]
        if not self.runs:
            return numpy.zeros(0), numpy.zeros(0, numpy.int64), numpy.zeros(0, numpy.int64)
        return self.runs[0]

    @property
    def nbytes(self):
        return sum(v.nbytes + t.nbytes + p.nbytes for v, t, p in self.runs)


def _bin_of(scores, bins):
    """Bin index of each score among ``bins`` equal bins of [0, 1] (outside: the end bins)."""
    index = numpy.floor(numpy.clip(scores, 0.0, 1.0) * bins).astype(numpy.int64)
    return numpy.minimum(index, bins - 1, out=index)


class _ROCBase(Metric):
    """The shared machinery; subclasses say how a batch becomes (scores, positive) columns."""

    _kind = "column"
    _size_setting = "columns"

    def __init__(self, columns, thresholds, max_bytes, fallback_thresholds, buffer_rows):
        name = type(self).__name__
        if not isinstance(thresholds, (int, numpy.integer)) or thresholds < 0 or thresholds == 1:
            raise ValueError(f"{name}: thresholds must be 0 (exact) or a number of bins >= 2, not {thresholds!r}")
        if max_bytes is not None and (isinstance(max_bytes, bool) or not isinstance(max_bytes, (int, numpy.integer))
                                      or max_bytes <= 0):
            raise ValueError(f"{name}: max_bytes must be a positive integer (or None), not {max_bytes!r}")
        if not isinstance(fallback_thresholds, (int, numpy.integer)) or fallback_thresholds < 2:
            raise ValueError(f"{name}: fallback_thresholds must be an integer >= 2, not {fallback_thresholds!r}")
        if buffer_rows is not None and (not isinstance(buffer_rows, (int, numpy.integer))
                                        or not 1 <= buffer_rows < 2**31):
            raise ValueError(f"{name}: buffer_rows must be a positive integer below 2**31 (or None: a 16 MiB "
                             f"buffer), not {buffer_rows!r}")
        self.thresholds = int(thresholds)
        self.max_bytes = None if max_bytes is None else int(max_bytes)
        self.fallback_thresholds = int(fallback_thresholds)
        self.buffer_rows = None if buffer_rows is None else int(buffer_rows)
        self._columns = None if columns is None else int(columns)
        self._bins = self.thresholds  # 0 while exact
        self._hist = None  # binned: (columns, 2, bins) int64 (negatives, positives)
        self._runs = None  # exact: [_Runs] per column
        self._stage = None  # exact: (scores (rows, columns) float64, positive bool, keep bool, [filled])
        self.switched = False
        if self._columns is not None:
            self._allocate(self._columns)

    # -- state ---------------------------------------------------------------------------------
    def _allocate(self, k):
        self._columns = k
        if self._bins:
            self._hist = numpy.zeros((k, 2, self._bins), dtype=numpy.int64)
        else:
            if self.buffer_rows is None:  # 16 MiB of staging (10 bytes per row and column)
                self.buffer_rows = max(16, min(1 << 20, STAGING_BYTES // (10 * k)))
            rows = self.buffer_rows
            self._runs = [_Runs() for _ in range(k)]
            self._stage = (numpy.empty((rows, k)), numpy.empty((rows, k), bool), numpy.empty((rows, k), bool), [0])

    def _settings(self):
        return {self._size_setting: self._columns, "thresholds": self.thresholds, "max_bytes": self.max_bytes,
                "fallback_thresholds": self.fallback_thresholds}

    @property
    def exact(self):
        """Whether every distinct score is kept (False: binned, from the start or after max_bytes)."""
        return self._bins == 0

    @property
    def nbytes(self):
        """Bytes of state (runs or bins, and the staging buffer)."""
        if self._hist is not None:
            return self._hist.nbytes
        if self._runs is None:
            return 0
        return sum(r.nbytes for r in self._runs) + sum(a.nbytes for a in self._stage[:3])

    def _runs_bytes(self):
        return sum(r.nbytes for r in self._runs)

    def _accumulate(self, labels, predictions, mask, where):
        scores, positive, keep = self._columns_of(labels, predictions, mask, where)
        if self._hist is None and self._runs is None:
            unrouted(self._allocate, scores.shape[1])
        if self._bins:
            self._add_binned(scores, positive, keep)
            return
        stage_scores, stage_positive, stage_keep, filled = self._stage
        start, n = 0, scores.shape[0]
        while start < n:
            take = min(n - start, self.buffer_rows - filled[0])
            rows = slice(filled[0], filled[0] + take)
            stage_scores[rows] = scores[start:start + take]
            stage_positive[rows] = positive[start:start + take]
            stage_keep[rows] = True if keep is None else keep[start:start + take]
            filled[0] += take
            start += take
            if filled[0] == self.buffer_rows:
                unrouted(self._flush)
                if self._bins:  # switched to bins by max_bytes: the rest goes there
                    self._add_binned(scores[start:], positive[start:], None if keep is None else keep[start:])
                    return

    def _add_binned(self, scores, positive, keep):
        k, bins = self._columns, self._bins
        cell = _bin_of(scores, bins) + bins * positive + (2 * bins) * numpy.arange(k)
        if keep is not None:
            cell = cell[keep]
        self._hist.reshape(-1)[:] += numpy.bincount(cell.reshape(-1), minlength=2 * bins * k)

    def _flush(self):
        """Fold the staged rows into the runs (outside workspaces: the runs are kept)."""
        stage_scores, stage_positive, stage_keep, filled = self._stage
        n = filled[0]
        for c, runs in enumerate(self._runs):
            s, p, kp = stage_scores[:n, c], stage_positive[:n, c], stage_keep[:n, c]
            if not kp.all():
                s, p = s[kp], p[kp]
            runs.add(_Runs.from_scores(s, p))
        filled[0] = 0
        if self.max_bytes is not None and self._runs_bytes() > self.max_bytes:
            for runs in self._runs:  # merged runs hold each distinct score once: try that first
                runs.merged()
        if self.max_bytes is not None and self._runs_bytes() > self.max_bytes:
            used = self._runs_bytes()
            self._switch_to_bins(self.fallback_thresholds)
            warn(f"{type(self).__name__}: the exact state reached {used} bytes, over max_bytes="
                          f"{self.max_bytes}; switched to {self._bins} bins (auc_error_bound() gives the AUC's "
                          "largest error)")

    def _switch_to_bins(self, bins):
        hist = numpy.zeros((self._columns, 2, bins), dtype=numpy.int64)
        self._bins = bins
        self._bin_runs_into(hist, lambda c: self._runs[c].merged())
        self._hist, self._runs, self._stage = hist, None, None
        self.switched = self.thresholds == 0

    def _fold_staged(self):
        """Fold staged rows into the runs before the state is read (may switch to bins)."""
        if not self._bins and self._stage is not None and self._stage[3][0]:
            self._flush()

    def _bin_runs_into(self, hist, runs_of):
        for c in range(self._columns):
            values, total, pos = runs_of(c)
            at = _bin_of(values, self._bins)
            hist[c, 1] += numpy.bincount(at, weights=pos, minlength=self._bins).astype(numpy.int64)
            hist[c, 0] += numpy.bincount(at, weights=total - pos, minlength=self._bins).astype(numpy.int64)

    def _merge_state(self, other):
        if other._hist is None and other._runs is None:
            return
        if self._hist is None and self._runs is None:
            self._allocate(other._columns)
        other._fold_staged()
        if other._bins and not self._bins:
            self._fold_staged()
            if not self._bins:
                self._switch_to_bins(other._bins)
        if not self._bins:
            for c in range(self._columns):
                theirs = other._runs[c]
                self._runs[c].add(theirs.merged(), sum(theirs.weights))  # runs are never changed in place
            if self.max_bytes is not None and self._runs_bytes() > self.max_bytes:
                self._flush()
            return
        if other._bins:
            if other._bins != self._bins:
                raise EvaluationError(f"{type(self).__name__}.merge: {self._bins} bins and {other._bins} bins")
            self._hist += other._hist
        else:
            self._bin_runs_into(self._hist, lambda c: other._runs[c].merged())

    def _clear(self):
        self._bins = self.thresholds
        self.switched = False
        self._hist = self._runs = self._stage = None
        if self._columns is not None:
            self._allocate(self._columns)

    # -- the curve's counts --------------------------------------------------------------------
    def _need_data(self, what):
        if self._hist is None and self._runs is None:
            raise EvaluationError(f"{type(self).__name__}.{what}: no batch has been evaluated yet")

    def _column(self, c, what):
        self._need_data(what)
        if c is None and self._columns == 1:
            return 0
        if not isinstance(c, (int, numpy.integer)) or not 0 <= c < self._columns:
            raise ValueError(f"{type(self).__name__}.{what}: {self._kind} must be in [0, {self._columns}), not {c!r}")
        return int(c)

    def _descending(self, c):
        """(thresholds, positives, negatives) at each distinct score (exact) or bin (binned), from the
        highest score down."""
        self._fold_staged()
        if self._bins:
            bins = self._bins
            thresholds = numpy.arange(bins - 1, -1, -1) / bins
            return thresholds, self._hist[c, 1, ::-1].copy(), self._hist[c, 0, ::-1].copy()
        values, total, pos = self._runs[c].merged()
        return values[::-1], pos[::-1], (total - pos)[::-1]

    def _auc(self, c, what):
        _, pos, neg = self._descending(c)
        p, n = int(pos.sum()), int(neg.sum())
        if p == 0 or n == 0:
            warn(f"{type(self).__name__}.{what}: only one class is present in the labels "
                          f"({'no positives' if p == 0 else 'no negatives'}): the ROC AUC is not defined (nan)")
            return math.nan
        before = numpy.cumsum(pos) - pos
        if 2.0 * p * n < 2.0**62:  # exact in integers: one rounding at the end
            return float(int(numpy.dot(neg, 2 * before + pos)) / (2 * p * n))
        return float(numpy.dot(neg.astype(numpy.float64), 2.0 * before + pos) / (2.0 * p * n))

    def _auprc(self, c, what):
        _, pos, neg = self._descending(c)
        tp = numpy.cumsum(pos)
        fp = numpy.cumsum(neg)
        p = int(tp[-1]) if tp.size else 0
        if p == 0:
            warn(f"{type(self).__name__}.{what}: no positive labels: average precision is set to 0.0 "
                          "(recall is undefined)")
            return 0.0
        with numpy.errstate(invalid="ignore", divide="ignore"):
            precision = tp / (tp + fp)  # tp + fp > 0 wherever pos > 0 (only those rows count)
        return float(numpy.dot(pos / p, numpy.where(pos > 0, precision, 0.0)))

    def _curve(self, c, drop_intermediate):
        thresholds, pos, neg = self._descending(c)
        keep = (pos + neg) > 0
        thresholds, tps, fps = thresholds[keep], numpy.cumsum(pos[keep]), numpy.cumsum(neg[keep])
        if drop_intermediate and fps.size > 2:
            # scikit-learn's roc_curve: drop the points on a straight line between their neighbours
            corner = numpy.r_[True, numpy.logical_or(numpy.diff(fps, 2), numpy.diff(tps, 2)), True]
            thresholds, tps, fps = thresholds[corner], tps[corner], fps[corner]
        tps, fps = numpy.r_[0, tps], numpy.r_[0, fps]
        thresholds = numpy.r_[numpy.inf, thresholds]
        with numpy.errstate(invalid="ignore", divide="ignore"):
            fpr = fps / fps[-1] if fps[-1] > 0 else numpy.full(fps.shape, numpy.nan)
            tpr = tps / tps[-1] if tps[-1] > 0 else numpy.full(tps.shape, numpy.nan)
        if fps[-1] == 0 or tps[-1] == 0:
            warn(f"{type(self).__name__}.curve: no {'negative' if fps[-1] == 0 else 'positive'} samples: "
                          "that rate is nan")
        return fpr, tpr, thresholds

    def _pr_curve(self, c):
        thresholds, pos, neg = self._descending(c)
        keep = (pos + neg) > 0
        thresholds, tps, fps = thresholds[keep], numpy.cumsum(pos[keep]), numpy.cumsum(neg[keep])
        predicted = tps + fps
        precision = numpy.divide(tps, predicted, out=numpy.zeros(tps.shape), where=predicted != 0)
        if tps.size == 0 or tps[-1] == 0:
            warn(f"{type(self).__name__}.pr_curve: no positive samples: recall is set to 1 for all "
                          "thresholds")
            recall = numpy.ones(tps.shape)
        else:
            recall = tps / tps[-1]
        rev = slice(None, None, -1)
        return numpy.r_[precision[rev], 1.0], numpy.r_[recall[rev], 0.0], thresholds[rev]

    def _bound(self, c):
        self._fold_staged()
        if not self._bins:
            return 0.0
        neg, pos = self._hist[c, 0], self._hist[c, 1]
        p, n = int(pos.sum()), int(neg.sum())
        if p == 0 or n == 0:
            return math.nan
        return float(numpy.dot(pos.astype(numpy.float64), neg) / (2.0 * p * n))

    def _ask(self, what, c, fn, *args):
        return fn(self._column(c, what), *args)

    def _average(self, what, fn):
        self._need_data(what)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", EvaluationWarning)
            values = [fn(c, what) for c in range(self._columns)]
        defined = [v for v in values if not math.isnan(v)]
        if caught:
            undefined = [c for c, v in enumerate(values) if math.isnan(v)]
            detail = f": {self._kind}s {undefined} have one class only and are left out" if undefined else ""
            warn(f"{type(self).__name__}.{what}{detail} ({caught[0].message})")
        return float(numpy.mean(defined)) if defined else math.nan

    def _stats(self, names):
        lines = ["", f"{type(self).__name__}: {'exact' if self.exact else f'{self._bins} bins'}"
                 f"{' (switched from exact by max_bytes)' if self.switched else ''}",
                 f"{self._kind:<12}{'AUC':>10}{'AUPRC':>10}{'AUC error bound':>18}{'positives':>12}{'negatives':>12}"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EvaluationWarning)
            for c in range(self._columns):
                _, pos, neg = self._descending(c)
                lines.append(f"{names(c):<12}{self._auc(c, 'stats'):>10.4f}{self._auprc(c, 'stats'):>10.4f}"
                             f"{self._bound(c):>18.2e}{int(pos.sum()):>12}{int(neg.sum()):>12}")
        return "\n".join(lines)


class ROC(_ROCBase):
    """ROC and precision-recall of one binary output (Deeplearning4j's ROC). Labels: 0/1 (n,) or
    one-hot (n, 2); predictions: the positive class's probability (n,) or (n, 2) scores (column 1
    is the positive class)."""

    def __init__(self, thresholds=0, *, max_bytes=None, fallback_thresholds=1024, buffer_rows=None):
        super().__init__(1, thresholds, max_bytes, fallback_thresholds, buffer_rows)

    def _settings(self):
        settings = super()._settings()
        del settings[self._size_setting]
        return settings

    def _columns_of(self, labels, predictions, mask, where):
        batch, _ = classification_batch(labels, predictions, mask, 2, where)
        return batch.scores[:, 1:2], (batch.labels == 1)[:, None], None

    def auc(self):
        """Area under the ROC curve (nan, with a warning, when only one class was seen)."""
        return self._ask("auc", 0, self._auc, "auc")

    def auprc(self):
        """Area under the precision-recall curve as average precision (scikit-learn's
        average_precision_score: no interpolation)."""
        return self._ask("auprc", 0, self._auprc, "auprc")

    def curve(self, drop_intermediate=True):
        """(fpr, tpr, thresholds) as scikit-learn's roc_curve (the first threshold is inf)."""
        return self._ask("curve", 0, self._curve, drop_intermediate)

    def pr_curve(self):
        """(precision, recall, thresholds) as scikit-learn's precision_recall_curve."""
        return self._ask("pr_curve", 0, self._pr_curve)

    def auc_error_bound(self):
        """The largest possible error of auc(): 0 when exact."""
        return self._ask("auc_error_bound", 0, self._bound)

    def _headline(self):
        return {"auc": self.auc, "auprc": self.auprc}

    def stats(self):
        self._need_data("stats")
        return self._stats(lambda c: "positive")

    def plot(self, ax=None, kind="roc"):
        """Draw the ROC (``kind='roc'``) or precision-recall (``'pr'``) curve (the ``[plot]`` extra)."""
        from ._plots import plot_roc
        return plot_roc(self, [0], ax=ax, kind=kind)


class _PerColumn(_ROCBase):
    """ROC per column: auc(c), auprc(c), curve(c), pr_curve(c), and their averages."""

    def auc(self, cls):
        """Area under the ROC curve of one column (nan, with a warning, when only one class was seen)."""
        return self._ask("auc", cls, self._auc, "auc")

    def auprc(self, cls):
        """Average precision of one column (scikit-learn's average_precision_score)."""
        return self._ask("auprc", cls, self._auprc, "auprc")

    def curve(self, cls, drop_intermediate=True):
        """(fpr, tpr, thresholds) of one column, as scikit-learn's roc_curve."""
        return self._ask("curve", cls, self._curve, drop_intermediate)

    def pr_curve(self, cls):
        """(precision, recall, thresholds) of one column, as scikit-learn's precision_recall_curve."""
        return self._ask("pr_curve", cls, self._pr_curve)

    def auc_error_bound(self, cls):
        return self._ask("auc_error_bound", cls, self._bound)

    def average_auc(self):
        """Mean AUC over the columns (scikit-learn's macro average; columns with one class only are
        left out, with a warning)."""
        return self._average("average_auc", self._auc)

    def average_auprc(self):
        """Mean average precision over the columns (macro)."""
        return self._average("average_auprc", self._auprc)

    def _headline(self):
        return {"average_auc": self.average_auc, "average_auprc": self.average_auprc}

    @property
    def num_columns(self):
        return self._columns

    def stats(self):
        self._need_data("stats")
        return self._stats(str)

    def plot(self, columns=None, ax=None, kind="roc"):
        """Draw the curves of ``columns`` (default: all) (the ``[plot]`` extra)."""
        from ._plots import plot_roc
        self._need_data("plot")
        return plot_roc(self, range(self._columns) if columns is None else columns, ax=ax, kind=kind)


class ROCMultiClass(_PerColumn):
    """One-vs-all ROC of each class of a single-label classifier (Deeplearning4j's ROCMultiClass):
    labels are class ids or one-hot rows, predictions (n, classes) scores."""

    _kind = "class"
    _size_setting = "classes"

    def __init__(self, num_classes=None, thresholds=0, *, max_bytes=None, fallback_thresholds=1024,
                 buffer_rows=None):
        if num_classes is not None and (not isinstance(num_classes, (int, numpy.integer)) or num_classes < 2):
            raise ValueError(f"ROCMultiClass: num_classes must be an integer >= 2 (or None), not {num_classes!r}")
        super().__init__(num_classes, thresholds, max_bytes, fallback_thresholds, buffer_rows)

    @property
    def num_classes(self):
        return self._columns

    def _columns_of(self, labels, predictions, mask, where):
        batch, k = classification_batch(labels, predictions, mask, self._columns, where)
        return batch.scores, batch.labels[:, None] == numpy.arange(k), None


class ROCBinary(_PerColumn):
    """ROC of each output of a multi-label output (Deeplearning4j's ROCBinary): labels and predictions
    (n, outputs); ``mask`` (n,) or (n, outputs) (a per-output mask drops single entries)."""

    _kind = "output"
    _size_setting = "outputs"

    def __init__(self, num_outputs=None, thresholds=0, *, max_bytes=None, fallback_thresholds=1024,
                 buffer_rows=None):
        if num_outputs is not None and (not isinstance(num_outputs, (int, numpy.integer)) or num_outputs < 1):
            raise ValueError(f"ROCBinary: num_outputs must be a positive integer (or None), not {num_outputs!r}")
        super().__init__(num_outputs, thresholds, max_bytes, fallback_thresholds, buffer_rows)

    @property
    def num_outputs(self):
        return self._columns

    def _columns_of(self, labels, predictions, mask, where):
        batch, _, keep = multilabel_batch(labels, predictions, mask, self._columns, where)
        return batch.scores, batch.labels, keep
