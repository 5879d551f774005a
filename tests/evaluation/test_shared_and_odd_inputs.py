"""Metrics shared by threads, interrupted by Ctrl-C, merged before their first batch, and given the
inputs real pipelines produce (small and unsigned integer labels, booleans, huge class counts) or
ones no metric can take (inf, NaN one-hot rows, strings, too few columns): results equal
scikit-learn's, bad input is an EvaluationError naming the metric with the state unchanged."""
import pickle
import threading
import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

from wsarray.evaluation import (ROC, Evaluation, EvaluationBinary, EvaluationCalibration, EvaluationError,
                                RegressionEvaluation, ROCBinary, ROCMultiClass)

RNG = np.random.default_rng(0)


def test_a_metric_updated_from_several_threads_equals_one_updated_serially():
    y = RNG.integers(0, 10, 2000)
    p = RNG.random((2000, 10))
    for make in (lambda: ROCMultiClass(10, buffer_rows=3000), lambda: Evaluation(10, top_n=3)):
        shared, serial = make(), make()
        errors = []

        def run(shared=shared):
            try:
                for _ in range(15):
                    shared.update(y, p)
            except Exception as e:  # noqa: BLE001  (reported below)
                errors.append(e)

        threads = [threading.Thread(target=run) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        for _ in range(60):
            serial.update(y, p)
        assert errors == []
        assert shared.batches == serial.batches == 60
        assert shared.summary() == pytest.approx(serial.summary(), rel=1e-12)


def test_merges_in_both_directions_at_once_do_not_deadlock():
    a, b = Evaluation(3), Evaluation(3)
    y, p = RNG.integers(0, 3, 50), RNG.random((50, 3))
    a.update(y, p)
    b.update(y, p)
    ta = threading.Thread(target=lambda: [a.merge(b.copy()) or a.merge(b) for _ in range(200)])
    tb = threading.Thread(target=lambda: [b.merge(a.copy()) or b.merge(a) for _ in range(200)])
    ta.start()
    tb.start()
    ta.join(60)
    tb.join(60)
    assert not ta.is_alive() and not tb.is_alive()


def test_pickled_and_copied_metrics_have_a_lock_of_their_own():
    m = Evaluation(3).update([0, 1, 2], np.eye(3))
    for other in (pickle.loads(pickle.dumps(m)), pickle.loads(pickle.dumps(m, protocol=0)), m.copy()):
        assert other._lock is not m._lock
        other.update([0], [[1.0, 0, 0]])  # usable, and holds the copy's lock only
        assert other.num_samples == 4 and m.num_samples == 3


def test_an_update_interrupted_by_ctrl_c_is_whole_or_not_made():
    from interrupt_helpers import ctrl_c_storm
    y = RNG.integers(0, 5, 64)
    p = RNG.random((64, 5))
    one = Evaluation(5, top_n=2).update(y, p)
    auc_one = ROC().update(y == 0, p[:, 0]).auc()
    ev, roc = Evaluation(5, top_n=2), ROC(buffer_rows=50)

    def updates():
        ev.update(y, p)
        roc.update(y == 0, p[:, 0])

    interrupted = ctrl_c_storm(updates, 3000, 3e-4)
    assert interrupted > 0
    assert ev.num_samples == 64 * ev.batches  # each batch counted whole or not at all
    assert ev.top_n_accuracy() == one.top_n_accuracy()
    assert roc.auc() == pytest.approx(auc_one, abs=1e-12)


@pytest.mark.parametrize("make, y, p", [
    (Evaluation, [0, 1, 2, 1], np.eye(3)[[0, 1, 2, 2]]),
    (EvaluationCalibration, [0, 1, 2, 1], np.eye(3)[[0, 1, 2, 2]]),
    (ROCMultiClass, [0, 1, 2, 1], np.eye(3)[[0, 1, 2, 2]]),
    (EvaluationBinary, np.eye(3)[[0, 1, 2, 1]], np.eye(3)[[0, 1, 2, 2]]),
    (ROCBinary, np.eye(3)[[0, 1, 2, 1]], np.eye(3)[[0, 1, 2, 2]]),
    (RegressionEvaluation, np.arange(6.0).reshape(3, 2), np.arange(6.0).reshape(3, 2) + 1),
])
def test_a_metric_sized_by_its_first_batch_merges_and_is_merged(make, y, p):
    full = make().update(y, p)
    empty = make()
    assert empty.merge(full).summary() == pytest.approx(full.summary(), nan_ok=True)
    assert full.copy().merge(make()).summary() == pytest.approx(full.summary(), nan_ok=True)
    with pytest.raises(EvaluationError, match="settings differ"):
        make().update(*((y, p) if make is not RegressionEvaluation else (y[:, :1], p[:, :1]))).merge(
            make().update(np.eye(4)[[0, 1]] if make in (EvaluationBinary, ROCBinary) else
                          (np.ones((2, 3)) if make is RegressionEvaluation else [0, 3]),
                          np.eye(4)[[0, 1]] if make is not RegressionEvaluation else np.ones((2, 3))))


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "uint16", "uint32", "uint64", "int64"])
def test_class_ids_of_any_integer_dtype_give_scikit_learns_confusion_matrix(dtype):
    k = 100 if dtype != "int8" else 100  # y * k overflows every 8-bit type
    y = RNG.integers(0, k, 1000)
    p = RNG.random((1000, k))
    ev = Evaluation(k).update(y.astype(dtype), p)
    assert (ev.confusion_matrix() == skm.confusion_matrix(y, p.argmax(1), labels=range(k))).all()
    cal = EvaluationCalibration(k).update(y.astype(dtype), p / p.sum(1, keepdims=True))
    assert cal.reliability_diagram(0)[2].sum() == 1000


def test_many_classes_count_only_the_cells_rows_fall_in():
    k = 3000
    y = RNG.integers(0, k, 64)
    p = RNG.random((64, k)).astype(np.float32)
    ev = Evaluation(k).update(y, p)
    assert (ev.confusion_matrix() == skm.confusion_matrix(y, p.argmax(1), labels=range(k))).all()
    assert ROCMultiClass(k).nbytes <= 16 << 20  # the staging buffer stays within its 16 MiB


def test_boolean_predictions_are_zero_one_probabilities():
    y = np.array([0, 1, 1, 0, 1])
    p = np.array([False, True, False, False, True])
    cal = EvaluationCalibration().update(y, p)
    ref = EvaluationCalibration().update(y, p.astype(float))
    assert cal.expected_calibration_error() == ref.expected_calibration_error()
    assert ROC().update(y, p).auc() == pytest.approx(skm.roc_auc_score(y, p))


@pytest.mark.parametrize("make, labels, predictions, message", [
    (RegressionEvaluation, [1.0, np.inf], [1.0, 2.0], "labels hold inf"),
    (RegressionEvaluation, [1.0, 2.0], [-np.inf, 2.0], "predictions hold inf"),
    (Evaluation, [[np.nan, 1.0], [1.0, 0.0]], [[0.2, 0.8], [0.6, 0.4]], "must be finite numbers"),
    (Evaluation, np.array([["a", "b"], ["b", "a"]]), [[0.2, 0.8], [0.6, 0.4]], "finite numbers, not <U1"),
    (Evaluation, [0, 0], [[0.2], [0.6]], r"1 column\(s\); a classifier needs one per class"),
    (EvaluationCalibration, [0, 0], [[0.2], [0.6]], r"1 column\(s\)"),
    (ROCMultiClass, np.zeros(2, int), np.zeros((2, 0)), r"0 column\(s\)"),
    (ROCBinary, np.zeros((2, 0)), np.zeros((2, 0)), r"0 column\(s\); a multi-label metric"),
    (ROC, [0, 1], np.array([2**60, 2**60 + 1]), "beyond 2\\*\\*53"),
    (Evaluation, [0.0, 1e300], [[0.2, 0.8], [0.6, 0.4]], r"class ids must be in \[0, 2\), found 0\.\.1e\+300"),
    (Evaluation, [[0, 0], [1, 0]], [[0.2, 0.8], [0.6, 0.4]], r"1 row\(s\) of one-hot labels have no class"),
])
def test_inputs_no_metric_can_take_are_refused_and_leave_the_state_as_it_was(make, labels, predictions, message):
    metric = make()
    good = (([0.0, 1.0], [0.5, 1.5]) if make is RegressionEvaluation else
            (np.eye(2)[[0, 1]], np.eye(2)[[0, 1]]) if make in (EvaluationBinary, ROCBinary) else
            ([0, 1], np.eye(2)[[0, 1]]) if make is not ROC else ([0, 1], [0.2, 0.7]))
    if make is not ROCBinary and make is not ROCMultiClass:
        metric.update(*good)
    before = pickle.dumps(metric.__getstate__())
    with pytest.raises(EvaluationError, match=rf"{make.__name__}\.update \(batch \d\): .*{message}"):
        metric.update(labels, predictions)
    assert pickle.dumps(metric.__getstate__()) == before


def test_nan_masks_and_thresholds_are_refused():
    with pytest.raises(EvaluationError, match=r"the mask holds NaN"):
        Evaluation(2).update([0, 1], np.eye(2), mask=np.array([1.0, np.nan]))
    with pytest.raises(EvaluationError, match=r"the mask holds NaN"):
        EvaluationBinary(2).update(np.eye(2), np.eye(2), mask=np.array([[1.0, np.nan], [1.0, 1.0]]))
    assert EvaluationBinary(2).update(np.eye(2), np.eye(2), mask=np.array([[1, 0], [1, 1]])).summary()
    with pytest.raises(ValueError, match=r"Evaluation: binary_decision_threshold must be a finite number"):
        Evaluation(2, binary_decision_threshold=float("nan"))


def test_warnings_of_a_shared_metric_still_name_the_callers_line():
    roc = ROC(max_bytes=2000, buffer_rows=100)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(5):
            roc.update(RNG.integers(0, 2, 200), RNG.random(200))
    assert caught and all(w.filename == __file__ for w in caught)


def test_a_subclass_overriding_merge_keeps_the_one_lock_order():
    class Counted(Evaluation):
        merges = 0

        def merge(self, other):  # the documented way to extend a metric
            type(self).merges += 1
            return super().merge(other)

    a, b = Counted(3), Counted(3)
    a.update([0, 1, 2], np.eye(3))
    b.update([0, 1, 2], np.eye(3))
    ta = threading.Thread(target=lambda: [a.merge(b) for _ in range(300)])
    tb = threading.Thread(target=lambda: [b.merge(a) for _ in range(300)])
    ta.start()
    tb.start()
    ta.join(60)
    tb.join(60)
    assert not ta.is_alive() and not tb.is_alive() and Counted.merges == 600


@pytest.mark.parametrize("make", [EvaluationBinary, ROCBinary])
def test_multi_label_metrics_take_the_sequences_time_mask(make):
    # A (batch, time) mask of (batch, outputs, time) outputs was taken for an (n, outputs) mask of
    # single entries and refused: masked sequence evaluation was impossible for these metrics.
    rng = np.random.default_rng(3)
    p = rng.random((4, 3, 5))
    y = rng.integers(0, 2, (4, 3, 5))
    mask = np.ones((4, 5))
    mask[:, 3:] = 0  # padding steps
    got = make().update(y, p, mask)
    rows = np.moveaxis(p, 2, 1)[mask != 0], np.moveaxis(y, 2, 1)[mask != 0]  # (kept steps, outputs)
    ref = make().update(rows[1], rows[0])
    if make is EvaluationBinary:
        assert [got.counts(i) for i in range(3)] == [ref.counts(i) for i in range(3)]
    else:  # the same rows in another order: equal up to rounding
        expected = [skm.roc_auc_score(rows[1][:, i], rows[0][:, i]) for i in range(3)]
        assert [got.auc(i) for i in range(3)] == pytest.approx(expected, rel=1e-12)
        assert [ref.auc(i) for i in range(3)] == pytest.approx(expected, rel=1e-12)


def test_all_zero_label_rows_dropped_by_the_mask_are_not_refused():
    labels = np.array([[0, 1], [0, 0], [1, 0]])
    scores = np.array([[0.3, 0.7], [0.5, 0.5], [0.9, 0.1]])
    e = Evaluation().update(labels, scores, np.array([1, 0, 1]))
    assert e.accuracy() == 1.0


def test_max_bytes_is_an_integer_not_a_bool():
    with pytest.raises(ValueError, match="max_bytes must be a positive integer"):
        ROC(max_bytes=True)
