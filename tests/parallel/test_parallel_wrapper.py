"""wsarray.parallel.ParallelWrapper: data-parallel training with parameter averaging."""
import threading

import numpy as np
import pytest

import wsarray as wnp
from wsarray.data import AsyncIterator
from wsarray.parallel import ParallelWrapper


class LogReg:
    """Logistic regression trained by gradient descent: params updated by assignment (new arrays)."""

    def __init__(self, d, lr=0.5):
        self.params = {"w": wnp.zeros(d), "b": wnp.zeros(1)}
        self.lr = lr

    def loss(self, x, y):
        p = 1 / (1 + wnp.exp(-(x @ self.params["w"] + self.params["b"])))
        eps = 1e-12
        return float(-wnp.mean(y * wnp.log(p + eps) + (1 - y) * wnp.log(1 - p + eps)))

    def fit_batch(self, x, y):
        w, b = self.params["w"], self.params["b"]
        p = 1 / (1 + wnp.exp(-(x @ w + b)))
        g = p - y
        self.params["w"] = w - self.lr * (x.T @ g) / len(y)
        self.params["b"] = b - self.lr * wnp.mean(g, keepdims=True)
        return wnp.mean(g * g)


class InPlace(LogReg):
    """The same model updating its parameters in place."""

    def fit_batch(self, x, y):
        w, b = self.params["w"], self.params["b"]
        p = 1 / (1 + wnp.exp(-(x @ w + b)))
        g = p - y
        w -= self.lr * (x.T @ g) / len(y)
        b -= self.lr * wnp.mean(g, keepdims=True)
        return wnp.mean(g * g)


def dataset(n=2048, d=8, batch=64, seed=0):
    rng = np.random.default_rng(seed)
    true_w = rng.normal(size=d)
    x = rng.normal(size=(n, d))
    y = (x @ true_w + 0.3 * rng.normal(size=n) > 0).astype(float)
    batches = [(x[i:i + batch], y[i:i + batch]) for i in range(0, n, batch)]
    return batches, x, y


def serial(model, batches, epochs=1):
    for _ in range(epochs):
        for x, y in batches:
            model.fit_batch(wnp.asarray(x), wnp.asarray(y))
    return model


@pytest.mark.parametrize("mode", ["none", "single", "separate"])
@pytest.mark.parametrize("cls", [LogReg, InPlace])
def test_one_worker_equals_serial_training_bit_for_bit(mode, cls):
    batches, _, _ = dataset(n=640)
    want = serial(cls(8), batches, epochs=2)
    model = cls(8)
    ParallelWrapper(model, workers=1, averaging_frequency=3, workspace_mode=mode).fit(batches, epochs=2)
    for name in want.params:
        assert np.array_equal(np.asarray(model.params[name]), np.asarray(want.params[name])), name
        assert not model.params[name].is_attached()  # never stale


@pytest.mark.parametrize("mode", ["single", "separate"])
def test_two_workers_converge_to_the_serial_loss(mode):
    batches, x, y = dataset()
    serial_model = serial(LogReg(8), batches, epochs=3)
    model = LogReg(8)
    pw = ParallelWrapper(model, workers=2, averaging_frequency=4, workspace_mode=mode)
    pw.fit(batches, epochs=6)
    start, want, got = LogReg(8).loss(wnp.asarray(x), wnp.asarray(y)), \
        serial_model.loss(wnp.asarray(x), wnp.asarray(y)), model.loss(wnp.asarray(x), wnp.asarray(y))
    # Averaging two replicas that each took half the batches moves about half as far per epoch as
    # serial training (the averaged steps overlap): twice the epochs reach the serial loss.
    # Stated tolerance: within 2% of the serial loss (measured: 0.1%), far below the start.
    assert abs(got - want) < 0.02 * want and got < 0.3 * start, (start, want, got)
    s = pw.stats()
    assert s["epochs"] == 6 and sum(s["batches_per_worker"]) == 6 * len(batches)
    assert all(n > 0 for n in s["batches_per_worker"])


class Fixed:
    """fit_batch sets every parameter to a value known per replica: the average is checkable."""

    def __init__(self):
        self.params = {"w": wnp.zeros(3)}
        self.calls = 0

    def fit_batch(self, x, y):
        self.calls += 1
        self.params["w"][...] = float(x[0])
        return float(x[0])


def test_averaging_gives_every_replica_the_mean_of_the_replicas_that_trained():
    # Batch k carries the value k; with frequency 1 each round averages the two workers' batches.
    batches = [(np.full(1, float(k)), np.zeros(1)) for k in range(6)]
    seen = []
    model = Fixed()
    pw = ParallelWrapper(model, workers=2, averaging_frequency=1, report_score_after_averaging=True,
                         listener=lambda it, epoch, score: seen.append(score))
    pw.fit(batches)
    # Rounds take batches (0,1), (2,3), (4,5) in some split: each round's mean is the pair's mean.
    assert sorted(seen) == [0.5, 2.5, 4.5]
    assert np.asarray(model.params["w"]).tolist() == [4.5] * 3
    assert pw.score == seen[-1] and pw.stats()["rounds"] == 3


def test_a_last_short_round_is_averaged_and_scores_are_reported_per_iteration():
    batches = [(np.full(1, float(k)), np.zeros(1)) for k in range(5)]
    seen = []
    model = Fixed()
    pw = ParallelWrapper(model, workers=1, averaging_frequency=2, listener=lambda *a: seen.append(a))
    pw.fit(batches)
    assert [s for _, _, s in seen] == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert [i for i, _, _ in seen] == [1, 2, 3, 4, 5]
    assert pw.stats()["rounds"] == 3 and np.asarray(model.params["w"]).tolist() == [4.0] * 3


class Failing(LogReg):
    def fit_batch(self, x, y):
        if float(x[0, 0]) > 1.5:
            raise ValueError("bad batch")
        return super().fit_batch(x, y)


def test_a_worker_exception_stops_fit_and_names_the_worker():
    batches, _, _ = dataset(n=256, batch=8)
    before = set(threading.enumerate())
    with pytest.raises(ValueError, match="bad batch") as info:
        ParallelWrapper(Failing(8), workers=2, averaging_frequency=2).fit(batches)
    assert any("ParallelWrapper worker" in note for note in info.value.__notes__)
    assert set(threading.enumerate()) <= before


def test_an_async_iterator_of_the_caller_is_used_and_left_open():
    batches, _, _ = dataset(n=256)
    it = AsyncIterator(batches, queue_size=4, consumers=2)
    model = LogReg(8)
    ParallelWrapper(model, workers=2).fit(it)
    it.reset()  # still open: the caller owns it
    assert next(it)[0].shape == (64, 8)
    it.close()
    with pytest.raises(ValueError, match="consumers >= 2"):
        ParallelWrapper(model, workers=2).fit(AsyncIterator(batches, consumers=1))


def test_the_callers_workspace_does_not_capture_the_parameters():
    batches, _, _ = dataset(n=256)
    model = LogReg(8)
    with wnp.workspace("CALLER"):
        ParallelWrapper(model, workers=2).fit(batches)
    assert float(wnp.sum(model.params["w"] * 0)) == 0.0  # usable after the caller's cycle ended


def test_bad_arguments_are_refused_with_the_class_named():
    model = LogReg(2)
    for kwargs, exc in (({"workers": 0}, ValueError), ({"averaging_frequency": 0}, ValueError),
                        ({"workers": 1.5}, TypeError), ({"workspace_mode": "double"}, ValueError),
                        ({"listener": 3}, TypeError), ({"prefetch_buffer": 0}, ValueError),
                        ({"workers": 10**6}, ValueError), ({"prefetch_buffer": 2**30}, ValueError)):
        with pytest.raises(exc, match=r"wsarray\.parallel\.ParallelWrapper\(\)"):
            ParallelWrapper(model, **kwargs)
    with pytest.raises(TypeError, match="'params'"):
        ParallelWrapper(object())
    with pytest.raises(ValueError, match="epochs"):
        ParallelWrapper(model).fit([], epochs=0)
    with pytest.raises(TypeError, match=r"pair \(x, y\)"):
        ParallelWrapper(model, workers=1).fit([np.zeros((2, 2))])
    for backend in ("thread", "process"):  # refused before the first epoch trains, on both
        with pytest.raises(ValueError, match=r"ParallelWrapper\.fit\(\): data is a one-shot iterator"):
            ParallelWrapper(model, workers=1, backend=backend).fit(
                (b for b in [(np.zeros((1, 2)), np.zeros(1))] * 2), epochs=2)
        assert np.asarray(model.params["w"]).tolist() == [0.0, 0.0]


class Counter(LogReg):
    """A model with one parameter of the dtype given, counting its steps."""

    def __init__(self, dtype):
        self.params = {"w": wnp.zeros(3, dtype=dtype)}
        self.gradients = lambda x, y: (0.0, {"w": wnp.ones(3, dtype=dtype)})

    def fit_batch(self, x, y):
        self.params["w"] += 1
        return 0.0


@pytest.mark.parametrize("backend", ["thread", "process"])
def test_parameters_the_mode_cannot_average_are_refused_before_training(backend):
    batches = [(np.ones((2, 3)), np.ones(2))] * 4
    for dtype, mode in (("int64", "averaging"), ("bool", "averaging"), ("int32", "shared_gradients"),
                        ("complex128", "shared_gradients")):
        model = Counter(dtype)
        with pytest.raises(TypeError, match=rf"ParallelWrapper\.fit\(\): model\.params\['w'\] has dtype {dtype}"):
            ParallelWrapper(model, workers=2, training_mode=mode, backend=backend).fit(batches)
        assert model.params["w"].tolist() == [0, 0, 0]  # nothing trained
    model = Counter("int64")
    model.params["w"] = [0, 0, 0]
    with pytest.raises(TypeError, match=r"must be an array \(wsarray or NumPy\), not list"):
        ParallelWrapper(model, workers=1, backend=backend).fit(batches)
    model.params = {}
    with pytest.raises(ValueError, match="model.params is empty"):
        ParallelWrapper(model, workers=1, backend=backend).fit(batches)
    model = Counter("complex128")  # complex parameters average
    ParallelWrapper(model, workers=2, backend=backend, averaging_frequency=1).fit(batches)
    assert model.params["w"].tolist() == [2, 2, 2]


class Uncopyable(LogReg):
    def __deepcopy__(self, memo):
        raise RuntimeError("holds a lock")


def test_a_model_deepcopy_cannot_copy_is_refused_with_the_reason():
    with pytest.raises(TypeError, match=r"ParallelWrapper\.fit\(\): each worker trains a copy\.deepcopy\(\) "
                                        r"of the model, and it failed: RuntimeError: holds a lock"):
        ParallelWrapper(Uncopyable(2), workers=2).fit(dataset(n=128)[0])
    # (the conftest checks that no pool thread is left and that the BLAS cap was released)


class Slow(LogReg):
    def fit_batch(self, x, y):
        import time

        time.sleep(0.01)
        return super().fit_batch(x, y)


def test_ctrl_c_in_the_caller_stops_the_workers():
    import _thread

    batches, _, _ = dataset(n=64 * 400)
    before = set(threading.enumerate())
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        ParallelWrapper(Slow(8), workers=2).fit(batches)
    timer.join()
    assert set(threading.enumerate()) <= before


def _threads():
    return {t for t in threading.enumerate() if t.name.startswith(("wsarray-parallel", "wsarray-data"))}


@pytest.mark.parametrize("mode", ["none", "single", "separate"])
def test_no_thread_left_and_parameters_valid_after_a_fit_in_every_mode(mode):
    batches, x, y = dataset(n=512)
    before = _threads()
    for cls in (LogReg, InPlace):
        model = cls(8)
        pw = ParallelWrapper(model, workers=2, averaging_frequency=3, workspace_mode=mode)
        pw.fit(batches, epochs=2)
        assert _threads() == before  # the workers and the owned iterator's producer joined
        for name, value in model.params.items():
            assert not value.is_attached(), name
        with wnp.workspace("AFTER"):  # the parameters outlive any workspace of the fit
            loss = model.loss(wnp.asarray(x), wnp.asarray(y))
        assert loss < LogReg(8).loss(wnp.asarray(x), wnp.asarray(y))
        assert np.isfinite(np.asarray(model.params["w"])).all()


class Logged:
    """Every replica logs its parameters when each step starts (a shared log: deepcopy keeps it)."""

    class Log(list):
        def __deepcopy__(self, memo):
            return self

    def __init__(self, log):
        self.params = {"w": wnp.zeros(2)}
        self.calls = 0
        self.log = log

    def fit_batch(self, x, y):
        start = np.asarray(self.params["w"]).copy()
        self.log.append((id(self), self.calls, start))
        threading.Event().wait(0.002)  # let an averaging that did not wait for the step run now
        changed = not np.array_equal(np.asarray(self.params["w"]), start)
        self.calls += 1
        self.params["w"] += float(x[0])
        return 1.0 if changed else 0.0


def test_averaging_waits_for_every_step_and_starts_each_round_from_the_average():
    # 8 batches carrying 0..7, 2 workers taking up to 2 each per round: rounds of exactly 4.
    log = Logged.Log()
    model = Logged(log)
    scores = []
    pw = ParallelWrapper(model, workers=2, averaging_frequency=2, listener=lambda i, e, s: scores.append(s))
    pw.fit([(np.full(1, float(k)), np.zeros(1)) for k in range(8)])
    assert scores == [0.0] * 8  # no parameter changed under a running step
    replicas = {rid for rid, _, _ in log}
    assert len(replicas) == 2 and id(model) not in replicas
    # Round 2 starts (each replica's 3rd step) from the mean of round 1: (0+1+2+3) / 2.
    starts = [w.tolist() for _, calls, w in log if calls == 2]
    assert starts == [[3.0, 3.0], [3.0, 3.0]]
    assert [w.tolist() for _, calls, w in log if calls == 0] == [[0.0, 0.0]] * 2
    assert np.asarray(model.params["w"]).tolist() == [3.0 + (4 + 5 + 6 + 7) / 2] * 2
    assert pw.stats()["rounds"] == 2 and pw.stats()["batches_per_worker"] == [4, 4]


class Counting(LogReg):
    """Counts steps over every replica (a shared counter), fails on the 3rd."""

    class Counter(list):
        def __deepcopy__(self, memo):
            return self

    def __init__(self, d, counter, exc):
        super().__init__(d)
        self.counter, self.exc = counter, exc

    def fit_batch(self, x, y):
        self.counter.append(1)
        if len(self.counter) == 3:
            raise self.exc
        threading.Event().wait(0.001)  # a step long enough for the caller to see the error soon
        return super().fit_batch(x, y)


@pytest.mark.parametrize("exc", [ValueError("step 3 failed"), KeyboardInterrupt()])
def test_an_exception_in_a_worker_stops_the_fit_early(exc):
    batches, _, _ = dataset(n=16 * 1000, batch=16)
    counter = Counting.Counter()
    model = Counting(8, counter, exc)
    w_before = np.asarray(model.params["w"]).copy()
    before = _threads()
    with pytest.raises(type(exc)) as info:
        ParallelWrapper(model, workers=2, averaging_frequency=400).fit(batches, epochs=3)
    assert str(info.value) == str(exc)  # the replica's copy of it
    assert any("ParallelWrapper worker" in n and "in model.fit_batch" in n for n in info.value.__notes__)
    # The other worker stops after its step in progress, long before the end of its round of 400.
    assert len(counter) < 100
    assert _threads() == before
    assert np.array_equal(np.asarray(model.params["w"]), w_before)  # a failed fit leaves the model


class SlowSource:
    """Batches whose source takes long for each after the first: workers wait in next()."""

    def __init__(self, release):
        self.release = release

    def __iter__(self):
        rng = np.random.default_rng(0)
        yield rng.normal(size=(4, 8)) + 5, np.zeros(4)  # Failing raises on it
        while not self.release.wait(0.01):
            pass
        yield rng.normal(size=(4, 8)), np.zeros(4)


def test_an_error_is_raised_while_another_worker_waits_for_a_slow_source():
    release = threading.Event()
    before = _threads()
    safety = threading.Timer(10.0, release.set)  # a fit that waits for the source ends anyway
    safety.start()
    try:
        with pytest.raises(ValueError, match="bad batch"):
            ParallelWrapper(Failing(8), workers=2, averaging_frequency=1).fit(SlowSource(release))
        # Raised while the source is still blocked, with every worker joined (the one waiting in
        # next() was not left to wait); only the producer, inside the source's next(), remains.
        assert not release.is_set()
        assert all(t.name.startswith("wsarray-data") for t in _threads() - before)
    finally:
        release.set()
        safety.cancel()


def test_a_second_fit_goes_on_from_the_averaged_parameters():
    batches, _, _ = dataset(n=256)
    want = serial(LogReg(8), batches, epochs=2)
    model = LogReg(8)
    pw = ParallelWrapper(model, workers=1)
    pw.fit(batches).fit(batches)
    assert np.array_equal(np.asarray(model.params["w"]), np.asarray(want.params["w"]))
    assert pw.stats()["epochs"] == 2 and pw.stats()["iterations"] == 2 * len(batches)


def test_a_fit_that_stops_waits_for_stuck_workers_a_bounded_time_and_says_so(monkeypatch):
    # One worker fails while another is stuck inside fit_batch: the fit raises the failure after
    # one shared wait (not one per thread), warning that the stuck thread is still running.
    import wsarray.parallel.wrapper as wrapper_module

    monkeypatch.setattr(wrapper_module, "_STOP_WAIT_S", 0.3)
    release, entered = threading.Event(), threading.Event()

    class Stuck(LogReg):
        def fit_batch(self, x, y):
            if float(np.asarray(x)[0, 0]) == 1.0:
                entered.wait(10)  # the other worker is inside its step first
                raise ValueError("this batch is broken")
            entered.set()
            release.wait(20)
            return 0.0

    data = [(np.full((1, 2), float(i % 2)), np.zeros(1)) for i in range(4)]
    try:
        with pytest.warns(RuntimeWarning, match="still inside the model's fit_batch"):
            with pytest.raises(ValueError, match="this batch is broken"):
                ParallelWrapper(Stuck(2), workers=2, prefetch_buffer=1).fit(data)
    finally:
        release.set()
