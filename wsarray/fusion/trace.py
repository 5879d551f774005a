"""Tracing a fused function: run it once on proxies that record what it does.

A ``Proxy`` stands for an array input (or an intermediate value) of the function being traced.
NumPy's ufuncs reach it through ``__array_ufunc__`` (so ``wsarray.exp(p)``, ``numpy.exp(p)`` and
``p * 2`` all record), NumPy's functions through ``__array_function__`` (``where``, ``clip``, the
reductions), and its own methods (``astype``, ``sum``, ...). Everything else ends the trace with a
``TraceError``: a conversion (``numpy.asarray(p)``, ``bool(p)`` in an ``if``, ``len(p)``), an
unsupported function, or a reduction that is not the last step. The caller then evaluates the
function normally (fuse.py), so an unsupported body is slower, never wrong.
"""

import operator

import numpy as np

__all__ = ["Const", "Input", "Node", "Proxy", "REDUCTIONS", "TraceError", "trace"]


class TraceError(Exception):
    """The function cannot be fused; the message says why."""


class Node:
    """A step of the traced graph: ``fn(*args, **kwargs)`` over earlier nodes and constants.

    ``kind`` is "ufunc" (a NumPy ufunc with one output), "where", "clip", "cast" (``astype``),
    "floor_divide" (the standard's, as wsarray's ``//``), "reduce" (one of REDUCTIONS, always the
    last node), "input" or "const".
    """

    __slots__ = ("kind", "fn", "args", "kwargs", "index")

    def __init__(self, kind, fn=None, args=(), kwargs=None):
        self.kind, self.fn, self.args, self.kwargs = kind, fn, tuple(args), dict(kwargs or {})
        self.index = -1

    def __repr__(self):
        name = getattr(self.fn, "__name__", self.fn)
        return f"Node({self.kind}, {name}, {[getattr(a, 'index', a) for a in self.args]})"


class Input(Node):
    __slots__ = ("position",)

    def __init__(self, position):
        super().__init__("input")
        self.position = position


class Const(Node):
    """A scalar argument of the fused function (its value is bound at each call) or a literal."""

    __slots__ = ("value", "position")

    def __init__(self, value, position=None):
        super().__init__("const")
        self.value, self.position = value, position


# Reductions a fused function may end with: name -> (NumPy function, its identity for empty input)
REDUCTIONS = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "mean": np.mean,
              "any": np.any, "all": np.all}
_REDUCTION_OF = {np.sum: "sum", np.prod: "prod", np.max: "max", np.min: "min", np.mean: "mean",
                 np.any: "any", np.all: "all", np.amax: "max", np.amin: "min"}


class Tracer:
    def __init__(self):
        self.nodes = []
        self.reduced = False
        self.value_dependent = False  # the function read a scalar argument's value (see _Scalar)

    def add(self, node):
        if self.reduced:
            raise TraceError("a reduction must be the last step of a fused function")
        node.index = len(self.nodes)
        self.nodes.append(node)
        return Proxy(self, node)

    def operand(self, x):
        """A node for an operand: a proxy's node, or a constant (Python or NumPy scalar)."""
        if isinstance(x, Proxy):
            if x._tracer is not self:
                raise TraceError("a value of another fused call was used")
            return x._node
        if isinstance(x, _Scalar):
            if x._tracer is self:
                return x._node  # the argument itself: its Const, bound at every call
            x = x._base(x)  # another trace's: its value
        if x is None or isinstance(x, (bool, int, float, complex, np.generic)):
            return self._const(x)
        raise TraceError(f"an operand of type {type(x).__name__} (only arrays given as arguments "
                         "and scalars can be fused)")

    def _const(self, value):
        node = Const(value)
        node.index = len(self.nodes)
        self.nodes.append(node)
        return node


def _ufunc_op(ufunc, reflected=False):
    def op(self, other):
        a, b = (other, self) if reflected else (self, other)
        return self._tracer.add(Node("ufunc", ufunc, (self._tracer.operand(a), self._tracer.operand(b))))
    return op


def _unary_op(ufunc):
    def op(self):
        return self._tracer.add(Node("ufunc", ufunc, (self._node,)))
    return op


class Proxy:
    """An array value inside a traced function (see the module docstring)."""

    __slots__ = ("_tracer", "_node")
    __array_priority__ = 1000

    def __init__(self, tracer, node):
        self._tracer, self._node = tracer, node

    # -- NumPy's protocols -------------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__":
            raise TraceError(f"{ufunc.__name__}.{method} cannot be fused")
        if ufunc.nout != 1:
            raise TraceError(f"{ufunc.__name__} has {ufunc.nout} outputs; fused functions use ufuncs with one")
        if kwargs:
            raise TraceError(f"{ufunc.__name__}() with {', '.join(sorted(kwargs))}= cannot be fused")
        args = tuple(self._tracer.operand(x) for x in inputs)
        return self._tracer.add(Node("ufunc", ufunc, args))

    def __array_function__(self, func, types, args, kwargs):
        if func is np.where and len(args) == 3 and not kwargs:
            return self._tracer.add(Node("where", np.where, tuple(self._tracer.operand(x) for x in args)))
        if func is np.clip:
            return _clip(self._tracer, *args, **kwargs)
        if func in _REDUCTION_OF:
            return _reduce(self._tracer, _REDUCTION_OF[func], *args, **kwargs)
        if func is np.astype:
            return _cast(self._tracer, *args, **kwargs)
        raise TraceError(f"numpy.{func.__name__} cannot be fused")

    def __array__(self, *args, **kwargs):
        raise TraceError("the function converts a traced array to a NumPy array (numpy.asarray, "
                         "a C extension, or a function fuse does not know)")

    # -- methods a NumPy array has --------------------------------------------------------------
    def astype(self, dtype, copy=True):
        return _cast(self._tracer, self, dtype)

    def sum(self, axis=None, keepdims=False):
        return _reduce(self._tracer, "sum", self, axis=axis, keepdims=keepdims)

    def prod(self, axis=None, keepdims=False):
        return _reduce(self._tracer, "prod", self, axis=axis, keepdims=keepdims)

    def max(self, axis=None, keepdims=False):
        return _reduce(self._tracer, "max", self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, keepdims=False):
        return _reduce(self._tracer, "min", self, axis=axis, keepdims=keepdims)

    def mean(self, axis=None, keepdims=False):
        return _reduce(self._tracer, "mean", self, axis=axis, keepdims=keepdims)

    def any(self, axis=None, keepdims=False):
        return _reduce(self._tracer, "any", self, axis=axis, keepdims=keepdims)

    def all(self, axis=None, keepdims=False):
        return _reduce(self._tracer, "all", self, axis=axis, keepdims=keepdims)

    def clip(self, min=None, max=None):  # noqa: A002  (NumPy's parameter names)
        return _clip(self._tracer, self, min, max)

    def __bool__(self):
        raise TraceError("Python control flow depends on array values (an `if` or `while` on an "
                         "array): fuse traces once and cannot follow it")

    def __len__(self):
        raise TraceError("len() of a traced array")

    def __iter__(self):
        raise TraceError("iteration over a traced array")

    def __getitem__(self, key):
        raise TraceError("indexing inside a fused function")

    def __setitem__(self, key, value):
        raise TraceError("assignment into a traced array")

    def __getattr__(self, name):
        raise TraceError(f"the attribute {name!r} of a traced array (fuse knows its operations only)")

    __hash__ = None

    # -- operators, as NumPy's ufuncs ------------------------------------------------------------
    __add__, __radd__ = _ufunc_op(np.add), _ufunc_op(np.add, True)
    __sub__, __rsub__ = _ufunc_op(np.subtract), _ufunc_op(np.subtract, True)
    __mul__, __rmul__ = _ufunc_op(np.multiply), _ufunc_op(np.multiply, True)
    __truediv__, __rtruediv__ = _ufunc_op(np.true_divide), _ufunc_op(np.true_divide, True)
    __mod__, __rmod__ = _ufunc_op(np.remainder), _ufunc_op(np.remainder, True)
    __pow__, __rpow__ = _ufunc_op(np.power), _ufunc_op(np.power, True)
    __and__, __rand__ = _ufunc_op(np.bitwise_and), _ufunc_op(np.bitwise_and, True)
    __or__, __ror__ = _ufunc_op(np.bitwise_or), _ufunc_op(np.bitwise_or, True)
    __xor__, __rxor__ = _ufunc_op(np.bitwise_xor), _ufunc_op(np.bitwise_xor, True)
    __lshift__, __rlshift__ = _ufunc_op(np.left_shift), _ufunc_op(np.left_shift, True)
    __rshift__, __rrshift__ = _ufunc_op(np.right_shift), _ufunc_op(np.right_shift, True)
    __lt__, __le__ = _ufunc_op(np.less), _ufunc_op(np.less_equal)
    __gt__, __ge__ = _ufunc_op(np.greater), _ufunc_op(np.greater_equal)
    __eq__, __ne__ = _ufunc_op(np.equal), _ufunc_op(np.not_equal)
    __neg__, __pos__ = _unary_op(np.negative), _unary_op(np.positive)
    __abs__, __invert__ = _unary_op(np.absolute), _unary_op(np.invert)

    def __floordiv__(self, other):
        return self._tracer.add(Node("floor_divide", None, (self._node, self._tracer.operand(other))))

    def __rfloordiv__(self, other):
        return self._tracer.add(Node("floor_divide", None, (self._tracer.operand(other), self._node)))


def _cast(tracer, x, dtype, /, *, copy=True, device=None):
    if not isinstance(x, Proxy):
        raise TraceError("astype of a value that is not a traced array")
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        raise TraceError(f"astype to {dtype!r}: {e}") from None
    if dt.kind == "c" or dt.kind not in "biufc":
        raise TraceError(f"astype to {dt} cannot be fused (numeric real dtypes only)")
    return tracer.add(Node("cast", dt, (x._node,)))


def _clip(tracer, a, a_min=None, a_max=None, out=None, *, min=None, max=None, **kwargs):  # noqa: A002
    if out is not None or kwargs:
        raise TraceError("clip() with out= or other keywords cannot be fused")
    lo = a_min if a_min is not None else min
    hi = a_max if a_max is not None else max
    # NumPy's clip itself, block by block (it is elementwise; its rules for bounds outside the
    # dtype's range are NumPy's).
    return tracer.add(Node("clip", np.clip, (tracer.operand(a), tracer.operand(lo) if lo is not None else
                                              tracer.operand(None), tracer.operand(hi) if hi is not None
                                              else tracer.operand(None))))


def _reduce(tracer, name, x, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    if out is not None or dtype is not None or kwargs:
        raise TraceError(f"{name}() with out=, dtype= or other keywords cannot be fused")
    if not isinstance(x, Proxy):
        raise TraceError(f"{name}() of a value that is not a traced array")
    if axis is not None and not isinstance(axis, (int, tuple)):
        raise TraceError(f"{name}(axis={axis!r}) cannot be fused")
    node = tracer.add(Node("reduce", name, (x._node,), {"axis": axis, "keepdims": bool(keepdims)}))
    tracer.reduced = True
    return node


class _Scalar:
    """What a fused function gets for a Python int, float or complex argument while it is traced:
    the value itself (a subclass of its type, so the function computes with it in Python's
    semantics) that notes how it is used. Handed to an array operation as it is, it becomes the
    argument's constant, bound at every call; anything else that reads its value (a comparison,
    an ``if``, a conversion, arithmetic whose result the function uses) makes the plan hold for
    this value only (``Tracer.value_dependent``)."""

    def _read(self):
        self._tracer.value_dependent = True


def _scalar_type(base):
    def derived(op):
        def method(self, *args):
            if args and isinstance(args[0], Proxy):
                return NotImplemented  # `s * x`: the array's reflected operator records it
            self._read()
            return getattr(base, op)(base(self), *args)
        method.__name__ = op
        return method

    names = ["__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__bool__", "__hash__", "__int__",
             "__float__", "__complex__", "__index__", "__round__", "__floor__", "__ceil__", "__trunc__",
             "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
             "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__divmod__", "__rdivmod__", "__pow__",
             "__rpow__", "__neg__", "__pos__", "__abs__", "__and__", "__rand__", "__or__", "__ror__", "__xor__",
             "__rxor__", "__lshift__", "__rlshift__", "__rshift__", "__rrshift__", "__invert__", "conjugate",
             "is_integer", "as_integer_ratio", "bit_length", "hex"]
    attrs = {n: derived(n) for n in names if hasattr(base, n)}
    attrs["_base"] = base  # the plain type of the value
    return type(f"traced_{base.__name__}", (_Scalar, base), attrs)


_SCALAR_TYPES = {t: _scalar_type(t) for t in (int, float, complex)}


def _traced_scalar(value, tracer, node):
    s = _SCALAR_TYPES[type(value)](value)
    s._tracer, s._node = tracer, node
    return s


def trace(func, args):
    """Run ``func`` on proxies for its array arguments (and the scalars as constants); return the
    node list, the output node and whether the graph holds only for these scalar values. Raises
    TraceError when it cannot be fused."""
    tracer = Tracer()
    call_args = []
    for position, a in enumerate(args):
        if isinstance(a, (bool, int, float, complex, np.generic)) and np.ndim(a) == 0:
            node = Const(a, position)
            node.index = len(tracer.nodes)
            tracer.nodes.append(node)
            if type(a) in _SCALAR_TYPES:
                call_args.append(_traced_scalar(a, tracer, node))  # its uses are noted (_Scalar)
            else:  # a bool or a NumPy scalar: what the function does with it cannot be seen
                tracer.value_dependent = True
                call_args.append(a)
        else:
            node = Input(position)
            node.index = len(tracer.nodes)
            tracer.nodes.append(node)
            call_args.append(Proxy(tracer, node))
    out = func(*call_args)
    if isinstance(out, Proxy):
        return tracer.nodes, out._node, tracer.value_dependent
    if isinstance(out, (bool, int, float, complex, np.generic)):
        raise TraceError("the function returns a scalar that does not depend on its array arguments")
    raise TraceError(f"the function returns {type(out).__name__}, not an array expression")


_ = operator  # (kept for readers: the operators above are NumPy's ufuncs, as in operator's table)
