"""AsyncIterator: errors of the source, early break, garbage collection, close, reset, Ctrl-C,
interpreter exit, fork, several consumer threads. No thread may be left behind (conftest)."""
import _thread
import gc
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import traceback

import numpy
import pytest

import wsarray as wnp
from wsarray.data import AsyncIterator, shield

from data_helpers import data_threads, wait_for_no_data_threads


def numbered(n, size=4):
    return [numpy.full(size, float(i)) for i in range(n)]


def first_values(batches):
    return [float(b[0]) for b in batches]


class Counting:
    """A re-iterable source that counts its epochs and the batches it made."""

    def __init__(self, n, delay=0.0):
        self.n, self.delay, self.epochs, self.made = n, delay, 0, 0

    def __iter__(self):
        self.epochs += 1
        for i in range(self.n):
            if self.delay:
                time.sleep(self.delay)
            self.made += 1
            yield numpy.full(4, float(i))

    def __len__(self):
        return self.n


# -- errors of the source ---------------------------------------------------------------------

def failing_source(good, error):
    def gen():
        for i in range(good):
            yield numpy.full(3, float(i))
        raise error
    return gen()


@pytest.mark.parametrize("shielded", [False, True])
def test_an_error_arrives_after_the_good_batches_with_its_traceback(shielded):
    error = KeyError("bad record 17")
    source = failing_source(3, error)
    it = AsyncIterator(shield(source) if shielded else source, queue_size=4)
    got = []
    with pytest.raises(KeyError) as info:
        for batch in it:
            got.append(float(batch[0]))
    assert got == [0.0, 1.0, 2.0]
    assert info.value is error
    frames = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    assert "gen" in frames  # the source's own frame is in the traceback
    assert any("built batch 4" in n for n in getattr(error, "__notes__", []))
    assert wait_for_no_data_threads()  # the thread stopped
    with pytest.raises(StopIteration):  # a generator that raised is finished
        next(it)
    it.close()


@pytest.mark.parametrize("error", [MemoryError("no room"), wnp.WorkspaceMemoryError("no slot"),
                                   SystemExit(3), KeyboardInterrupt()])
def test_every_exception_reaches_the_consumer(error):
    it = AsyncIterator(failing_source(1, error))
    next(it)
    with pytest.raises(type(error)) as info:
        next(it)
    assert info.value is error
    it.close()


def test_a_source_that_can_go_on_after_an_error_goes_on():
    class Flaky:
        def __init__(self):
            self.i = 0

        def __iter__(self):
            return self

        def __next__(self):
            self.i += 1
            if self.i > 5:
                raise StopIteration
            if self.i == 3:
                raise ValueError("record 3 is bad")
            return numpy.full(2, float(self.i))

    with AsyncIterator(Flaky()) as it:
        assert float(next(it)[0]) == 1 and float(next(it)[0]) == 2
        with pytest.raises(ValueError, match="record 3"):
            next(it)
        assert first_values(it) == [4.0, 5.0]


def test_a_failing_iter_of_the_source_is_reported():
    class Broken:
        def __iter__(self):
            raise OSError("cannot open the data set")

    with AsyncIterator(Broken()) as it:
        with pytest.raises(OSError, match="cannot open"):
            next(it)


# -- break, garbage collection, close ---------------------------------------------------------

def test_break_stops_the_thread_and_loses_nothing():
    src = numbered(30)
    it = AsyncIterator(src, queue_size=3)
    seen = []
    for batch in it:
        seen.append(float(batch[0]))
        if len(seen) == 5:
            break
    last = batch
    assert wait_for_no_data_threads()
    assert float(last[0]) == 4.0  # the batch held at the break is still valid
    for batch in it:  # iterating again goes on where the loop stopped
        seen.append(float(batch[0]))
    assert seen == [float(i) for i in range(30)]
    it.close()


def test_a_for_loop_left_by_an_exception_stops_the_thread():
    it = AsyncIterator(numbered(30), queue_size=2)
    with pytest.raises(ZeroDivisionError):
        for _batch in it:
            1 / 0
    assert wait_for_no_data_threads()
    it.close()


def test_garbage_collection_stops_the_thread_and_frees_the_slots():
    it = AsyncIterator(Counting(10_000), queue_size=2)
    next(it)
    ring = it._p.ring
    assert data_threads()
    del it
    gc.collect()
    assert wait_for_no_data_threads()
    deadline = time.monotonic() + 5
    while ring.stats()["slots_made"] and time.monotonic() < deadline:
        time.sleep(0.01)
    assert ring.destroyed and ring.stats()["slots_made"] == 0


def test_close_retires_everything_and_is_final():
    it = AsyncIterator(Counting(100), queue_size=2)
    batch = next(it)
    assert it.close() is True
    assert not data_threads()
    with pytest.raises(wnp.WorkspaceError):
        batch.sum()
    with pytest.raises(StopIteration):
        next(it)
    assert it.close() is True  # twice is fine
    with pytest.raises(ValueError, match="closed"):
        it.reset()
    assert it.stats()["closed"]


def test_context_manager_closes_on_an_exception():
    with pytest.raises(RuntimeError, match="inside"):
        with AsyncIterator(Counting(100)) as it:
            next(it)
            raise RuntimeError("inside")
    assert it.stats()["closed"]
    assert not data_threads()


def test_close_does_not_hang_on_a_stuck_source():
    entered, release = threading.Event(), threading.Event()

    def stuck():
        yield numpy.ones(2)
        entered.set()
        release.wait(30)  # a next() that does not return for a long time
        yield numpy.ones(2)

    it = AsyncIterator(stuck())
    next(it)
    assert entered.wait(10)
    start = time.monotonic()
    assert it.close(timeout=0.2) is False  # the thread is still inside the source
    assert time.monotonic() - start < 5
    ring = it._p.ring
    release.set()
    assert wait_for_no_data_threads()  # it frees the slots when the source returns
    assert ring.destroyed


def test_ctrl_c_while_waiting_for_a_batch_does_not_hang():
    release = threading.Event()

    def slow():
        release.wait(20)  # the first batch takes until the test releases it
        for i in range(3):
            yield numpy.full(2, float(i))

    it = AsyncIterator(slow(), queue_size=2)
    raised = threading.Event()

    def on_ctrl_c(signum, frame):
        if not raised.is_set():  # one KeyboardInterrupt; later presses are ignored
            raised.set()
            raise KeyboardInterrupt

    def press_ctrl_c():
        # Again every 0.3 s until it lands: an interrupt that arrives while the main thread runs a
        # finalizer (garbage collection of earlier tests' objects) is reported and dropped by Python.
        while not raised.wait(0.3):
            _thread.interrupt_main()

    presser = threading.Thread(target=press_ctrl_c)
    previous = signal.signal(signal.SIGINT, on_ctrl_c)
    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            presser.start()  # inside the block: the interrupt cannot arrive before it
            next(it)
    finally:
        raised.set()
        presser.join()
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - start < 10
    release.set()
    assert float(next(it)[0]) == 0.0  # still consistent: the batch being built arrives
    assert it.close() is True


def test_interpreter_exit_with_a_running_iterator_does_not_hang():
    script = textwrap.dedent("""
        import itertools, numpy
        from wsarray.data import AsyncIterator
        def endless():
            for i in itertools.count():
                yield numpy.full(100_000, float(i))
        it = AsyncIterator(endless(), queue_size=4)
        next(it)
        it2 = AsyncIterator(endless(), queue_size=2, use_workspace=False)
        next(it2)
        print("exiting")
    """)
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-P", "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "exiting" in proc.stdout and _without_leak_report(proc.stderr) == ""
    assert time.monotonic() - start < 30


def _without_leak_report(stderr):
    """stderr without nanobind's leak report, which sanitized builds (.ci/sanitize) keep on: the
    objects a daemon thread still holds at exit are listed there (release builds turn it off)."""
    import wsarray

    if wsarray.show_config(mode="dicts")["build"]["sanitizers"] == "none":
        return stderr
    report = ("nanobind:", " - ", "See https://nanobind")
    return "\n".join(line for line in stderr.splitlines() if not line.startswith(report))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_gets_a_clear_error():
    it = AsyncIterator(Counting(100))
    next(it)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        try:
            next(it)
            os.write(write, b"no error")
        except RuntimeError as e:
            os.write(write, b"ok" if "os.fork()" in str(e) else str(e).encode())
        finally:
            os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    assert os.read(read, 1000) == b"ok"
    os.close(read)
    it.close()


# -- epochs ------------------------------------------------------------------------------------

def test_reset_starts_a_new_epoch_of_a_reiterable_source():
    src = Counting(6)
    with AsyncIterator(src, queue_size=2) as it:
        assert [float(next(it)[0]), float(next(it)[0])] == [0.0, 1.0]
        held = next(it)
        deadline = time.monotonic() + 10  # the producer has a batch ready ahead, which reset drops
        while it.stats()["ready"] < 1 and time.monotonic() < deadline:
            time.sleep(0.005)
        it.reset()
        assert float(held[0]) == 2.0  # the held batch stays valid until the next next()
        assert first_values(it) == [float(i) for i in range(6)]
        assert src.epochs == 2 and it.epoch == 2
        assert it.stats()["dropped"] >= 1


def test_a_for_loop_over_a_finished_iterator_is_the_next_epoch():
    src = Counting(4)
    with AsyncIterator(src) as it:
        epochs = [first_values(it) for _ in range(3)]
    assert epochs == [[0.0, 1.0, 2.0, 3.0]] * 3
    assert src.epochs == 3


def test_reset_of_a_one_shot_source():
    it = AsyncIterator(iter(numbered(3)))
    assert len(list(it)) == 3
    with pytest.raises(ValueError, match="one-shot"):
        it.reset()
    assert list(it) == []  # like any exhausted iterator
    it.close()

    class Resettable:  # Deeplearning4j style: an iterator with reset()
        def __init__(self):
            self.i = 0

        def __iter__(self):
            return self

        def __next__(self):
            if self.i == 2:
                raise StopIteration
            self.i += 1
            return numpy.full(2, float(self.i))

        def reset(self):
            self.i = 0

    with AsyncIterator(Resettable()) as it:
        assert first_values(it) == [1.0, 2.0]
        it.reset()
        assert first_values(it) == [1.0, 2.0]


# -- several consumer threads ------------------------------------------------------------------

def test_consumers_share_the_prefetch_each_thread_keeps_its_batch():
    n, k = 60, 3
    it = AsyncIterator(numbered(n, size=1000), queue_size=2, consumers=k)
    assert it.ring_size == 2 + 2 * k
    seen, errors, lock = [], [], threading.Lock()

    def consume():
        try:
            while True:
                try:
                    batch = next(it)
                except StopIteration:
                    return
                value = float(batch[0])
                time.sleep(0.001)  # other threads take batches meanwhile
                assert float(batch.min()) == float(batch.max()) == value  # still this thread's
                with lock:
                    seen.append(value)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)
        finally:
            it.release()

    threads = [threading.Thread(target=consume) for _ in range(k)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors, errors
    assert sorted(seen) == [float(i) for i in range(n)]
    it.close()


def test_a_consumer_thread_that_exits_holding_a_batch_does_not_stall_the_others():
    it = AsyncIterator(numbered(40), queue_size=1, consumers=2)
    taker = threading.Thread(target=lambda: next(it))  # takes batch 1 and exits holding it
    taker.start()
    taker.join()
    assert len(list(it)) == 39  # the producer retires the dead thread's batch and goes on
    it.close()


@pytest.mark.parametrize("backend", ["thread", "process"])
def test_threads_sharing_one_consumer_never_hang_nor_get_a_batch_twice(backend):
    # consumers=1 shared by two threads: a next() from either retires the batch handed out last
    # (the other thread's may then be stale: WorkspaceError, documented); every batch is handed
    # out once, in order, and the ring never stalls (it did: an entry overwritten unretired).
    n = 300 if backend == "process" else 1500
    data = [numpy.full(4, i) for i in range(n)]
    options = {"backend": "process", "workers": 2, "batch_size": 1} if backend == "process" else {"queue_size": 2}
    it = AsyncIterator(data, **options)
    got, stale, lock = [], [], threading.Lock()

    def consume():
        for batch in it:
            try:
                value = int(numpy.asarray(batch).ravel()[0])
            except wnp.WorkspaceError:
                value = None
            with lock:
                (got if value is not None else stale).append(value)
            time.sleep(0.0001)

    threads = [threading.Thread(target=consume) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)
    assert len(got) == len(set(got)) and len(got) + len(stale) == n == it.stats()["consumed"]
    it.close()


def test_reset_or_close_from_inside_the_source_never_deadlocks():
    # The source calling back into its own iterator runs on the producer thread: reset() there
    # raises (it would wait for the very build it is in), close() stops without waiting for it.
    class Source:
        def __init__(self):
            self.errors = []

        def __iter__(self):
            for i in range(10):
                if i == 3:
                    try:
                        it.reset()
                    except RuntimeError as e:
                        self.errors.append(str(e))
                if i == 5:
                    self.closed = it.close()
                yield numpy.full(2, float(i))

    source = Source()
    it = AsyncIterator(source)
    got = first_values(it)  # what was prefetched when the source closed is dropped, as close() does
    assert got == [float(i) for i in range(len(got))] and len(got) <= 5
    assert wait_for_no_data_threads()  # the producer returns from close() after the consumer saw it
    assert len(source.errors) == 1 and "reset(): called from the source itself" in source.errors[0]
    assert source.closed is False
