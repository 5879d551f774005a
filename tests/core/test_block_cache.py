"""The allocator's fast path (src/core/memory/block_cache.h): a small block freed on the thread that
made it serves that thread's next array of the same size without the registry lock. Statistics
read as if the block had been freed; no block is ever handed out while something still holds it;
threads, forks and destroys leave nothing pinned."""
import os
import queue
import sys
import threading

import numpy as np
import pytest

import wsarray as wnp
from wsarray import memory


def address(a):
    return a.__array_interface__["data"][0]


@pytest.fixture
def ws():
    w = wnp.workspace("BLOCK_CACHE", wnp.WorkspaceConfig(learning="none", initial_size="4MiB"))
    yield w
    if w.alive:
        memory.destroy_workspace("BLOCK_CACHE")


def test_a_freed_small_array_serves_the_next_one_of_its_size(ws):
    with ws:
        a = wnp.zeros(64)
        where = address(a)
        a[...] = 7.0
        del a
        s = ws.stats()
        assert (s["used"], s["live_arrays"]) == (0, 0)  # the cached block reads as freed
        assert s["allocations"] == s["frees"]
        b = wnp.zeros(64)  # the same block, cleared
        assert address(b) == where
        np.testing.assert_array_equal(np.asarray(b), np.zeros(64))
        c = wnp.ones(64)  # `b` holds that block: another one
        assert address(c) != where
        np.testing.assert_array_equal(np.asarray(b), np.zeros(64))
        s = ws.stats()
        assert (s["live_arrays"], s["used"]) == (2, 1024)
        del b, c
    s = ws.stats()
    assert (s["used"], s["live_arrays"], s["peak_cycle_bytes"]) == (0, 0, 1024)
    assert s["allocations"] == s["frees"]


def test_a_block_held_by_a_raw_view_is_never_reused(ws):
    # np.asarray(a) keeps a's block after `a` dies: the cache must not take it back early.
    raws = []
    with ws:
        for i in range(200):
            a = wnp.full(16, float(i))
            if i % 3 == 0:
                raws.append((i, np.asarray(a)))
            del a
            b = wnp.empty(16)  # would land on a block a raw view still shows
            b[...] = -1.0
            del b
        for i, raw in raws:
            assert raw.tolist() == [float(i)] * 16
        del raw
    s = ws.stats()
    assert s["live_arrays"] == len(raws)
    del raws
    assert ws.stats()["live_arrays"] == 0


def test_blocks_freed_on_another_thread_are_never_handed_out_twice(ws):
    made = queue.Queue(maxsize=64)
    errors = []

    def owner():
        mine = wnp.workspace("BLOCK_CACHE_T", wnp.WorkspaceConfig(learning="none", initial_size="4MiB"))
        for cycle in range(20):
            with mine:
                for i in range(100):
                    v = float(cycle * 1000 + i)
                    a = wnp.full(8, v)
                    made.put((v, np.asarray(a)))  # the main thread frees the block
                    t = wnp.full(8, -v)  # temporaries the cache serves meanwhile
                    del t, a
        made.put(None)

    def consumer():
        while (item := made.get()) is not None:
            v, raw = item
            if raw.tolist() != [v] * 8:
                errors.append((v, raw.tolist()))

    t = threading.Thread(target=owner)
    t.start()
    consumer()
    t.join()
    assert errors == []
    assert wnp._native._zombie_bytes() == 0  # the thread's end took its workspace and cache


def test_a_thread_ending_leaves_nothing_pinned():
    def worker():
        w = wnp.workspace("BLOCK_CACHE_W", wnp.WorkspaceConfig(learning="none", initial_size="1MiB"))
        for _ in range(10):
            with w:
                for n in (1, 8, 64, 500):
                    float(wnp.ones(n).sum())

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert wnp._native._zombie_bytes() == 0


def test_stats_read_on_another_thread_do_not_count_cached_blocks(ws):
    seen = []
    with ws:
        for _ in range(5):
            del_me = wnp.zeros(100)
            del del_me
        t = threading.Thread(target=lambda: seen.append(ws.stats()))
        t.start()
        t.join()
    assert seen[0]["used"] == 0 and seen[0]["live_arrays"] == 0
    assert seen[0]["allocations"] == seen[0]["frees"] == 5


def test_destroy_with_cached_blocks_gives_the_memory_back():
    w = wnp.workspace("BLOCK_CACHE_D", wnp.WorkspaceConfig(learning="none", initial_size="1MiB"))
    with w:
        for n in (4, 40, 400):
            a = wnp.ones(n)
            del a
    memory.destroy_workspace("BLOCK_CACHE_D")
    assert wnp._native._zombie_bytes() == 0


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform != "linux", reason="fork() on Linux only")
def test_a_forked_child_allocates_and_frees_with_the_cache_it_inherited(ws):
    with ws:
        keep = wnp.arange(32.0)
        for _ in range(4):
            tmp = wnp.zeros(32)
            del tmp
        pid = os.fork()
        if pid == 0:  # the child: the cache's blocks are its copy of the workspace's
            ok = True
            try:
                for i in range(50):
                    a = wnp.full(32, float(i))
                    ok &= float(a.sum()) == 32.0 * i
                    del a
                ok &= float(keep.sum()) == float(sum(range(32)))
                s = ws.stats()
                ok &= s["live_arrays"] == 1
            finally:
                os._exit(0 if ok else 1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert float(keep.sum()) == float(sum(range(32)))
