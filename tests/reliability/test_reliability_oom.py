"""Out of memory at the operating-system level fails with MemoryError and the process goes on.

Every size here is far beyond this or any test machine, and is refused before a page is touched.
"""
import gc
import os

import pytest

import wsarray as wnp

HUGE = "1000TB"  # no machine this runs on has a petabyte


def test_initial_size_larger_than_the_machine_raises_memory_error():
    for size in ("1TB", "1000TiB", 2**60):
        with pytest.raises(MemoryError) as info:
            wnp.workspace("HUGE", wnp.WorkspaceConfig(initial_size=size))
        assert isinstance(info.value, wnp.WorkspaceMemoryError)
        assert str(info.value).startswith("wsarray.workspace(): workspace 'HUGE'")
        assert "initial_size" in str(info.value) and "available" in str(info.value)
        assert not wnp.memory.workspace_exists("HUGE")
    with wnp.workspace("HUGE", wnp.WorkspaceConfig(initial_size="1MiB")):  # the name is free
        assert float(wnp.ones(10).sum()) == 10.0


def test_file_backed_initial_size_larger_than_the_disk():
    with pytest.raises(MemoryError, match="free"):
        wnp.workspace("HUGEFILE", wnp.WorkspaceConfig(initial_size="5000TB", location="mmap"))
    assert not wnp.memory.workspace_exists("HUGEFILE")


@pytest.mark.parametrize("spill", ["external", "reallocate"])
def test_huge_allocation_in_a_workspace_raises_and_the_workspace_goes_on(spill):
    ws = wnp.workspace("W", wnp.WorkspaceConfig(learning="none", initial_size="1MiB", spill=spill))
    with ws:
        a = wnp.ones(1000)
        with pytest.raises(MemoryError, match=r"wsarray.empty\(\): workspace 'W'"):
            wnp.empty(2**47)  # 1 PiB of float64: a valid NumPy size, not a possible one
        with pytest.raises(MemoryError):
            wnp.zeros((2**24, 2**23))
        assert float((a * 2).sum()) == 2000.0
        del a
    s = ws.stats()
    assert s["used"] == 0 and s["capacity"] == 2**20 and wnp.memory.workspace_stack() == []
    with ws:
        assert float(wnp.arange(10.0).sum()) == 45.0


def test_learning_a_huge_peak_keeps_working():
    """A cycle whose (spilled) peak cannot be mapped as one chunk: learning fails quietly."""
    ws = wnp.workspace("LEARN")
    with ws:
        with pytest.raises(MemoryError):
            wnp.ones(2**47)
    with ws:
        assert float(wnp.ones(100).sum()) == 100.0
    assert ws.stats()["cycles"] == 2


def test_max_size_larger_than_the_machine_is_only_a_ceiling():
    ws = wnp.workspace("CEIL", wnp.WorkspaceConfig(max_size=HUGE, spill="reallocate"))
    for _ in range(3):
        with ws:
            assert float(wnp.ones(1000).sum()) == 1000.0
    with ws:
        with pytest.raises(MemoryError):
            wnp.ones(2**47)
        assert float(wnp.ones(1000).sum()) == 1000.0


def test_rss_stays_small_after_refused_requests():
    gc.collect()
    with open(f"/proc/{os.getpid()}/statm") as f:
        before = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    for _ in range(20):
        with pytest.raises(MemoryError):
            wnp.workspace("R", wnp.WorkspaceConfig(initial_size="1TB"))
    with open(f"/proc/{os.getpid()}/statm") as f:
        after = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    assert after - before < 64 * 2**20
