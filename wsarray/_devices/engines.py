"""The engines that do the math of device arrays: CuPy on ``cuda:N``, NumPy on the test-only ``fake:N``.

An engine owns the device side of ``wsarray._devices.array``: its native array type (``cupy.ndarray``;
for the fake device a ``numpy.ndarray`` over fake device memory), the namespace its functions come
from (``cupy``, ``cupy.linalg``, ...; NumPy's for the fake), copies to and from the host, DLPack, and
where new arrays get their memory: the innermost open device workspace of the device on this
thread, else the engine's own allocator (CuPy's pool; the fake device's ``alloc``). ``allocating(ws)``
directs allocations into one workspace (``leverage_to``) or outside all of them (``detach``,
``ws=None``). Engines are made once per device, on first use (``engine_for``): CuPy is imported then.
"""

import contextlib
import functools
import threading

import numpy

from .._device import Device
from .workspace import current_workspace

__all__ = ["CupyEngine", "FakeEngine", "engine_for", "usable_devices"]

_engines = {}
_lock = threading.Lock()


def engine_for(device, fn):
    """The engine of ``device`` (a non-CPU ``wsarray.Device``), made on first use; a CUDA device that
    cannot be used raises ``wsarray.cuda.CudaUnavailableError`` naming ``wsarray.<fn>()``."""
    engine = _engines.get(device)
    if engine is not None:
        return engine
    if device.kind == "cuda":
        from .. import cuda

        cuda.require(device, fn)
    with _lock:
        engine = _engines.get(device)
        if engine is None:
            if device.kind == "cuda":
                engine = CupyEngine(device)
            else:
                from . import fake

                engine = FakeEngine(device, fake.device(device.index))
            _engines[device] = engine
    return engine


def forget_engine(device):
    """Drop the engine of ``device`` (the fake device's, when a test disables it)."""
    with _lock:
        _engines.pop(device, None)


def usable_devices():
    """The devices other than the CPU that arrays can be put on here: CUDA GPUs CuPy can use (the
    probe runs once, lazily), then the fake devices a test enabled."""
    from .. import _device, cuda

    gpus = [Device(f"cuda:{i}") for i in range(cuda.device_count())]
    return (*gpus, *(Device(f"fake:{i}") for i in sorted(_device._fake_enabled)))


def _resolve(root, name):
    """``root.<dotted name>`` ('linalg.inv'), or None."""
    obj = root
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


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
        func = _resolve(numpy, name)
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


class CupyEngine:
    """CuPy doing the math of ``cuda:N`` arrays; allocations inside a CUDA workspace's cycle come
    from it through ``cupy.cuda.using_allocator`` (wsarray.cuda.allocator)."""

    def __init__(self, device):
        from .. import cuda

        self.cupy = cuda._import_cupy()
        self.kind = f"CuPy {getattr(self.cupy, '__version__', '?')}"
        self.device = device
        self.native_type = self.cupy.ndarray
        self._upstream = self.cupy.cuda.get_allocator()  # made outside every workspace: the pool's

    def _on_device(self):
        return self.cupy.cuda.Device(self.device.index)

    @contextlib.contextmanager
    def allocating(self, workspace):
        allocator = self._upstream if workspace is None else workspace._malloc
        with self.cupy.cuda.using_allocator(allocator):
            yield

    def empty(self, shape, dtype):
        with self._on_device():
            return self.cupy.empty(shape, dtype)

    def owns(self, native):
        return isinstance(native, self.cupy.ndarray) and native.device.id == self.device.index

    def address(self, native):
        return native.data.ptr

    def to_device(self, host):
        with self._on_device():
            return self.cupy.asarray(host)

    def to_host(self, native):
        return self.cupy.asnumpy(native)

    def copy(self, native):
        with self._on_device():
            return native.copy()

    def function(self, name):
        func = _resolve(self.cupy, name)
        if func is None or not callable(func):
            return None

        @functools.wraps(func)
        def on_device(*args, **kwargs):
            with self._on_device():
                return func(*args, **kwargs)

        return on_device

    def adopt(self, result):
        return result

    def method(self, native, name):
        attr = getattr(native, name)
        if not callable(attr):
            return attr

        def on_device(*a, **k):
            with self._on_device():
                return attr(*a, **k)

        return on_device

    def fuse(self, func):
        kernel = self.cupy.fuse(func)

        def on_device(*args, **kwargs):
            with self._on_device():
                return kernel(*args, **kwargs)

        return on_device

    def dlpack_device(self, native):
        return native.__dlpack_device__()

    def from_dlpack(self, obj, copy=None):
        with self._on_device():
            native = self.cupy.from_dlpack(obj)
        return native.copy() if copy else native

    def synchronize(self):
        self._on_device().synchronize()
