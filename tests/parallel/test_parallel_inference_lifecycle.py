"""Back-pressure, shutdown, interrupted callers, garbage collection and interpreter exit."""
import concurrent.futures
import gc
import os
import queue
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy
import pytest
from conftest import parallel_threads, wait_for_no_parallel_threads
from parallel_helpers import Gated

from wsarray.parallel import ParallelInference
from wsarray.parallel import _blas


def row(value):
    return numpy.full((1, 1), float(value))


def test_queue_limit_blocks_or_rejects_submitters_until_there_is_room():
    model = Gated()
    with ParallelInference(model, workers=1, mode="sequential", queue_limit=2) as pi:
        first = pi.submit(row(0))
        model.wait_entered()                      # taken by the worker: the queue is empty
        queued = [pi.submit(row(1)), pi.submit(row(2))]
        with pytest.raises(queue.Full, match=r"submit\(\): the queue is full \(2 requests"):
            pi.submit(row(3), block=False)
        with pytest.raises(queue.Full):
            pi.submit(row(3), timeout=0.05)
        blocked = []
        submitter = threading.Thread(target=lambda: blocked.append(pi.submit(row(4))))
        submitter.start()
        submitter.join(0.3)
        assert submitter.is_alive() and not blocked   # waits for room
        model.gate.set()
        submitter.join(10)
        assert not submitter.is_alive()
        results = [f.result(timeout=10) for f in [first, *queued, *blocked]]
        stats = pi.stats()
    assert [float(numpy.asarray(r)[0, 0]) for r in results] == [0.0, 2.0, 4.0, 8.0]
    assert stats["rejected"] == 2 and stats["requests"] == stats["completed"] == 4


def test_shutdown_cancel_pending_fails_waiting_requests_and_finishes_the_running_one():
    model = Gated()
    pi = ParallelInference(model, workers=1, mode="sequential")
    running = pi.submit(row(1))
    model.wait_entered()
    waiting = [pi.submit(row(k)) for k in range(5)]
    stopper = threading.Thread(target=pi.shutdown, kwargs={"cancel_pending": True})
    stopper.start()
    for f in waiting:  # failed at once, before the running batch ends
        with pytest.raises(concurrent.futures.CancelledError,
                           match="cancelled before a worker took it: shutdown"):
            f.result(timeout=10)
    assert stopper.is_alive() and not running.done()
    model.gate.set()
    stopper.join(10)
    assert numpy.asarray(running.result(timeout=0)).tolist() == [[2.0]]
    assert pi.stats()["cancelled"] == 5 and pi.closed
    with pytest.raises(RuntimeError, match=r"submit\(\): the pool is shut down"):
        pi.submit(row(0))
    with pytest.raises(RuntimeError, match="the pool is shut down"):
        pi.output(row(0))
    pi.shutdown()  # again: nothing to do


def test_shutdown_drains_pending_requests_by_default():
    model = Gated()
    pi = ParallelInference(model, workers=2)
    futures = [pi.submit(row(k)) for k in range(10)]
    model.gate.set()
    pi.shutdown()
    assert [float(numpy.asarray(f.result(timeout=0))[0, 0]) for f in futures] == \
        [2.0 * k for k in range(10)]
    assert parallel_threads() == []


def test_shutdown_without_wait_returns_at_once_and_the_workers_finish_in_the_background():
    model = Gated()
    pi = ParallelInference(model, workers=1)
    futures = [pi.submit(row(k)) for k in range(3)]
    model.wait_entered()
    pi.shutdown(wait=False)
    assert parallel_threads()  # still running its batch
    model.gate.set()
    assert [float(numpy.asarray(f.result(timeout=10))[0, 0]) for f in futures] == [0, 2, 4]
    assert wait_for_no_parallel_threads()


def test_shutdown_timeout_names_the_workers_still_running():
    model = Gated()
    pi = ParallelInference(model, workers=1)
    pi.submit(row(1))
    model.wait_entered()
    with pytest.raises(TimeoutError, match=r"shutdown\(\): 1 worker\(s\) still running a batch "
                                           r"after 0.05 s: wsarray-parallel-inference-\d+_0$"):
        pi.shutdown(timeout=0.05)
    model.gate.set()
    pi.shutdown()


def test_output_timeout_cancels_a_request_no_worker_has_taken():
    model = Gated()
    with ParallelInference(model, workers=1) as pi:
        pi.submit(row(1))
        model.wait_entered()
        with pytest.raises(TimeoutError, match=r"output\(\): no result within 0.05 s"):
            pi.output(row(2), timeout=0.05)
        model.gate.set()
    assert [b.tolist() for b in model.batches] == [[[1.0]]]  # the timed-out request never ran
    assert pi.stats()["cancelled"] == 1


def interrupt_main_thread_when(event):
    """Send SIGINT to the main thread once ``event`` is set (as Ctrl-C would)."""
    def send():
        if event.wait(10):
            time.sleep(0.05)  # let the main thread enter its wait
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
    t = threading.Thread(target=send)
    t.start()
    return t


def test_an_interrupted_caller_cancels_its_waiting_request_and_the_pool_goes_on(
        sigint_raises_keyboard_interrupt):
    model = Gated()
    with ParallelInference(model, workers=1) as pi:
        pi.submit(row(1))
        model.wait_entered()
        sender = interrupt_main_thread_when(model.entered)
        with pytest.raises(KeyboardInterrupt):
            pi.output(row(2))  # waits behind the blocked worker until Ctrl-C
        sender.join(10)
        model.gate.set()
        assert numpy.asarray(pi.output(row(3))).tolist() == [[6.0]]
    assert [b.tolist() for b in model.batches] == [[[1.0]], [[3.0]]]
    assert pi.stats()["cancelled"] == 1


def test_ctrl_c_in_the_with_block_cancels_pending_requests_and_joins_the_workers(
        sigint_raises_keyboard_interrupt):
    model = Gated()
    futures = []
    with pytest.raises(KeyboardInterrupt):
        with ParallelInference(model, workers=1) as pi:
            futures = [pi.submit(row(0))]
            model.wait_entered()
            futures += [pi.submit(row(k)) for k in range(1, 4)]
            threading.Timer(0.2, model.gate.set).start()  # the running batch ends later
            raise KeyboardInterrupt
    assert parallel_threads() == []
    assert numpy.asarray(futures[0].result(timeout=0)).tolist() == [[0.0]]
    for f in futures[1:]:
        assert isinstance(f.exception(timeout=0), concurrent.futures.CancelledError)


def test_ctrl_c_while_draining_cancels_what_still_waits(sigint_raises_keyboard_interrupt):
    model = Gated()
    pi = ParallelInference(model, workers=1, mode="sequential")
    futures = [pi.submit(row(k)) for k in range(4)]
    model.wait_entered()
    sender = interrupt_main_thread_when(model.entered)
    with pytest.raises(KeyboardInterrupt):
        pi.shutdown()  # drains: waits for the gated model until Ctrl-C
    sender.join(10)
    for f in futures[1:]:
        with pytest.raises(concurrent.futures.CancelledError, match="the caller was interrupted"):
            f.result(timeout=10)
    model.gate.set()
    pi.shutdown()
    assert numpy.asarray(futures[0].result(timeout=0)).tolist() == [[0.0]]


def test_a_pool_garbage_collected_without_shutdown_finishes_its_queue_and_stops():
    model = Gated()
    pi = ParallelInference(model, workers=2)
    futures = [pi.submit(row(k)) for k in range(6)]
    del pi
    gc.collect()
    model.gate.set()
    assert [float(numpy.asarray(f.result(timeout=10))[0, 0]) for f in futures] == \
        [2.0 * k for k in range(6)]
    assert wait_for_no_parallel_threads()


def test_interpreter_exit_with_a_forgotten_pool_cancels_its_queue_and_exits():
    script = textwrap.dedent("""
        import threading
        import numpy
        from wsarray.parallel import ParallelInference

        entered = threading.Event()

        def model(x):
            entered.set()
            threading.Event().wait(0.3)   # a batch is running when the interpreter exits
            return x

        pi = ParallelInference(model, workers=1, mode="sequential")
        futures = [pi.submit(numpy.ones((1, 1))) for _ in range(3)]
        for k, f in enumerate(futures):
            f.add_done_callback(lambda f, k=k: print(k, type(f.exception()).__name__, flush=True))
        entered.wait(10)
        print("exiting", flush=True)
    """)
    done = subprocess.run([sys.executable, "-P", "-c", script], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONFAULTHANDLER": "1"})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split()
    assert "exiting" in lines
    assert "2 CancelledError" in done.stdout and "1 CancelledError" in done.stdout, done.stdout
    assert "0 NoneType" in done.stdout, done.stdout  # the running batch was let finish


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork() here")
def test_a_pool_inherited_by_a_forked_child_refuses_requests_clearly():
    with ParallelInference(lambda x: x + 1, workers=2) as pi:
        pi.output(row(1))
        pid = os.fork()
        if pid == 0:  # the child: report through the exit status, never return into pytest
            code = 1
            try:
                pi.submit(row(2))
            except RuntimeError as e:
                code = 0 if "do not exist in this forked child" in str(e) else 2
            except BaseException:  # noqa: BLE001 - any other outcome is a failure
                code = 3
            try:
                pi.shutdown()  # returns at once: no worker to wait for
            except BaseException:  # noqa: BLE001
                code = 4
            os._exit(code)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.01)
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail("the forked child hung")
        assert os.waitstatus_to_exitcode(status) == 0
        assert numpy.asarray(pi.output(row(3))).tolist() == [[4.0]]  # the parent's pool goes on


threadpoolctl = pytest.importorskip("threadpoolctl")


def blas_counts():
    return _blas.blas_thread_counts()


@pytest.mark.skipif(not blas_counts(), reason="no BLAS library seen by threadpoolctl")
def test_blas_threads_are_capped_while_the_pool_is_open_and_restored_after():
    before = blas_counts()
    cores = _blas.available_cores()
    with ParallelInference(lambda x: x, workers=2):
        during = blas_counts()
        with ParallelInference(lambda x: x, workers=1, blas_threads=1):
            inner = blas_counts()
        assert blas_counts() == during
    assert blas_counts() == before
    for prefix, n in before.items():
        assert during[prefix] == min(n, max(1, cores // 2))
        assert inner[prefix] == 1
    with ParallelInference(lambda x: x, workers=4, blas_threads=None):
        assert blas_counts() == before


@pytest.mark.skipif(not blas_counts(), reason="no BLAS library seen by threadpoolctl")
def test_a_cap_released_on_another_thread_is_restored_by_the_main_thread():
    before = blas_counts()
    pi = ParallelInference(lambda x: x, workers=1, blas_threads=1)
    capped = blas_counts()
    stopper = threading.Thread(target=pi.shutdown)
    stopper.start()
    stopper.join(10)
    assert not stopper.is_alive() and pi.closed
    pi.shutdown()  # on the main thread: makes the restore OpenBLAS may have ignored
    assert blas_counts() == before
    assert all(n == 1 for n in capped.values())


def test_without_threadpoolctl_auto_warns_and_an_explicit_cap_names_the_extra(monkeypatch):
    monkeypatch.setattr(_blas, "threadpoolctl_or_none", lambda: None)
    with pytest.warns(RuntimeWarning, match=r'threadpoolctl is not installed.*wsarray\[parallel\]'):
        ParallelInference(lambda x: x, workers=2).shutdown()
    with pytest.raises(ImportError, match=r'blas_threads=\) needs threadpoolctl: pip install '
                                          r'"wsarray\[parallel\]"'):
        ParallelInference(lambda x: x, workers=2, blas_threads=1)


def test_a_model_that_shuts_its_own_pool_down_finishes_its_request():
    # shutdown() called from inside the model (a worker thread) waits for the other workers, not
    # for itself: the request completes and the pool stops (it waited for itself forever).
    def model(x):
        pool.shutdown()
        return x * 2

    pool = ParallelInference(model, workers=2)
    assert numpy.asarray(pool.submit(numpy.ones((1, 2))).result(timeout=10)).tolist() == [[2.0, 2.0]]
    assert wait_for_no_parallel_threads(), parallel_threads()
    assert pool.closed
    pool.shutdown()  # again, from the main thread: the BLAS cap a worker thread cannot lift goes too
