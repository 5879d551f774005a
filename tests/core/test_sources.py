"""The workspace policies over every kind of chunk memory: host RAM, shared memory
(location='shared': chunks and spills another process can map) and the test-only no-touch source
(location='_notouch': chunks mapped PROT_NONE, so one read or write of chunk memory by the core
kills the process). The bookkeeping is out of band, so learning, spills, max_size, circular reset,
statistics, destroy with live blocks (zombie chunks), threads, long runs and fork() must behave the
same over all of them. No array can live in no-touch memory: these tests drive the allocator
through the core's hooks (_native._workspace_allocate / _workspace_free), which is also
what a device's allocator does.
"""
import gc
import os
import signal
import sys
import threading
import warnings

import pytest

import wsarray as wnp

core = wnp._native
SOURCES = ["ram", "shared", "_notouch"]
KB = 1024


@pytest.fixture(params=SOURCES)
def location(request):
    yield request.param
    wnp.memory.destroy_all_workspaces_for_current_thread()


def make(name, location, **kw):
    return wnp.workspace(name, wnp.WorkspaceConfig(location=location, **kw))


def alloc(ws, n):
    p = core._workspace_allocate(ws, n)
    assert p % 64 == 0
    assert core._test_owned_size(p) == n
    return p


def free(p):
    assert core._workspace_free(p)


def cycle(ws, sizes):
    """One cycle allocating blocks of `sizes` (all live at its peak), then freeing them."""
    with ws:
        blocks = [alloc(ws, n) for n in sizes]
        for p in blocks:
            free(p)


def test_first_loop_learns_then_serves_without_spilling(location):
    ws = make("LEARN", location)
    cycle(ws, [100 * KB, 200 * KB, 50 * KB])
    s = ws.stats()
    assert s["spills"] == 3 and s["initialized"]
    assert s["learned_size"] >= 350 * KB and s["capacity"] >= s["learned_size"]
    for _ in range(5):
        cycle(ws, [100 * KB, 200 * KB, 50 * KB])
    s2 = ws.stats()
    assert s2["spills"] == 3 and s2["os_maps"] == s["os_maps"]
    assert s2["reused_bytes"] > 0
    assert s2["used"] == 0 and s2["live_arrays"] == 0 and s2["frees"] == s2["allocations"] == 18
    assert ws._check_heap() == ""


def test_over_time_learns_the_largest_cycle(location):
    ws = make("OVERTIME", location, learning="over_time", cycles_before_initialization=3, allocation="strict")
    for n in (100 * KB, 300 * KB, 200 * KB):
        assert not ws.stats()["initialized"]
        cycle(ws, [n])
    s = ws.stats()
    assert s["initialized"] and s["learned_size"] == 300 * KB
    cycle(ws, [300 * KB])
    assert ws.stats()["spills"] == s["spills"]


def test_min_size_and_the_overallocation_limit(location):
    ws = make("MIN", location, min_size=1 << 20, overallocation_limit=0.5)
    cycle(ws, [10 * KB])
    assert ws.stats()["learned_size"] == int(1.5 * (1 << 20))


def test_spill_fail_refuses_and_reallocate_grows(location):
    ws = make("FAIL", location, initial_size=64 * KB, learning="none", spill="fail")
    with ws:
        with pytest.raises(wnp.WorkspaceMemoryError, match="spill policy is 'fail'"):
            core._workspace_allocate(ws, 100 * KB)
        free(alloc(ws, 1000))
    grow = make("GROW", location, initial_size=64 * KB, learning="none", spill="reallocate")
    with grow:
        blocks = [alloc(grow, 100 * KB) for _ in range(3)]
        assert grow.stats()["chunks"] > 1
        for p in blocks:
            free(p)
    s = grow.stats()
    assert s["chunks"] == 1 and s["capacity"] >= 300 * KB  # merged once empty
    assert grow._check_heap() == ""


def test_max_size_caps_chunks_and_spills_together(location):
    ws = make("CAP", location, initial_size=512 * KB, learning="none", max_size=1 << 20)
    with ws:
        a = alloc(ws, 512 * KB)
        b = alloc(ws, 512 * KB)  # spilled, exactly what max_size leaves
        with pytest.raises(wnp.WorkspaceMemoryError, match="max_size"):
            core._workspace_allocate(ws, 1)
        free(b)
        free(alloc(ws, 1))
        free(a)


def test_circular_workspace_wraps_around(location):
    ws = make("RING", location, initial_size=64 * KB, learning="none", reset="end_of_buffer")
    with ws:
        live = []
        for _ in range(40):
            live.append(alloc(ws, 4 * KB))
            if len(live) > 8:
                free(live.pop(0))
        for p in live:
            free(p)
    s = ws.stats()
    assert s["wraps"] > 0 and s["spills"] == 0 and s["used"] == 0
    assert ws._check_heap() == ""


def test_destroy_with_live_blocks_keeps_a_zombie_chunk_until_they_are_freed(location):
    before = core._zombie_bytes()
    ws = make("ZOMBIE", location, initial_size=1 << 20, learning="none")
    keep = alloc(ws, 1000)
    ws.destroy()
    assert core._zombie_bytes() == before + (1 << 20)
    assert core._test_owned_size(keep) == 1000
    free(keep)
    assert core._zombie_bytes() == before
    assert core._test_owned_size(keep) is None
    assert core._workspace_free(keep) is False  # its chunk is gone: a foreign pointer now


def test_double_free_is_ignored(location):
    ws = make("TWICE", location, initial_size=1 << 20, learning="none")
    p, q = alloc(ws, 1000), alloc(ws, 1000)
    free(p)
    free(p)  # inside a chunk, no live block there: nothing happens
    s = ws.stats()
    assert s["live_arrays"] == 1 and s["frees"] == 1
    free(q)
    assert ws._check_heap() == ""


def test_zero_filled_allocation(location):
    ws = make("ZERO", location, initial_size=1 << 20, learning="none")
    if location != "_notouch":
        p = core._workspace_allocate(ws, 1000, zero=True)
        free(p)
    else:
        with pytest.raises(wnp.WorkspaceError, match="cannot clear"):
            core._workspace_allocate(ws, 1000, zero=True)
    assert ws.stats()["used"] == 0


def test_host_arrays_skip_a_no_touch_workspace_for_the_enclosing_host_one():
    host = wnp.workspace("HOST")
    dev = make("NOTOUCH", "_notouch", initial_size=1 << 20, learning="none")
    try:
        with host:
            with dev:
                x = wnp.ones(1000) * 3.0  # would crash if it went into no-touch memory
                assert float(x.sum()) == 3000.0
                assert wnp.memory.current_workspace() in ("NOTOUCH", "HOST")
            assert dev.stats()["allocations"] == 0
            assert host.stats()["allocations"] > 0
        with dev:  # no host workspace around it: NumPy's own memory
            y = wnp.arange(10.0)
            assert float(y.sum()) == 45.0
        assert dev.stats()["allocations"] == 0
    finally:
        wnp.memory.destroy_all_workspaces_for_current_thread()


def test_threads_allocate_and_free_each_others_blocks(location):
    errors, handed = [], []
    lock = threading.Lock()

    def worker(k):
        try:
            ws = make(f"T{k}", location)
            for i in range(200):
                with ws:
                    blocks = [alloc(ws, 1000 + 97 * ((i + j) % 50)) for j in range(10)]
                    for p in blocks[:-1]:
                        free(p)
                    with lock:
                        handed.append(blocks[-1])  # freed by another thread, below
                    with lock:
                        mine = handed.pop(0) if len(handed) > 4 else None
                    if mine is not None:
                        free(mine)
            assert ws._check_heap() == ""
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)
    assert not errors, errors
    for p in handed:  # blocks of workspaces destroyed at their thread's exit: zombies until now
        free(p)
    assert all(t not in threading.enumerate() for t in threads)


def test_a_long_run_keeps_memory_and_objects_flat(location):
    ws = make("FLAT", location)
    sizes = [8 * KB, 64 * KB, 800, 3 * KB]
    for _ in range(50):
        cycle(ws, sizes)
    gc.collect()
    s0, blocks0 = ws.stats(), sys.getallocatedblocks()
    for _ in range(20_000):
        with ws:
            a, b = alloc(ws, 8 * KB), alloc(ws, 64 * KB)
            free(a)
            c = alloc(ws, 800)
            free(b)
            free(c)
    gc.collect()
    s1 = ws.stats()
    for key in ("capacity", "chunks", "os_maps", "spills", "used", "live_arrays"):
        assert s1[key] == s0[key], key
    assert s1["cycles"] == s0["cycles"] + 20_000
    assert sys.getallocatedblocks() - blocks0 < 500
    assert ws._check_heap() == ""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_fork_child_keeps_its_thread_workspaces_and_loses_the_others(location):
    ws = make("FORKED", location, initial_size=1 << 20, learning="none")
    ready, stop = threading.Event(), threading.Event()
    other = {}

    def holder():
        other["ws"] = make("OTHER", location, initial_size=1 << 20, learning="none")
        other["p"] = alloc(other["ws"], 1000)
        ready.set()
        stop.wait(30)
        free(other["p"])
        wnp.memory.destroy_all_workspaces_for_current_thread()

    t = threading.Thread(target=holder)
    t.start()
    try:
        assert ready.wait(30)
        mine = alloc(ws, 5000)
        r, w = os.pipe()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # forking with threads (3.12+)
            pid = os.fork()
        if pid == 0:
            code = 1
            try:
                signal.alarm(30)
                assert not other["ws"].alive  # the other thread does not exist here
                free(other["p"])
                with ws:
                    free(mine)
                    q = alloc(ws, 5000)
                    assert q == mine  # its own copy of the workspace: the freed block again
                    free(q)
                assert ws._check_heap() == ""
                code = 0
            finally:
                os.write(w, b"x")
                os._exit(code)
        os.close(w)
        os.read(r, 1)
        os.close(r)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert other["ws"].alive  # the parent's are untouched
        assert core._test_owned_size(mine) == 5000
        free(mine)
    finally:
        stop.set()
        t.join(30)
    assert not t.is_alive()
