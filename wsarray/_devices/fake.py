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

import threading

import numpy


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
        self._lock = threading.Lock()
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
    from .. import _device

    for i in range(count):
        _enabled.setdefault(i, FakeDevice(i))
        _device._fake_enabled.add(i)
    return [_enabled[i] for i in range(count)]


def disable():
    """Remove every fake device (their engines too)."""
    from .. import _device
    from .engines import forget_engine

    for i in list(_enabled):
        forget_engine(_device.Device(f"fake:{i}"))
        _device._fake_enabled.discard(i)
        del _enabled[i]


def device(index):
    """The backend of enabled fake device `index`."""
    return _enabled[index]
