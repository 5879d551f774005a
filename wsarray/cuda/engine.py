"""CuPy doing the math of arrays on ``cuda:N``: the CUDA kind's engine (the interface every engine
has is wsarray/_devices/engines.py's; the fake device's engine is the other one). Made by the CUDA
kind (wsarray/cuda/__init__.py) on a device's first use, when CuPy is imported.
"""

import contextlib
import functools

from .._devices.engines import resolve

__all__ = ["CupyEngine"]


class CupyEngine:
    """CuPy doing the math of ``cuda:N`` arrays; allocations inside a CUDA workspace's cycle come
    from it through ``cupy.cuda.using_allocator`` (wsarray.cuda.allocator)."""

    def __init__(self, device):
        from . import _import_cupy

        self.cupy = _import_cupy()
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
        func = resolve(self.cupy, name)
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
