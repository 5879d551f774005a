"""ParallelInference(backend="process"): each worker thread's model runs in a process of its own.

Results against the thread backend's and NumPy, a model's exception in the caller's future with
the replica named, a replica killed mid-request (its requests retried or failed, never lost; the
next ones served by a new process), spawn, pad buckets, and no process left after shutdown."""
import multiprocessing
import os
import signal
import subprocess
import sys
import time

import numpy
import pytest

from wsarray.data import WorkerError
from wsarray.parallel import ParallelInference


class Linear:
    def __init__(self, delay=0.0):
        self.w = numpy.random.default_rng(0).normal(size=(6, 3))
        self.delay = delay

    def predict(self, x):
        if self.delay:
            time.sleep(self.delay)
        x = numpy.asarray(x)
        if numpy.isnan(x).any():
            raise ValueError("NaN in the input")
        return x @ self.w, {"pid": numpy.full(len(x), os.getpid())}


class Unsendable:
    """Returns its input, and a lambda beside it when the input holds ones."""

    def __call__(self, x):
        x = numpy.asarray(x)
        return [x, (lambda: 1) if (x == 1).all() else None]


def requests(n, seed=1):
    rng = numpy.random.default_rng(seed)
    return [rng.normal(size=(int(rng.integers(1, 5)), 6)) for _ in range(n)]


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_results_equal_numpy_and_come_from_other_processes(start_method):
    model = Linear()
    with ParallelInference(model, workers=2, backend="process", start_method=start_method) as pi:
        xs = requests(30)
        futures = [pi.submit(x) for x in xs]
        for x, f in zip(xs, futures):
            out, info = f.result(timeout=30)
            assert numpy.allclose(numpy.asarray(out), x @ model.w)
            assert len(set(numpy.asarray(info["pid"]).tolist())) == 1
            assert int(numpy.asarray(info["pid"])[0]) != os.getpid()
        assert pi.stats()["completed"] == 30


def test_a_models_exception_reaches_the_future_naming_the_replica():
    with ParallelInference(Linear(), workers=2, backend="process") as pi:
        bad = numpy.full((2, 6), numpy.nan)
        with pytest.raises(ValueError, match="NaN in the input") as info:
            pi.output(bad)
        assert "replica" in "\n".join(info.value.__notes__)
        assert numpy.asarray(pi.output(numpy.ones((1, 6)))[0]).shape == (1, 3)  # still serving


def test_a_replica_killed_mid_request_loses_no_request():
    with ParallelInference(Linear(delay=0.05), workers=2, backend="process", mode="sequential") as pi:
        futures = [pi.submit(x) for x in requests(12)]
        time.sleep(0.08)
        victims = [c.pid for c in multiprocessing.active_children()]
        os.kill(victims[0], signal.SIGKILL)
        outcomes = []
        for f in futures:
            try:
                f.result(timeout=30)
                outcomes.append("ok")
            except WorkerError as e:
                assert "killed by SIGKILL" in str(e)
                outcomes.append("failed")
        assert len(outcomes) == 12 and outcomes.count("failed") <= 1
        assert numpy.asarray(pi.output(numpy.ones((1, 6)))[0]).shape == (1, 3)
        alive = [c.pid for c in multiprocessing.active_children()]
        assert victims[0] not in alive and len(alive) == 2


def test_pad_buckets_in_processes():
    class Masked:
        def __call__(self, x, mask):
            x, mask = numpy.asarray(x), numpy.asarray(mask)
            return (x * mask).sum(axis=1, keepdims=True).repeat(x.shape[1], axis=1)

    with ParallelInference(Masked(), workers=2, backend="process", pad_buckets=[4, 8]) as pi:
        for n in (3, 4, 7):
            x = numpy.ones((2, n))
            assert numpy.array_equal(numpy.asarray(pi.output(x)), numpy.full((2, n), float(n)))


def test_bad_backend_arguments():
    with pytest.raises(ValueError, match="backend must be 'thread' or 'process'"):
        ParallelInference(Linear(), backend="gpu")
    with pytest.raises(ValueError, match="start_method must be"):
        ParallelInference(Linear(), backend="process", start_method="forkserver")


def test_a_pool_dropped_without_shutdown_stops_its_processes():
    pi = ParallelInference(Linear(), workers=2, backend="process")
    assert numpy.asarray(pi.output(numpy.ones((1, 6)))[0]).shape == (1, 3)
    assert len(multiprocessing.active_children()) == 2
    del pi  # the autouse fixture checks that no process is left


def test_interpreter_exit_with_a_live_process_pool_leaves_no_process():
    import subprocess
    import sys
    import textwrap
    script = textwrap.dedent("""
        import multiprocessing, numpy
        from wsarray.parallel import ParallelInference
        class Double:
            def __call__(self, x):
                return x * 2.0
        pi = ParallelInference(Double(), workers=2, backend="process")
        pi.submit(numpy.ones((2, 3))).result()
        print(*[c.pid for c in multiprocessing.active_children()], flush=True)
    """)
    out = subprocess.run([sys.executable, "-P", "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    pids = [int(p) for p in out.stdout.split()]
    assert len(pids) == 2
    deadline = time.monotonic() + 10
    alive = pids
    while alive and time.monotonic() < deadline:
        alive = [p for p in pids if os.path.exists(f"/proc/{p}") and
                 open(f"/proc/{p}/stat").read().split()[2] != "Z"]
        time.sleep(0.05)
    assert not alive


def _openblas_pthreads():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    return any(lib["internal_api"] == "openblas" and lib.get("threading_layer") == "pthreads"
               for lib in threadpoolctl.threadpool_info())


@pytest.mark.skipif(not hasattr(os, "fork") or not os.path.isdir("/proc/self/task"),
                    reason="needs fork and /proc/<pid>/task")
def test_a_replica_capped_at_one_blas_thread_runs_no_blas_helper_thread():
    # After a fork OpenBLAS re-creates its helper threads at the first thread-count change, and
    # each busy-waits for work that a one-thread pool never gives it, taking CPU from the other
    # replicas. The replica stops them (wsarray/parallel/_blas.py, cap_worker_process).
    if not _openblas_pthreads():
        pytest.skip("NumPy's BLAS here is not OpenBLAS with pthreads")
    numpy.ones((64, 64)) @ numpy.ones((64, 64))  # the owner's BLAS pool is up before the fork
    earlier = {c.pid for c in multiprocessing.active_children()}  # other tests' children, still ending
    with ParallelInference(Linear(), workers=2, backend="process", blas_threads=1) as pi:
        for _ in range(3):
            out, info = pi.output(numpy.ones((3, 6)))
        replicas = {c.pid for c in multiprocessing.active_children()} - earlier
        assert len(replicas) == 2
        for pid in replicas:
            tasks = os.listdir(f"/proc/{pid}/task")
            names = [open(f"/proc/{pid}/task/{t}/comm").read().strip() for t in tasks]
            assert tasks == [str(pid)], f"a helper thread runs in the replica: {names}"


EXIT_WITH_A_STUCK_REPLICA = """
import os, signal, sys, threading, time, numpy
import wsarray as np
from wsarray.parallel import ParallelInference, ParallelWrapper
signal.signal(signal.SIGTERM, signal.SIG_IGN)  # inherited by the replicas: only SIGKILL stops them
if sys.argv[1] == "inference":
    pool = ParallelInference(lambda x: time.sleep(120) or x, workers=1, backend="process")
    pool.submit(numpy.ones((1, 3)))
else:
    class Model:
        def __init__(self):
            self.params = {"w": np.zeros(3)}
        def fit_batch(self, x, y):
            time.sleep(120)
            return 0.0
    wrapper = ParallelWrapper(Model(), workers=2, backend="process")
    threading.Thread(target=wrapper.fit, args=([(numpy.ones((2, 3)), numpy.ones(2))] * 10,), daemon=True).start()
time.sleep(1.5)
import multiprocessing
print(*[p.pid for p in multiprocessing.active_children()], flush=True)
"""


@pytest.mark.parametrize("kind", ["inference", "training"])
def test_interpreter_exit_stops_replicas_stuck_in_a_call(kind):
    # A replica inside a two-minute call that ignores SIGTERM: exit takes the grace periods, then
    # kills it (multiprocessing's own exit handler would join it until the call ends).
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-P", "-c", EXIT_WITH_A_STUCK_REPLICA, kind], capture_output=True, text=True,
                          timeout=90)
    assert done.returncode == 0, done.stderr[-2000:]
    assert time.monotonic() - start < 30
    pids = [int(p) for p in done.stdout.split()]
    assert pids

    def gone(pid):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    deadline = time.monotonic() + 10  # a replica left to init is reaped by it a moment later
    while not all(gone(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(gone(pid) for pid in pids), pids


def test_a_result_that_cannot_be_pickled_fails_its_request_and_the_replica_lives_on():
    # The model returns a lambda beside its array: that request fails with a TypeError naming the
    # value (the replica process died of it, and only its stderr said why); the next one is served.
    pool = ParallelInference(Unsendable(), workers=1, backend="process", mode="sequential")
    try:
        with pytest.raises(TypeError, match="cannot be sent to the owner process.*lambda"):
            pool.submit(numpy.ones((1, 2))).result(timeout=30)
        assert numpy.asarray(pool.submit(numpy.full((1, 2), 3.0)).result(timeout=30)[0]).tolist() == [[3.0, 3.0]]
    finally:
        pool.shutdown()


class Stuck:
    def __call__(self, x):
        time.sleep(1000)
        return x


def test_a_shutdown_timeout_stops_the_replicas_still_in_a_call():
    # With threads, a model that never returns keeps its thread; a replica process can be stopped:
    # after the timeout its request fails with WorkerError and nothing is left running (the
    # replica and its worker thread stayed until interpreter exit).
    pi = ParallelInference(Stuck(), workers=1, backend="process")
    f = pi.submit(numpy.ones((1, 2)))
    time.sleep(0.3)  # the replica has the request
    start = time.monotonic()
    with pytest.raises(TimeoutError, match="replica processes were stopped"):
        pi.shutdown(timeout=0.5)
    with pytest.raises(WorkerError, match="killed by SIGKILL during a call"):
        f.result(timeout=10)
    assert time.monotonic() - start < 10
    deadline = time.monotonic() + 10
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert multiprocessing.active_children() == []
    pi.shutdown()  # the worker thread has gone: this returns
