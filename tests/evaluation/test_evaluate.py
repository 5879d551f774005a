"""evaluate(model, data, *metrics): one pass, each batch in a workspace cycle; in the steady state no
NumPy allocation outside the workspace and no spill; any data source of wsarray.data; models that
are callables, scikit-learn estimators or have output(); device arrays; plots and the HTML report."""
import gc
import pickle

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.linear_model import LogisticRegression

import wsarray as wnp
from wsarray._devices import fake
from wsarray.data import AsyncIterator, BatchDirectory, save_batches
from wsarray.evaluation import (ROC, Evaluation, EvaluationCalibration, EvaluationError, EvaluationWarning,
                                ROCMultiClass, RegressionEvaluation, evaluate, report_html)

K, FEATURES = 4, 12


def _model(seed=0):
    w = wnp.asarray(np.random.default_rng(seed).standard_normal((FEATURES, K)).astype(np.float32))

    def model(x):
        z = wnp.asarray(x) @ w
        z = wnp.exp(z - z.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)
    return model


def _batches(n_batches=30, rows=128, seed=1):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((rows, FEATURES)).astype(np.float32), rng.integers(0, K, rows))
            for _ in range(n_batches)]


def _reference(model, batches):
    p = np.concatenate([np.asarray(model(x)) for x, _ in batches])
    y = np.concatenate([y for _, y in batches])
    return y, p


def test_one_pass_updates_every_metric_as_the_concatenated_arrays_would():
    model, batches = _model(), _batches()
    ev, roc, cal = evaluate(model, batches, Evaluation(K, top_n=2), ROCMultiClass(K), EvaluationCalibration(K))
    y, p = _reference(model, batches)
    np.testing.assert_array_equal(ev.confusion_matrix(), skm.confusion_matrix(y, p.argmax(1), labels=range(K)))
    assert ev.top_n_accuracy() == pytest.approx(skm.top_k_accuracy_score(y, p, k=2))
    for c in range(K):
        assert abs(roc.auc(c) - skm.roc_auc_score(y == c, p[:, c])) <= 1e-12
    assert cal.reliability_diagram(0)[2].sum() == len(y)
    single = evaluate(model, batches, Evaluation(K))
    assert isinstance(single, Evaluation) and single.accuracy() == ev.accuracy()
    assert ev.batches == len(batches)


def test_the_steady_state_allocates_nothing_outside_the_workspace_and_never_spills():
    model, batches = _model(), _batches(60)
    metrics = (Evaluation(K, top_n=2), ROCMultiClass(K, thresholds=200), EvaluationCalibration(K),
               RegressionEvaluation(K))
    regression_batches = [(x, np.eye(K)[y]) for x, y in batches]
    evaluate(model, batches[:5], *metrics[:3])
    evaluate(model, regression_batches[:5], metrics[3])
    ws = wnp.workspace("WSA_EVALUATION")
    buffers = [{k: v for k, v in vars(m).items() if isinstance(v, np.ndarray)} for m in metrics]
    stats_before, numpy_before = ws.stats(), wnp.memory.numpy_allocations()
    evaluate(model, batches[5:], *metrics[:3])
    evaluate(model, regression_batches[5:], metrics[3])
    stats_after, numpy_after = ws.stats(), wnp.memory.numpy_allocations()
    assert numpy_after["outside"] == numpy_before["outside"]  # no NumPy buffer outside the workspace
    assert numpy_after["in_workspaces"] > numpy_before["in_workspaces"] + 55 * 5  # the updates' temporaries
    assert stats_after["spills"] == stats_before["spills"]
    assert stats_after["os_maps"] == stats_before["os_maps"]
    assert stats_after["live_arrays"] == 0 and stats_after["cycles"] == stats_before["cycles"] + 110
    for before, m in zip(buffers, metrics):  # the state is the same buffers, updated in place
        assert before and all(getattr(m, name) is value for name, value in before.items())
    ev = metrics[0]
    assert wnp.memory.workspace_exists("WSA_EVALUATION") and ev.num_samples == 60 * 128


def test_metric_state_never_points_into_a_workspace():
    model, batches = _model(), _batches(8)
    metrics = evaluate(model, batches, Evaluation(), ROCMultiClass(buffer_rows=100), EvaluationCalibration(),
                       ROCMultiClass(thresholds=50))  # state made inside the first cycle
    wnp.memory.destroy_workspace("WSA_EVALUATION")
    gc.collect()
    junk = wnp.workspace("JUNK")
    for _ in range(3):
        with junk:
            wnp.full((4096, 64), 7.0)
    y, p = _reference(model, batches)
    ev, roc, cal, binned = metrics
    np.testing.assert_array_equal(ev.confusion_matrix(), skm.confusion_matrix(y, p.argmax(1), labels=range(K)))
    assert abs(roc.auc(1) - skm.roc_auc_score(y == 1, p[:, 1])) <= 1e-12
    assert cal.reliability_diagram(2)[2].sum() == len(y)
    assert binned._hist.sum() == len(y) * K
    for m in metrics:
        for value in vars(m).values():
            if isinstance(value, np.ndarray):
                assert wnp._native._test_owned_size(value.ctypes.data) is None


def test_async_iterator_batch_directory_dicts_and_masks(tmp_path):
    model, batches = _model(), _batches(12)
    reference = evaluate(model, batches, Evaluation(K))
    with AsyncIterator(iter(batches), queue_size=3) as it:
        from_iterator = evaluate(model, it, Evaluation(K))
    np.testing.assert_array_equal(from_iterator.confusion_matrix(), reference.confusion_matrix())
    save_batches(batches, tmp_path / "saved")
    from_files = evaluate(model, BatchDirectory(tmp_path / "saved"), Evaluation(K))
    np.testing.assert_array_equal(from_files.confusion_matrix(), reference.confusion_matrix())
    dicts = [{"features": x, "labels": y, "mask": np.arange(len(y)) % 2} for x, y in batches]
    masked = evaluate(model, dicts, Evaluation(K))
    assert masked.num_samples == reference.num_samples // 2


def test_models_with_predict_proba_output_or_a_call():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((400, 5))
    y = (x[:, 0] + 0.5 * rng.standard_normal(400) > 0).astype(int)
    clf = LogisticRegression().fit(x, y)
    roc = evaluate(clf, [(x[:200], y[:200]), (x[200:], y[200:])], ROC())
    assert abs(roc.auc() - skm.roc_auc_score(y, clf.predict_proba(x)[:, 1])) <= 1e-12

    class Net:
        def output(self, features):
            return clf.predict_proba(features)
    assert evaluate(Net(), [(x, y)], ROC()).auc() == roc.auc()
    with pytest.raises(TypeError, match="model must be callable"):
        evaluate(object(), [(x, y)], ROC())


def test_errors_name_the_function_and_leave_no_open_cycle():
    model = _model()
    with pytest.raises(ValueError, match="give at least one metric"):
        evaluate(model, _batches(1))
    with pytest.raises(TypeError, match="int is not a wsarray.evaluation metric"):
        evaluate(model, _batches(1), 3)
    with pytest.raises(ValueError, match="batch 2 must be"):
        evaluate(model, [_batches(1)[0], (1, 2, 3, 4)], Evaluation(K))
    with pytest.raises(TypeError, match="data must be iterable"):
        evaluate(model, 5, Evaluation(K))
    bad = [(x, y + K) for x, y in _batches(2)]
    with pytest.raises(EvaluationError, match=r"Evaluation.update \(batch 1\)"):
        evaluate(model, bad, Evaluation(K))

    def failing(x):
        raise RuntimeError("model failed")
    with pytest.raises(RuntimeError, match="model failed"):
        evaluate(failing, _batches(2), Evaluation(K))
    assert not wnp.memory.workspace_active("WSA_EVALUATION")
    assert wnp.memory.current_workspace() is None


def test_device_arrays_are_read_on_the_host():
    fake.enable(1)
    try:
        model, batches = _model(), _batches(3)
        def on_device(x):
            return wnp.asarray(np.asarray(model(x)), device="fake:0")
        ev = evaluate(on_device, batches, Evaluation(K))
        reference = evaluate(model, batches, Evaluation(K))
        np.testing.assert_array_equal(ev.confusion_matrix(), reference.confusion_matrix())
        del ev, reference
    finally:
        wnp.memory.destroy_all_workspaces_for_current_thread()
        gc.collect()
        fake.disable()


def test_plots_and_the_html_report(tmp_path):
    pytest.importorskip("matplotlib", reason="plots need the [plot] extra")
    model, batches = _model(), _batches(4)
    ev, roc, cal = evaluate(model, batches, Evaluation(K), ROCMultiClass(K), EvaluationCalibration(K))
    binary = evaluate(lambda x: np.asarray(model(x))[:, 1], [(x, (y == 1).astype(int)) for x, y in batches], ROC())
    ax = ev.plot_confusion(normalize="true")
    assert ax.get_xlabel() == "predicted" and len(ax.images) == 1
    assert len(roc.plot().lines) == K + 1 and len(binary.plot(kind="pr").lines) == 1
    assert len(cal.plot(classes=[0, 1]).lines) == 3
    with pytest.raises(ValueError, match="kind must be"):
        roc.plot(kind="det")
    path = report_html(tmp_path / "report.html", ev, roc, cal, binary, title="Run <1>")
    text = (tmp_path / "report.html").read_text()
    assert path == tmp_path / "report.html"
    assert text.count("data:image/png;base64,") == 1 + 2 + 1 + 2 and "Run &lt;1&gt;" in text
    assert "Confusion Matrix" in text and "ROCMultiClass" in text
    with pytest.raises(TypeError, match="not a wsarray.evaluation metric"):
        report_html(tmp_path / "x.html", "accuracy")


def test_metrics_travel_between_processes_by_pickle():
    model, batches = _model(), _batches(6)
    parts = [evaluate(model, batches[i::2], Evaluation(K), ROCMultiClass(K)) for i in range(2)]
    shipped = [pickle.loads(pickle.dumps(p)) for p in parts]
    ev, roc = shipped[0]
    ev.merge(shipped[1][0])
    roc.merge(shipped[1][1])
    whole_ev, whole_roc = evaluate(model, batches, Evaluation(K), ROCMultiClass(K))
    np.testing.assert_array_equal(ev.confusion_matrix(), whole_ev.confusion_matrix())
    assert roc.auc(2) == pytest.approx(whole_roc.auc(2), abs=1e-12)
    with pytest.warns(EvaluationWarning):
        Evaluation(K).update(np.array([0]), np.eye(K)[[1]]).precision()
