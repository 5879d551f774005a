"""A workspace of device memory with the stream rule, over a backend.

The core keeps the bookkeeping (out of band; the chunks are the backend's memory, allocated and
freed through Python callbacks that the core calls with its mutex down). This layer adds streams:
each cycle has a home stream (the backend's current stream when the cycle begins, held so that a
recycled handle is not mistaken for it). Blocks allocated on the home stream reuse freed blocks
freely (stream order makes that safe); an allocation on another stream goes to the backend's
upstream allocator and is counted. Leaving a cycle records one event on the home stream and never
synchronizes the host; a cycle that begins on another stream makes that stream wait on the event
(else its kernels could overwrite blocks the previous cycle's kernels still write). Chunks go back
to the backend only after a device synchronize (frees may come from garbage collection, any thread).

``create``/``lookup`` keep this thread's device workspaces by name, for ``wsarray.workspace()``.

A backend has: ``name`` ('cuda:0'), ``alignment``, ``alloc(size) -> address``, ``free(address,
size)``, ``current_stream()``, ``record_event(stream) -> event``, ``wait_event(stream, event)``,
``synchronize()``.
"""

import threading

from .. import _native
from .._device import Device
from .._native import WorkspaceConfig
from . import kinds

_local = threading.local()


def _open_stack():
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def registry():
    """This thread's device workspaces by name (wsarray.workspace() finds them again here)."""
    spaces = getattr(_local, "named", None)
    if spaces is None:
        spaces = _local.named = {}
    return spaces


def lookup(name, config):
    """This thread's live device workspace `name`, or None; a different `config` raises as for host
    workspaces."""
    ws = registry().get(name)
    if ws is None:
        return None
    if not ws._ws.alive:  # destroyed through the core (np.memory, thread exit)
        del registry()[name]
        return None
    if config is not None and config != ws.config:
        raise _native.WorkspaceError(
            f"wsarray.workspace(): workspace '{name}' exists on this thread with a different configuration; "
            "destroy it first (wsarray.memory.destroy_workspace)")
    return ws


def create(name, config):
    """wsarray.workspace(name, config) for `config.device` other than the CPU: a workspace of that
    device's memory, made by the device's kind (CUDA: wsarray.cuda.allocator.CudaWorkspace; the
    fake device: DeviceWorkspace over its backend)."""
    device = Device(config.device, fn="workspace")
    kind = kinds.get(device.kind)
    kind.require(device, "workspace")
    ws = kind.workspace(name, config, device)
    registry()[name] = ws
    return ws


def for_core(name, config):
    """The core's device_workspace hook (wsarray.workspace(name, config) once a device workspace
    exists, or for a config naming a device): this thread's device workspace `name`, made with
    `config` when that names a device; None for a host workspace."""
    found = lookup(name, config)
    if found is not None:
        return found
    if config is not None and config._needs_device_source:
        return create(name, config)
    return None


def forget(name=None):
    """Drop `name` (None: every name) from this thread's registry after the core destroyed it."""
    if name is None:
        registry().clear()
    else:
        registry().pop(name, None)


def current_workspace(device):
    """The innermost open device workspace of `device` ('cuda:0') on this thread, or None. Host
    allocations never come here: the core passes device workspaces over for host arrays."""
    for ws in reversed(_open_stack()):
        if ws.device == device:
            return ws
    return None


class _ChunkReturner:
    """The core's callback that gives a chunk back to `backend`, counting the synchronizes."""

    def __init__(self, backend):
        self.backend = backend
        self.syncs = 0
        self._lock = threading.RLock()

    def __call__(self, address, size):
        # Kernels queued on any stream may still use the chunk: wait for the device first.
        self.backend.synchronize()
        with self._lock:
            self.syncs += 1
        self.backend.free(address, size)


class DeviceWorkspace:
    """Workspace `name` of this thread whose chunks are `backend`'s memory (see the module text)."""

    def __init__(self, name, backend, config=None):
        if config is None:
            config = WorkspaceConfig()
        elif not isinstance(config, WorkspaceConfig):
            raise TypeError(
                f"wsarray.DeviceWorkspace(): config must be a wsarray.WorkspaceConfig, not {type(config).__name__}"
            )
        self.backend = backend
        self.device = backend.name
        self.config = config
        self._stats_lock = threading.RLock()  # frees (and their syncs) may come from any thread
        self._upstream = {}  # address -> size of blocks allocated on a foreign stream
        self._upstream_bytes = self._foreign_spills = 0
        self._home = self._last_event = self._last_stream = None
        # The core keeps the callbacks; neither may refer back to this object: the core's objects
        # take no part in garbage collection, so such a cycle would never be freed.
        self._returner = _ChunkReturner(backend)
        source_config = _native._config_with_device_source(
            config, backend.name, backend.alloc, self._returner, backend.alignment
        )
        self._ws = _native.workspace(name, source_config)

    def __enter__(self):
        stream = self.backend.current_stream()
        if self._last_event is not None and stream is not self._last_stream:
            self.backend.wait_event(stream, self._last_event)
        self._ws.__enter__()
        self._home = stream
        _open_stack().append(self)
        return self

    def __exit__(self, *exc):
        try:
            self._last_event = self.backend.record_event(self._home)  # no host synchronize
            self._last_stream = self._home
        finally:
            stack = _open_stack()
            if self in stack:
                stack.reverse()
                stack.remove(self)
                stack.reverse()
            self._home = None
            self._ws.__exit__(*exc)
        return False

    def allocate(self, nbytes, stream=None):
        """Address of `nbytes` of device memory for `stream` (the backend's current one if None)."""
        if self._home is None:
            raise _native.WorkspaceError(
                f"wsarray.DeviceWorkspace.allocate(): workspace on {self.device} has no open cycle"
            )
        stream = self.backend.current_stream() if stream is None else stream
        if stream is self._home:
            return _native._workspace_allocate(self._ws, nbytes)
        address = self.backend.alloc(max(nbytes, 1))
        with self._stats_lock:
            self._upstream[address] = max(nbytes, 1)
            self._upstream_bytes += max(nbytes, 1)
            self._foreign_spills += 1
        return address

    def free(self, address):
        """Give back a block from allocate() (bookkeeping only for workspace blocks; any thread)."""
        with self._stats_lock:
            size = self._upstream.pop(address, None)
        if size is not None:
            self.backend.free(address, size)
        else:
            _native._workspace_free(address)

    @property
    def name(self):
        return self._ws.name

    @property
    def generation(self):
        return self._ws.generation

    @property
    def is_open(self):
        return self._ws.is_open

    @property
    def alive(self):
        return self._ws.alive

    def stats(self):
        s = self._ws.stats()
        with self._stats_lock:
            s.update(
                device=self.device,
                upstream_bytes=self._upstream_bytes,
                foreign_stream_spills=self._foreign_spills,
                syncs=self._returner.syncs,
            )
        return s

    def destroy(self):
        """Give the chunks back (after a device synchronize); blocks still live become invalid."""
        self._ws.destroy()
        if registry().get(self._ws.name) is self:
            forget(self._ws.name)

    def __repr__(self):
        return f"<wsarray DeviceWorkspace on {self.device}: {self._ws!r}>"
