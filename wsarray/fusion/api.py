"""``wsarray.fuse``: CuPy's ``cupy.fuse`` for wsarray: one pass over cache-sized blocks.

``@wsarray.fuse`` (or ``wsarray.fuse(f)``) wraps an elementwise function of arrays and scalars
(arithmetic, comparisons, the standard's elementwise math, ``where``, ``astype``), optionally
ending in a reduction (``sum``, ``prod``, ``max``, ``min``, ``mean``, ``any``, ``all``, ``axis``
allowed). It is traced once per signature (the dtypes and ranks of the array arguments and the
types of the scalar ones) and then runs block by block (blocks.py): no full-size temporaries, the
result (allocated in the current workspace) equal to evaluating the function with NumPy, bit for
bit. A body fuse cannot trace (data-dependent Python control flow, an unsupported function) runs
normally instead, with a ``FuseWarning`` the first time: never a wrong result.
"""

import collections
import functools
import math
import warnings
from collections.abc import Callable
from typing import Any, overload

import numpy as np

from . import blocks
from .plan import Plan
from .trace import REDUCTIONS, TraceError, trace

__all__ = ["FuseWarning", "fuse"]


class FuseWarning(UserWarning):
    """A fused function could not be traced and runs as a plain Python function."""


_SCALARS = (bool, int, float, complex, np.generic)
_EAGER_UP_TO = 16384  # elements: below this the function's own calls are faster than blocks
_PLANS_KEPT = 128  # plans per fused function (the least recently used go first)


def _value_key(v):
    """A scalar's value, exactly (the sign of a zero, a NaN's bits), as a dictionary key."""
    if isinstance(v, np.generic):
        return (v.dtype.str, v.tobytes())
    if type(v) is float:
        return (float, v.hex())
    if type(v) is complex:
        return (complex, v.real.hex(), v.imag.hex())
    return (type(v), v)


def _values_key(scalars):
    return tuple((k, _value_key(v)) for k, v in sorted(scalars.items()))


def _cell_key(cell):
    try:
        v = cell.cell_contents
    except ValueError:  # not bound yet
        return None
    return _value_key(v) if isinstance(v, _SCALARS) else id(v)


def _other_value(v):
    """A scalar of the same type and another value, for a second trace."""
    if isinstance(v, (bool, np.bool_)):
        return type(v)(not v)
    if isinstance(v, (int, np.integer)):
        return type(v)(v - 1 if v > 0 else v + 1)
    if isinstance(v, (float, np.floating)):
        return type(v)(v * 0.5 + 0.375 if np.isfinite(v) and v != 0.375 else 0.625)
    return type(v)(v * 0.5 + (0.375 + 0.25j))  # complex


def _depends_on_values(fused, arrays, scalars, nodes):
    """Trace again with other scalar values: does the graph differ (a value computed from them by
    NumPy, ``numpy.sqrt(s)``, baked in as a constant; another branch taken)? The tracer itself
    sees what Python code does with them (trace.py, _Scalar)."""
    others = {k: _other_value(v) for k, v in scalars.items()}
    try:
        other_nodes, _, dependent = trace(fused._func, fused._trace_args(arrays, others))
    except Exception:  # noqa: BLE001 - another value fails or takes another path: value-dependent
        return True
    if dependent or len(other_nodes) != len(nodes):
        return True
    for a, b in zip(nodes, other_nodes):
        if (a.kind, a.fn, [x.index for x in a.args], repr(a.kwargs)) != \
                (b.kind, b.fn, [x.index for x in b.args], repr(b.kwargs)):
            return True
        if a.kind == "const" and a.position is None and _value_key(a.value) != _value_key(b.value):
            return True
    # `x ** s`: NumPy picks the loop by the exponent's value (plan.py, _as_numpys_scalar_power).
    return any(n.fn is np.power and len(n.args) == 2 and n.args[1].kind == "const"
               and n.args[1].position is not None for n in nodes)


class Fused:
    """A function compiled by ``wsarray.fuse`` (call it as the function itself)."""

    def __init__(self, func: Callable[..., Any], kernel_name: str | None = None) -> None:
        if not callable(func):
            raise TypeError(f"wsarray.fuse(): expected a function, not {type(func).__name__}")
        self._func = func
        self._name = kernel_name or getattr(func, "__name__", "fused")
        self._plans = collections.OrderedDict()  # signature -> Plan, or the TraceError that stopped tracing
        self._by_value = {}  # signature -> whether its plans hold for their scalar values only
        self._warned = False
        self._device_kernels = {}  # device -> the engine's fused function (cupy.fuse)
        functools.update_wrapper(self, func)

    def __repr__(self) -> str:
        return f"<wsarray.fuse of {self._name}>"

    def _signature(self, arrays, scalars):
        # Closure variables are read when the function is traced: their values are in the key.
        cells = getattr(self._func, "__closure__", None) or ()
        return (tuple((k, a.dtype.str, a.ndim) for k, a in sorted(arrays.items())),
                tuple((k, type(v)) for k, v in sorted(scalars.items())),
                tuple(_cell_key(c) for c in cells))

    def _plan(self, arrays, scalars):
        base = self._signature(arrays, scalars)
        # A plan rebinds the scalar arguments it uses as they are; one that computed something
        # from their values while tracing (s * 2, math.sqrt(s), an `if s > 0`) holds for those
        # values only, and is keyed by them.
        key = (base, _values_key(scalars)) if self._by_value.get(base) else base
        plan = self._plans.get(key)
        if plan is not None:
            self._plans.move_to_end(key)
            return plan
        try:
            nodes, output, dependent = trace(self._func, self._trace_args(arrays, scalars))
            if scalars and base not in self._by_value:
                self._by_value[base] = dependent or _depends_on_values(self, arrays, scalars, nodes)
                if self._by_value[base]:
                    key = (base, _values_key(scalars))
            inputs = {k: (a.dtype, a.ndim) for k, a in arrays.items()}
            plan = Plan(nodes, output, inputs, scalars)
        except TraceError as e:
            plan = e
        self._plans[key] = plan
        if len(self._plans) > _PLANS_KEPT:
            self._plans.popitem(last=False)
        return plan

    def _trace_args(self, arrays, scalars):
        n = len(arrays) + len(scalars)
        return [arrays[k] if k in arrays else scalars[k] for k in range(n)]

    def __call__(self, *args: Any, out: Any = None, **kwargs: Any) -> Any:
        """Call the function on ``args``; ``out=`` (an array of the result's shape, any strides:
        ``u[1:-1, 1:-1]``, of its dtype or one NumPy casts it to under ``same_kind``) receives an
        elementwise result instead of a new array."""
        from .._native import Array
        if not kwargs and _small_same_shape(args, Array):
            # Every temporary fits in cache anyway, and the function's own calls (wsarray's fast
            # paths) cost less than planning and running blocks.
            return self._eager(args, out)
        device_fused = _on_device(self, args, kwargs, out)
        if device_fused is not None:
            return device_fused
        if kwargs:
            return self._fallback(f"keyword arguments ({', '.join(kwargs)})", args, kwargs, out)
        arrays, scalars = {}, {}
        for k, a in enumerate(args):
            if isinstance(a, _SCALARS) and np.ndim(a) == 0 and type(a) is not Array:
                scalars[k] = a
            elif isinstance(a, (Array, np.ndarray)) and type(a) in (Array, np.ndarray):
                arrays[k] = np.asarray(a)  # a view (an Array checks its cycle here)
            else:
                return self._fallback(f"an argument of type {type(a).__name__}", args, kwargs, out)
        if not arrays:
            return self._fallback("no array argument", args, kwargs, out)
        try:
            shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
        except ValueError:
            return self._eager(args, out)  # NumPy's own broadcasting error, from the function itself
        if 0 in shape or any(a.dtype.kind not in "biufc" for a in arrays.values()):
            return self._eager(args, out)
        if math.prod(shape) <= _EAGER_UP_TO:
            return self._eager(args, out)  # small once broadcast (see _small_same_shape)
        try:
            plan = self._plan(arrays, scalars)
        except Exception:  # noqa: BLE001 - NumPy refuses these values: the function raises it itself
            return self._eager(args, out)
        if isinstance(plan, TraceError):
            return self._fallback(str(plan), args, kwargs, out)
        if out is not None:
            target = _writable_target(out)
            if plan.reduction is not None or target.shape != shape or target.dtype != plan.out_dtype:
                return self._eager(args, out)
            if any(np.shares_memory(target, a) for a in arrays.values()):
                return self._eager(args, out)  # the blocks would read what they already wrote
            with blocks.numpy_errors_noted() as noted:
                blocks.run(plan, arrays, scalars, shape, target)
            return self._eager(args, out) if noted else out
        with blocks.numpy_errors_noted() as noted:
            result = self._run(plan, arrays, scalars, shape)
        return self._eager(args, None) if noted else result

    def _eager(self, args, out):  # also redoes a run whose floating-point errors must be reported
        """The function itself; an out= gets its result under a ufunc's out= rule (same-kind
        casting: a float result into an int array is NumPy's casting error, not a truncation)."""
        result = self._func(*args)
        if out is None:
            return result
        np.copyto(out, result, casting="same_kind")
        return out

    def _run(self, plan, arrays, scalars, shape):
        from .. import _array_api as wnp  # wsarray's functions: results in the current workspace

        red = plan.reduction
        contiguous = blocks.contiguous_inputs(arrays, shape)
        if red is None:
            out = wnp.empty(shape, dtype=plan.out_dtype)  # in the current workspace
            blocks.run(plan, arrays, scalars, shape, np.asarray(out))
            return out
        kind = plan.dtypes[plan.elementwise_out.index]
        whole = red.kwargs["axis"] is None and not red.kwargs["keepdims"]
        if red.fn in ("sum", "prod"):
            # NumPy sums and multiplies bools and small integers in the default integer (a sum
            # of a mask counts it): in blocks only where it keeps the elementwise dtype.
            exact_in_blocks = (kind.kind in "fc" and kind.itemsize >= 4) or \
                (kind.kind in "iu" and _reduced_dtype(red.fn, kind) == kind)
        elif red.fn == "mean":  # NumPy's mean of integers accumulates in float64
            exact_in_blocks = kind.kind in "fc" and kind.itemsize >= 4
        else:
            exact_in_blocks = True
        if whole and contiguous and exact_in_blocks and len(shape) >= 1:
            result = blocks.run(plan, arrays, scalars, shape, None)
            return wnp.asarray(np.asarray(result, dtype=plan.out_dtype))[()]
        # The elementwise part in blocks, into one temporary (in the inputs' memory order, as
        # NumPy's elementwise result: the reduction then adds in NumPy's order); NumPy's reduction.
        order = "F" if _fortran_inputs(arrays, shape) else "C"
        temp = wnp.empty(shape, dtype=kind, order=order)
        blocks.run(_elementwise_part(plan), arrays, scalars, shape, np.asarray(temp))
        fn = getattr(wnp, red.fn)
        return fn(temp, axis=red.kwargs["axis"], keepdims=red.kwargs["keepdims"])

    def _fallback(self, why, args, kwargs, out=None):
        if not self._warned:
            self._warned = True
            warnings.warn(f"wsarray.fuse: {self._name} runs unfused: {why}", FuseWarning, stacklevel=3)
        if kwargs:
            return self._func(*args, **kwargs) if out is None else self._eager_kw(args, kwargs, out)
        return self._eager(args, out)

    def _eager_kw(self, args, kwargs, out):
        out[...] = self._func(*args, **kwargs)
        return out


def _elementwise_part(plan):
    """The plan without its final reduction (same nodes, the reduction's operand as output); made
    once per plan (the blocks keep a compiled program per plan)."""
    part = plan.__dict__.get("_elementwise_part")
    if part is None:
        part = object.__new__(Plan)
        part.__dict__.update(plan.__dict__)
        part.reduction = None
        part.output = plan.elementwise_out
        part.out_dtype = plan.dtypes[plan.elementwise_out.index]
        plan._elementwise_part = part
    return part


@functools.lru_cache(maxsize=None)
def _reduced_dtype(name, dtype):
    """The dtype NumPy's ``name`` (sum, prod) of a ``dtype`` array has."""
    return getattr(np, name)(np.ones(1, dtype)).dtype


def _fortran_inputs(arrays, shape):
    """Do the full-shape array inputs lie in Fortran order (and not C order)?"""
    full = [a for a in arrays.values() if a.shape == tuple(shape)]
    return len(shape) > 1 and bool(full) and all(a.flags.f_contiguous and not a.flags.c_contiguous for a in full)


@overload
def fuse(func: Callable[..., Any], *, kernel_name: str | None = None) -> Fused: ...
@overload
def fuse(func: None = None, *, kernel_name: str | None = None) -> Callable[[Callable[..., Any]], Fused]: ...


def fuse(func: Callable[..., Any] | None = None, *, kernel_name: str | None = None) -> Any:
    """Fuse an elementwise function (see the module docstring): ``@wsarray.fuse`` or ``fuse(f)``."""
    if func is None:
        return lambda f: Fused(f, kernel_name)
    return Fused(func, kernel_name)


_ = REDUCTIONS


def _writable_target(out):
    """``out`` as the ndarray the blocks write, refused as a ufunc's ``out=`` refuses it: a stale
    wsarray array (WorkspaceError), a read-only array (NumPy's ValueError), not an array at all."""
    from .._native import Array, WorkspaceError
    if type(out) is Array:
        try:
            target = out.__array__()  # checks its cycle
        except WorkspaceError as e:
            raise WorkspaceError(str(e).replace("wsarray.ndarray.__array__()", "wsarray.fuse() (out=)")) from None
    elif isinstance(out, np.ndarray):
        target = out
    else:
        raise TypeError(f"wsarray.fuse: out must be an array, not {type(out).__name__}")
    if not target.flags.writeable:
        raise ValueError("output array is read-only")
    return target


def _on_device(fused, args, kwargs, out):
    """Arrays on a device: the device engine fuses the function (``cupy.fuse``; the fake device's
    engine runs it). None when no argument is on a device."""
    from .._devices.array import DeviceArray
    from .._devices.dispatch import call

    if not any(type(a) is DeviceArray for a in (*args, *kwargs.values(), out)):
        return None
    engine = next(a._engine for a in (*args, *kwargs.values(), out) if type(a) is DeviceArray)
    if engine.device not in fused._device_kernels:
        fused._device_kernels[engine.device] = engine.fuse(fused._func)
    kernel = fused._device_kernels[engine.device]
    if kernel is None:  # an engine without fusion: the function itself, call by call on the device
        result = fused._func(*args, **kwargs)
        if out is not None:
            out[...] = result
            return out
        return result
    if out is not None:
        kwargs = {**kwargs, "out": out}
    return call("fuse", args, kwargs, device=engine.device, func=kernel)


def _small_same_shape(args, array_type):
    """Are the array arguments all of one shape of at most _EAGER_UP_TO elements (the rest
    Python or NumPy scalars)? Checked before anything else: small calls must stay cheap."""
    shape = None
    for a in args:
        t = type(a)
        if t is array_type or t is np.ndarray:
            if shape is None:
                shape = a.shape
            elif a.shape != shape:
                return False
        elif not isinstance(a, _SCALARS):
            return False
    return shape is not None and math.prod(shape) <= _EAGER_UP_TO
