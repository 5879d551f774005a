"""Arrays on a device: ``wsarray.Array`` objects whose data is an engine's array (CuPy's on ``cuda:N``).

A ``DeviceArray`` wraps its engine's native array (``cupy.ndarray``; a ``numpy.ndarray`` over fake
device memory on the test-only ``fake:N``). Its memory comes from the innermost open device
workspace of its device on this thread, else from the engine's own allocator, and it carries the
host's stale guarantee: a ``_native._CycleToken`` made from its block's address names the workspace
cycle, and every use checks it first (``WorkspaceError``, the host's message). It is not the host
type ``wsarray.Array`` (a NumPy ndarray subclass over host memory): ``isinstance(x, numpy.ndarray)``
does not hold (NumPy code must not take it for host memory) and ``type(x)`` tells the two apart
(``wsarray.DeviceArray`` the one, ``wsarray.Array`` the other). No implicit transfers:
``numpy.asarray(x)`` raises ``TypeError`` (as CuPy's does), mixing devices in one operation
raises ``DeviceMismatchError``; ``.to_device()``, ``.get()`` and DLPack are the explicit ways.
Operators and methods run on the engine.
"""

import operator

import numpy

import sys

from .. import _native
from .._device import CPU, Device, parse_device
from .engines import engine_for
from .workspace import _open_stack

__all__ = ["DeviceArray", "DeviceMismatchError", "wrap"]


class DeviceMismatchError(ValueError, TypeError):
    """Arrays on different devices met in one operation (wsarray never copies implicitly). A
    ValueError (the array API's) and a TypeError (CuPy's, given a NumPy array)."""


def _host_array_types():
    return (numpy.ndarray, _native.Array)


def device_of(x):
    """The device of an array operand: its Device for a device array, CPU for host arrays, None
    for anything else (Python and NumPy scalars, lists)."""
    if type(x) is DeviceArray:
        return x._engine.device
    if isinstance(x, _host_array_types()) and not numpy.isscalar(x):
        return CPU
    return None


def mismatch(fn, devices):
    names = " and ".join(sorted({repr(str(d)) for d in devices}))
    return DeviceMismatchError(
        f"wsarray.{fn}(): arrays on different devices ({names}); wsarray never copies between devices "
        "implicitly: move one explicitly with .to_device(...)"
    )


def _native_attribute(name):
    """A read-only property answering the native array's attribute ``name`` after the stale check."""

    def get(self):
        return getattr(self._use(f"ndarray.{name}"), name)

    get.__name__ = name
    return property(get, doc=f"The array's {name} (NumPy's meaning).")


def wrap(engine, result, seen=None):
    """Native arrays in ``result`` (also in its tuples and lists) as DeviceArrays; ``seen`` maps
    id(native) of the call's own operands back to their DeviceArray (an out= array comes back)."""
    if isinstance(result, engine.native_type) and engine.owns(result):
        if seen and id(result) in seen:
            return seen[id(result)]
        return DeviceArray(result, engine)
    if isinstance(result, tuple):
        items = [wrap(engine, r, seen) for r in result]
        return type(result)._make(items) if hasattr(type(result), "_make") else tuple(items)
    if isinstance(result, list):
        return [wrap(engine, r, seen) for r in result]
    return result


def to_device_from_host(array, engine):
    """A device copy of host array ``array`` (the explicit transfer: to_device, asarray(device=))."""
    return DeviceArray(engine.to_device(numpy.asarray(array)), engine)


def _binary(name, reflected=False):
    op = getattr(operator, name)

    def method(self, other):
        native = self._use(f"ndarray.__{name}__")
        other = self._operand(other, f"ndarray.__{name}__")
        if other is NotImplemented:
            return NotImplemented
        result = op(other, native) if reflected else op(native, other)
        return wrap(self._engine, self._engine.adopt(result))

    method.__name__ = f"__r{name.strip('_')}__" if reflected else f"__{name.strip('_')}__"
    return method


def _inplace(name):
    op = getattr(operator, f"i{name}")

    def method(self, other):
        native = self._use(f"ndarray.__i{name}__")
        other = self._operand(other, f"ndarray.__i{name}__")
        if other is NotImplemented:
            return NotImplemented
        result = op(native, other)
        if result is not native:  # an engine that could not work in place
            return wrap(self._engine, self._engine.adopt(result))
        return self

    method.__name__ = f"__i{name}__"
    return method


def _unary(name):
    op = getattr(operator, name)

    def method(self):
        return wrap(self._engine, self._engine.adopt(op(self._use(f"ndarray.__{name}__"))))

    method.__name__ = f"__{name}__"
    return method


class DeviceArray:
    """An array on a device (see the module text); made by wsarray's functions, never directly."""

    __slots__ = ("_native", "_engine", "_token", "__weakref__")
    __array_priority__ = 100  # NumPy's binary operators defer to it (then DeviceMismatchError)

    def __init__(self, native, engine):
        self._native = native
        self._engine = engine
        self._token = _native._cycle_token(engine.address(native)) if native.size else None

    # ---- the stale check, operands -------------------------------------------------------
    def _use(self, fn):
        """The native array, after the stale check (WorkspaceError naming wsarray.<fn>())."""
        token = self._token
        if token is not None:
            token.check(fn)
        return self._native

    def _operand(self, other, fn):
        """``other`` for the engine: a device array of this device as its native array, scalars as
        they are; an array on another device (the host included) raises DeviceMismatchError."""
        if type(other) is DeviceArray:
            if other._engine is not self._engine:
                raise mismatch(fn, (self.device, other.device))
            return other._use(fn)
        if isinstance(other, _host_array_types()):
            if numpy.isscalar(other):  # a scalar result of the host, or a NumPy scalar
                return numpy.asarray(other)[()]
            raise mismatch(fn, (self.device, CPU))
        return other

    def __array_namespace__(self, *, api_version=None):
        namespace = sys.modules["wsarray"]  # the namespace these arrays belong to (imported already)
        return namespace.__array_namespace__(api_version=api_version) if api_version else namespace

    # ---- properties ------------------------------------------------------------------------
    @property
    def device(self):
        return self._engine.device

    shape = _native_attribute("shape")
    dtype = _native_attribute("dtype")
    ndim = _native_attribute("ndim")
    size = _native_attribute("size")
    itemsize = _native_attribute("itemsize")
    nbytes = _native_attribute("nbytes")
    strides = _native_attribute("strides")

    @property
    def T(self):  # noqa: N802 (NumPy's name)
        return wrap(self._engine, self._use("ndarray.T").T)

    @property
    def mT(self):  # noqa: N802 (the standard's name)
        native = self._use("ndarray.mT")
        if native.ndim < 2:
            raise ValueError("wsarray.ndarray.mT: the array must have at least 2 dimensions")
        return wrap(self._engine, native.swapaxes(-1, -2))

    def __getattr__(self, name):
        # Every other attribute or method of the engine's array (sum, reshape, astype, copy, real,
        # ...), run on the device; its arrays come back as DeviceArrays.
        if name.startswith("__") or name in DeviceArray.__slots__:
            raise AttributeError(name)
        native = self._use(f"ndarray.{name}")
        try:
            attr = self._engine.method(native, name)
        except AttributeError:
            raise AttributeError(f"wsarray.ndarray on {self.device} has no attribute {name!r} "
                                 f"({self._engine.kind} has none)") from None
        if not callable(attr):
            return wrap(self._engine, attr)
        engine = self._engine

        def method(*args, **kwargs):
            args = [self._operand(a, f"ndarray.{name}") for a in args]
            kwargs = {k: self._operand(v, f"ndarray.{name}") for k, v in kwargs.items()}
            return wrap(engine, attr(*args, **kwargs), {id(native): self})

        method.__name__ = name
        return method

    # ---- Python protocols ------------------------------------------------------------------
    def __len__(self):
        return len(self._use("ndarray.__len__"))

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __getitem__(self, key):
        native = self._use("ndarray.__getitem__")
        key = self._index(key)
        return wrap(self._engine, self._engine.adopt(native[key]), {id(native): self})

    def __setitem__(self, key, value):
        native = self._use("ndarray.__setitem__")
        native[self._index(key)] = self._operand(value, "ndarray.__setitem__")

    def _index(self, key):
        if isinstance(key, tuple):
            return tuple(self._operand(k, "ndarray.__getitem__") for k in key)
        return self._operand(key, "ndarray.__getitem__")

    def __bool__(self):
        return bool(self._use("ndarray.__bool__"))

    def __float__(self):
        return float(self._use("ndarray.__float__"))

    def __int__(self):
        return int(self._use("ndarray.__int__"))

    def __complex__(self):
        return complex(self._use("ndarray.__complex__"))

    def __index__(self):
        return operator.index(self._use("ndarray.__index__"))

    def __repr__(self):
        host = self._engine.to_host(self._use("ndarray.__repr__"))
        return f"{numpy.array_repr(host)[:-1]}, device='{self.device}')"

    def __str__(self):
        return str(self._engine.to_host(self._use("ndarray.__str__")))

    def __hash__(self):
        raise TypeError("unhashable type: 'wsarray.ndarray'")

    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            f"wsarray.ndarray.__array__(): this array is on device '{self.device}'; it is not converted to "
            "a NumPy array implicitly. Use .to_device('cpu') or .get() for a host copy"
        )

    def __reduce__(self):
        return (_rebuild, (self.get(), str(self.device)))

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    # ---- NumPy's override protocols: numpy.exp(x), numpy.sum(x) run on the engine ----------
    # The engine's function of that name, through wsarray._devices.dispatch (set there: it imports
    # this module, not the other way round).
    _call = None

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        name = ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"
        return DeviceArray._call(name, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        module = getattr(func, "__module__", "") or ""
        sub = module.split(".")[1] if module.startswith("numpy.") and not module.startswith("numpy._") else ""
        name = f"{sub}.{func.__name__}" if sub in ("linalg", "fft", "random") else func.__name__
        return DeviceArray._call(name, args, kwargs)

    # ---- transfers, DLPack -----------------------------------------------------------------
    def get(self, stream=None):
        """A host copy (a numpy.ndarray), as CuPy's ``get()``."""
        native = self._use("ndarray.get")
        if stream is not None:
            return native.get(stream=stream)
        return self._engine.to_host(native)

    def to_device(self, device, /, *, stream=None):
        """This array on ``device``: itself on its own device; otherwise a copy ('cpu': a host
        wsarray.Array allocated like any host array, in the current host workspace)."""
        native = self._use("ndarray.to_device")
        target = parse_device(device, "ndarray.to_device")
        if target == self.device:
            return self
        if stream is not None and target == CPU:
            raise ValueError("wsarray.ndarray.to_device(): the CPU has no streams; stream must be None")
        host = self._engine.to_host(native)
        if target == CPU:
            return sys.modules["wsarray"].asarray(host)  # a host array, in the current host workspace
        engine = engine_for(target, "ndarray.to_device")
        return DeviceArray(engine.to_device(host), engine)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        native = self._use("ndarray.__dlpack__")
        kwargs = {k: v for k, v in (("stream", stream), ("max_version", max_version),
                                    ("dl_device", dl_device), ("copy", copy)) if v is not None}
        return native.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._engine.dlpack_device(self._use("ndarray.__dlpack_device__"))

    # ---- workspace membership (the host Array's API) ----------------------------------------
    def _copy_in(self, workspace, fn):
        native = self._use(fn)
        with self._engine.allocating(workspace):
            return DeviceArray(self._engine.copy(native), self._engine)

    def detach(self):
        """An independent copy outside every workspace (the engine's own memory)."""
        return self._copy_in(None, "ndarray.detach")

    def _open_workspaces(self):
        return [ws for ws in _open_stack() if ws.device == self.device]

    def leverage(self):
        """A copy in the workspace of this device open just outside this array's (detached if none)."""
        self._use("ndarray.leverage")
        if self._token is None:
            return self
        stack = self._open_workspaces()
        names = [ws._ws.name for ws in stack]
        if self._token.workspace in names:
            outer = stack[: names.index(self._token.workspace)]
            return self._copy_in(outer[-1] if outer else None, "ndarray.leverage")
        return self._copy_in(None, "ndarray.leverage")

    def leverage_to(self, name):
        """A copy in the open workspace ``name`` of this device (the array itself if it is there)."""
        if not isinstance(name, str):
            raise TypeError("wsarray.ndarray.leverage_to(): the workspace name must be a str, "
                            f"not {type(name).__name__}")
        self._use("ndarray.leverage_to")
        target = [ws for ws in self._open_workspaces() if ws._ws.name == name]
        if not target:
            raise _native.WorkspaceError(
                f"wsarray.ndarray.leverage_to(): workspace '{name}' of device '{self.device}' has no open cycle on "
                "this thread; leverage_to() copies into a workspace whose 'with' block encloses the current code")
        if self._token is not None and self._token.workspace == name:
            return self
        return self._copy_in(target[-1], "ndarray.leverage_to")

    def is_attached(self):
        """True if the array's memory belongs to a workspace."""
        return self._token is not None

    def is_in_scope(self):
        """True if the array belongs to a workspace whose cycle is still open."""
        return self._token is not None and self._token.in_scope

    @property
    def workspace(self):
        """Name of the workspace the memory belongs to (None: the engine's own memory)."""
        return None if self._token is None else self._token.workspace

    # ---- operators ------------------------------------------------------------------------
    for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and_", "or_", "xor",
                  "lshift", "rshift"):
        _plain = _name.rstrip("_")
        locals()[f"__{_plain}__"] = _binary(_name)
        locals()[f"__r{_plain}__"] = _binary(_name, reflected=True)
        locals()[f"__i{_plain}__"] = _inplace(_name.rstrip("_") if _name.endswith("_") else _name)
    for _name in ("lt", "le", "gt", "ge", "eq", "ne"):
        locals()[f"__{_name}__"] = _binary(_name)
    for _name in ("neg", "pos", "abs", "invert"):
        locals()[f"__{_name}__"] = _unary(_name)
    del _name, _plain


def _rebuild(host, device):
    """Unpickle a device array (pickles hold a host copy)."""
    engine = engine_for(Device(device), "ndarray.__setstate__")
    return DeviceArray(engine.to_device(host), engine)

