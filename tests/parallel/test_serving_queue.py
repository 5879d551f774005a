"""ParallelInference as a serving queue: priorities and shedding, deadlines, asyncio callers,
pad buckets for variable-length requests, and batching settings changed at run time."""
import asyncio
import concurrent.futures
import math
import queue
import re
import signal
import threading
import time

import numpy
import pytest
from parallel_helpers import GATE_LIMIT_S, Gated, make_mlp

import wsarray as wnp
from wsarray.parallel import ParallelInference, RequestShed
from wsarray.parallel._priority import RequestStore
from wsarray.parallel._requests import Request, RequestFuture

WHO = r"wsarray\.parallel\.ParallelInference"


def row(value, n=1):
    return numpy.full((n, 1), float(value))


def firsts(model):
    """The first value of each request of each batch the model saw (rows of value k: k)."""
    return [[float(v) for v in b[:, 0]] for b in model.batches]


# -- priorities -------------------------------------------------------------------------------

def test_higher_priorities_run_first_and_each_level_in_arrival_order():
    model = Gated()
    with ParallelInference(model, workers=1, mode="sequential") as pi:
        pi.submit(row(-1))
        model.wait_entered()  # the worker is held busy: the rest waits
        order = [(0, 1), (2, 2), (1, 3), (2, 4), (0, 5), (1, 6), (2, 7), (0, 8)]
        futures = [pi.submit(row(v), priority=p) for p, v in order]
        model.gate.set()
        concurrent.futures.wait(futures, timeout=10)
    assert firsts(model) == [[-1], [2], [4], [7], [3], [6], [1], [5], [8]]
    assert all(f.result(timeout=0) is not None for f in futures)


def test_a_batch_is_filled_from_the_highest_priority_down():
    model = Gated()
    with ParallelInference(model, workers=1, batch_limit=3) as pi:
        pi.submit(row(-1))
        model.wait_entered()
        futures = [pi.submit(row(1)), pi.submit(row(2)), pi.submit(row(3), priority=1),
                   pi.submit(row(4), priority=2), pi.submit(row(5), priority=2),
                   pi.submit(row(6), priority=-3)]
        model.gate.set()
        results = [float(numpy.asarray(f.result(timeout=10))[0, 0]) for f in futures]
    assert firsts(model) == [[-1], [4, 5, 3], [1, 2, 6]]
    assert results == [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]


def test_a_batch_still_filling_is_not_overtaken_by_a_full_one_of_lower_priority():
    # With max_wait_ms a batch that could grow waits for more requests; a full batch of a lower
    # level ran first meanwhile, against "the oldest request of the highest level first".
    model = Gated()
    with ParallelInference(model, workers=1, batch_limit=4, max_wait_ms=300) as pi:
        pi.submit(row(-1))
        model.wait_entered()
        high = pi.submit(numpy.full((1, 2), 9.0), priority=5)  # another shape: a batch of its own
        low = [pi.submit(row(k)) for k in range(4)]  # a full batch at once
        start = time.monotonic()
        model.gate.set()
        high.result(timeout=10)
        waited = time.monotonic() - start
        for f in low:
            f.result(timeout=10)
    assert firsts(model) == [[-1], [9.0], [0, 1, 2, 3]]
    assert waited < 0.25  # not held for max_wait_ms while the worker had work


def test_a_higher_priority_request_sheds_the_newest_of_the_lowest_level_when_the_queue_is_full():
    model = Gated()
    with ParallelInference(model, workers=1, mode="sequential", queue_limit=3) as pi:
        pi.submit(row(-1))
        model.wait_entered()
        a, b, c = pi.submit(row(1)), pi.submit(row(2), priority=1), pi.submit(row(3))
        d = pi.submit(row(4), priority=2, block=False)   # full: sheds c, the newest of priority 0
        error = c.exception(timeout=0)
        assert isinstance(error, RequestShed) and isinstance(error, queue.Full)
        assert re.search(WHO + r"\(\): the request \(priority 0\) was shed: the queue was full "
                         r"\(3 requests waiting, queue_limit\) when one of higher priority \(2\)",
                         str(error)), str(error)
        with pytest.raises(queue.Full, match=WHO + r"\.submit\(\): the queue is full"):
            pi.submit(row(5), block=False)                # priority 0 sheds nobody
        with pytest.raises(queue.Full):
            pi.submit(row(5), timeout=0.05)
        assert not a.done()
        model.gate.set()
        for fut in (a, b, d):
            fut.result(timeout=10)
        stats = pi.stats()
    assert firsts(model) == [[-1], [4], [2], [1]]
    assert stats["shed"] == 1 and stats["rejected"] == 2 and stats["completed"] == 4


def test_shedding_takes_the_lowest_level_first_and_blocking_submitters_shed_too():
    model = Gated()
    with ParallelInference(model, workers=1, mode="sequential", queue_limit=2) as pi:
        pi.submit(row(-1))
        model.wait_entered()
        low, mid = pi.submit(row(1), priority=-5), pi.submit(row(2), priority=0)
        high = pi.submit(row(3), priority=9)              # sheds low instead of blocking
        assert isinstance(low.exception(timeout=0), RequestShed)
        top = pi.submit(row(4), priority=9)               # sheds mid, the lowest now
        assert isinstance(mid.exception(timeout=0), RequestShed)
        model.gate.set()
        assert [float(numpy.asarray(f.result(timeout=10))[0, 0]) for f in (high, top)] == [6.0, 8.0]
        assert pi.stats()["shed"] == 2
    assert firsts(model) == [[-1], [3], [4]]


@pytest.mark.parametrize("priority, error, match", [
    (1.5, TypeError, "priority must be an int"), (True, TypeError, "priority must be an int"),
    ("high", TypeError, "priority must be an int")])
def test_a_bad_priority_is_refused_naming_the_method(priority, error, match):
    with ParallelInference(lambda x: x, workers=1) as pi:
        with pytest.raises(error, match=WHO + r"\.submit\(\): " + match):
            pi.submit(row(1), priority=priority)
        with pytest.raises(error, match=WHO + r"\.output\(\): " + match):
            pi.output(row(1), priority=priority)
        with pytest.raises(error, match=WHO + r"\.output_async\(\): " + match):
            asyncio.run(pi.output_async(row(1), priority=priority))
        assert pi.stats()["requests"] == 0


# -- deadlines --------------------------------------------------------------------------------

def done_times(futures):
    times = {}
    for i, f in enumerate(futures):
        f.add_done_callback(lambda f, i=i: times.setdefault(i, time.perf_counter()))
    return times


def test_a_request_whose_deadline_passes_while_the_worker_is_busy_fails_promptly_and_never_runs():
    model = Gated()
    with ParallelInference(model, workers=1) as pi:
        pi.submit(row(-1))
        model.wait_entered()
        start = time.perf_counter()
        late = [pi.submit(row(1), deadline=0.05), pi.submit(row(2), deadline=0.1)]
        kept = pi.submit(row(3), deadline=30)
        times = done_times(late)
        for f, budget in zip(late, (0.05, 0.1)):
            with pytest.raises(TimeoutError, match=WHO + r"\(\): the request's deadline \(" +
                               f"{budget:g}" + r" s after submit\) passed before a worker took it"):
                f.result(timeout=10)
        assert pi.stats()["waiting"] == 1  # expired requests leave the queue
        model.gate.set()
        kept.result(timeout=10)
        stats = pi.stats()
    for i, budget in enumerate((0.05, 0.1)):
        assert budget <= times[i] - start < budget + 0.05, times[i] - start  # no worker was free
    assert firsts(model) == [[-1], [3]]
    assert stats["expired"] == 2 and stats["completed"] == 2 and stats["failed"] == 0


def test_the_default_deadline_applies_unless_a_request_sets_its_own():
    model = Gated()
    with ParallelInference(model, workers=1, default_deadline=0.05) as pi:
        pi.submit(row(-1))
        model.wait_entered()
        defaulted, unlimited = pi.submit(row(1)), pi.submit(row(2), deadline=math.inf)
        longer = pi.submit(row(3), deadline=20)
        assert isinstance(defaulted.exception(timeout=10), TimeoutError)
        time.sleep(0.05)
        model.gate.set()
        for f in (unlimited, longer):
            f.result(timeout=10)
    assert firsts(model) == [[-1], [2, 3]]


def test_a_deadline_bounds_the_wait_for_queue_room_and_a_past_one_never_queues():
    model = Gated()
    with ParallelInference(model, workers=1, mode="sequential", queue_limit=1) as pi:
        pi.submit(row(-1))
        model.wait_entered()
        waiting = pi.submit(row(1))
        start = time.perf_counter()
        blocked = pi.submit(row(2), deadline=0.05)  # no room: returns once its deadline passed
        assert time.perf_counter() - start < 5
        assert isinstance(blocked.exception(timeout=0), TimeoutError)
        assert isinstance(pi.submit(row(3), deadline=0).exception(timeout=0), TimeoutError)
        model.gate.set()
        waiting.result(timeout=10)
        assert pi.stats()["expired"] == 2
    assert firsts(model) == [[-1], [1]]


def test_a_request_held_back_for_its_batch_to_fill_still_expires_on_time():
    model = Gated()
    model.gate.set()
    with ParallelInference(model, workers=1, max_wait_ms=60_000) as pi:
        start = time.perf_counter()
        held = pi.submit(row(1), deadline=0.05)  # the worker is free, but waits for more requests
        assert isinstance(held.exception(timeout=10), TimeoutError)
        assert time.perf_counter() - start < 1
    assert model.batches == []


def test_requests_that_expired_in_the_queue_are_left_out_of_the_batch_being_formed():
    store = RequestStore()
    now = time.perf_counter()
    requests = []
    for k, budget in enumerate((None, -1.0, 10.0, -1.0, None)):
        r = Request(row(k), RequestFuture(), now, priority=0, budget=budget)
        r.enqueued = now
        store.add(r)
        requests.append(r)
    expired = []
    batch, wait = store.next_batch(now, batched=True, batch_limit=8, hold_s=0, expired=expired)
    assert batch == [requests[0], requests[2], requests[4]] and wait == 0
    assert expired == [requests[1], requests[3]] and store.count == 0


@pytest.mark.parametrize("kwargs, error, match", [
    ({"deadline": -1}, ValueError, r"deadline must be a number of seconds >= 0 \(math.inf: no deadline\)"),
    ({"deadline": float("nan")}, ValueError, "deadline must be a number of seconds"),
    ({"deadline": "1s"}, TypeError, "deadline must be a number of seconds, not str"),
    ({"timeout": -1}, ValueError, "timeout must be a finite number >= 0"),
])
def test_bad_deadlines_are_refused_naming_the_method(kwargs, error, match):
    with ParallelInference(lambda x: x, workers=1) as pi:
        with pytest.raises(error, match=WHO + r"\.submit\(\): " + match):
            pi.submit(row(1), **kwargs)


# -- asyncio ----------------------------------------------------------------------------------

def numpy_mlp(x, seed=0, sizes=(6, 16, 3)):
    """make_mlp's model, computed by NumPy."""
    rng = numpy.random.default_rng(seed)
    w1, w2 = rng.standard_normal(sizes[:2]), rng.standard_normal(sizes[1:])
    return numpy.tanh(x @ w1) @ w2


def test_output_async_gives_the_results_of_output_and_of_numpy():
    mlp = make_mlp()
    rng = numpy.random.default_rng(3)
    requests = [rng.standard_normal((int(n), 6)) for n in rng.integers(1, 5, 40)]

    async def clients(pi):
        return await asyncio.gather(*(pi.output_async(x, priority=k % 3)
                                      for k, x in enumerate(requests)))

    with ParallelInference(mlp, workers=2, batch_limit=8) as pi:
        awaited = asyncio.run(clients(pi))
        blocking = [pi.output(x) for x in requests]
    for x, a, b in zip(requests, awaited, blocking):
        assert type(a) is wnp.Array and not a.is_attached()
        numpy.testing.assert_allclose(numpy.asarray(a), numpy.asarray(b), rtol=1e-12, atol=1e-12)
        numpy.testing.assert_allclose(numpy.asarray(a), numpy_mlp(x), rtol=1e-12, atol=1e-12)


def test_output_async_raises_the_models_error_and_refuses_a_full_queue_without_blocking():
    model = Gated()
    with ParallelInference(model, workers=1, queue_limit=1) as pi:
        async def main():
            first = asyncio.ensure_future(pi.output_async(row(-1)))
            await asyncio.sleep(0)
            await asyncio.to_thread(model.wait_entered)
            second = asyncio.ensure_future(pi.output_async(row(1)))
            await asyncio.sleep(0)
            with pytest.raises(queue.Full, match=WHO + r"\.output_async\(\): the queue is full"):
                await pi.output_async(row(2))
            model.gate.set()
            return await first, await second
        first, second = asyncio.run(main())
    assert numpy.asarray(first).tolist() == [[-2.0]] and numpy.asarray(second).tolist() == [[2.0]]


def test_cancelling_an_awaiting_task_takes_its_request_out_of_the_queue():
    model = Gated()
    with ParallelInference(model, workers=1) as pi:
        async def main():
            running = asyncio.ensure_future(pi.output_async(row(-1)))
            await asyncio.to_thread(model.wait_entered)
            doomed = asyncio.ensure_future(pi.output_async(row(1), priority=5))
            kept = asyncio.ensure_future(pi.output_async(row(2)))
            await asyncio.sleep(0.01)
            assert pi.stats()["waiting"] == 2
            doomed.cancel()
            with pytest.raises(asyncio.CancelledError):
                await doomed
            assert pi.stats()["waiting"] == 1 and pi.stats()["cancelled"] == 1
            running.cancel()  # a worker runs it: its result is dropped
            with pytest.raises(asyncio.CancelledError):
                await running
            model.gate.set()
            return await kept
        kept = asyncio.run(main())
        stats = pi.stats()
    assert numpy.asarray(kept).tolist() == [[4.0]]
    assert firsts(model) == [[-1], [2]]  # the cancelled request never ran
    assert stats["cancelled"] == 1 and stats["completed"] == 2


def test_a_cancelled_future_frees_its_place_in_a_full_queue_at_once():
    model = Gated()
    with ParallelInference(model, workers=1, queue_limit=1) as pi:
        pi.submit(row(-1))
        model.wait_entered()
        waiting = pi.submit(row(1))
        assert waiting.cancel()
        replacement = pi.submit(row(2), block=False)  # the room is there again
        model.gate.set()
        replacement.result(timeout=10)
    assert firsts(model) == [[-1], [2]]


# -- pad buckets ------------------------------------------------------------------------------

class MaskedModel:
    """Sums the real positions of each row (``mask``) and doubles every position; records the
    shapes it saw and, if ``gate`` is given, waits for it."""

    def __init__(self, gate=None):
        self.gate = gate
        self.entered = threading.Event()
        self.calls = []  # (shape, mask) of each call, appended as one: workers call it at once

    @property
    def shapes(self):
        return [shape for shape, _ in self.calls]

    @property
    def masks(self):
        return [mask for _, mask in self.calls]

    def __call__(self, x, mask):
        self.calls.append((tuple(x.shape), numpy.array(numpy.asarray(mask))))
        self.entered.set()
        if self.gate is not None:
            assert self.gate.wait(GATE_LIMIT_S), "the test never opened the gate"
        kept = x * wnp.expand_dims(mask, -1)
        return {"total": wnp.sum(kept, axis=1), "double": x * 2.0}


def test_pad_buckets_give_the_results_of_each_request_alone_unpadded():
    rng = numpy.random.default_rng(4)
    requests = [rng.standard_normal((int(rng.integers(1, 4)), int(n), 3))
                for n in rng.integers(1, 65, 60)]
    model = MaskedModel()
    with ParallelInference(model, workers=2, batch_limit=8, pad_buckets=[64, 8, 16, 32],
                           pad_value=7.5) as pi:
        futures = [pi.submit(x) for x in requests]
        results = [f.result(timeout=10) for f in futures]
    for x, r in zip(requests, results):
        numpy.testing.assert_allclose(numpy.asarray(r["total"]), x.sum(axis=1), rtol=1e-12)
        assert r["double"].shape == x.shape  # trimmed back from the bucket's length
        numpy.testing.assert_array_equal(numpy.asarray(r["double"]), x * 2.0)
    for shape, mask in zip(model.shapes, model.masks):
        assert shape[1] in (8, 16, 32, 64) and mask.shape == shape[:2] and mask.dtype == bool


def test_only_requests_of_one_bucket_are_batched_together():
    gate = threading.Event()
    model = MaskedModel(gate)
    lengths = [3, 10, 5, 12, 30, 8, 1]
    with ParallelInference(model, workers=1, pad_buckets=[8, 16, 32]) as pi:
        blocker = pi.submit(numpy.ones((1, 2, 1)))
        assert model.entered.wait(GATE_LIMIT_S)
        futures = [pi.submit(numpy.full((1, n, 1), float(n))) for n in lengths]
        gate.set()
        results = [f.result(timeout=10) for f in futures]
        blocker.result(timeout=10)
    assert model.shapes == [(1, 8, 1), (4, 8, 1), (2, 16, 1), (1, 32, 1)]
    assert [m.sum(axis=1).tolist() for m in model.masks[1:]] == [[3, 5, 8, 1], [10, 12], [30]]
    assert [float(numpy.asarray(r["total"])[0, 0]) for r in results] == [n * n for n in lengths]


def test_a_request_longer_than_the_largest_bucket_is_refused_at_submit():
    with ParallelInference(MaskedModel(), workers=1, pad_buckets=[16, 32]) as pi:
        with pytest.raises(ValueError, match=WHO + r"\.submit\(\): the request has length 33 along "
                                          r"pad_axis 1, more than the largest of pad_buckets \[16, 32\]"):
            pi.submit(numpy.ones((1, 33, 2)))
        with pytest.raises(ValueError, match=r"with pad_axis=1 a request needs at least 2 dimensions"):
            pi.submit(numpy.ones(4))
        assert pi.stats()["requests"] == 0


def test_the_trim_rule_goes_by_shape_and_pad_trim_false_turns_it_off():
    def model(x, mask):
        pooled = wnp.sum(x, axis=1)  # (rows, 8): as long as bucket 8, so trimmed by the rule
        return {"pooled": pooled, "tokens": x, "other": wnp.zeros((x.shape[0], 5))}
    x = numpy.ones((1, 3, 8))
    with ParallelInference(model, workers=1, pad_buckets=[8]) as pi:
        trimmed = pi.output(x)
    with ParallelInference(model, workers=1, pad_buckets=[8], pad_trim=False) as pi:
        padded = pi.output(x)
    assert [trimmed[k].shape for k in ("pooled", "tokens", "other")] == [(1, 3), (1, 3, 8), (1, 5)]
    assert [padded[k].shape for k in ("pooled", "tokens", "other")] == [(1, 8), (1, 8, 8), (1, 5)]


def test_pad_axis_two_pads_and_trims_that_axis():
    def model(x, mask):
        return x + wnp.expand_dims(mask, 1)  # mask: (rows, bucket), broadcast over axis 1
    x = numpy.zeros((2, 3, 5))
    with ParallelInference(model, workers=1, pad_buckets=[4, 8], pad_axis=2, pad_value=-1) as pi:
        result = numpy.asarray(pi.output(x))
    numpy.testing.assert_array_equal(result, numpy.ones((2, 3, 5)))


@pytest.mark.parametrize("kwargs, error, match", [
    ({"pad_buckets": 16}, TypeError, "pad_buckets must be a sequence of ints"),
    ({"pad_buckets": []}, ValueError, "pad_buckets must name at least one length"),
    ({"pad_buckets": [16, 16]}, ValueError, "pad_buckets has a length twice"),
    ({"pad_buckets": [0, 16]}, ValueError, "pad_buckets must hold lengths of at least 1"),
    ({"pad_buckets": [8.0]}, TypeError, "pad_buckets must hold ints, not float"),
    ({"pad_buckets": [8], "pad_axis": 0}, ValueError, r"pad_axis must be at least 1 \(axis 0 holds the rows\)"),
    ({"pad_buckets": [8], "pad_value": "0"}, TypeError, "pad_value must be a number"),
    ({"pad_buckets": [8], "pad_trim": 1}, TypeError, "pad_trim must be a bool"),
    ({"pad_buckets": [8], "mode": "sequential"}, ValueError, "pad_buckets needs mode='batched'"),
    ({"default_deadline": -1}, ValueError, "default_deadline must be a number of seconds >= 0"),
    ({"default_deadline": "soon"}, TypeError, "default_deadline must be a number of seconds"),
])
def test_bad_serving_arguments_are_refused_by_the_constructor(kwargs, error, match):
    with pytest.raises(error, match=WHO + r"\(\): " + match):
        ParallelInference(MaskedModel(), **kwargs)


def test_pad_buckets_need_a_model_that_takes_a_mask():
    with pytest.raises(TypeError, match=WHO + r"\(\): with pad_buckets the model is called as "
                                        r"model\(x, mask\).*does not take two positional arguments"):
        ParallelInference(lambda x: x, pad_buckets=[8])
    ParallelInference(lambda x, mask=None: x, pad_buckets=[8]).shutdown()


# -- configure --------------------------------------------------------------------------------

def test_configure_changes_the_batch_limit_for_the_batches_formed_after():
    model = Gated()
    with ParallelInference(model, workers=1, batch_limit=32) as pi:
        pi.submit(row(-1))
        model.wait_entered()
        futures = [pi.submit(row(k)) for k in range(6)]
        pi.configure(batch_limit=2)  # before any of them was formed into a batch
        model.gate.set()
        concurrent.futures.wait(futures, timeout=10)
        assert pi.stats()["batch_limit"] == 2
    assert [len(b) for b in model.batches] == [1, 2, 2, 2]


def test_configure_max_wait_ms_releases_a_batch_held_back():
    model = Gated()
    model.gate.set()
    with ParallelInference(model, workers=1, max_wait_ms=60_000) as pi:
        start = time.perf_counter()
        held = pi.submit(row(1))
        time.sleep(0.05)
        assert not held.done()  # waiting for the batch to fill
        pi.configure(max_wait_ms=0)
        held.result(timeout=10)
        assert time.perf_counter() - start < 5 and pi.stats()["max_wait_ms"] == 0


@pytest.mark.parametrize("kwargs, error, match", [
    ({"batch_limit": 0}, ValueError, "batch_limit must be at least 1, got 0"),
    ({"batch_limit": 2**40}, ValueError, "batch_limit must be at most"),
    ({"batch_limit": 2.0}, TypeError, "batch_limit must be an int, not float"),
    ({"max_wait_ms": -1}, ValueError, "max_wait_ms must be a finite number >= 0"),
    ({"max_wait_ms": "5"}, TypeError, "max_wait_ms must be a number, not str"),
])
def test_configure_checks_as_the_constructor_does(kwargs, error, match):
    with ParallelInference(lambda x: x, workers=1, batch_limit=4) as pi:
        with pytest.raises(error, match=WHO + r"\.configure\(\): " + match):
            pi.configure(**kwargs)
        assert pi.stats()["batch_limit"] == 4


# -- Ctrl-C -----------------------------------------------------------------------------------

def test_ctrl_c_in_output_takes_a_prioritized_request_with_a_deadline_out_of_the_queue(
        sigint_raises_keyboard_interrupt):
    model = Gated()
    with ParallelInference(model, workers=1) as pi:
        pi.submit(row(-1))
        model.wait_entered()
        timer = threading.Timer(0.1, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT))
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            pi.output(row(1), priority=3, deadline=30)
        timer.join(10)
        assert pi.stats()["waiting"] == 0 and pi.stats()["cancelled"] == 1
        model.gate.set()
        assert numpy.asarray(pi.output(row(2))).tolist() == [[4.0]]
    assert firsts(model) == [[-1], [2]]


@pytest.mark.parametrize("value, dtype", [(-1, numpy.uint8), (float("nan"), numpy.int64), (0.5, numpy.int32),
                                          (300, numpy.int8)])
def test_a_pad_value_the_request_s_dtype_cannot_hold_is_refused_at_submit(value, dtype):
    # It failed the request later with a bare OverflowError, or padded with another number.
    with ParallelInference(lambda x, mask: x, workers=1, pad_buckets=[4], pad_value=value) as pi:
        with pytest.raises(ValueError, match=rf"{WHO}\.submit\(\): pad_value=.* cannot be stored exactly "
                                             rf"in the request's dtype {numpy.dtype(dtype)}"):
            pi.submit(numpy.ones((1, 2), dtype))
        assert numpy.asarray(pi.output(numpy.ones((1, 2)))).shape[0] == 1  # floats take it
