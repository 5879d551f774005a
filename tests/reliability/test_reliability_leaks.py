"""No leaks: long runs of cycles, operations, errors and workspace lifetimes keep RSS, Python's
allocated blocks, reference counts and workspace statistics flat.

Each test warms up first (pymalloc arenas, NumPy caches, learning), then runs the long loop and
compares. A leak of one object per iteration shows as at least 5,000 blocks (tolerance 1,000), and
one of 64 bytes per cycle as 6 MB of RSS over 100,000 cycles (tolerance 4 MiB).
Under .ci/sanitize, ASan's quarantine keeps freed memory on purpose, so RSS is not compared there.
"""
import gc
import os
import sys
import threading

import numpy as np
import pytest

import wsarray as wnp

N = 100_000
SANITIZED = bool(os.environ.get("WSARRAY_SANITIZED"))


def rss_bytes():
    with open(f"/proc/{os.getpid()}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class Flat:
    """Snapshot of process-wide counters; `check()` asserts nothing grew beyond tolerance.
    `watched` is a tuple of objects whose reference counts must come back exactly."""

    def __init__(self, watched=()):
        self.watched = watched
        gc.collect()
        self.refs = [sys.getrefcount(o) for o in watched]
        self.blocks = sys.getallocatedblocks()
        self.rss = rss_bytes()

    def check(self, blocks=1000, rss=4 * 2**20, rerun=None):
        """`rerun`: the loop again. RSS that grew in the first run must stay flat in a second
        one: the C allocator may keep an arena once (seen on a loaded machine), a leak grows
        in every run."""
        gc.collect()
        assert [sys.getrefcount(o) for o in self.watched] == self.refs, "reference count grew"
        assert sys.getallocatedblocks() - self.blocks < blocks, "Python objects leaked"
        if SANITIZED:
            return
        if rss_bytes() - self.rss >= rss and rerun is not None:
            self.rss = rss_bytes()
            rerun()
            gc.collect()
        assert rss_bytes() - self.rss < rss, "RSS grew"


def watched_objects(x):
    # Not NumPy's dtype singletons: NumPy itself leaks references to them (np.ones, np.empty).
    return (x, np.add, np.multiply, wnp.add, wnp.sqrt, wnp.Array, wnp.WorkspaceError)


def cycles(ws, x, n):
    for _ in range(n):
        with ws:
            y = x + 1.0
            z = y[2:5] * 2.0
            s = float(z.sum())
    return s


def test_100k_workspace_cycles_keep_everything_flat():
    ws = wnp.workspace("LEAK")
    x = wnp.arange(16.0)
    cycles(ws, x, 2000)  # learning and warm-up
    maps = ws.stats()["os_maps"]
    watched = (ws, *watched_objects(x))
    flat = Flat(watched)
    assert cycles(ws, x, N) == float((np.arange(16.0)[2:5] + 1.0).sum() * 2.0)
    flat.check()
    s = ws.stats()
    assert s["used"] == 0 and s["live_arrays"] == 0
    assert s["os_maps"] == maps  # no chunk mapped per cycle
    assert s["frees"] == s["allocations"]


def test_100k_small_operations_keep_everything_flat():
    x = wnp.arange(16.0)

    def ops(n):  # n iterations of 4 operations
        for _ in range(n):
            y = x * 2.0
            y += 1.0
            y = wnp.sqrt(y)[::2]
            t = y.reshape(2, 4)
        return t

    ws = wnp.workspace("OPS")
    with ws:
        ops(1000)
        watched = watched_objects(x)
        flat = Flat(watched)
        last = ops(N // 4).tolist()  # (an Array would hold a reference to its type)
        flat.check(rerun=lambda: ops(N // 4))
        del flat, watched
        # (compared after the check: numpy.testing builds caches on first use)
        np.testing.assert_allclose(last, np.sqrt(np.arange(16.0) * 2.0 + 1.0)[::2].reshape(2, 4))
        assert ws.stats()["live_arrays"] == 0
    ops(1000)  # outside every workspace too
    watched = watched_objects(x)
    flat = Flat(watched)
    ops(N // 8)
    flat.check(rerun=lambda: ops(N // 8))


def test_error_paths_do_not_leak():
    x = wnp.arange(4.0)

    def errors(n):
        for _ in range(n):
            for bad in (lambda: wnp.sum(x, axis=5), lambda: x + "s", lambda: x.reshape(3),
                        lambda: wnp.WorkspaceConfig(initial_size="12 parsecs")):
                try:
                    bad()
                except (ValueError, TypeError):
                    pass

    errors(500)
    watched = watched_objects(x)
    flat = Flat(watched)
    errors(N // 10)
    flat.check()


def test_stale_errors_do_not_leak():
    ws = wnp.workspace("STALE")
    with ws:
        old = wnp.arange(4.0)

    def touch(n):
        for _ in range(n):
            try:
                old + 1
            except wnp.WorkspaceError:
                pass

    touch(500)
    watched = (ws, *watched_objects(old))
    flat = Flat(watched)
    touch(N // 10)
    flat.check()


def test_workspace_create_destroy_returns_memory():
    cfg = wnp.WorkspaceConfig(initial_size="4MiB", learning="none")

    def lifetimes(n):
        for _ in range(n):
            with wnp.workspace("LIFE", cfg):
                wnp.ones(1000)
            wnp.memory.destroy_workspace("LIFE")

    lifetimes(200)
    watched = (cfg, *watched_objects(wnp.ones(1)))
    flat = Flat(watched)
    lifetimes(N // 20)
    flat.check()
    assert wnp._native._zombie_bytes() == 0


def test_thread_exit_destroys_its_workspaces():
    def worker():
        with wnp.workspace("T", wnp.WorkspaceConfig(initial_size="8MiB", learning="none")):
            float(wnp.ones(1000).sum())

    def run(n):
        for _ in range(n):
            t = threading.Thread(target=worker)
            t.start()
            t.join()

    run(20)
    flat = Flat()
    run(300)  # 300 x 8 MiB would show if a thread's workspace outlived it
    flat.check(blocks=2000, rss=16 * 2**20)
    assert wnp._native._zombie_bytes() == 0


@pytest.mark.skipif(SANITIZED, reason="ASan's quarantine holds freed memory")
def test_big_cycles_release_their_spills():
    ws = wnp.workspace("BIG", wnp.WorkspaceConfig(learning="none", spill="external"))
    with ws:
        wnp.ones(2**20)
    base = rss_bytes()
    for _ in range(200):
        with ws:
            float(wnp.ones(2**20).sum())  # 8 MiB spilled and unmapped every cycle
    assert rss_bytes() - base < 32 * 2**20
    assert ws.stats()["used"] == 0
