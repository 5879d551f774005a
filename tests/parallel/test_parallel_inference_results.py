"""ParallelInference gives the results of direct calls, and batches as Deeplearning4j does."""
import collections
import concurrent.futures
import threading

import numpy
import pytest
from parallel_helpers import Gated, make_mlp, ragged_requests

import wsarray as wnp
from wsarray.parallel import ParallelInference


def assert_same(result, expected):
    # A batch of several rows may be summed in another order by BLAS than one row alone.
    numpy.testing.assert_allclose(numpy.asarray(result), numpy.asarray(expected),
                                  rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["batched", "sequential"])
def test_results_from_many_client_threads_equal_direct_calls(mode):
    mlp = make_mlp()
    requests = ragged_requests(120)
    expected = [mlp(x) for x in requests]
    results = [None] * len(requests)
    with ParallelInference(mlp, workers=2, mode=mode, batch_limit=8) as pi:
        def client(k):
            for i in range(k, len(requests), 6):
                results[i] = pi.output(requests[i]) if i % 2 else pi.submit(requests[i]).result()
        threads = [threading.Thread(target=client, args=(k,)) for k in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        stats = pi.stats()
    assert not any(t.is_alive() for t in threads)
    for r, e, x in zip(results, expected, requests):
        assert type(r) is wnp.Array and r.shape == (x.shape[0], 3)
        assert not r.is_attached()
        assert_same(r, e)
    assert stats["requests"] == stats["completed"] == len(requests)
    assert stats["failed"] == stats["cancelled"] == stats["rejected"] == 0
    rows = sum(x.shape[0] for x in requests)
    assert sum(w["rows"] for w in stats["workers"]) == rows
    assert stats["mean_batch_rows"] * stats["batches"] == pytest.approx(rows)
    if mode == "sequential":
        assert stats["batches"] == len(requests) and stats["mean_batch_requests"] == 1


def test_waiting_requests_join_one_batch_that_is_split_back():
    model = Gated(lambda x: {"double": x * 2.0, "pair": (x[:, :1], numpy.asarray(x) + 1)})
    requests = [numpy.full((n, 2), float(n)) for n in (1, 2, 3, 1)]
    with ParallelInference(model, workers=1, mode="batched", batch_limit=32) as pi:
        blocker = pi.submit(numpy.zeros((1, 2)))
        model.wait_entered()
        futures = [pi.submit(x) for x in requests]
        model.gate.set()
        results = [f.result(timeout=10) for f in futures]
        blocker.result(timeout=10)
        stats = pi.stats()
    assert [b.shape[0] for b in model.batches] == [1, 7]  # all four waited in one batch
    numpy.testing.assert_array_equal(model.batches[1], numpy.concatenate(requests))
    for x, r in zip(requests, results):
        numpy.testing.assert_array_equal(numpy.asarray(r["double"]), x * 2)
        first, plus_one = r["pair"]
        assert isinstance(r["pair"], tuple) and isinstance(plus_one, numpy.ndarray)
        numpy.testing.assert_array_equal(numpy.asarray(first), x[:, :1])
        numpy.testing.assert_array_equal(plus_one, x + 1)
    assert stats["batches"] == 2 and stats["mean_batch_requests"] == 2.5
    assert stats["mean_batch_rows"] == 4


def test_a_lone_request_runs_at_once_as_a_batch_of_one():
    model = Gated()
    model.gate.set()
    with ParallelInference(model, workers=1, mode="batched") as pi:
        for _ in range(3):
            pi.output(numpy.ones((1, 2)))
    assert [b.shape for b in model.batches] == [(1, 2)] * 3


def test_requests_of_different_trailing_shape_or_dtype_are_never_concatenated():
    model = Gated()
    requests = [numpy.ones((1, 3)), numpy.ones((1, 3), numpy.float32), numpy.ones((2, 3)),
                numpy.ones((1, 4)), numpy.ones((2, 3), numpy.float32)]
    with ParallelInference(model, workers=1) as pi:
        pi.submit(numpy.zeros((1, 3)))
        model.wait_entered()
        futures = [pi.submit(x) for x in requests]
        model.gate.set()
        results = [f.result(timeout=10) for f in futures]
    seen = sorted((b.shape, str(b.dtype)) for b in model.batches[1:])
    assert seen == [((1, 4), "float64"), ((3, 3), "float32"), ((3, 3), "float64")]
    for x, r in zip(requests, results):
        assert r.dtype == x.dtype
        numpy.testing.assert_array_equal(numpy.asarray(r), x * 2)


def test_batches_stop_at_batch_limit_and_a_request_that_does_not_fit_starts_the_next():
    model = Gated()
    sizes = [3, 2, 1, 4, 6, 1]
    with ParallelInference(model, workers=1, batch_limit=4) as pi:
        pi.submit(numpy.zeros((1, 1)))
        model.wait_entered()
        futures = [pi.submit(numpy.full((n, 1), float(k))) for k, n in enumerate(sizes)]
        model.gate.set()
        results = [f.result(timeout=10) for f in futures]
    # 3 | 2+1 | 4 | 6 (larger than batch_limit: runs alone, not split) | 1
    assert [b.shape[0] for b in model.batches[1:]] == [3, 3, 4, 6, 1]
    for k, (n, r) in enumerate(zip(sizes, results)):
        numpy.testing.assert_array_equal(numpy.asarray(r), numpy.full((n, 1), 2.0 * k))


def test_max_wait_ms_lets_a_worker_wait_for_a_batch_to_fill():
    model = Gated()
    model.gate.set()
    pi = ParallelInference(model, workers=1, batch_limit=4, max_wait_ms=60_000)
    try:
        futures = [pi.submit(numpy.full((1, 2), float(k))) for k in range(4)]
        results = [f.result(timeout=10) for f in futures]  # the full batch goes at once
        late = [pi.submit(numpy.ones((1, 2))) for _ in range(2)]
        pi.shutdown(wait=False)
        # shutdown runs the partial batch at once instead of waiting out the minute
        assert all(f.result(timeout=10) is not None for f in late)
    finally:
        pi.shutdown(cancel_pending=True)
    assert [b.shape[0] for b in model.batches] == [4, 2]
    for k, r in enumerate(results):
        numpy.testing.assert_array_equal(numpy.asarray(r), numpy.full((1, 2), 2.0 * k))


def test_short_max_wait_runs_a_partial_batch_when_the_wait_is_over():
    model = Gated()
    model.gate.set()
    with ParallelInference(model, workers=1, batch_limit=32, max_wait_ms=20) as pi:
        assert numpy.asarray(pi.output(numpy.ones((1, 2)), timeout=10)).tolist() == [[2.0, 2.0]]
    assert [b.shape for b in model.batches] == [(1, 2)]


def test_sequential_mode_runs_each_request_alone_and_passes_any_output():
    model = Gated(lambda x: ("rows", x.shape[0], x + 1))
    model.gate.set()
    with ParallelInference(model, workers=2, mode="sequential") as pi:
        futures = [pi.submit(numpy.ones((n, 2))) for n in (1, 2, 3)]
        results = [f.result(timeout=10) for f in futures]
    assert sorted(b.shape[0] for b in model.batches) == [1, 2, 3]
    for n, (tag, rows, plus) in zip((1, 2, 3), results):
        assert (tag, rows) == ("rows", n)
        assert not plus.is_attached()
        numpy.testing.assert_array_equal(numpy.asarray(plus), numpy.full((n, 2), 2.0))


def test_predict_method_is_used_and_replicate_gives_each_worker_its_own_copy():
    calls = []  # (id of the model object, worker thread), shared by the copies

    class Model:
        def predict(self, x):
            calls.append((id(self), threading.current_thread().name))
            return x + 0

        def __call__(self, x):
            raise AssertionError("predict() must be preferred")

    original = Model()
    with ParallelInference(original, workers=2, replicate=True, mode="sequential") as pi:
        futures = [pi.submit(numpy.full((1, 1), float(k))) for k in range(20)]
        values = [float(numpy.asarray(f.result(timeout=10))[0, 0]) for f in futures]
    assert values == [float(k) for k in range(20)]
    replicas = {}
    for model_id, thread in calls:
        replicas.setdefault(model_id, set()).add(thread)
    assert id(original) not in replicas
    assert 1 <= len(replicas) <= 2
    assert all(len(threads) == 1 for threads in replicas.values())  # one copy per worker
    assert len(set().union(*replicas.values())) == len(replicas)


def test_namedtuple_outputs_keep_their_type():
    Out = collections.namedtuple("Out", "a b")
    with ParallelInference(lambda x: Out(x, x * 3), workers=1) as pi:
        r = pi.output(numpy.ones((2, 1)))
    assert type(r) is Out
    numpy.testing.assert_array_equal(numpy.asarray(r.b), numpy.full((2, 1), 3.0))


def test_requests_are_any_array_like_and_a_workspace_array_is_copied_out_of_its_cycle():
    with ParallelInference(lambda x: x + 0, workers=1) as pi:
        assert numpy.asarray(pi.output([[1, 2], [3, 4]])).tolist() == [[1, 2], [3, 4]]
        with wnp.workspace("CALLER"):
            x = wnp.arange(6.0).reshape(3, 2)
            future = pi.submit(x)
        # the caller's cycle ended before (or while) the worker ran the request
        numpy.testing.assert_array_equal(numpy.asarray(future.result(timeout=10)),
                                         numpy.arange(6.0).reshape(3, 2))
        assert isinstance(future, concurrent.futures.Future)  # a Future (whose waits a Ctrl-C cannot break)


def test_a_batchs_futures_complete_together_for_every_way_of_waiting():
    # A worker completes a batch's futures first and wakes their waiting callers after, all at
    # once: a done-callback on the worker that asks for the result, concurrent.futures.wait and
    # as_completed, and callers blocked in result() or output() all see the results.
    model = Gated()
    with ParallelInference(model, workers=1, batch_limit=64) as pi:
        first = pi.submit(numpy.zeros((1, 3)))
        model.wait_entered()  # the worker holds it: the next requests wait and join one batch
        xs = [numpy.full((2, 3), float(k)) for k in range(8)]
        futures = [pi.submit(x) for x in xs]
        in_callbacks = {}
        for k, f in enumerate(futures):
            f.add_done_callback(lambda f, k=k: in_callbacks.setdefault(
                k, (threading.current_thread().name, numpy.asarray(f.result(timeout=10)), f.exception(timeout=10))))
        blocked = [None] * 4
        waiters = [threading.Thread(target=lambda k=k: blocked.__setitem__(k, futures[k].result(timeout=30)))
                   for k in range(4)]
        for t in waiters:
            t.start()
        model.gate.set()
        done, not_done = concurrent.futures.wait(futures, timeout=30)
        assert not not_done
        assert sorted(futures.index(f) for f in concurrent.futures.as_completed(futures, timeout=30)) == list(range(8))
        for t in waiters:
            t.join(30)
        first.result(timeout=30)
    assert len(model.batches) == 2 and model.batches[1].shape == (16, 3)  # one batch of the eight
    for k, x in enumerate(xs):
        name, value, error = in_callbacks[k]
        assert name.startswith("wsarray-parallel-inference") and error is None  # on the worker
        assert_same(value, x * 2.0)
        assert_same(futures[k].result(), x * 2.0)
    for k in range(4):
        assert_same(blocked[k], xs[k] * 2.0)
