"""RegressionEvaluation against scikit-learn and NumPy per column (streamed, merged); the calibration
reliability diagram against scikit-learn's calibration_curve; histograms against numpy.histogram."""
import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn import metrics as skm
from sklearn.calibration import calibration_curve

from wsarray.evaluation import EvaluationCalibration, EvaluationError, EvaluationWarning, RegressionEvaluation


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 300), k=st.integers(1, 4), parts=st.integers(1, 6),
       offset=st.sampled_from([0.0, 1e6]))
def test_regression_scores_equal_scikit_learn_per_column(seed, n, k, parts, offset):
    rng = np.random.default_rng(seed)
    y = rng.standard_normal((n, k)) + offset  # a large offset: moments must not cancel
    p = y + 0.3 * rng.standard_normal((n, k))
    cuts = np.sort(rng.choice(np.arange(1, n), size=min(parts, n - 1), replace=False))
    pieces = [RegressionEvaluation(k).update(y[i], p[i]) for i in np.split(np.arange(n), cuts)]
    rng.shuffle(pieces)
    ev = pieces[0]
    for other in pieces[1:]:
        ev.merge(other)
    mse = skm.mean_squared_error(y, p, multioutput="raw_values")
    mae = skm.mean_absolute_error(y, p, multioutput="raw_values")
    r2 = skm.r2_score(y, p, multioutput="raw_values")
    for c in range(k):
        assert ev.mean_squared_error(c) == pytest.approx(mse[c], rel=1e-10)
        assert ev.mean_absolute_error(c) == pytest.approx(mae[c], rel=1e-10)
        assert ev.root_mean_squared_error(c) == pytest.approx(np.sqrt(mse[c]), rel=1e-10)
        assert ev.r_squared(c) == pytest.approx(r2[c], rel=1e-8, abs=1e-8)
        assert ev.relative_squared_error(c) == pytest.approx(1 - r2[c], rel=1e-8, abs=1e-8)
        assert ev.pearson_correlation(c) == pytest.approx(np.corrcoef(y[:, c], p[:, c])[0, 1], rel=1e-8)
    assert ev.mean_squared_error() == pytest.approx(mse.mean(), rel=1e-10)
    assert ev.num_samples == n


def test_regression_edge_cases_and_errors():
    const = RegressionEvaluation(1).update(np.ones(5), np.ones(5))
    assert const.r_squared() == 1.0 == skm.r2_score(np.ones(5), np.ones(5))
    off = RegressionEvaluation(1).update(np.ones(5), np.arange(5.0))
    assert off.r_squared() == 0.0 == skm.r2_score(np.ones(5), np.arange(5.0))
    assert np.isnan(off.pearson_correlation())
    with pytest.warns(EvaluationWarning, match="no rows"):
        assert np.isnan(RegressionEvaluation(2).mean_squared_error())
    ev = RegressionEvaluation(2).update(np.zeros((3, 2)), np.ones((3, 2)))
    with pytest.raises(EvaluationError, match=r"RegressionEvaluation.update \(batch 2\): labels \(3, 1\) and "
                                              r"predictions \(3, 2\) must be the same"):
        ev.update(np.zeros(3), np.ones((3, 2)))
    with pytest.raises(EvaluationError, match="labels hold NaN"):
        ev.update(np.full((3, 2), np.nan), np.ones((3, 2)))
    assert ev.num_samples == 3 and ev.mean_absolute_error() == 1.0
    time_mask = np.array([[1, 1, 0, 0], [1, 0, 0, 0]])
    seq = RegressionEvaluation(2).update(np.zeros((2, 2, 4)), np.ones((2, 2, 4)), time_mask)
    assert seq.num_samples == 3
    assert "RSE" in pickle.loads(pickle.dumps(ev)).stats()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 300), k=st.integers(2, 5), bins=st.integers(1, 15))
def test_reliability_diagram_equals_calibration_curve(seed, n, k, bins):
    rng = np.random.default_rng(seed)
    p = rng.random((n, k))
    p[rng.random((n, k)) < 0.1] = 0.5  # scores on a bin edge
    p /= p.sum(axis=1, keepdims=True)
    y = rng.integers(0, k, n)
    cal = EvaluationCalibration(k, reliability_bins=bins, histogram_bins=7)
    for i in range(0, n, 37):
        cal.update(y[i:i + 37], p[i:i + 37])
    for c in range(k):
        fraction, mean, rows = cal.reliability_diagram(c)
        expected_fraction, expected_mean = calibration_curve(y == c, p[:, c], n_bins=bins)
        np.testing.assert_allclose(fraction, expected_fraction, rtol=1e-12)
        np.testing.assert_allclose(mean, expected_mean, rtol=1e-12)
        assert rows.sum() == n
        counts, edges = cal.probability_histogram(c)
        np.testing.assert_array_equal(counts, np.histogram(p[:, c], 7, (0, 1))[0])
    residual = np.abs(np.eye(k)[y] - p).reshape(-1)
    np.testing.assert_array_equal(cal.residual_histogram()[0], np.histogram(residual, 7, (0, 1))[0])
    true_p = p[np.arange(n), y]
    np.testing.assert_array_equal(cal.true_class_probability_histogram()[0], np.histogram(true_p, 7, (0, 1))[0])


def test_calibration_errors_and_report():
    cal = EvaluationCalibration()
    with pytest.raises(EvaluationError, match=r"probabilities in \[0, 1\]"):
        cal.update(np.array([0, 1]), np.array([[0.5, 1.5], [0.2, 0.8]]))
    cal.update(np.array([0, 1, 1]), np.array([0.2, 0.7, 0.9]))  # binary: the positive probability
    assert cal.num_classes == 2
    assert 0 <= cal.expected_calibration_error() <= 1
    assert "ECE" in cal.stats()
    with pytest.raises(ValueError, match="reliability_bins"):
        EvaluationCalibration(reliability_bins=0)
