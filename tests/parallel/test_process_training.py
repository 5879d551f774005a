"""ParallelWrapper(backend="process"): replicas in worker processes, arrays through shared memory.

Results against the thread backend's and serial training, both training modes, fork and spawn,
a worker's exception named in the caller, a worker killed mid-fit, and no process left behind."""
import multiprocessing
import os
import signal
import threading
import time

import numpy
import pytest

from wsarray.data import WorkerError
from wsarray.parallel import AdaptiveThreshold, ParallelWrapper
from test_shared_gradients import SoftmaxMLP, batches, full_loss, serial


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_averaging_in_processes_trains_like_threads_with_deterministic_batches(start_method):
    data = batches()
    model = SoftmaxMLP()
    before = full_loss(model, data)
    pw = ParallelWrapper(model, workers=2, averaging_frequency=3, backend="process", start_method=start_method)
    pw.fit(data, epochs=2)
    st = pw.stats()
    assert st["batches_per_worker"] == [24, 24] and st["epochs"] == 2
    assert full_loss(model, data) < 0.5 * before
    again = SoftmaxMLP()
    ParallelWrapper(again, workers=2, averaging_frequency=3, backend="process").fit(data, epochs=2)
    for name in model.params:  # the caller hands batches out in order: the same result every time
        assert numpy.array_equal(numpy.asarray(model.params[name]), numpy.asarray(again.params[name]))


def test_one_process_averaging_every_step_is_serial_training():
    data = batches(8)
    expected = serial(SoftmaxMLP(), data, 1)
    model = SoftmaxMLP()
    ParallelWrapper(model, workers=1, averaging_frequency=1, backend="process", blas_threads=None).fit(data)
    for name in model.params:
        assert numpy.allclose(numpy.asarray(model.params[name]), numpy.asarray(expected.params[name]),
                              rtol=1e-12, atol=1e-14)


def test_shared_gradients_in_processes_equal_the_thread_backend_with_one_worker():
    data = batches(10)
    by_thread, by_process = SoftmaxMLP(), SoftmaxMLP()
    for model, backend in ((by_thread, "thread"), (by_process, "process")):
        ParallelWrapper(model, workers=1, training_mode="shared_gradients", threshold=0,
                        backend=backend, blas_threads=None).fit(data, epochs=2)
    for name in by_thread.params:
        assert numpy.allclose(numpy.asarray(by_thread.params[name]), numpy.asarray(by_process.params[name]),
                              rtol=1e-12, atol=1e-14)


def test_shared_gradients_in_processes_converge_and_count_bytes():
    data = batches()
    target = full_loss(serial(SoftmaxMLP(), data, 4), data)
    model = SoftmaxMLP()
    pw = ParallelWrapper(model, workers=2, training_mode="shared_gradients", backend="process",
                         threshold=AdaptiveThreshold(initial=1e-3))
    pw.fit(data, epochs=6)
    st = pw.stats()
    assert full_loss(model, data) <= target * 1.02
    assert 0 < st["bytes_exchanged"] <= 0.10 * st["dense_bytes"]


def test_a_workers_exception_is_raised_in_the_caller_naming_the_process():
    class Failing(SoftmaxMLP):
        def fit_batch(self, x, y):
            if float(numpy.asarray(x)[0, 0]) > 8.0:
                raise ArithmeticError("this batch is cursed")
            return super().fit_batch(x, y)

    data = batches()
    data[5] = (data[5][0] + 10.0, data[5][1])
    with pytest.raises(ArithmeticError, match="cursed") as info:
        ParallelWrapper(Failing(), workers=2, averaging_frequency=2, backend="process").fit(data)
    note = "\n".join(info.value.__notes__)
    assert "replica 0 (pid" in note and "fit_batch" in note


def test_a_worker_killed_mid_fit_raises_worker_error_and_leaves_no_process():
    class Slow(SoftmaxMLP):
        def fit_batch(self, x, y):
            time.sleep(0.02)
            return super().fit_batch(x, y)

    pids = []

    def kill_one():
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            children = multiprocessing.active_children()
            if len(children) == 2:
                pids.append(children[1].pid)
                time.sleep(0.1)
                os.kill(children[1].pid, signal.SIGKILL)
                return
            time.sleep(0.01)

    killer = threading.Thread(target=kill_one)
    killer.start()
    try:
        with pytest.raises(WorkerError, match=r"killed by SIGKILL"):
            ParallelWrapper(Slow(), workers=2, averaging_frequency=2, backend="process").fit(batches(200), epochs=1)
    finally:
        killer.join()
    assert pids


def test_bad_backend_arguments():
    with pytest.raises(ValueError, match="backend must be 'thread' or 'process'"):
        ParallelWrapper(SoftmaxMLP(), backend="mpi")
    with pytest.raises(ValueError, match="start_method must be"):
        ParallelWrapper(SoftmaxMLP(), backend="process", start_method="forkserver")


def test_stopping_the_replicas_goes_on_past_one_that_fails():
    # One replica whose stop raised (its channel closed by an interrupted call) left the rest
    # unstopped: their processes exited later, unreaped (zombies after Ctrl-C storms).
    from wsarray.parallel._remote import stop_all

    class Replica:
        def __init__(self, fails):
            self.fails, self.stopped = fails, False

        def stop(self, timeout):
            if self.fails:
                raise ValueError("handle is closed")
            self.stopped = True
            return True

    replicas = [Replica(False), Replica(True), Replica(False)]
    assert stop_all(replicas) is False
    assert [r.stopped for r in replicas] == [True, False, True]
    assert stop_all([Replica(False)]) is True
