"""``wsarray.<name>(...)`` with arrays on a device, or ``device=`` a device: the engine's function of that name.

The compiled namespace hands a call here only where host calls never go (src/python/calls/device_arrays.cpp):
when an operand is a DeviceArray (on the path that already checks every call for other array
libraries) or when ``device=`` names a device other than the CPU. ``call`` runs the engine's function
of the same name (``cupy.linalg.inv`` for ``wsarray.linalg.inv``; NumPy's aliases of the standard's
names, ``concat`` -> ``concatenate``, when the engine lacks the standard's) on the operands' native
arrays and wraps what comes back. A function the engine lacks raises ``NotImplementedError`` naming
it: there is never a silent round trip through the host. The only transfers are the ones asked for:
``device=`` on a creation function (``asarray(host, device="cuda:0")``, ``asarray(x, device="cpu")``).
"""

import numpy

from .. import _native
from .._device import CPU, Device, check_usable, parse_device
from .array import DeviceArray, device_of, mismatch, to_device_from_host, wrap
from .engines import engine_for

__all__ = ["call", "config_device", "hook", "host_to_device", "numpy_device_error"]

# NumPy's names for the standard's, for engines (CuPy) that have only NumPy's.
_ALIASES = {"concat": "concatenate", "permute_dims": "transpose", "pow": "power", "acos": "arccos",
            "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh", "atan": "arctan", "atan2": "arctan2",
            "atanh": "arctanh", "bitwise_left_shift": "left_shift", "bitwise_right_shift": "right_shift",
            "bitwise_invert": "invert"}

# Functions whose device= moves data (or makes it) where asked: the explicit transfers.
_TRANSFERS = {"asarray", "array", "from_dlpack", "astype", "asanyarray", "ascontiguousarray", "copy",
              "empty_like", "zeros_like", "ones_like", "full_like"}


def _engine_function(engine, name):
    func = engine.function(name)
    if func is None and name in _ALIASES:
        func = engine.function(_ALIASES[name])
    if func is None:
        raise NotImplementedError(
            f"wsarray.{name}(): {engine.kind} has no '{name}' for arrays on '{engine.device}'; wsarray "
            "never runs a device array through the host implicitly: move it with .to_device('cpu') first"
        )
    return func


def _devices_in(values):
    found = []
    for v in values:
        items = v if isinstance(v, (list, tuple)) else (v,)
        for item in items:
            d = device_of(item)
            if d is not None and d not in found:
                found.append(d)
    return found


def _natives(value, engine, fn, seen, host_ok):
    """``value`` for the engine: device arrays as native arrays (recorded in ``seen``), lists and
    tuples item by item; a host array is refused unless ``host_ok`` (a transfer asked by device=)."""
    if type(value) is DeviceArray:
        if value._engine is not engine:
            raise mismatch(fn, (engine.device, value.device))
        native = value._use(fn)
        seen[id(native)] = value
        return native
    if type(value) is _native.Array:
        if numpy.isscalar(value) or host_ok:
            return numpy.asarray(value) if not numpy.isscalar(value) else numpy.asarray(value)[()]
        raise mismatch(fn, (engine.device, CPU))
    if isinstance(value, numpy.ndarray) and not host_ok and value.ndim:
        raise mismatch(fn, (engine.device, CPU))
    if isinstance(value, (list, tuple)) and type(value) in (list, tuple):
        return type(value)(_natives(v, engine, fn, seen, host_ok) for v in value)
    return value


def call(name, args, kwargs, device=None, func=None):
    """Run the engine's ``name`` (or ``func``, an engine-level callable: a fused kernel) on
    ``args``/``kwargs`` (device arrays among them, or ``device``)."""
    values = list(args) + list(kwargs.values())
    devices = _devices_in(values)
    on_device = [d for d in devices if d != CPU]
    if device is None:
        if len(devices) > 1:
            raise mismatch(name, devices)
        if not on_device:
            raise TypeError(f"wsarray.{name}(): no array on a device among the arguments")
        device = on_device[0]
    elif name not in _TRANSFERS and any(d != device for d in devices):
        raise mismatch(name, [device, *devices])
    engine = engine_for(device, name)
    host_ok = name in _TRANSFERS
    seen = {}
    if host_ok and devices and any(d != device for d in on_device):  # device to device: via the host
        args = [_to_host(a) for a in args]
    nargs = [_natives(a, engine, name, seen, host_ok) for a in args]
    nkwargs = {k: _natives(v, engine, name, seen, host_ok) for k, v in kwargs.items()}
    if func is None:
        func = _engine_function(engine, name)
    result = func(*nargs, **nkwargs)
    return wrap(engine, engine.adopt(result), seen)


def _to_host(value):
    return value.get() if type(value) is DeviceArray else value


def hook(name, func, args, kwargs):
    """The compiled namespace's entry (``_native._set_device_dispatch``): ``wsarray.<name>`` called with
    a device array among its operands, or with ``device=`` other than 'cpu'. NotImplemented: the
    host's path goes on (a device= wsarray does not know keeps NumPy's own error)."""
    if "device" in kwargs and kwargs["device"] is not None:
        kwargs = dict(kwargs)
        spec = kwargs.pop("device")
        try:
            device = Device(spec, fn=name)
        except (TypeError, ValueError):
            return NotImplemented  # NumPy's "Device not understood" (wsarray's reworded message)
        if device == CPU:
            if not _devices_in(list(args) + list(kwargs.values())):
                return NotImplemented  # 'CPU', Device('cpu'), ...: NumPy's own answer, as before
            return _to_cpu(name, func, args, kwargs)
        return call(name, args, kwargs, device=device)
    return call(name, args, kwargs)


def _to_cpu(name, func, args, kwargs):
    """``device='cpu'`` with device arrays: a host result from their host copies (transfers only)."""
    if name not in _TRANSFERS:
        devices = [d for d in _devices_in(list(args) + list(kwargs.values())) if d != CPU]
        raise mismatch(name, [CPU, *devices])
    import functools
    import sys

    host = functools.reduce(getattr, name.split("."), sys.modules["wsarray"])  # the namespace's function
    return host(*[_to_host(a) for a in args], **{k: _to_host(v) for k, v in kwargs.items()}, device="cpu")


def from_dlpack_on(device, obj, copy):
    """``wsarray.from_dlpack`` of an object in the memory of ``device`` (a kind's from_dlpack: CUDA
    for CuPy, torch, JAX arrays on a GPU)."""
    engine = engine_for(Device(device), "from_dlpack")
    return DeviceArray(engine.from_dlpack(obj, copy), engine)


# ---- what the compiled core and the namespace ask of the device layer --------------------------

def config_device(device, fn):
    """``WorkspaceConfig(device=...)`` (the core's hook): '' for the CPU, else the device's name once
    it is known to be usable (its kind's error otherwise)."""
    d = check_usable(device, fn)
    return "" if d == CPU else str(d)


def host_to_device(array, device, fn):
    """``x.to_device(device)`` of a host Array (the core's hook): the Array itself for the CPU, else
    a copy on that device (allocated like the device's other arrays: in its innermost open
    workspace)."""
    engine = engine_for(parse_device(device, fn), fn)
    return array if engine is None else to_device_from_host(array, engine)


def numpy_device_error(message, fn):
    """The error to raise instead of NumPy's ``Device not understood ... received: X`` for a
    ``device=`` argument of ``wsarray.<fn>()`` (None: keep NumPy's). The core's hook, called on that
    error path only."""
    spec = message.rsplit("received:", 1)[-1].strip()
    try:
        d = Device(spec, fn=fn)
    except ValueError:
        return None  # not a device wsarray knows either: NumPy's message stands
    try:
        engine_for(d, fn)
    except Exception as e:  # noqa: BLE001 - the error itself is the answer
        return e
    return None


def install():
    DeviceArray._call = staticmethod(call)  # the device array's protocols run the engine's functions
    _native._set_device_dispatch(DeviceArray, hook)
