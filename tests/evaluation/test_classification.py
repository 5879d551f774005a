"""Evaluation and EvaluationBinary against scikit-learn: every score, every average, top-N, masks
and sequences, in any split of the stream into batches and any merge order; bad input leaves the
state unchanged."""
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn import metrics as skm

import wsarray as wnp
from wsarray.evaluation import Evaluation, EvaluationBinary, EvaluationError, EvaluationWarning


def _probabilities(rng, n, k, ties=False):
    p = rng.random((n, k))
    if ties:
        p = np.round(p * 4) / 4  # many equal scores: argmax and top-N ties
    return p / np.maximum(p.sum(axis=1, keepdims=True), 1e-12)


def _split(n, rng, parts):
    cuts = np.sort(rng.choice(np.arange(1, n), size=min(parts, n - 1), replace=False)) if n > 1 else []
    return np.split(np.arange(n), cuts)


def _streamed(metric_factory, y, p, rng, parts=5, mask=None):
    """The stream cut at random places, updated into several metrics, merged in a random order."""
    pieces = _split(len(y), rng, parts)
    metrics = []
    for idx in pieces:
        m = metric_factory()
        m.update(y[idx], p[idx], None if mask is None else mask[idx])
        metrics.append(m)
    rng.shuffle(metrics)
    total = metrics[0]
    for m in metrics[1:]:
        total.merge(m)
    return total


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 300), k=st.integers(2, 7), ties=st.booleans(),
       parts=st.integers(1, 6))
def test_every_score_equals_scikit_learns(seed, n, k, ties, parts):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    p = _probabilities(rng, n, k, ties)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = _streamed(lambda: Evaluation(k, top_n=min(2, k - 1)), y, p, rng, parts)
        pred = p.argmax(axis=1)
        labels = list(range(k))
        np.testing.assert_array_equal(ev.confusion_matrix(), skm.confusion_matrix(y, pred, labels=labels))
        assert ev.accuracy() == pytest.approx(skm.accuracy_score(y, pred), abs=1e-15)
        for average in ("macro", "micro", "weighted"):
            ps, rs, fs, _ = skm.precision_recall_fscore_support(y, pred, labels=labels, average=average,
                                                                 zero_division=0)
            assert ev.precision(average=average) == pytest.approx(ps, abs=1e-12)
            assert ev.recall(average=average) == pytest.approx(rs, abs=1e-12)
            assert ev.f1(average=average) == pytest.approx(fs, abs=1e-12)
            f2 = skm.fbeta_score(y, pred, beta=2.0, labels=labels, average=average, zero_division=0)
            assert ev.f_beta(2.0, average=average) == pytest.approx(f2, abs=1e-12)
        per_class = skm.precision_recall_fscore_support(y, pred, labels=labels, average=None, zero_division=0)
        for c in range(k):
            assert ev.precision(c) == pytest.approx(per_class[0][c], abs=1e-12)
            assert ev.recall(c) == pytest.approx(per_class[1][c], abs=1e-12)
            assert ev.f1(c) == pytest.approx(per_class[2][c], abs=1e-12)
            assert ev.matthews_correlation(c) == pytest.approx(skm.matthews_corrcoef(y == c, pred == c), abs=1e-12)
        assert ev.matthews_correlation() == pytest.approx(skm.matthews_corrcoef(y, pred), abs=1e-12)
        if k > 2:
            expected = skm.top_k_accuracy_score(y, p, k=min(2, k - 1), labels=labels)
            assert ev.top_n_accuracy() == pytest.approx(expected, abs=1e-15)


def test_a_class_never_predicted_counts_0_with_a_warning_as_scikit_learn():
    y = np.array([0, 1, 2, 2])
    p = np.eye(3)[[0, 1, 1, 1]]  # class 2 never predicted
    ev = Evaluation(3).update(y, p)
    with pytest.warns(EvaluationWarning, match=r"Precision is ill-defined.*classes \[2\]"):
        macro = ev.precision()
    with pytest.warns(Warning):
        expected = skm.precision_score(y, p.argmax(1), average="macro")
    assert macro == pytest.approx(expected)
    assert Evaluation(3, zero_division=1.0).update(y, p).precision(2) == 1.0
    assert np.isnan(Evaluation(3, zero_division=np.nan).update(y, p).precision(2))
    with pytest.raises(ValueError, match="zero_division"):
        Evaluation(3, zero_division="maybe")


def test_binary_threshold_and_cost_array_decide_as_deeplearning4j():
    rng = np.random.default_rng(1)
    p1 = rng.random(200)
    y = (rng.random(200) < p1).astype(int)
    ev = Evaluation(binary_decision_threshold=0.7).update(y, p1)  # (n,) = the positive class's score
    np.testing.assert_array_equal(ev.confusion_matrix(), skm.confusion_matrix(y, (p1 > 0.7).astype(int)))
    p = _probabilities(rng, 200, 3)
    y3 = rng.integers(0, 3, 200)
    cost = np.array([1.0, 3.0, 0.5])
    ev = Evaluation(3, cost_array=cost).update(y3, p)
    expected = skm.confusion_matrix(y3, (p * cost).argmax(1), labels=[0, 1, 2])
    np.testing.assert_array_equal(ev.confusion_matrix(), expected)
    with pytest.raises(ValueError, match="binary_decision_threshold needs 2 classes"):
        Evaluation(3, binary_decision_threshold=0.5)
    with pytest.raises(EvaluationError, match="binary_decision_threshold needs 2 classes"):
        Evaluation(binary_decision_threshold=0.5).update(y3, p)
    with pytest.raises(ValueError, match="cost_array"):
        Evaluation(3, cost_array=[1, -1, 1])


def test_one_hot_labels_masks_and_sequences():
    rng = np.random.default_rng(2)
    batch, k, time = 6, 4, 5
    out = rng.random((batch, k, time))
    classes = rng.integers(0, k, (batch, time))
    one_hot = np.moveaxis(np.eye(k)[classes], 2, 1)  # (batch, k, time)
    mask = rng.random((batch, time)) < 0.6
    ev = Evaluation(k).update(one_hot, out, mask)
    rows = np.moveaxis(out, 1, 2).reshape(-1, k)[mask.reshape(-1)]
    y = classes.reshape(-1)[mask.reshape(-1)]
    np.testing.assert_array_equal(ev.confusion_matrix(), skm.confusion_matrix(y, rows.argmax(1), labels=range(k)))
    flat = Evaluation(k).update(np.eye(k)[y], rows)  # one-hot rows
    np.testing.assert_array_equal(flat.confusion_matrix(), ev.confusion_matrix())
    row_mask = np.array([1, 0, 1, 1, 0, 0] * 5)[:30]
    p2, y2 = rng.random((30, k)), rng.integers(0, k, 30)
    masked = Evaluation(k).update(y2, p2, row_mask)
    np.testing.assert_array_equal(masked.confusion_matrix(),
                                  skm.confusion_matrix(y2[row_mask == 1], p2[row_mask == 1].argmax(1), labels=range(k)))


def test_wsarray_arrays_and_other_float_dtypes_are_read_in_place():
    rng = np.random.default_rng(3)
    p = _probabilities(rng, 50, 3).astype(np.float16)
    y = rng.integers(0, 3, 50)
    with wnp.workspace("EV_TEST"):
        ev = Evaluation(3).update(wnp.asarray(y), wnp.asarray(p))
    np.testing.assert_array_equal(ev.confusion_matrix(), skm.confusion_matrix(y, p.argmax(1), labels=[0, 1, 2]))


@pytest.mark.parametrize("labels, predictions, mask, message", [
    (np.array([0, 1, 3]), np.full((3, 3), 1 / 3), None, r"class ids must be in \[0, 3\), found 0..3"),
    (np.array([0, -1, 2]), np.full((3, 3), 1 / 3), None, r"class ids must be in \[0, 3\)"),
    (np.array([0, 1]), np.full((3, 3), 1 / 3), None, "labels have 2 rows, predictions 3"),
    (np.array([0, 1, 2]), np.full((3, 4), 1 / 4), None, "predictions have 4 columns; this metric has 3 classes"),
    (np.array([0, 1, 2]), np.array([[0.2, np.nan, 0.8]] * 3), None, "predictions hold NaN"),
    (np.array([0, 1, 2]), np.full((3, 3), 1 / 3), np.ones(4), r"the mask must have one entry per row \(3\)"),
    (np.array([0.5, 1, 2]), np.full((3, 3), 1 / 3), None, "class ids must be whole numbers"),
    (np.array(["a", "b", "c"]), np.full((3, 3), 1 / 3), None, "labels must be class ids or one-hot rows"),
    (np.array([0, 1, 2]), np.array(["x"] * 3), None, "predictions must be numbers"),
    (np.array([0, 1, 2]), np.ones((3, 3, 2, 1)), None, "predictions must be"),
    (object(), np.full((3, 3), 1 / 3), None, "labels must be an array with one entry per row, not a object"),
])
def test_bad_input_names_the_metric_and_batch_and_leaves_the_state(labels, predictions, mask, message):
    ev = Evaluation(3).update(np.array([0, 1, 2]), np.eye(3))
    before = ev.confusion_matrix()
    with pytest.raises(EvaluationError, match=r"Evaluation.update \(batch 2\): " + message):
        ev.update(labels, predictions, mask)
    np.testing.assert_array_equal(ev.confusion_matrix(), before)
    assert ev.batches == 1
    ev.update(np.array([2]), np.eye(3)[[2]])  # still usable
    assert ev.batches == 2 and ev.accuracy() == 1.0


def test_merge_pickle_reset_and_reports():
    rng = np.random.default_rng(4)
    y, p = rng.integers(0, 4, 100), _probabilities(rng, 100, 4)
    a = Evaluation(4, labels=["cat", "dog", "eel", "fox"]).update(y[:60], p[:60])
    b = pickle.loads(pickle.dumps(Evaluation(4, labels=["cat", "dog", "eel", "fox"]).update(y[60:], p[60:])))
    a.merge(b)
    whole = Evaluation(4).update(y, p)
    np.testing.assert_array_equal(a.confusion_matrix(), whole.confusion_matrix())
    assert a.batches == 2
    text = a.stats()
    assert "Accuracy:" in text and f"{whole.accuracy():.4f}" in text and "Confusion Matrix" in text and "fox" in text
    with pytest.raises(EvaluationError, match="settings differ"):
        a.merge(Evaluation(5))
    with pytest.raises(EvaluationError, match="cannot merge a EvaluationBinary"):
        a.merge(EvaluationBinary(4))
    a.reset()
    assert a.num_samples == 0 and a.batches == 0 and a.num_classes == 4
    with pytest.raises(EvaluationError, match="no batch has been evaluated"):
        Evaluation().accuracy()
    late = Evaluation()  # classes from the first batch
    late.update(y, p)
    assert late.num_classes == 4
    empty = Evaluation(3)
    with pytest.warns(EvaluationWarning, match="no rows"):
        assert np.isnan(empty.accuracy())


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 200), outputs=st.integers(1, 5), parts=st.integers(1, 4))
def test_evaluation_binary_equals_scikit_learn_per_output(seed, n, outputs, parts):
    rng = np.random.default_rng(seed)
    y = (rng.random((n, outputs)) < 0.4).astype(np.int8)
    p = np.round(rng.random((n, outputs)) * 10) / 10  # ties at the threshold
    thresholds = rng.random(outputs)
    ev = _streamed(lambda: EvaluationBinary(outputs, threshold=thresholds), y, p, rng, parts)
    predicted = p > thresholds
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(outputs):
            assert ev.accuracy(i) == pytest.approx(skm.accuracy_score(y[:, i], predicted[:, i]))
            assert ev.precision(i) == pytest.approx(skm.precision_score(y[:, i], predicted[:, i], zero_division=0))
            assert ev.recall(i) == pytest.approx(skm.recall_score(y[:, i], predicted[:, i], zero_division=0))
            assert ev.f1(i) == pytest.approx(skm.f1_score(y[:, i], predicted[:, i], zero_division=0))
            assert ev.matthews_correlation(i) == pytest.approx(skm.matthews_corrcoef(y[:, i], predicted[:, i]),
                                                               abs=1e-12)
        if outputs > 1:  # scikit-learn reads one column as a binary (not multi-label) problem
            expected = skm.precision_score(y, predicted, average="macro", zero_division=0)
            assert ev.precision() == pytest.approx(expected)


def test_evaluation_binary_per_output_mask_drops_single_entries():
    y = np.array([[1, 0], [1, 1], [0, 1]])
    p = np.array([[0.9, 0.8], [0.2, 0.7], [0.6, 0.1]])
    mask = np.array([[1, 0], [1, 1], [0, 1]])
    ev = EvaluationBinary(2).update(y, p, mask)
    assert ev.counts(0) == {"tp": 1, "fp": 0, "tn": 0, "fn": 1}
    assert ev.counts(1) == {"tp": 1, "fp": 0, "tn": 0, "fn": 1}
    with pytest.raises(EvaluationError, match=r"per-output mask must be \(n, outputs\)"):
        ev.update(y, p, np.ones((3, 3)))
    assert "output" in ev.stats()
