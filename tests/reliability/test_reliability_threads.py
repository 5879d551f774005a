"""Threads: concurrent workspaces give correct results; arrays crossing threads follow one rule;
exceptions and KeyboardInterrupt inside nested scopes leave every thread's stack consistent.

Rule: an array may be used on another thread while its own cycle is open (results computed there go
to *that* thread's current workspace); once its cycle ends it is stale on every thread.
"""
import _thread
import queue
import threading
import time

import numpy as np
import pytest

import wsarray as wnp
from wsarray import memory

from thread_helpers import run_threads


def test_many_threads_with_nested_workspaces_compute_correctly():
    rng = np.random.default_rng(1)
    data = [rng.standard_normal((32, 32)) for _ in range(8)]
    expected = [float((np.tanh(d @ d) * 0.5).sum() + np.sort(d, axis=1)[:, 0].sum()) for d in data]

    def work(k):
        x = wnp.asarray(data[k])
        outer = wnp.workspace("OUTER")
        for i in range(150):
            with outer:
                kept = None
                with wnp.workspace("INNER", wnp.WorkspaceConfig(reset="end_of_buffer", initial_size="1MiB")):
                    h = wnp.tanh(x @ x) * 0.5
                    with outer.borrow():
                        kept = wnp.sort(x, axis=1)[:, 0]
                    val = float(h.sum())
                got = val + float(kept.sum())
                assert abs(got - expected[k]) < 1e-9 * max(1.0, abs(expected[k])), (k, i, got)
                assert memory.workspace_stack() == [("cycle", "OUTER")]
        del kept, h
        assert memory.workspace_stack() == []
        stats = memory.allocation_statistics()
        assert stats["OUTER"]["cycles"] == 150 and stats["INNER"]["cycles"] == 150
        assert stats["OUTER"]["used"] == 0

    run_threads(work, 8)


def test_exceptions_in_nested_scopes_on_many_threads_leave_every_stack_consistent():
    def nested(depth, exc):
        with wnp.workspace("A"):
            a = wnp.ones(10)
            with wnp.workspace("B"):
                b = a + 1
                with wnp.scope_out():
                    if depth == 0:
                        raise exc("out")
                with wnp.workspace("A").borrow():
                    if depth == 1:
                        raise exc("borrow")
                    c = b * 2
                if depth == 2:
                    raise exc("inner")
            if depth == 3:
                raise exc("outer")
            raise exc(float(c.sum()))

    def work(k):
        for i in range(200):
            exc = (KeyboardInterrupt, ValueError, wnp.WorkspaceError)[i % 3]
            try:
                nested(i % 4, exc)
            except exc:
                pass
            assert memory.workspace_stack() == []
            assert not memory.workspace_active("A") and not memory.workspace_active("B")
        with wnp.workspace("A"):
            assert float(wnp.arange(4.0).sum()) == 6.0
        stats = memory.allocation_statistics()
        assert stats["A"]["used"] == 0 and stats["B"]["used"] == 0

    run_threads(work, 6)


def test_keyboard_interrupt_delivered_at_any_point_keeps_the_stack_consistent():
    """A real asynchronous KeyboardInterrupt (as from Ctrl-C) lands wherever the main thread is."""
    outer, inner = wnp.workspace("OUTER"), wnp.workspace("INNER")
    x = wnp.arange(64.0)
    for delay in (0.001, 0.003, 0.007, 0.013, 0.021):
        timer = threading.Timer(delay, _thread.interrupt_main)
        try:
            with pytest.raises(KeyboardInterrupt):
                # On a busy machine the timer may fire before start() returns: inside the block.
                timer.start()
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline:
                    with outer:
                        y = x * 2.0
                        with inner:
                            z = (y + 1.0).sum()
                            with wnp.scope_out():
                                float(z)
                            with outer.borrow():
                                y += 1.0
        finally:
            timer.join()
        assert memory.workspace_stack() == []
        with outer:  # both still usable
            with inner:
                assert float(wnp.ones(3).sum()) == 3.0


def test_an_array_crossing_threads_follows_the_rule():
    made, used, finish = threading.Event(), threading.Event(), threading.Event()
    box = {}

    def producer():
        with wnp.workspace("PROD"):
            box["a"] = wnp.arange(10.0)
            made.set()
            used.wait(30)
        finish.wait(30)
        memory.destroy_all_workspaces_for_current_thread()

    t = threading.Thread(target=producer)
    t.start()
    try:
        assert made.wait(30)
        a = box["a"]
        with wnp.workspace("CONS"):
            r = a * 2.0  # reading is fine; the result lives in *this* thread's workspace
            assert r.workspace == "CONS" and float(r.sum()) == 90.0
        plain = a + 0.0
        assert plain.workspace is None and plain.tolist() == list(np.arange(10.0))
        used.set()
        deadline = time.monotonic() + 30
        while box["a"].is_in_scope() and time.monotonic() < deadline:
            time.sleep(0.001)
        with pytest.raises(wnp.WorkspaceError, match="'PROD'"):
            a.sum()
        assert plain.tolist() == list(np.arange(10.0))  # detached results stay valid
    finally:
        used.set()
        finish.set()
        t.join()
    del a, box["a"]  # the last reference dies on this thread: the producer's chunk is released
    assert wnp._native._zombie_bytes() == 0


def test_arrays_freed_on_another_thread_return_to_their_workspace():
    q = queue.Queue()
    done = threading.Event()
    counts = {}

    def producer():
        ws = wnp.workspace("P")
        with ws:
            for _ in range(500):
                q.put(wnp.ones(100))
            q.put(None)
            done.wait(30)  # the consumer drops every array while the cycle is open
            counts.update(ws.stats())

    def consumer():
        total = 0.0
        while (a := q.get()) is not None:
            total += float(a.sum())
            del a
        assert total == 500 * 100.0
        done.set()

    threads = [threading.Thread(target=producer), threading.Thread(target=consumer)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert counts["allocations"] >= 500 and counts["frees"] == counts["allocations"]
    assert counts["used"] == 0 and counts["live_arrays"] == 0


def test_concurrent_create_destroy_and_stats_across_threads():
    def work(k):
        for i in range(100):
            name = f"W{i % 3}"
            with wnp.workspace(name, None):
                arrs = [wnp.full(50, float(k)) for _ in range(5)]
                assert all(float(a.sum()) == 50.0 * k for a in arrs)
            del arrs
            if i % 10 == 9:
                memory.destroy_workspace(name)
            memory.allocation_statistics()

    run_threads(work, 6)
    assert wnp._native._zombie_bytes() == 0


DAEMON_AT_EXIT = """
import sys, threading, time
import wsarray as np
kind = sys.argv[1]
x = np.ones(1_000_000) * 2
fused = np.fuse(lambda a, b: a * b + 1)
def slow(*args, **kwargs):
    time.sleep(0.0005)
    return 1
def loop():
    while True:
        if kind == "ufunc": np.exp(x)
        elif kind == "operator": x * 3
        elif kind == "sum": x.sum()
        elif kind == "workspace":
            with np.workspace("DAEMON"):
                (x + 1).sum()
        elif kind == "fuse": fused(x, x)
        elif kind == "callback": x.__array_function__(slow, (type(x),), (x,), {})
        elif kind == "python": np.apply_along_axis(lambda r: slow() + r.sum(), 1, x.reshape(1000, 1000)[:4])
for _ in range(3):
    threading.Thread(target=loop, daemon=True).start()
time.sleep(0.3)
print("main exits")
"""


@pytest.mark.parametrize("kind", ["ufunc", "operator", "sum", "workspace", "fuse", "callback", "python"])
def test_daemon_threads_inside_wsarray_calls_let_the_interpreter_exit(kind):
    # CPython ends a daemon thread that takes the GIL back after exit began (pthread_exit, an unwind
    # through wsarray's frames): the process exits cleanly, as with NumPy, never aborts or crashes.
    import subprocess
    import sys

    for _ in range(2):
        done = subprocess.run([sys.executable, "-P", "-c", DAEMON_AT_EXIT, kind], capture_output=True, text=True,
                              timeout=120)
        assert (done.returncode, done.stdout) == (0, "main exits\n"), done.stderr[-2000:]
        assert "terminate" not in done.stderr
