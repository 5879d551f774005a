"""Memory returned to the OS, routing boundaries, and the GC knobs."""
import gc
import os
import sys
import threading
import time

import numpy as np
import pytest

import wsarray as wnp
from wsarray import memory


def rss_bytes():
    with open(f"/proc/{os.getpid()}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_destroy_returns_memory_to_the_os():
    base = rss_bytes()
    ws = wnp.workspace("BIG", wnp.WorkspaceConfig(learning="none", initial_size="256MiB"))
    assert rss_bytes() - base < 32 * 2**20  # mapped, but pages are touched only when used
    with ws:
        big = wnp.ones(30 * 2**20)  # 240 MiB of the workspace written
        assert float(big[-1]) == 1.0 and big.workspace == "BIG"
        del big
    assert rss_bytes() - base > 200 * 2**20  # the pages stay with the workspace between cycles
    memory.destroy_workspace("BIG")
    assert rss_bytes() - base < 32 * 2**20


def test_destroy_keeps_only_the_blocks_stale_arrays_hold():
    # A stale Array is a NumPy array (a subclass) whose memory NumPy's own code may still read: it
    # keeps its block until it dies, as a raw view does, and every other page goes back at once.
    base = rss_bytes()
    ws = wnp.workspace("Z", wnp.WorkspaceConfig(learning="none", initial_size="256MiB"))
    with ws:
        big = wnp.ones(30 * 2**20)  # 240 MiB written, then freed
        del big
        a = wnp.ones(10)
        kept = a.detach()
    memory.destroy_workspace("Z")
    assert rss_bytes() - base < 32 * 2**20  # the free pages went back, though `a` pins its chunk
    assert wnp._native._zombie_bytes() >= 256 * 2**20
    with pytest.raises(wnp.WorkspaceError, match="destroyed"):
        a.sum()
    assert "stale" in repr(a)
    assert np.asarray(a).sum() == 10.0  # NumPy's own view reads the array's own data, never foreign data
    assert float(kept.sum()) == 10.0
    del a
    gc.collect()
    assert wnp._native._zombie_bytes() == 0


def test_destroy_keeps_the_blocks_raw_views_hold_until_they_die():
    ws = wnp.workspace("Z", wnp.WorkspaceConfig(learning="none", initial_size="64MiB"))
    with ws:
        a = wnp.ones(10)
        raw = np.asarray(a)  # raw memory handed out while `a` was valid: not checked later
    memory.destroy_workspace("Z")
    assert wnp._native._zombie_bytes() >= 64 * 2**20  # raw's block still holds the chunk
    assert raw.sum() == 10.0  # and it still shows its data, never foreign data
    with pytest.raises(wnp.WorkspaceError, match="destroyed"):
        a.sum()
    del raw
    gc.collect()
    assert wnp._native._zombie_bytes() >= 64 * 2**20  # the stale Array itself still holds its block
    del a
    gc.collect()
    assert wnp._native._zombie_bytes() == 0


def test_plain_numpy_is_never_routed():
    with wnp.workspace("W") as ws:
        before = ws.stats()["allocations"]
        plain = np.ones(1000) * 2  # NumPy code, not a wsarray call
        assert ws.stats()["allocations"] == before
        w = wnp.ones(1000)
        assert ws.stats()["allocations"] > before and w.workspace == "W"
    assert plain.sum() == 2000.0  # and it stays valid after the cycle


def test_numpy_allocations_inside_wsarray_calls_are_routed():
    a = np.random.default_rng(0).random((50, 50))
    with wnp.workspace("W") as ws:
        for f in (lambda x: wnp.linalg.inv(x), lambda x: wnp.sort(x), lambda x: wnp.concatenate([x, x]),
                  lambda x: x * 2 + 1, lambda x: wnp.linalg.svd(x)[1]):
            r = f(wnp.asarray(a))
            assert r.workspace == "W"
        assert ws.stats()["allocations"] >= 5


def test_scope_out_and_new_threads_are_not_routed():
    seen = {}
    with wnp.workspace("W") as ws:
        with wnp.scope_out():
            seen["scoped"] = wnp.ones(10).workspace

        def other():
            seen["thread"] = wnp.ones(10).workspace

        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert ws.stats()["allocations"] == 0
    assert seen == {"scoped": None, "thread": None}


def test_periodic_gc_toggle_controls_pythons_collector():
    was = gc.isenabled()
    try:
        memory.toggle_periodic_gc(False)
        assert not memory.is_periodic_gc_active() and not gc.isenabled()
        memory.toggle_periodic_gc(True)
        assert memory.is_periodic_gc_active() and gc.isenabled()
        with pytest.raises(TypeError, match="toggle_periodic_gc"):
            memory.toggle_periodic_gc("yes")
    finally:
        (gc.enable if was else gc.disable)()


class Cycle:
    def __init__(self):
        self.me = self


def test_auto_gc_window_collects_at_cycle_ends():
    was = gc.isenabled()
    gc.disable()
    try:
        memory.set_auto_gc_window(0)
        assert memory.get_auto_gc_window() == 0
        n0 = memory.gc_collections()
        for _ in range(20):
            with wnp.workspace("GC"):
                Cycle()
        assert memory.gc_collections() == n0  # window 0: wsarray never collects
        garbage = sum(isinstance(o, Cycle) for o in gc.get_objects())
        assert garbage >= 20

        memory.set_auto_gc_window(1)
        time.sleep(0.002)
        with wnp.workspace("GC"):
            pass
        assert memory.gc_collections() == n0 + 1
        assert sum(isinstance(o, Cycle) for o in gc.get_objects()) == 0

        memory.set_auto_gc_window(60_000)  # at most once a minute: no collection in this loop
        n1 = memory.gc_collections()
        for _ in range(50):
            with wnp.workspace("GC"):
                Cycle()
        assert memory.gc_collections() == n1
        assert memory.invoke_gc() >= 50 and memory.gc_collections() == n1 + 1
    finally:
        memory.set_auto_gc_window(0)
        (gc.enable if was else gc.disable)()


def test_gc_window_rejects_bad_values():
    with pytest.raises(ValueError, match="set_auto_gc_window"):
        memory.set_auto_gc_window(-1)
    with pytest.raises(TypeError, match="set_auto_gc_window"):
        memory.set_auto_gc_window(1.5)


def test_thread_exit_returns_its_workspaces_memory():
    base = rss_bytes()
    peak = {}

    def worker():
        ws = wnp.workspace("T", wnp.WorkspaceConfig(learning="none", initial_size="128MiB"))
        with ws:
            assert float(wnp.ones(15 * 2**20).sum()) == 15 * 2**20  # 120 MiB touched
        peak["rss"] = rss_bytes()

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert peak["rss"] - base > 100 * 2**20
    # The OS thread runs its thread-local destructors just after join() returns: give it a moment.
    deadline = time.monotonic() + 5
    while rss_bytes() - base >= 32 * 2**20 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert rss_bytes() - base < 32 * 2**20  # the thread's workspaces died with it


def test_cycle_listeners_run_after_each_cycle_in_order():
    events, order = [], []
    first = memory.add_cycle_listener(lambda e: (order.append("first"), events.append(e)))
    second = memory.add_cycle_listener(lambda e: order.append("second"))
    try:
        assert memory.cycle_listeners() == [first, second]
        for _ in range(3):
            with wnp.workspace("LISTEN"):
                wnp.ones(100)
    finally:
        memory.remove_cycle_listener(first)
        memory.remove_cycle_listener(second)
    assert order == ["first", "second"] * 3
    assert [e["cycle"] for e in events] == [1, 2, 3]
    assert events[-1]["workspace"] == "LISTEN" and events[-1]["peak_cycle_bytes"] >= 800
    assert memory.cycle_listeners() == []
    with pytest.raises(ValueError, match="was not added"):
        memory.remove_cycle_listener(first)
    with pytest.raises(TypeError, match="callable"):
        memory.add_cycle_listener(3)


def test_a_failing_cycle_listener_never_breaks_the_loop():
    seen = []

    def bad(event):
        raise RuntimeError("listener bug")

    memory.add_cycle_listener(bad)
    old_hook = sys.unraisablehook
    sys.unraisablehook = lambda u: seen.append(u.exc_value)
    try:
        with wnp.workspace("LISTEN2"):
            total = float(wnp.ones(3).sum())
    finally:
        sys.unraisablehook = old_hook
        memory.remove_cycle_listener(bad)
    assert total == 3.0 and len(seen) == 1 and isinstance(seen[0], RuntimeError)


@pytest.mark.parametrize("exc", [KeyboardInterrupt, SystemExit])
def test_ctrl_c_in_a_cycle_listener_reaches_the_loop(exc):
    calls = []

    def interrupted(event):
        calls.append(event["cycle"])
        if len(calls) == 2:
            raise exc  # where a Ctrl-C lands when the signal arrives while a listener runs

    later = []
    record = memory.add_cycle_listener(later.append)  # the bound method, kept for the removal
    memory.add_cycle_listener(interrupted)
    memory.remove_cycle_listener(record)
    memory.add_cycle_listener(record)  # after `interrupted`
    ws = wnp.workspace("LISTEN_CTRL_C")
    try:
        done = 0
        with pytest.raises(exc):
            for _ in range(5):
                with ws:
                    a = wnp.ones(8)
                done += 1
    finally:
        memory.remove_cycle_listener(interrupted)
        memory.remove_cycle_listener(record)
    assert done == 1 and calls == [1, 2] and len(later) == 1  # the loop stopped at the second cycle's end
    assert memory.workspace_stack() == [] and not memory.workspace_active("LISTEN_CTRL_C")
    with pytest.raises(wnp.WorkspaceError):
        a.sum()  # the cycle had ended before the listeners ran
    with ws:  # still usable
        assert float(wnp.ones(3).sum()) == 3.0
    memory.destroy_workspace("LISTEN_CTRL_C")


def test_numpy_allocations_counts_buffers_into_workspaces_and_outside():
    import numpy
    x = numpy.random.default_rng(0).random(1000)
    with wnp.workspace("COUNTED"):
        wnp.sort(x)  # installs wsarray's allocator in this thread's context
    before = wnp.memory.numpy_allocations()
    with wnp.workspace("COUNTED"):
        for _ in range(5):
            wnp.sort(x)
    middle = wnp.memory.numpy_allocations()
    assert middle["in_workspaces"] >= before["in_workspaces"] + 5 and middle["outside"] == before["outside"]
    kept = [numpy.ones(100) for _ in range(3)]  # plain NumPy: NumPy's own allocator
    after = wnp.memory.numpy_allocations()
    assert after["outside"] >= middle["outside"] + 3 and after["in_workspaces"] == middle["in_workspaces"]
    assert len(kept) == 3
