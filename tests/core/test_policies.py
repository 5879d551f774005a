"""Workspace policies: learning, spill, fail, max_size, circular reuse, mmap, reuse in loops."""
import numpy as np
import pytest

import wsarray as wnp

N = 100_000  # 800 kB per float64 array


def run_cycle(ws, x):
    with ws:
        y = (x * 2.0 + 1.0) * x
        total = float(y.sum())
        del y  # nothing of this cycle outlives it
    return total


def test_first_loop_learns_then_serves_from_workspace():
    x = wnp.asarray(np.random.default_rng(0).random(N))
    ws = wnp.workspace("LEARN")
    expected = float(((x.detach() * 2.0 + 1.0) * x).sum())
    assert run_cycle(ws, x) == expected
    s1 = ws.stats()
    assert s1["cycles"] == 1 and s1["initialized"]
    assert s1["spilled_bytes"] > 0  # the first cycle measures: everything spills
    # At least one 800 kB temporary (the chain's temporaries share one block: fast_float64.h elision).
    assert s1["learned_size"] >= s1["peak_cycle_bytes"] >= 8 * N
    assert s1["capacity"] >= s1["learned_size"]
    for _ in range(5):
        assert run_cycle(ws, x) == expected
    s2 = ws.stats()
    assert s2["spilled_bytes"] == s1["spilled_bytes"]  # nothing spilled after learning
    assert s2["capacity"] == s1["capacity"] and s2["chunks"] == 1
    assert s2["os_maps"] == s1["os_maps"]  # no new memory from the OS in the steady state
    assert s2["reused_bytes"] > 0


def test_overallocate_vs_strict():
    x = wnp.ones(N)
    ws_over = wnp.workspace("OVER", wnp.WorkspaceConfig(overallocation_limit=0.5))
    ws_strict = wnp.workspace("STRICT", wnp.WorkspaceConfig(allocation="strict"))
    run_cycle(ws_over, x)
    run_cycle(ws_strict, x)
    peak = ws_strict.stats()["peak_cycle_bytes"]
    assert ws_strict.stats()["learned_size"] == peak
    assert ws_over.stats()["learned_size"] == int(peak * 1.5)


def test_min_size_is_a_floor():
    ws = wnp.workspace("MIN", wnp.WorkspaceConfig(min_size="8MiB", allocation="strict"))
    run_cycle(ws, wnp.ones(10))
    assert ws.stats()["learned_size"] == 8 * 2**20
    assert ws.stats()["capacity"] >= 8 * 2**20


def test_over_time_learns_after_n_cycles():
    ws = wnp.workspace("OT", wnp.WorkspaceConfig(learning="over_time", cycles_before_initialization=3))
    small, big = wnp.ones(1000), wnp.ones(N)
    run_cycle(ws, small)
    run_cycle(ws, big)
    assert not ws.stats()["initialized"] and ws.stats()["capacity"] == 0
    run_cycle(ws, small)
    s = ws.stats()
    assert s["initialized"]
    # learned from the largest cycle seen, not the last one
    assert s["learned_size"] >= 8 * N


def test_learning_none_uses_initial_size_and_spills_beyond():
    ws = wnp.workspace("NONE", wnp.WorkspaceConfig(learning="none", initial_size="1MB"))
    assert ws.stats()["capacity"] >= 10**6 and ws.stats()["initialized"]
    with ws:
        a = wnp.ones(1000)
        assert ws.stats()["spills"] == 0
        b = wnp.ones(4 * N)  # 3.2 MB > 1 MB: spills outside
        assert ws.stats()["spills"] == 1
        assert a.workspace == b.workspace == "NONE"
        assert float(b.sum()) == 4 * N
    assert ws.stats()["capacity"] >= 10**6 and ws.stats()["capacity"] < 2 * 10**6


def test_spill_fail_raises_memory_error_naming_workspace():
    ws = wnp.workspace("FAIL", wnp.WorkspaceConfig(learning="none", initial_size="64KiB", spill="fail"))
    with ws:
        small = wnp.ones(100)
        with pytest.raises(MemoryError) as info:
            wnp.ones(N)
        assert isinstance(info.value, wnp.WorkspaceMemoryError)
        assert isinstance(info.value, wnp.WorkspaceError)
        msg = str(info.value)
        assert "wsarray.ones()" in msg and "'FAIL'" in msg and "800000" in msg and "spill policy" in msg
        # the workspace is still usable after the failure
        assert float((small + 1).sum()) == 200.0


def test_max_size_caps_spills():
    ws = wnp.workspace("CAP", wnp.WorkspaceConfig(learning="none", max_size="1MB"))
    with ws:
        a = wnp.ones(N // 2)  # 400 kB spill: fine
        with pytest.raises(wnp.WorkspaceMemoryError, match="max_size 1000000"):
            wnp.ones(N)
        assert float(a.sum()) == N // 2


def test_spill_reallocate_grows_then_consolidates():
    ws = wnp.workspace("RE", wnp.WorkspaceConfig(learning="none", initial_size="256KiB", spill="reallocate"))
    with ws:
        a = wnp.ones(N)
        b = wnp.ones(N)
        assert ws.stats()["spills"] == 0 and ws.stats()["chunks"] > 1
        total = float((a + b).sum())
        del a, b  # chunks merge only once nothing lives in them
    assert total == 2 * N
    s = ws.stats()
    assert s["chunks"] == 1 and s["capacity"] >= 2 * 8 * N  # merged into one chunk at cycle end
    with ws:
        c = wnp.ones(N) + wnp.ones(N)
        assert float(c.sum()) == 2 * N
    assert ws.stats()["chunks"] == 1 and ws.stats()["os_maps"] == s["os_maps"]


def test_circular_workspace_keeps_arrays_valid_and_reuses_memory():
    ws = wnp.workspace("RING", wnp.WorkspaceConfig(learning="none", initial_size="4MB", reset="end_of_buffer"))
    kept = []
    for i in range(60):
        with ws:
            batch = wnp.full(N // 4, float(i))  # 200 kB
        kept.append(batch)
        if len(kept) > 3:
            kept.pop(0)  # the consumer drops old batches
        # arrays of a circular workspace stay valid after their cycle
        assert float(kept[-1][0]) == float(i)
    s = ws.stats()
    assert s["spills"] == 0 and s["wraps"] > 0 and s["reused_bytes"] > 0
    assert [float(b[0]) for b in kept] == [57.0, 58.0, 59.0]


def test_mmap_location(tmp_path):
    cfg = wnp.WorkspaceConfig(location="mmap", temp_file_path=str(tmp_path), learning="none", initial_size="2MB")
    ws = wnp.workspace("MMAP", cfg)
    with ws:
        a = wnp.arange(1000.0)
        assert a.workspace == "MMAP"
        assert float(a.sum()) == 499500.0
    assert list(tmp_path.iterdir()) == []  # the file is unlinked at once


def test_mmap_location_bad_directory_is_refused_by_the_config():
    with pytest.raises(FileNotFoundError, match="/nonexistent/dir"):
        wnp.WorkspaceConfig(location="mmap", temp_file_path="/nonexistent/dir", learning="none",
                            initial_size="1MB")


def test_python_loop_inside_one_cycle_reuses_freed_memory():
    """x = x + 1 a thousand times in one cycle must not grow the workspace a thousandfold."""
    ws = wnp.workspace("PYLOOP", wnp.WorkspaceConfig(learning="none", initial_size="1MB", spill="fail"))
    with ws:
        x = wnp.zeros(10_000)  # 80 kB
        for _ in range(1000):
            x = x + 1.0
        assert float(x[0]) == 1000.0
        s = ws.stats()
    assert s["spills"] == 0
    assert s["reused_bytes"] >= 900 * 80_000
    assert s["peak_cycle_bytes"] < 4 * 81_000


def test_learning_counts_arrays_that_outlive_the_cycle():
    """A loop's result variable stays alive into the next cycle; learning makes room for it."""
    ws = wnp.workspace("PINNED", wnp.WorkspaceConfig(allocation="strict"))
    x = wnp.ones(N)
    with ws:
        y = x * 2.0
    s = ws.stats()
    assert s["learned_size"] == s["peak_cycle_bytes"] + s["used"] == 2 * 8 * N  # blocks have no header
    for _ in range(3):
        with ws:
            y = x * 2.0
            assert float(y[0]) == 2.0
    assert ws.stats()["spilled_bytes"] == s["spilled_bytes"]


def test_steady_state_needs_no_new_os_memory():
    rng = np.random.default_rng(1)
    w = wnp.asarray(rng.random((64, 64)))
    ws = wnp.workspace("STEADY")
    for i in range(30):
        with ws:
            h = wnp.tanh(w @ w) * 0.5 - w
            out = float(h.mean())
        if i == 5:  # learning (and re-learning after a fragmented cycle) is over by now
            maps = ws.stats()["os_maps"]
    assert ws.stats()["os_maps"] == maps
    ref = np.tanh(w.detach() @ w.detach()) * 0.5 - w.detach()
    assert out == float(ref.mean())


def test_strict_workspace_stops_spilling_after_fragmented_cycles():
    """A strict size fits the peak but not its fragments: re-learning grows by what spilled."""
    from wsarray import _demo

    ws = wnp.workspace("STRICT_MLP", wnp.WorkspaceConfig(allocation="strict"))
    state = _demo.mlp_setup(wnp, batch=64, d_in=32, d_hidden=32)
    ref = _demo.mlp_setup(np, batch=64, d_in=32, d_hidden=32)
    spilled = []
    for _ in range(40):
        with ws:
            _demo.mlp_step(wnp, state)
        _demo.mlp_step(np, ref)
        spilled.append(ws.stats()["spilled_cycle_bytes"])
    assert spilled[-10:] == [0] * 10, spilled
    assert _demo.mlp_check(state) == _demo.mlp_check(ref)


def test_a_learned_size_max_size_cannot_hold_says_what_holds_the_room():
    # Each spill of a shared workspace maps a whole page, which counts against max_size: two kept
    # 64-byte arrays took it all, and the warning said "request of 0 bytes" with "in use 128".
    import warnings
    ws = wnp.workspace("POLICY_LEARN_ROOM", wnp.WorkspaceConfig(max_size=8192, location="shared",
                                                                learning="first_loop"))
    kept = None
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with ws:
                kept = [wnp.ones(8), wnp.ones(8)]
        messages = [str(w.message) for w in caught if "could not map the memory it learned" in str(w.message)]
        assert len(messages) == 1, [str(w.message) for w in caught]
        assert "request of 0 bytes" not in messages[0]
        assert f"request of {ws.stats()['learned_size']} bytes" in messages[0]
        assert "spills mapped 8192 bytes, max_size 8192 bytes" in messages[0]
        assert len(kept) == 2  # kept until here: they hold the room
    finally:
        kept = None
        wnp.memory.destroy_workspace("POLICY_LEARN_ROOM")
