"""wsarray.cuda.allocator against a stand-in ``cupy`` module (no GPU, no CuPy needed): the pieces it
uses (MemoryPointer, UnownedMemory, using_allocator, get_allocator, streams and events,
runtime.memGetInfo, Device) mimicked over host memory, so that the hookup itself is tested."""
import contextlib
import gc
import sys
import threading
import types

import numpy
import pytest

import wsarray as wnp


def fake_cupy(free_bytes=1 << 30):
    cp = types.ModuleType("cupy")
    cuda = types.SimpleNamespace()
    local = threading.local()
    buffers = []

    class UnownedMemory:
        def __init__(self, ptr, size, owner, device_id=None):
            assert device_id is not None  # wsarray always passes it
            self.ptr, self.size, self.owner, self.device_id = ptr, size, owner, device_id

    class MemoryPointer:
        def __init__(self, mem, offset):
            self.mem, self.ptr = mem, mem.ptr + offset

        def __add__(self, k):
            return MemoryPointer(self.mem, self.ptr - self.mem.ptr + k)

    def pool_alloc(size):
        buf = numpy.zeros(size + 256, numpy.uint8)
        buffers.append(buf)
        addr = buf.ctypes.data
        return MemoryPointer(UnownedMemory(addr + (-addr % 256), size, buf, device_id=0), 0)

    @contextlib.contextmanager
    def using_allocator(fn):
        prev = getattr(local, "allocator", None)
        local.allocator = fn
        try:
            yield
        finally:
            local.allocator = prev

    class Stream:
        def record(self):
            return ("event", self)

        def wait_event(self, event):
            self.waited = event

    class Device:
        def __init__(self, i):
            self.i = i

        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

        def synchronize(self):
            cp.syncs += 1

    null = Stream()
    cuda.memory = types.SimpleNamespace(UnownedMemory=UnownedMemory, MemoryPointer=MemoryPointer)
    cuda.using_allocator = using_allocator
    cuda.get_allocator = lambda: pool_alloc
    cuda.get_current_stream = lambda: getattr(local, "stream", null)
    cuda.Stream, cuda.Device = Stream, Device
    cuda.runtime = types.SimpleNamespace(memGetInfo=lambda: (free_bytes, 2 * free_bytes),
                                         getDevice=lambda: getattr(local, "device", 0))
    cp.cuda, cp.syncs = cuda, 0
    cp.current_allocator = lambda: getattr(local, "allocator", None)
    cp.local = local
    return cp


@pytest.fixture
def cupy(monkeypatch):
    cp = fake_cupy()
    monkeypatch.setitem(sys.modules, "cupy", cp)
    yield cp
    wnp.memory.destroy_all_workspaces_for_current_thread()


def test_cupy_allocates_from_the_workspace_only_inside_a_cycle_on_this_thread(cupy):
    from wsarray.cuda.allocator import CudaWorkspace

    ws = CudaWorkspace("CUDA_ALLOC", wnp.WorkspaceConfig(initial_size=1 << 16))
    assert cupy.current_allocator() is None
    with ws:
        malloc = cupy.current_allocator()
        assert malloc is not None
        seen = []
        t = threading.Thread(target=lambda: seen.append(cupy.current_allocator()))
        t.start()
        t.join(10)
        assert seen == [None]  # per thread, not process wide
        p = malloc(1000)
        assert p.mem.device_id == 0 and p.ptr % 256 == 0
        assert ws.stats()["live_arrays"] == 1
        del p
        gc.collect()
        assert ws.stats()["live_arrays"] == 0
    assert cupy.current_allocator() is None
    assert ws.stats()["device"] == "cuda:0"


def test_the_owner_token_lives_through_views_and_frees_with_the_last(cupy):
    from wsarray.cuda.allocator import CudaWorkspace

    ws = CudaWorkspace("CUDA_TOKEN", wnp.WorkspaceConfig(initial_size=1 << 16))
    with ws:
        p = cupy.current_allocator()(4096)
        view = p + 512
        base = p.ptr
        del p
        gc.collect()
        assert view.ptr == base + 512 and ws.stats()["live_arrays"] == 1  # the view keeps it
        del view
        gc.collect()
        assert ws.stats()["live_arrays"] == 0
        syncs = cupy.syncs
        q = cupy.current_allocator()(4096)
        assert q.ptr == base  # the block was given back (bookkeeping only) and is reused
        assert cupy.syncs == syncs  # freeing a block never synchronizes
        del q


def test_a_cycle_on_another_stream_waits_on_the_last_cycles_event(cupy):
    from wsarray.cuda.allocator import CudaWorkspace

    ws = CudaWorkspace("CUDA_STREAMS", wnp.WorkspaceConfig(initial_size=1 << 16))
    with ws:
        pass
    other = cupy.cuda.Stream()
    cupy.local.stream = other
    with ws:
        assert other.waited[0] == "event" and other.waited[1] is not other  # the old home's event
    assert cupy.syncs == 0  # no host synchronize at the end of a cycle


def test_a_chunk_that_cannot_fit_is_refused_naming_the_device_and_sizes(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy(free_bytes=1 << 20))
    from wsarray.cuda.allocator import CudaWorkspace

    with pytest.raises(wnp.WorkspaceMemoryError, match=r"cuda:0 cannot fit a chunk of \d+ bytes: 1048576 bytes free"):
        CudaWorkspace("CUDA_BIG", wnp.WorkspaceConfig(initial_size=8 << 20))
    wnp.memory.destroy_all_workspaces_for_current_thread()


def test_without_cupy_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    from wsarray.cuda import CudaUnavailableError
    from wsarray.cuda.allocator import CupyBackend

    with pytest.raises(CudaUnavailableError, match=r"wsarray\[cuda12\]"):
        CupyBackend(0)


def test_memory_for_another_gpu_comes_from_that_gpus_workspace_or_upstream(cupy):
    from wsarray.cuda.allocator import CudaWorkspace

    ws0 = CudaWorkspace("CUDA_DEV0", wnp.WorkspaceConfig(initial_size=1 << 16), device_id=0)
    with ws0:
        cupy.local.device = 1  # CuPy's current device is GPU 1 now: its allocations are not ws0's
        try:
            p = cupy.current_allocator()(512)
        finally:
            cupy.local.device = 0
        assert ws0.stats()["live_arrays"] == 0 and p.mem.owner is not None  # the upstream pool's block
        q = cupy.current_allocator()(512)
        assert ws0.stats()["live_arrays"] == 1
        del q
