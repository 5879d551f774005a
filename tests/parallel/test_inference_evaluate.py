"""ParallelInference.evaluate: the workers' metric copies merge to what one serial evaluation gives;
errors stop it and leave no request behind; an AsyncIterator's batches are safe to evaluate."""
import threading

import numpy as np
import pytest

import wsarray as wnp
from wsarray.data import AsyncIterator
from wsarray.evaluation import Evaluation, EvaluationError, ROCMultiClass, evaluate
from wsarray.parallel import ParallelInference

K = 3
_W = np.random.default_rng(0).standard_normal((8, K))


def model(x):
    z = wnp.asarray(x) @ _W
    e = wnp.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _batches(n=40, rows=64, seed=1):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((rows, 8)), rng.integers(0, K, rows)) for _ in range(n)]


@pytest.mark.parametrize("mode", ["batched", "sequential"])
def test_parallel_evaluation_equals_the_serial_one(mode):
    batches = _batches()
    serial_ev, serial_roc = evaluate(model, batches, Evaluation(K), ROCMultiClass(K))
    threads_before = threading.active_count()
    with ParallelInference(model, workers=2, mode=mode) as pool:
        ev, roc = pool.evaluate(batches, Evaluation(K), ROCMultiClass(K))
        with AsyncIterator(iter(batches), queue_size=4) as it:  # slots reused: labels are copied out
            from_iterator = pool.evaluate(it, Evaluation(K), max_in_flight=8)
    np.testing.assert_array_equal(ev.confusion_matrix(), serial_ev.confusion_matrix())
    np.testing.assert_array_equal(from_iterator.confusion_matrix(), serial_ev.confusion_matrix())
    for c in range(K):
        assert roc.auc(c) == pytest.approx(serial_roc.auc(c), abs=1e-12)
    assert ev.batches == len(batches)
    assert threading.active_count() <= threads_before


def test_errors_stop_the_evaluation_and_cancel_the_rest():
    batches = _batches(20)
    calls = []

    def flaky(x):
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("model broke")
        return model(x)
    with ParallelInference(flaky, workers=2, mode="sequential") as pool:
        with pytest.raises(RuntimeError, match="model broke"):
            pool.evaluate(batches, Evaluation(K), max_in_flight=2)
        bad = [(x, y + K) for x, y in batches]
        with pytest.raises(EvaluationError, match=r"class ids must be in \[0, 3\)"):
            pool.evaluate(bad, Evaluation(K))
        with pytest.raises(ValueError, match="max_in_flight must be a positive int"):
            pool.evaluate(batches, Evaluation(K), max_in_flight=0)
        with pytest.raises(ValueError, match="give at least one metric"):
            pool.evaluate(batches)
        ev = pool.evaluate(batches[:4], Evaluation(K))  # the pool still serves
        assert ev.num_samples == 4 * 64
        assert pool.stats()["waiting"] == 0
