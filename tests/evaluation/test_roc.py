"""ROC, ROCMultiClass and ROCBinary: exact AUC and average precision equal scikit-learn's for any
split of the stream and merge order (ties included); curves equal roc_curve and
precision_recall_curve; binned AUC within its stated bound; max_bytes switches to bins and says so."""
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn import metrics as skm

from wsarray.evaluation import ROC, EvaluationError, EvaluationWarning, ROCBinary, ROCMultiClass


def _scores(rng, n, ties):
    s = rng.random(n)
    return np.round(s * ties) / ties if ties else s


def _streamed(factory, y, p, rng, parts, mask=None):
    n = len(y)
    cuts = np.sort(rng.choice(np.arange(1, n), size=min(parts, n - 1), replace=False)) if n > 1 else []
    metrics = []
    for idx in np.split(np.arange(n), cuts):
        m = factory()
        m.update(y[idx], p[idx], None if mask is None else mask[idx])
        metrics.append(m)
    rng.shuffle(metrics)
    for m in metrics[1:]:
        metrics[0].merge(m)
    return metrics[0]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 400), ties=st.sampled_from([0, 3, 20, 1000]),
       parts=st.integers(1, 8), buffer_rows=st.sampled_from([1, 7, 64, 65536]))
def test_exact_auc_and_average_precision_equal_scikit_learn(seed, n, ties, parts, buffer_rows):
    rng = np.random.default_rng(seed)
    s = _scores(rng, n, ties)
    y = (rng.random(n) < 0.3 + 0.4 * s).astype(int)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    roc = _streamed(lambda: ROC(buffer_rows=buffer_rows), y, s, rng, parts)
    assert roc.exact
    assert abs(roc.auc() - skm.roc_auc_score(y, s)) <= 1e-12
    assert abs(roc.auprc() - skm.average_precision_score(y, s)) <= 1e-12
    fpr, tpr, thr = roc.curve()
    e_fpr, e_tpr, e_thr = skm.roc_curve(y, s)
    np.testing.assert_allclose(fpr, e_fpr, rtol=0, atol=1e-15)
    np.testing.assert_allclose(tpr, e_tpr, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(thr, e_thr)
    full = skm.roc_curve(y, s, drop_intermediate=False)
    np.testing.assert_array_equal(roc.curve(drop_intermediate=False)[2], full[2])
    precision, recall, pthr = roc.pr_curve()
    e_precision, e_recall, e_pthr = skm.precision_recall_curve(y, s)
    np.testing.assert_allclose(precision, e_precision, atol=1e-15)
    np.testing.assert_allclose(recall, e_recall, atol=1e-15)
    np.testing.assert_array_equal(pthr, e_pthr)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(20, 500), k=st.integers(2, 6), parts=st.integers(1, 5),
       bins=st.sampled_from([2, 10, 100]))
def test_multiclass_one_vs_all_exact_and_binned(seed, n, k, parts, bins):
    rng = np.random.default_rng(seed)
    p = rng.random((n, k))
    p = np.round(p * 50) / 50 + 1e-3
    p /= p.sum(axis=1, keepdims=True)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)  # every class present
    exact = _streamed(lambda: ROCMultiClass(k), y, p, rng, parts)
    binned = _streamed(lambda: ROCMultiClass(k, thresholds=bins), y, p, rng, parts)
    for c in range(k):
        assert abs(exact.auc(c) - skm.roc_auc_score(y == c, p[:, c])) <= 1e-12
        assert abs(exact.auprc(c) - skm.average_precision_score(y == c, p[:, c])) <= 1e-12
        assert exact.auc_error_bound(c) == 0.0
        assert abs(binned.auc(c) - exact.auc(c)) <= binned.auc_error_bound(c) + 1e-12
    if k > 2:
        expected = skm.roc_auc_score(y, p, multi_class="ovr", labels=list(range(k)))
        assert abs(exact.average_auc() - expected) <= 1e-12
    expected_ap = skm.average_precision_score(np.eye(k)[y], p, average="macro")
    assert abs(exact.average_auprc() - expected_ap) <= 1e-12


def test_the_binned_bound_is_what_ties_within_bins_can_cost():
    rng = np.random.default_rng(5)
    s = rng.random(20000)
    y = (rng.random(20000) < s).astype(int)
    exact = ROC().update(y, s)
    for bins in (4, 16, 256, 4096):
        binned = ROC(thresholds=bins).update(y, s)
        bound = binned.auc_error_bound()
        assert 0 < bound < 0.5
        assert abs(binned.auc() - exact.auc()) <= bound
        pos, neg = np.histogram(s[y == 1], bins, (0, 1))[0], np.histogram(s[y == 0], bins, (0, 1))[0]
        assert bound == pytest.approx((pos * neg).sum() / (2.0 * pos.sum() * neg.sum()))
    assert binned.nbytes == 2 * 4096 * 8  # O(bins), whatever the stream


def test_max_bytes_switches_to_bins_says_so_and_stays_within_the_bound():
    rng = np.random.default_rng(6)
    s, y = rng.random(50000), (rng.random(50000) < 0.5).astype(int)
    roc = ROC(max_bytes=200_000, fallback_thresholds=512, buffer_rows=4096)
    with pytest.warns(EvaluationWarning, match="switched to 512 bins"):
        for i in range(0, 50000, 5000):
            roc.update(y[i:i + 5000], s[i:i + 5000])
    assert not roc.exact and roc.switched
    assert roc.nbytes <= 200_000
    assert abs(roc.auc() - skm.roc_auc_score(y, s)) <= roc.auc_error_bound()
    assert "switched from exact by max_bytes" in roc.stats()
    exact = ROC(max_bytes=200_000, fallback_thresholds=512).update(y[:100], s[:100])
    assert exact.exact
    roc.merge(exact)  # exact data folds into the bins
    assert roc.batches == 11


def test_exact_memory_grows_with_distinct_scores_not_rows():
    rng = np.random.default_rng(7)
    roc = ROC(buffer_rows=1000)
    for _ in range(50):
        roc.update(rng.integers(0, 2, 1000), rng.integers(0, 100, 1000) / 100)
    roc.auc()
    runs = roc._runs[0].runs
    assert len(runs) == 1 and runs[0][0].size == 100


def test_one_class_only_is_undefined_and_said_so():
    roc = ROC().update(np.zeros(10, int), np.linspace(0, 1, 10))
    with pytest.warns(EvaluationWarning, match="only one class is present.*not defined"):
        assert np.isnan(roc.auc())
    with pytest.warns(EvaluationWarning, match="no positive labels"):
        assert roc.auprc() == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert skm.average_precision_score(np.zeros(10), np.linspace(0, 1, 10)) == 0.0
    m = ROCMultiClass(3).update(np.array([0, 1, 0, 1]), np.full((4, 3), 1 / 3))
    with pytest.warns(EvaluationWarning, match=r"classs \[2\] have one class only|class.*\[2\]"):
        assert m.average_auc() == pytest.approx(np.mean([m.auc(0), m.auc(1)]))


def test_roc_binary_per_output_and_masks():
    rng = np.random.default_rng(8)
    n, k = 300, 3
    y = (rng.random((n, k)) < 0.5).astype(int)
    p = np.round(rng.random((n, k)) * 30) / 30
    mask = rng.random((n, k)) < 0.7
    roc = _streamed(lambda: ROCBinary(k), y, p, rng, 4, mask)
    for i in range(k):
        keep = mask[:, i]
        assert abs(roc.auc(i) - skm.roc_auc_score(y[keep, i], p[keep, i])) <= 1e-12
    rows = rng.random(n) < 0.5
    row_masked = ROCBinary(k).update(y, p, rows)
    assert abs(row_masked.auc(0) - skm.roc_auc_score(y[rows, 0], p[rows, 0])) <= 1e-12
    with pytest.raises(EvaluationError, match=r"per-output mask must be \(n, outputs\)"):
        roc.update(y, p, np.ones((n, k + 1)))


def test_bad_input_and_settings():
    roc = ROC().update(np.array([0, 1]), np.array([0.2, 0.9]))
    with pytest.raises(EvaluationError, match=r"ROC.update \(batch 2\): predictions hold NaN"):
        roc.update(np.array([0, 1]), np.array([0.2, np.nan]))
    with pytest.raises(EvaluationError, match=r"class ids must be in \[0, 2\)"):
        roc.update(np.array([0, 2]), np.array([0.2, 0.3]))
    assert roc.auc() == 1.0 and roc.batches == 1
    for bad in (1, -1, 2.5, "10"):
        with pytest.raises(ValueError, match="thresholds must be 0"):
            ROC(thresholds=bad)
    with pytest.raises(ValueError, match="max_bytes"):
        ROC(max_bytes=0)
    with pytest.raises(EvaluationError, match="settings differ"):
        ROC().merge(ROC(thresholds=10))
    with pytest.raises(ValueError, match=r"class must be in \[0, 3\)"):
        ROCMultiClass(3).update(np.array([0, 1, 2]), np.eye(3)).auc(3)
    with pytest.raises(EvaluationError, match="no batch has been evaluated"):
        ROCMultiClass().auc(0)


def test_pickle_merge_and_reset_keep_results():
    rng = np.random.default_rng(9)
    s, y = rng.random(1000), rng.integers(0, 2, 1000)
    a = ROC(buffer_rows=128).update(y[:500], s[:500])
    b = pickle.loads(pickle.dumps(ROC(buffer_rows=128).update(y[500:], s[500:])))
    assert a.merge(b).auc() == pytest.approx(skm.roc_auc_score(y, s), abs=1e-12)
    a.reset()
    with pytest.warns(EvaluationWarning, match="only one class"):
        assert np.isnan(a.auc())
    a.update(y, s)
    assert a.auc() == pytest.approx(skm.roc_auc_score(y, s), abs=1e-12)
    assert "AUC" in a.stats() and repr(a).startswith("ROC(thresholds=0")


def test_runs_are_compact_and_widen_before_a_count_could_overflow():
    from wsarray.evaluation.roc import _Runs
    run = _Runs.from_scores(np.array([0.5, 0.25, 0.5]), np.array([True, False, False]))
    assert run[0].dtype == np.float32 and run[1].dtype == np.uint32  # 12 bytes per distinct score
    assert run[1].tolist() == [1, 2] and run[2].tolist() == [0, 1]
    assert _Runs.from_scores(np.array([0.1]), np.array([True]))[0].dtype == np.float64  # 0.1 is no float32
    big = (np.array([0.5], np.float32), np.array([2**32 - 10], np.uint32), np.array([5], np.uint32))
    small = (np.array([0.5], np.float32), np.array([20], np.uint32), np.array([1], np.uint32))
    merged = _Runs._merge(big, small)
    assert merged[1].dtype == np.int64 and merged[1][0] == 2**32 + 10 and merged[2][0] == 6
    mixed = _Runs._merge(small, (np.array([0.1]), np.array([3], np.uint32), np.array([3], np.uint32)))
    assert mixed[0].dtype == np.float64 and mixed[0].tolist() == [0.1, 0.5] and mixed[1].tolist() == [3, 20]


def test_the_packed_float32_merge_equals_the_general_one():
    from wsarray.evaluation.roc import _Runs
    rng = np.random.default_rng(10)
    runs = []
    for _ in range(9):
        v = np.concatenate([rng.standard_normal(50), [0.0, -0.0, np.inf, -np.inf, 1e-40]]).astype(np.float32)
        runs.append(_Runs.from_scores(v.astype(np.float64), rng.random(v.size) < 0.5))
    packed = _Runs._merge(*runs)
    general = _Runs._merge(*[(r[0].astype(np.float64), r[1], r[2]) for r in runs])
    assert packed[0].dtype == np.float32 and general[0].dtype == np.float64
    np.testing.assert_array_equal(packed[0].astype(np.float64), general[0])
    np.testing.assert_array_equal(packed[1], general[1])
    np.testing.assert_array_equal(packed[2], general[2])
    assert packed[1].sum() == 9 * 55 and not np.signbit(packed[0][packed[0] == 0]).any()
    tiers = _Runs()
    for r in runs + runs[:8]:
        tiers.add(r)
    assert _Runs.FAN == 16 and tiers.weights == [16, 1] and len(tiers.runs) == 2  # 16 runs of one weight merged
