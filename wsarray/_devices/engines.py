"""The engines that do the math of device arrays, one per device, made by the device's kind.

An engine owns the device side of ``wsarray._devices.array``: its native array type (``cupy.ndarray``;
for the fake device a ``numpy.ndarray`` over fake device memory), the namespace its functions come
from (``cupy``, ``cupy.linalg``, ...; NumPy's for the fake), copies to and from the host, DLPack, and
where new arrays get their memory: the innermost open device workspace of the device on this
thread, else the engine's own allocator (CuPy's pool; the fake device's ``alloc``). ``allocating(ws)``
directs allocations into one workspace (``leverage_to``) or outside all of them (``detach``,
``ws=None``). Engines are made once per device, on first use (``engine_for``), by the device's kind
(wsarray/_devices/kinds.py): CuPy's in ``wsarray/cuda/engine.py`` (CuPy is imported then), the
fake device's in ``fake.py``.
"""

import threading

from .._device import CPU, Device
from . import kinds

__all__ = ["engine_for", "forget_engine", "resolve", "usable_devices"]

_engines = {}
_lock = threading.RLock()


def engine_for(device, fn):
    """The engine of ``device`` (a ``wsarray.Device``; None for the CPU), made on first use; a device
    that cannot be used raises its kind's error naming ``wsarray.<fn>()`` (for CUDA,
    ``wsarray.cuda.CudaUnavailableError`` saying what is missing)."""
    if device == CPU:
        return None
    engine = _engines.get(device)
    if engine is not None:
        return engine
    kind = kinds.get(device.kind)
    kind.require(device, fn)
    with _lock:
        engine = _engines.get(device)
        if engine is None:
            engine = _engines[device] = kind.engine(device)
    return engine


def forget_engine(device):
    """Drop the engine of ``device`` (the fake device's, when a test disables it)."""
    with _lock:
        _engines.pop(device, None)


def usable_devices():
    """The devices other than the CPU that arrays can be put on here, kind by kind (CUDA GPUs CuPy
    can use, probed once, lazily; the fake devices a test enabled)."""
    return tuple(Device(f"{kind.name}:{i}") for kind in kinds.registered() for i in kind.usable())


def resolve(root, name):
    """``root.<dotted name>`` ('linalg.inv'), or None: an engine's function of wsarray's name."""
    obj = root
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj
