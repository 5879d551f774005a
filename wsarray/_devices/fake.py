"""A test-only fake device ("fake:N"): host memory, NumPy math, streams that run work late.

It stands where CUDA will: the same backend interface as the CUDA layer's (alloc/free, current
stream, synchronize; streams with record_event/wait_event), so DeviceWorkspace runs unchanged over
it. Work launched on a fake stream is queued, not done: it runs when the stream is synchronized, or
up to an event when another stream waits on that event (what the ordering of a real GPU
guarantees, no more). A missing wait thus shows up as late writes landing over newer ones. Freeing
memory while any stream still has queued work is recorded in ``freed_with_pending_work``.

``enable(n)`` makes devices ``fake:0`` to ``fake:n-1`` usable through the namespace (``device="fake:0"``,
``WorkspaceConfig(device="fake:0")``, ``devices()``) with NumPy as their engine; ``disable()`` removes
them. Nothing outside the tests enables them.
"""

import contextlib
import functools
import threading

import numpy

from .._device import Device
from . import kinds
from .engines import forget_engine, resolve
from .workspace import DeviceWorkspace, current_workspace


class FakeEvent:
    def __init__(self, stream, position):
        self.stream, self.position = stream, position


class FakeStream:
    def __init__(self, device):
        self.device = device
        self._queue = []  # callables not run yet
        self._ran = 0  # how many callables of this stream have run

    @property
    def pending(self):
        return len(self._queue)

    def launch(self, work):
        """Queue `work()` (a kernel): it runs late (see the module text)."""
        self._queue.append(work)

    def record_event(self):
        return FakeEvent(self, self._ran + len(self._queue))

    def wait_event(self, event):
        # Later work on this stream runs after the event's work: run that work now.
        event.stream._run_until(event.position)

    def synchronize(self):
        self._run_until(self._ran + len(self._queue))

    def _run_until(self, position):
        while self._ran < position and self._queue:
            self._queue.pop(0)()
            self._ran += 1


class FakeDevice:
    """Backend "fake:N" for wsarray._devices.DeviceWorkspace."""

    alignment = 256

    def __init__(self, index=0):
        self.name = f"fake:{index}"
        self._buffers = {}  # address -> numpy buffer that holds the memory
        self._lock = threading.RLock()
        self.streams = [FakeStream(self)]
        self.current = self.streams[0]
        self.allocs = self.frees = 0
        self.freed_with_pending_work = []

    def stream(self):
        s = FakeStream(self)
        self.streams.append(s)
        return s

    def current_stream(self):
        return self.current

    def record_event(self, stream):
        return stream.record_event()

    def wait_event(self, stream, event):
        stream.wait_event(event)

    def synchronize(self):
        for s in list(self.streams):
            s.synchronize()

    def alloc(self, size):
        buf = numpy.zeros(size + self.alignment, numpy.uint8)
        address = buf.ctypes.data
        address += -address % self.alignment
        with self._lock:
            self._buffers[address] = (buf, size)
            self.allocs += 1
        return address

    def holds(self, address):
        """Is `address` inside a live allocation of this device?"""
        with self._lock:
            return any(base <= address < base + size for base, (_, size) in self._buffers.items())

    def free(self, address, size):
        with self._lock:
            if any(s.pending for s in self.streams):
                self.freed_with_pending_work.append(address)
            del self._buffers[address]
            self.frees += 1

    @property
    def live_allocations(self):
        return len(self._buffers)

    def view(self, address, count, dtype=numpy.float64):
        """The host's view of device memory at `address` (NumPy math on the fake device)."""
        with self._lock:
            for base, (buf, size) in self._buffers.items():
                if base <= address < base + size:
                    start = address - buf.ctypes.data
                    return buf[start : start + count * numpy.dtype(dtype).itemsize].view(dtype)
        raise ValueError(f"{self.name}: address {address:#x} is not device memory")

    def fill(self, stream, address, count, value, dtype=numpy.float64):
        """Launch a kernel on `stream` that writes `value` into `count` elements at `address`."""
        target = self.view(address, count, dtype)
        stream.launch(lambda: target.fill(value))


_enabled = {}  # index -> FakeDevice


def enable(count=1):
    """Make fake:0 .. fake:count-1 usable devices (tests only); returns their FakeDevice backends."""
    for i in range(count):
        _enabled.setdefault(i, FakeDevice(i))
    return [_enabled[i] for i in range(count)]


def disable():
    """Remove every fake device (their engines too)."""
    for i in list(_enabled):
        forget_engine(Device(f"fake:{i}"))
        del _enabled[i]


def device(index):
    """The backend of enabled fake device `index`."""
    return _enabled[index]


class _AllocationTarget(threading.local):
    """Per thread: the device workspace that allocating() directs allocations into (None: outside
    every workspace), or unset (the innermost open one)."""

    target = ...


class FakeEngine:
    """NumPy doing the math of ``fake:N`` arrays, whose memory is the fake device's (tests only)."""

    kind = "the fake device's engine (NumPy)"

    def __init__(self, device, backend):
        self.device = device
        self.backend = backend
        self.native_type = numpy.ndarray
        self._target = _AllocationTarget()

    # ---- memory -------------------------------------------------------------------------
    def _workspace(self):
        target = self._target.target
        return current_workspace(self.device) if target is ... else target

    @contextlib.contextmanager
    def allocating(self, workspace):
        previous, self._target.target = self._target.target, workspace
        try:
            yield
        finally:
            self._target.target = previous

    def empty(self, shape, dtype):
        """A new native array in device memory (the current workspace's, or the device's own)."""
        dtype = numpy.dtype(dtype)
        count = int(numpy.prod(shape, dtype=numpy.int64))
        nbytes = max(count * dtype.itemsize, 1)
        ws = self._workspace()
        if ws is not None:
            address = ws.allocate(nbytes)
            release = functools.partial(ws.free, address)
        else:
            address = self.backend.alloc(nbytes)
            release = functools.partial(self.backend.free, address, nbytes)
        raw = numpy.asarray(_FakeBlock(self.backend.view(address, nbytes, numpy.uint8), release))
        return raw[: count * dtype.itemsize].view(dtype).reshape(shape)

    def owns(self, native):
        return isinstance(native, numpy.ndarray) and self.backend.holds(native.ctypes.data)

    def address(self, native):
        return native.ctypes.data

    def to_device(self, host):
        """A device copy of a host ndarray (or anything numpy.asarray takes)."""
        host = numpy.asarray(host)
        out = self.empty(host.shape, host.dtype)
        out[...] = host
        return out

    def to_host(self, native):
        return numpy.array(native, copy=True)

    def copy(self, native):
        return self.to_device(native)

    # ---- functions ----------------------------------------------------------------------
    def function(self, name):
        """NumPy's function ``name`` running on fake memory, its results moved to the device."""
        func = resolve(numpy, name)
        if func is None or not callable(func):
            return None

        @functools.wraps(func)
        def on_device(*args, **kwargs):
            return self.adopt(func(*args, **kwargs))

        return on_device

    def adopt(self, result):
        """Results of NumPy on fake memory: ndarrays (and scalars, as 0-d arrays: CuPy returns 0-d
        arrays) in host memory are copied into device memory; views of device memory stay."""
        if isinstance(result, numpy.ndarray):
            return result if self.owns(result) else self.to_device(result)
        if isinstance(result, numpy.generic):
            return self.to_device(result)
        if isinstance(result, tuple):
            items = [self.adopt(r) for r in result]
            return type(result)._make(items) if hasattr(type(result), "_make") else tuple(items)
        if isinstance(result, list):
            return [self.adopt(r) for r in result]
        return result

    def method(self, native, name):
        attr = getattr(native, name)
        if not callable(attr):
            return self.adopt(attr)
        return lambda *a, **k: self.adopt(attr(*a, **k))

    def fuse(self, func):
        return None  # no kernel fusion: the function runs on the device arrays, call by call

    # ---- DLPack -------------------------------------------------------------------------
    def dlpack_device(self, native):
        return native.__dlpack_device__()

    def from_dlpack(self, obj, copy=None):
        view = numpy.from_dlpack(obj) if copy is None else numpy.from_dlpack(obj, copy=copy)
        return view if self.owns(view) else self.to_device(view)

    def synchronize(self):
        self.backend.synchronize()


class _FakeBlock:
    """A block of fake device memory seen by NumPy (``__array_interface__``); ``release`` gives it
    back when the last array over it dies (bookkeeping only, as CuPy's owner tokens)."""

    def __init__(self, view, release):
        self._view, self._release = view, release  # the view keeps the device buffer alive
        self.__array_interface__ = view.__array_interface__

    def __del__(self):
        try:
            self._release()
        except Exception:  # noqa: BLE001 - after the workspace or device is gone there is nothing to free
            pass


class _FakeKind:
    """The device kind "fake" (wsarray/_devices/kinds.py): devices exist while a test enabled them."""

    name = "fake"
    dlpack_types = ()  # its memory is host memory to DLPack

    def accepts(self, index):
        return index in _enabled

    def usable(self):
        return sorted(_enabled)

    def require(self, device, fn):
        if device.index not in _enabled:
            raise ValueError(f"wsarray.{fn}(): fake device {str(device)!r} is not enabled")

    def engine(self, device):
        return FakeEngine(device, _enabled[device.index])

    def workspace(self, name, config, device):
        return DeviceWorkspace(name, _enabled[device.index], config)

    def from_dlpack(self, obj, index, copy):
        raise ValueError("wsarray.from_dlpack(): the fake device exports no DLPack memory of its own")


kinds.register(_FakeKind())
