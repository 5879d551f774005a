"""A failing request fails only its own future, with its own exception; bad arguments fail early."""
import concurrent.futures
import threading

import numpy
import pytest
from conftest import parallel_threads
from parallel_helpers import Gated, make_mlp

import wsarray as wnp
from wsarray.parallel import ParallelInference


def raise_on_nan(x):
    if numpy.isnan(numpy.asarray(x)).any():
        raise ValueError("a NaN in the input")
    return x * 2.0


def test_a_failing_batch_is_retried_request_by_request():
    model = Gated(raise_on_nan)
    good = [numpy.full((n, 2), float(n)) for n in (1, 2, 3)]
    bad = numpy.array([[1.0, numpy.nan]])
    with ParallelInference(model, workers=1) as pi:
        pi.submit(numpy.zeros((1, 2)))
        model.wait_entered()
        futures = [pi.submit(x) for x in (good[0], bad, good[1], good[2])]
        model.gate.set()
        concurrent.futures.wait(futures, timeout=10)
        stats = pi.stats()
    assert [f.done() for f in futures] == [True] * 4
    with pytest.raises(ValueError, match="a NaN in the input"):
        futures[1].result()
    for x, f in zip(good, (futures[0], futures[2], futures[3])):
        numpy.testing.assert_array_equal(numpy.asarray(f.result()), x * 2)
    # the blocker, the failed batch of 4, then each of the 4 alone
    assert [b.shape[0] for b in model.batches] == [1, 7, 1, 1, 2, 3]
    assert stats["retried_batches"] == 1
    assert stats["completed"] == 4 and stats["failed"] == 1
    assert stats["batches"] == 6


def test_each_failing_request_gets_its_own_original_exception_object():
    class Boom(Exception):
        pass

    def model(x):
        raise Boom(float(numpy.asarray(x)[0, 0]))

    with ParallelInference(model, workers=1, mode="sequential") as pi:
        futures = [pi.submit(numpy.full((1, 1), float(k))) for k in range(3)]
        errors = [f.exception(timeout=10) for f in futures]
    assert [type(e) for e in errors] == [Boom] * 3
    assert [e.args for e in errors] == [(0.0,), (1.0,), (2.0,)]
    assert len({id(e) for e in errors}) == 3


def test_a_kept_exception_does_not_keep_workspace_memory_alive():
    def model(x):
        big = x * 2.0  # an array of the worker's workspace, referenced by the model's frame
        if big[0, 0] < 0:
            raise ValueError("negative")
        return big

    with ParallelInference(model, workers=1) as pi:
        error = pi.submit(-numpy.ones((1000, 8))).exception(timeout=10)
        pi.output(numpy.ones((1, 8)))
        workspace = pi.stats()["workers"][0]["workspace"]
    assert isinstance(error, ValueError) and error.__traceback__ is not None
    assert workspace["live_arrays"] == 0 and workspace["used"] == 0


def test_a_request_of_the_wrong_shape_fails_alone_with_the_models_error():
    mlp = make_mlp()
    with ParallelInference(mlp, workers=2) as pi:
        wrong = pi.submit(numpy.ones((2, 5)))  # the MLP takes 6 features
        right = pi.submit(numpy.ones((2, 6)))
        with pytest.raises(ValueError, match="matmul"):
            wrong.result(timeout=10)
        numpy.testing.assert_allclose(numpy.asarray(right.result(timeout=10)),
                                      numpy.asarray(mlp(numpy.ones((2, 6)))))
        with pytest.raises(ValueError, match="matmul"):
            pi.output(numpy.ones((1, 7)))


@pytest.mark.parametrize("error", [MemoryError("out of memory"), KeyboardInterrupt(),
                                   SystemExit(3), wnp.WorkspaceMemoryError("workspace full")])
def test_workers_catch_everything_and_keep_serving(error):
    def model(x):
        if numpy.asarray(x)[0, 0] < 0:
            raise error
        return x + 1
    with ParallelInference(model, workers=1) as pi:
        failed = pi.submit(-numpy.ones((1, 1)))
        assert failed.exception(timeout=10) is error
        assert numpy.asarray(pi.output(numpy.ones((1, 1)))).tolist() == [[2.0]]
        assert all(w["alive"] for w in pi.stats()["workers"])


@pytest.mark.parametrize("output, error, match", [
    (lambda x: 1.5, TypeError, "must return arrays"),
    (lambda x: wnp.sum(x), TypeError, "must return arrays.*got float64"),  # NumPy's scalar
    (lambda x: wnp.asarray(wnp.sum(x)), ValueError, r"one row per input row.*shape \(\)"),
    (lambda x: x[:1], ValueError, r"the batch has 3 rows, the model returned shape \(1, 2\)"),
    (lambda x: {"ok": x, "bad": x[:1]}, ValueError, "the batch has 3 rows"),
])
def test_batched_mode_refuses_outputs_it_cannot_split(output, error, match):
    with ParallelInference(output, workers=1, mode="batched") as pi:
        with pytest.raises(error, match=r"wsarray\.parallel\.ParallelInference\(\): .*" + match):
            pi.output(numpy.ones((3, 2)))


def test_a_stale_array_is_refused_at_submit():
    with wnp.workspace("CALLER"):
        stale = wnp.ones((2, 2))
    with ParallelInference(lambda x: x, workers=1) as pi:
        with pytest.raises(wnp.WorkspaceError, match="cycle has ended"):
            pi.submit(stale)
        assert pi.stats()["requests"] == 0


@pytest.mark.parametrize("request_value, error, match", [
    (numpy.float64(3.0), ValueError, "a request needs a leading batch axis"),
    (5, ValueError, "a request needs a leading batch axis"),
    ([[1, 2], [3]], TypeError, "a request must be an array or convertible"),
])
def test_bad_requests_raise_from_submit(request_value, error, match):
    with ParallelInference(lambda x: x, workers=1) as pi:
        with pytest.raises(error, match=r"wsarray\.parallel\.ParallelInference\.submit\(\): " + match):
            pi.submit(request_value)
        with pytest.raises(error, match=match):
            pi.output(request_value)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"workers": 0}, ValueError, "workers must be at least 1, got 0"),
    ({"workers": 10**6}, ValueError, r"workers must be at most 1024, got 1000000 \(each worker is a thread"),
    ({"batch_limit": 2**40}, ValueError, "batch_limit must be at most"),
    ({"queue_limit": 2**40}, ValueError, "queue_limit must be at most"),
    ({"workers": 2.0}, TypeError, "workers must be an int, not float"),
    ({"workers": True}, TypeError, "workers must be an int, not bool"),
    ({"batch_limit": 0}, ValueError, "batch_limit must be at least 1"),
    ({"queue_limit": -1}, ValueError, "queue_limit must be at least 1"),
    ({"mode": "parallel"}, ValueError, "mode must be 'batched' or 'sequential', not 'parallel'"),
    ({"max_wait_ms": -1}, ValueError, "max_wait_ms must be a finite number >= 0"),
    ({"max_wait_ms": float("nan")}, ValueError, "max_wait_ms must be a finite number >= 0"),
    ({"max_wait_ms": "5"}, TypeError, "max_wait_ms must be a number, not str"),
    ({"workspace_config": {"initial_size": 10}}, TypeError,
     "workspace_config must be a wsarray.WorkspaceConfig, not dict"),
    ({"replicate": 1}, TypeError, "replicate must be a bool"),
    ({"devices": ["cuda:0"]}, ValueError, "device 'cuda:0' is not supported; workers run on 'cpu'"),
    ({"devices": []}, ValueError, "devices must name at least one device"),
    ({"devices": [0]}, TypeError, "a device must be a str"),
    ({"blas_threads": 0}, ValueError, "blas_threads must be at least 1"),
    ({"blas_threads": "many"}, TypeError, "blas_threads must be 'auto', None or an int"),
])
def test_bad_arguments_raise_a_clear_error_and_start_nothing(kwargs, error, match):
    with pytest.raises(error, match=r"wsarray\.parallel\.ParallelInference\(\): " + match):
        ParallelInference(lambda x: x, **kwargs)
    assert parallel_threads() == []


def test_a_model_that_is_not_callable_or_cannot_be_copied_is_refused():
    with pytest.raises(TypeError, match="model must be callable or have a predict"):
        ParallelInference(object())

    class Uncopyable:
        def __call__(self, x):
            return x

        def __deepcopy__(self, memo):
            raise RuntimeError("holds a socket")

    with pytest.raises(TypeError, match="replicate=True needs a model copy.deepcopy.*holds a socket"):
        ParallelInference(Uncopyable(), replicate=True)
    ParallelInference(Uncopyable(), replicate=False).shutdown()


def test_a_workspace_that_cannot_be_created_fails_the_constructor():
    huge = wnp.WorkspaceConfig(initial_size="1000TB")
    before = set(threading.enumerate())
    with pytest.raises(wnp.WorkspaceMemoryError, match="cannot map its initial_size"):
        ParallelInference(lambda x: x, workers=2, workspace_config=huge)
    assert parallel_threads() == []
    assert set(threading.enumerate()) <= before
