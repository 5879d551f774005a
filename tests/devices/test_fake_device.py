"""DeviceWorkspace over the test-only fake device "fake:0" (host memory, NumPy math, streams that run
queued work late): the stream rule, device statistics, chunks given back only after a synchronize,
and which workspace gets an allocation when host and device workspaces nest."""
import gc
import threading
import weakref

import numpy
import pytest

import wsarray as wnp
from wsarray._devices.workspace import DeviceWorkspace, current_workspace
from wsarray._devices.fake import FakeDevice

KB = 1024


def sized(name, dev):
    """A device workspace with a chunk from the start (no learning spill, whose chunk would go back,
    after a synchronize, when its block is freed)."""
    return DeviceWorkspace(name, dev, wnp.WorkspaceConfig(initial_size=64 * KB))


@pytest.fixture
def dev():
    d = FakeDevice()
    yield d
    wnp.memory.destroy_all_workspaces_for_current_thread()
    gc.collect()
    assert d.live_allocations == 0  # every chunk went back to the device


def test_a_cycle_on_another_stream_waits_for_the_last_cycles_work(dev):
    s1, s2 = dev.stream(), dev.stream()
    ws = sized("FAKE_WAIT", dev)
    dev.current = s1
    with ws:
        p = ws.allocate(KB * 8)
        dev.fill(s1, p, KB, 1.0)  # queued on s1, not run
        ws.free(p)
    assert s1.pending == 1 and ws.stats()["syncs"] == 0  # leaving the cycle did not synchronize
    dev.current = s2
    with ws:
        q = ws.allocate(KB * 8)
        assert q == p  # the freed block is reused on the new home stream
        dev.fill(s2, q, KB, 2.0)
    s2.synchronize()
    dev.synchronize()  # whatever s1 still had runs now: without the wait it would land last
    assert numpy.all(dev.view(q, KB) == 2.0)
    ws.free(q)


def test_cycles_on_one_stream_need_no_wait_and_reuse_blocks(dev):
    ws = sized("FAKE_SAME", dev)
    addresses = set()
    for i in range(5):
        with ws:
            p = ws.allocate(4 * KB)
            dev.fill(dev.current, p, 512, float(i))
            ws.free(p)
            addresses.add(p)
    assert len(addresses) == 1 and dev.current.pending == 5
    dev.synchronize()
    assert numpy.all(dev.view(p, 512) == 4.0)
    s = ws.stats()
    assert s["device"] == "fake:0" and s["cycles"] == 5 and s["syncs"] == 0
    assert s["upstream_bytes"] == 0 and s["foreign_stream_spills"] == 0


def test_allocations_on_a_foreign_stream_go_upstream_and_are_counted(dev):
    other = dev.stream()
    ws = sized("FAKE_FOREIGN", dev)
    with ws:
        p = ws.allocate(3000, stream=other)
        q = ws.allocate(1000)
        assert ws.stats()["live_arrays"] == 1  # only q is the workspace's
        before = dev.allocs
        ws.free(p)
        ws.free(q)
        assert dev.frees >= 1 and dev.allocs == before
    s = ws.stats()
    assert s["foreign_stream_spills"] == 1 and s["upstream_bytes"] == 3000


def test_chunks_go_back_only_after_a_synchronize(dev):
    ws = sized("FAKE_DESTROY", dev)
    with ws:
        p = ws.allocate(32 * KB)
        dev.fill(dev.current, p, 100, 3.0)
        ws.free(p)
    assert dev.current.pending == 1 and dev.live_allocations >= 1
    ws.destroy()
    assert dev.live_allocations == 0
    assert dev.freed_with_pending_work == []
    assert ws.stats()["syncs"] >= 1 and dev.current.pending == 0


def test_allocate_outside_a_cycle_is_refused(dev):
    ws = DeviceWorkspace("FAKE_CLOSED", dev)
    with pytest.raises(wnp.WorkspaceError, match="DeviceWorkspace.allocate.*fake:0 has no open cycle"):
        ws.allocate(10)
    with pytest.raises(TypeError, match="config must be a wsarray.WorkspaceConfig"):
        DeviceWorkspace("FAKE_BAD", dev, config={"initial_size": 1})


def test_nested_host_and_device_scopes_pick_the_innermost_workspace_of_the_arrays_device(dev):
    dev1 = FakeDevice(1)
    host = wnp.workspace("HOST_OUTER")
    fake0 = DeviceWorkspace("FAKE0", dev)
    fake1 = DeviceWorkspace("FAKE1", dev1)
    assert current_workspace("fake:0") is None
    with host:
        with fake0:
            a = wnp.ones(1000)  # a host array inside a device workspace: the host workspace's
            assert host.stats()["live_arrays"] == 1 and fake0.stats()["live_arrays"] == 0
            with fake1:
                assert current_workspace("fake:0") is fake0
                assert current_workspace("fake:1") is fake1
                inner_host = wnp.workspace("HOST_INNER")
                with inner_host:
                    b = wnp.ones(10)  # host: the innermost host workspace
                    assert inner_host.stats()["live_arrays"] == 1
                    assert current_workspace("fake:0") is fake0  # device: still the device one
                    p = current_workspace("fake:0").allocate(100)
                    assert fake0.stats()["live_arrays"] == 1
                    fake0.free(p)
                    del b
            assert current_workspace("fake:1") is None
        assert current_workspace("fake:0") is None
        del a
    fake1.destroy()
    assert dev1.live_allocations == 0


def test_open_device_workspaces_are_per_thread(dev):
    ws = DeviceWorkspace("FAKE_THREAD", dev)
    seen = []
    with ws:
        t = threading.Thread(target=lambda: seen.append(current_workspace("fake:0")))
        t.start()
        t.join(10)
        assert current_workspace("fake:0") is ws
    assert seen == [None] and not t.is_alive()


def test_a_dropped_device_workspace_is_freed(dev):
    # The core keeps the workspace's callbacks and takes no part in garbage collection: a callback
    # referring back to the DeviceWorkspace made a cycle nothing could free (one per workspace).
    ws = sized("FAKE_DROPPED", dev)
    with ws:
        ws.free(ws.allocate(KB))
    ws.destroy()
    assert ws.stats()["syncs"] == 1  # the chunk went back after a synchronize, and is counted
    gone = weakref.ref(ws)
    del ws
    gc.collect()
    assert gone() is None and dev.live_allocations == 0
    # Dropped without destroy(): the object goes; the core's workspace keeps its chunk until the
    # thread's workspaces are destroyed, which gives it back.
    ws = sized("FAKE_UNDESTROYED", dev)
    gone = weakref.ref(ws)
    del ws
    gc.collect()
    assert gone() is None and dev.live_allocations == 1
    wnp.memory.destroy_all_workspaces_for_current_thread()
    assert dev.live_allocations == 0
