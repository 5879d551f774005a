"""Memory that really goes back to the operating system, and no silent loss through queues.

RSS checks are skipped under the sanitizer build (ASan's quarantine holds freed memory).
"""
import gc
import multiprocessing
import os
import pickle
import sys

import numpy as np
import pytest

import wsarray as wnp
from wsarray import memory

needs_rss = pytest.mark.skipif(bool(os.environ.get("WSARRAY_SANITIZED")),
                               reason="RSS is not meaningful under ASan (quarantine)")
MiB = 2**20


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@needs_rss
@pytest.mark.parametrize("how", ["destroy_workspace", "destroy_all", "handle.destroy"])
def test_destroy_gives_back_what_stale_arrays_do_not_hold_and_the_rest_when_they_die(how):
    # A stale Array is a NumPy array (a subclass) whose memory NumPy's own C code may still read:
    # it keeps its own block until it dies (as a raw view does); every other page goes back at once.
    gc.collect()
    base = rss()
    ws = wnp.workspace("BIGSTALE", wnp.WorkspaceConfig(learning="none", initial_size="320MiB"))
    stale = []
    for _ in range(3):
        with ws:
            x = wnp.ones(30 * MiB // 8)  # 30 MiB
            y = x * 2.0  # another 30 MiB
            stale.append(y)  # loop variables from the last cycles, still referenced
            t = wnp.ones(60 * MiB // 8) + 1.0  # 60 MiB of temporaries, freed within the cycle
            del t
    assert rss() - base > 150 * MiB  # the workspace's pages, touched
    {"destroy_workspace": lambda: memory.destroy_workspace("BIGSTALE"),
     "destroy_all": memory.destroy_all_workspaces_for_current_thread,
     "handle.destroy": ws.destroy}[how]()
    gc.collect()
    pinned = 4 * 30 * MiB  # the three y and the last x
    assert rss() - base < pinned + 24 * MiB, f"{(rss() - base) / MiB:.0f} MiB still resident"
    for a in stale:
        with pytest.raises(wnp.WorkspaceError, match="destroyed"):
            a.sum()
    del stale, x, y, a
    gc.collect()
    assert rss() - base < 24 * MiB, f"{(rss() - base) / MiB:.0f} MiB still resident"
    assert wnp._native._zombie_bytes() == 0


@needs_rss
def test_a_workspace_shrinks_once_a_loop_stops_needing_its_memory():
    gc.disable()
    try:
        ws = wnp.workspace("LEAKY", wnp.WorkspaceConfig(spill="reallocate", trim_after_cycles=8))
        base = rss()
        for _ in range(40):
            with ws:
                a = wnp.ones(250_000)  # 2 MB a cycle, kept alive by a reference cycle
                c = {"a": a}
                c["self"] = c
                del a, c
        grown = rss() - base
        assert grown > 60 * MiB
        gc.collect()
        assert ws.stats()["used"] == 0
        for _ in range(20):  # small cycles: the idle pages go back after trim_after_cycles
            with ws:
                wnp.ones(1000) + 1
        assert rss() - base < 0.2 * grown
    finally:
        gc.enable()


@needs_rss
def test_pages_a_loop_stopped_using_go_back_after_trim_after_cycles():
    ws = wnp.workspace("PHASES", wnp.WorkspaceConfig(learning="none", initial_size="256MiB",
                                                    trim_after_cycles=4))
    base = rss()
    for _ in range(3):  # a big phase
        with ws:
            big = wnp.ones(25 * MiB)  # 200 MiB
            del big
    assert rss() - base > 190 * MiB
    for _ in range(8):  # a small phase: what it does not touch goes back
        with ws:
            wnp.ones(1000) + 1
    assert rss() - base < 20 * MiB
    assert ws.stats()["trimmed_bytes"] >= 190 * MiB
    with ws:  # and comes back, as zeros, when needed again
        z = wnp.zeros(25 * MiB)
        assert not np.asarray(z).any()
        del z


def test_a_steady_loop_is_never_trimmed():
    ws = wnp.workspace("STEADY", wnp.WorkspaceConfig(trim_after_cycles=2))
    x = wnp.ones(300_000)
    for _ in range(30):
        with ws:
            y = (x * 2.0 + 1.0).sum()
            big = wnp.ones(400_000)
            del big, y
    assert ws.stats()["trimmed_bytes"] == 0  # every page is used every cycle: no faults added


@needs_rss
def test_zeros_in_a_workspace_touches_no_fresh_page():
    ws = wnp.workspace("ZEROS", wnp.WorkspaceConfig(learning="none", initial_size="4GB"))
    base = rss()
    with ws:
        z = wnp.zeros(int(4e8))  # 3.2 GB of zeros
        assert rss() - base < 64 * MiB
        assert float(z[123_456_789]) == 0.0 and z.workspace == "ZEROS"
        del z
    memory.destroy_workspace("ZEROS")


def test_zeros_over_reused_memory_are_zeros():
    ws = wnp.workspace("REZERO", wnp.WorkspaceConfig(learning="none", initial_size="8MiB"))
    for k in range(5):
        with ws:
            junk = wnp.full(100_000, 7.0)
            del junk
            z = wnp.zeros(100_000)  # the block junk used
            assert not np.asarray(z).any(), k
            e = wnp.zeros((300, 300), dtype=np.int32)
            assert not np.asarray(e).any()
    assert ws.stats()["zeroed_bytes"] > 0 and ws.stats()["reused_bytes"] > 0


@needs_rss
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_fork_of_a_big_mmap_workspace_is_cheap_and_isolated():
    before = rss()  # the test process itself (larger when other tests imported dask and the like)
    ws = wnp.workspace("FORKMM", wnp.WorkspaceConfig(location="mmap", learning="none",
                                                     initial_size="1GiB"))
    with ws:
        a = wnp.ones(120 * MiB)  # 960 MiB written
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: cheap (no copy), sees the data, writes privately
            try:
                child_rss = rss()
                ok = float(a[-1]) == 1.0 and float(a[0]) == 1.0
                a[0] = 5.0
                os.write(w, f"{int(ok)} {child_rss}".encode())
            finally:
                os._exit(0)
        os.close(w)
        _, status = os.waitpid(pid, 0)
        ok, child_rss = os.read(r, 100).decode().split()
        os.close(r)
        assert status == 0 and ok == "1"
        assert int(child_rss) < before + 300 * MiB  # the child did not copy the 960 MiB
        assert float(a[0]) == 1.0  # the child's write stayed in the child
        del a
    with ws:  # the parent maps a fresh file of its own again and goes on
        b = wnp.ones(1000)
        assert float(b.sum()) == 1000.0


def _consume(q, n, out):
    out.put([float(q.get(timeout=30).sum()) for _ in range(n)])


def test_queue_put_inside_a_cycle_gets_every_item_across():
    """multiprocessing.Queue pickles on a feeder thread after put() returned: after the cycle."""
    ctx = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    q, out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_consume, args=(q, 20, out))
    p.start()
    for i in range(20):
        with wnp.workspace("SENDER"):
            y = wnp.arange(5.0) * i
            q.put(y)
    assert out.get(timeout=60) == [10.0 * i for i in range(20)]
    p.join(30)
    assert p.exitcode == 0


def test_pickling_a_stale_array_reads_its_own_memory_and_a_destroyed_one_refuses():
    with wnp.workspace("PK"):
        y = wnp.arange(4.0)
    assert float(pickle.loads(pickle.dumps(y)).sum()) == 6.0  # its block was never reused
    with pytest.raises(wnp.WorkspaceError):
        y.sum()  # every other use still raises
    memory.destroy_workspace("PK")
    with pytest.raises(wnp.WorkspaceError, match="destroyed"):
        pickle.dumps(y)


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_destroy_of_a_zombie_chunk_gives_back_what_raw_views_do_not_hold():
    ws = wnp.workspace("ZOMBIE", wnp.WorkspaceConfig(learning="none", initial_size="128MiB"))
    with ws:
        small = wnp.ones(1000)
        raw = np.asarray(small)  # holds its block, and so the chunk
        big = wnp.ones(12 * MiB)  # 96 MiB
        raw_big = np.asarray(big)
    memory.destroy_workspace("ZOMBIE")
    before = rss()
    del raw_big, big  # freed inside a chunk that `raw` still pins: its pages go back at once
    gc.collect()
    if not os.environ.get("WSARRAY_SANITIZED"):
        assert before - rss() > 80 * MiB
    assert raw.sum() == 1000.0
    del raw, small
    assert wnp._native._zombie_bytes() == 0
