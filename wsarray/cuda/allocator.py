"""CuPy's allocations from wsarray workspaces: the CUDA backend of ``wsarray._devices``.

``CupyBackend`` gives device workspaces their chunks from the allocator that was current before
(CuPy's pool, or RMM's if another library installed it), refusing up front (``memGetInfo``) a chunk
that cannot fit. ``CudaWorkspace`` is a DeviceWorkspace on it that, while a cycle is open, makes
this thread's CuPy allocations come from the workspace through ``cupy.cuda.using_allocator`` (per
thread; never ``set_allocator``, which is process wide and which other libraries set). Each block
is handed to CuPy as ``MemoryPointer(UnownedMemory(ptr, size, owner=token, device_id=N), 0)``: the
token lives as long as any pointer or view (``p + k``) over the block, and its destruction frees
the block by bookkeeping only (never a CUDA call: it can run during garbage collection, at exit, on
any thread). CuPy is imported lazily, on first use.

``wsarray.workspace(name, WorkspaceConfig(device="cuda:N"))`` makes one (wsarray._devices.workspace).
Not run on a GPU yet: tested on the CPU against a stand-in ``cupy`` module (tests/cuda).
"""

import contextlib
import importlib

from .._native import WorkspaceMemoryError
from .._devices.workspace import DeviceWorkspace

__all__ = ["CudaWorkspace", "CupyBackend"]


def _cupy():
    try:
        return importlib.import_module("cupy")
    except ImportError as e:
        from . import INSTALL_HINT, CudaUnavailableError

        raise CudaUnavailableError(f"wsarray.cuda: CuPy is not installed ({e}); {INSTALL_HINT}") from e


class CupyBackend:
    """Device memory and streams of GPU `device_id`, through CuPy (see the module text)."""

    alignment = 256

    def __init__(self, device_id=0):
        self.cupy = _cupy()
        self.device_id = device_id
        self.name = f"cuda:{device_id}"
        self._upstream = self.cupy.cuda.get_allocator()  # the allocator current before ours
        self._held = {}  # address -> the upstream MemoryPointer that keeps it

    def alloc(self, size):
        free, total = self.cupy.cuda.runtime.memGetInfo()
        if size > free:
            raise WorkspaceMemoryError(
                f"wsarray.cuda: device {self.name} cannot fit a chunk of {size} bytes: {free} bytes free of "
                f"{total} (the largest free block is at most {free} bytes)"
            )
        with self.cupy.cuda.Device(self.device_id):
            pointer = self._upstream(size)
        self._held[pointer.ptr] = pointer
        return pointer.ptr

    def free(self, address, size):
        # Dropping the upstream pointer returns it to its pool (bookkeeping; stream ordered).
        self._held.pop(address, None)

    def current_stream(self):
        return self.cupy.cuda.get_current_stream()

    def record_event(self, stream):
        return stream.record()

    def wait_event(self, stream, event):
        stream.wait_event(event)

    def synchronize(self):
        self.cupy.cuda.Device(self.device_id).synchronize()


class _BlockToken:
    """Owner of one workspace block handed to CuPy: freed (bookkeeping only) when CuPy drops it."""

    __slots__ = ("workspace", "address")

    def __init__(self, workspace, address):
        self.workspace, self.address = workspace, address

    def __del__(self):
        try:
            self.workspace.free(self.address)
        except Exception:  # noqa: BLE001 - at exit or after destroy there is nothing left to free
            pass


class CudaWorkspace(DeviceWorkspace):
    """Workspace `name` of this thread on GPU `device_id`; CuPy allocates from it inside cycles."""

    def __init__(self, name, config=None, device_id=0):
        super().__init__(name, CupyBackend(device_id), config)
        self._installed = None

    def _malloc(self, size):
        cupy = self.backend.cupy
        current = cupy.cuda.runtime.getDevice()
        if current != self.backend.device_id:
            # CuPy's allocator is per thread, not per device: memory for another GPU comes from
            # that GPU's innermost open workspace, else from the allocator that was there before.
            from .._devices.workspace import current_workspace

            other = current_workspace(f"cuda:{current}")
            return other._malloc(size) if other is not None else self.backend._upstream(size)
        address = self.allocate(size)
        memory = cupy.cuda.memory.UnownedMemory(
            address, size, _BlockToken(self, address), device_id=self.backend.device_id
        )
        return cupy.cuda.memory.MemoryPointer(memory, 0)

    def __enter__(self):
        super().__enter__()
        stack = contextlib.ExitStack()
        try:
            stack.enter_context(self.backend.cupy.cuda.using_allocator(self._malloc))
        except BaseException:
            super().__exit__(None, None, None)
            raise
        self._installed = stack
        return self

    def __exit__(self, *exc):
        stack, self._installed = self._installed, None
        try:
            if stack is not None:
                stack.close()
        finally:
            super().__exit__(*exc)
        return False
