"""Shielded calls (wsarray/_interrupts.py: shielded, over wsarray._native.defer_signals): a call
runs on the caller's thread with the Python signal handlers held back; each signal that arrived
meanwhile goes to its own handler after the call, once, and a handler's exception propagates
then, with the call's change whole. The handlers are put back exactly, nothing of a call is kept,
and a fork inside a call leaves the child its handlers."""
import gc
import os
import signal
import subprocess
import sys
import textwrap
import threading
import weakref

import pytest

from wsarray import _native
from wsarray._interrupts import shielded


@pytest.fixture
def handlers():
    """Install handlers for the test, put the old ones back after it."""
    saved = {}

    def install(signum, handler):
        saved.setdefault(signum, signal.getsignal(signum))
        signal.signal(signum, handler)
        return handler

    yield install
    for signum, handler in saved.items():
        signal.signal(signum, handler)


def test_a_handler_that_raises_runs_after_the_call_which_completes(handlers):
    calls = []

    def interrupt(signum, frame):
        calls.append(signum)
        raise KeyboardInterrupt("interrupted")

    handlers(signal.SIGUSR1, interrupt)
    steps = []

    def change():
        steps.append("first half")
        os.kill(os.getpid(), signal.SIGUSR1)
        os.kill(os.getpid(), signal.SIGUSR1)  # a repeat coalesces, as Python's own handling does
        sum(range(10_000))  # bytecodes, where Python would run the handler
        steps.append("second half")
        return "result"

    with pytest.raises(KeyboardInterrupt, match="interrupted"):
        shielded(change)
    assert steps == ["first half", "second half"]
    assert calls == [signal.SIGUSR1]
    assert signal.getsignal(signal.SIGUSR1) is interrupt
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_during_a_call_raises_keyboard_interrupt_after_it():
    steps = []

    def change():
        os.kill(os.getpid(), signal.SIGINT)
        sum(range(10_000))
        steps.append("done")

    with pytest.raises(KeyboardInterrupt):
        shielded(change)
    assert steps == ["done"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_each_signal_goes_to_its_own_handler_once_with_a_frame(handlers):
    seen = []

    def note(signum, frame):
        seen.append((signum, type(frame).__name__))

    handlers(signal.SIGUSR1, note)
    handlers(signal.SIGUSR2, note)

    def change(a, b):
        for signum in (signal.SIGUSR2, signal.SIGUSR1, signal.SIGUSR2):
            os.kill(os.getpid(), signal.SIGUSR2 if signum == signal.SIGUSR2 else signal.SIGUSR1)
            sum(range(1000))
        assert seen == []  # held back while the call runs
        return a + b

    assert shielded(change, 2, 3) == 5
    assert sorted(seen) == sorted([(signal.SIGUSR1, "frame"), (signal.SIGUSR2, "frame")])
    assert signal.getsignal(signal.SIGUSR1) is note and signal.getsignal(signal.SIGUSR2) is note


def test_the_calls_error_propagates_and_a_handlers_error_wins_with_it_as_context(handlers):
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    handlers(signal.SIGUSR1, interrupt)

    def fails():
        raise ValueError("the call's own error")

    with pytest.raises(ValueError, match="the call's own error"):
        shielded(fails)

    def fails_interrupted():
        os.kill(os.getpid(), signal.SIGUSR1)
        raise ValueError("the call's own error")

    with pytest.raises(KeyboardInterrupt) as info:
        shielded(fails_interrupted)
    assert isinstance(info.value.__context__, ValueError)
    assert signal.getsignal(signal.SIGUSR1) is interrupt


@pytest.mark.parametrize("order", ["raising first", "raising last"])
def test_behind_a_handler_that_raises_the_others_still_run_once(handlers, order):
    calls = []

    def interrupt(signum, frame):
        calls.append("interrupt")
        raise KeyboardInterrupt

    def note(signum, frame):
        calls.append("note")

    handlers(signal.SIGUSR1, interrupt)
    handlers(signal.SIGUSR2, note)
    sent = [signal.SIGUSR1, signal.SIGUSR2] if order == "raising first" else [signal.SIGUSR2, signal.SIGUSR1]

    def change():
        for signum in sent:
            os.kill(os.getpid(), signum)
            sum(range(1000))

    with pytest.raises(KeyboardInterrupt):
        shielded(change)
    sum(range(1000))  # a handler left pending behind the raising one runs here, as Python's would
    assert sorted(calls) == ["interrupt", "note"]
    assert signal.getsignal(signal.SIGUSR1) is interrupt and signal.getsignal(signal.SIGUSR2) is note


def test_ignored_and_default_signals_are_left_alone(handlers):
    handlers(signal.SIGUSR1, signal.SIG_IGN)
    handlers(signal.SIGUSR2, signal.SIG_DFL)
    inside = shielded(lambda: (signal.getsignal(signal.SIGUSR1), signal.getsignal(signal.SIGUSR2)))
    assert inside == (signal.SIG_IGN, signal.SIG_DFL)
    assert signal.getsignal(signal.SIGUSR1) == signal.SIG_IGN


def test_nested_calls_and_other_threads_run_the_function_directly(handlers):
    def note(signum, frame):
        pass

    handlers(signal.SIGUSR1, note)
    inside = shielded(lambda: (signal.getsignal(signal.SIGUSR1), shielded(lambda: 7)))
    assert inside == (_native._record_signal, 7)  # the recorder stands in while a call runs
    out = []
    thread = threading.Thread(target=lambda: out.append(shielded(signal.getsignal, signal.SIGUSR1)))
    thread.start()
    thread.join()
    assert out == [note]  # on another thread nothing is swapped (Python runs no handler there)


def test_bad_calls_raise_and_leave_the_handlers(handlers):
    def note(signum, frame):
        pass

    handlers(signal.SIGUSR1, note)
    with pytest.raises(TypeError, match="fn is missing"):
        _native.defer_signals()
    with pytest.raises(TypeError, match="not callable"):
        shielded(42)
    assert signal.getsignal(signal.SIGUSR1) is note


def test_a_call_keeps_nothing_once_it_returned():
    class Token:
        pass

    arg, result = Token(), Token()
    seen = weakref.ref(arg), weakref.ref(result)
    assert shielded(lambda a, r: r, arg, result) is result
    del arg, result
    gc.collect()
    assert seen[0]() is None and seen[1]() is None


def test_a_handler_is_not_kept_alive_once_it_is_replaced(handlers):
    class Handler:
        def __call__(self, signum, frame):
            pass

    handler = Handler()
    seen = weakref.ref(handler)
    handlers(signal.SIGUSR1, handler)
    shielded(lambda: None)  # swapped out and put back
    signal.signal(signal.SIGUSR1, signal.SIG_DFL)
    del handler
    gc.collect()
    assert seen() is None  # (a handler holds its module's globals: kept, they would outlive the interpreter)


def test_a_recorder_left_installed_outside_a_call_still_lets_ctrl_c_interrupt(handlers):
    handlers(signal.SIGINT, _native._record_signal)  # as a copy someone kept would be installed
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        sum(range(1000))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_fork_inside_a_call_leaves_the_child_its_handlers(handlers):
    def note(signum, frame):
        pass

    handlers(signal.SIGUSR1, note)
    read, write = os.pipe()

    def fork():
        pid = os.fork()
        if pid == 0:  # the child: its handler is its own again, and a signal reaches it
            try:
                got = []
                signal.signal(signal.SIGUSR2, lambda s, f: got.append(s))
                os.kill(os.getpid(), signal.SIGUSR2)
                sum(range(1000))
                ok = signal.getsignal(signal.SIGUSR1) is note and got == [signal.SIGUSR2]
                os.write(write, b"1" if ok else b"0")
            finally:
                os._exit(0)
        return pid

    pid = shielded(fork)
    os.close(write)
    assert os.read(read, 1) == b"1"
    os.close(read)
    os.waitpid(pid, 0)
    assert signal.getsignal(signal.SIGUSR1) is note


STORM = textwrap.dedent("""
    import signal, sys, time
    from wsarray._interrupts import shielded

    armed = [False]

    def handler(sig, frame):
        if armed[0]:
            raise KeyboardInterrupt

    signal.signal(signal.SIGALRM, handler)
    left, right = list(range(200)), []

    def move():  # one item from one list to the other: the two always hold 200 between them
        if left:
            item = left.pop()
            sum(range(200))
            right.append(item)
        else:
            left.extend(reversed(right))
            right.clear()

    counts = {"done": 0, "interrupted": 0}
    signal.setitimer(signal.ITIMER_REAL, 0.0002, 0.0002)
    end = time.monotonic() + 1.5
    while time.monotonic() < end:
        try:
            armed[0] = True
            shielded(move)
            armed[0] = False
            counts["done"] += 1
        except KeyboardInterrupt:
            armed[0] = False
            counts["interrupted"] += 1
        assert len(left) + len(right) == 200, (len(left), len(right))
    signal.setitimer(signal.ITIMER_REAL, 0, 0)
    assert sorted(left + right) == list(range(200))
    assert signal.getsignal(signal.SIGALRM) is handler
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert counts["done"] > 100 and counts["interrupted"] > 100, counts
    print("ok", counts)
""")


def test_an_interrupt_storm_never_splits_a_call():
    out = subprocess.run([sys.executable, "-P", "-c", STORM], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.startswith("ok")


ASYNCIO_CTRL_C = textwrap.dedent("""
    import asyncio, os, signal, sys, threading
    import numpy
    from wsarray.data import AsyncIterator

    class Samples:  # map-style, for the process backend
        def __len__(self):
            return 10_000_000

        def __getitem__(self, i):
            return numpy.full(100, float(i))

    def stream():
        i = 0
        while True:
            yield numpy.full(100, float(i))
            i += 1

    async def main():
        if sys.argv[1] == "process":
            it = AsyncIterator(Samples(), backend="process", workers=2, batch_size=None)
        else:
            it = AsyncIterator(stream(), queue_size=2)
        asyncio.get_running_loop().call_later(0.5, os.kill, os.getpid(), signal.SIGINT)
        n = 0
        try:
            while True:
                batch = next(it)  # shielded state changes on the main thread, inside a coroutine
                assert float(batch[0]) == n
                n += 1
                await asyncio.sleep(0)
        finally:
            it.close()
            print("batches", n)

    try:
        asyncio.run(main())  # its SIGINT handler cancels main(), then raises KeyboardInterrupt
    except KeyboardInterrupt:
        print("interrupted")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    print("left", [t.name for t in threading.enumerate() if t is not threading.main_thread()])
""")


@pytest.mark.parametrize("backend", ["thread", "process"])
def test_ctrl_c_in_an_asyncio_program_reaches_asyncios_handler_once(backend):
    # asyncio.run() installs a Python SIGINT handler of its own: a Ctrl-C that lands in a shielded
    # call is handed to it after the call, which cancels the main task; nothing is left running.
    out = subprocess.run([sys.executable, "-P", "-c", ASYNCIO_CTRL_C, backend], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.split("\n")
    assert lines[0].startswith("batches ") and int(lines[0].split()[1]) > 0, out.stdout
    assert lines[1:3] == ["interrupted", "left []"], out.stdout
