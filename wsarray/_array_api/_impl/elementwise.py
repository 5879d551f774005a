"""Elementwise functions where NumPy differs from the array API standard: ``clip``'s parameters,
and the special cases of ``floor_divide``, ``expm1`` and ``tanh``.

Each function computes NumPy's result first and then patches only the elements the standard
defines differently, so ordinary (finite) inputs cost one extra check and nothing else.
"""
import inspect as _inspect

import numpy as _np

from . import method_of_duck

__all__ = ["clip", "expm1", "floor_divide", "tanh"]


def _out_array(out):
    return out[0] if isinstance(out, tuple) else out


def _with_out(kwargs, out):
    """``out=`` passed on only when given: NumPy warns about ``where=`` without ``out=`` only if
    ``out`` is absent (an explicit None silences it)."""
    return kwargs if out is None else dict(kwargs, out=out)


def _numpys_subclass(*xs):
    """An np.ma / np.matrix operand: NumPy's own function keeps its semantics and type."""
    items = [x for v in xs for x in (v if isinstance(v, tuple) else (v,))]  # out may be a tuple
    return any(issubclass(type(x), _np.ndarray) and type(x) is not _np.ndarray for x in items)


def _as_numpy_returns(r, out, *inputs):
    """A 0-d result as NumPy returns it from 0-d inputs (a scalar), unless it is ``out``."""
    if out is None and r.ndim == 0 and all(_np.ndim(x) == 0 for x in inputs):
        return r[()]
    return r


def _as_ufunc_parses(ufunc):
    """Arguments parsed as ``ufunc`` parses them: a call it refuses (too few or too many operands,
    ``out`` given both by position and by keyword) goes to the ufunc itself, which raises NumPy's
    error in NumPy's words; a positional ``out`` becomes the keyword. The docstring is NumPy's, with
    where the standard differs below it."""
    nin = ufunc.nin

    def wrap(fn):
        def call(*args, **kwargs):
            if not nin <= len(args) <= nin + 1 or (len(args) > nin and "out" in kwargs):
                return ufunc(*args, **kwargs)
            return fn(*args, **kwargs)

        call.__name__ = call.__qualname__ = fn.__name__
        call.__module__ = fn.__module__
        call.__doc__ = f"{ufunc.__doc__}\n\nIn wsarray (the array API standard's special cases): {fn.__doc__}"
        call.__wrapped__ = fn
        return call
    return wrap


@_as_ufunc_parses(_np.floor_divide)
def floor_divide(x1, x2, /, out=None, **kwargs):
    """``x1 // x2``; for real floats, infinite operands follow the standard (not Python's rules):
    ``±inf // finite`` is ``±inf`` and ``finite // ∓inf`` is ``-0`` (NumPy gives NaN and -1)."""
    if _numpys_subclass(x1, x2, out):
        return _np.floor_divide(x1, x2, **_with_out(kwargs, out))
    a, b = _np.asarray(x1), _np.asarray(x2)
    try:
        kind = _np.result_type(a, b).kind
    except TypeError:  # no common type: NumPy's own error (UFuncTypeError, ...)
        kind = None
    if (kind != "f" or "where" in kwargs
            or (_np.isfinite(a).all() and _np.isfinite(b).all())):
        return _np.floor_divide(x1, x2, **_with_out(kwargs, out))
    target = _out_array(out)
    if target is not None:  # for ``x //= y`` the output is x1 itself: the masks read copies
        a = a.copy() if _np.shares_memory(a, target) else a
        b = b.copy() if _np.shares_memory(b, target) else b
    with _np.errstate(all="ignore"):  # NumPy's errors (broadcasting, casting, a read-only out) first
        r = _np.asarray(_np.floor_divide(x1, x2, **_with_out(kwargs, out)))
    inf_a = _np.isinf(a) & _np.isfinite(b) & (b != 0)
    zero = _np.isfinite(a) & (a != 0) & _np.isinf(b) & (_np.signbit(a) != _np.signbit(b))
    signed_inf = a * _np.copysign(1.0, b)  # b may be bool or int: no np.sign()
    special = inf_a | zero
    if not special.all():  # then NumPy's warnings (or errstate's errors) for the unpatched elements
        rest_a, rest_b = _np.broadcast_arrays(a, b)
        _np.floor_divide(rest_a[~special], rest_b[~special], **kwargs)
    fixed = _np.where(inf_a, signed_inf, _np.where(zero, -0.0, r)).astype(r.dtype, copy=False)
    if target is not None:
        _np.copyto(target, fixed)
        return target
    return _as_numpy_returns(fixed, out, a, b)


_NOT_GIVEN = object()


def _floor_divide_at(a, indices, b=_NOT_GIVEN, /, **kwargs):
    """``floor_divide.at``: NumPy's unbuffered ``a[indices] //= b``, with ``floor_divide``'s special
    cases (above) where an operand is infinite at some step, applied element by element in index
    order (repeated indices accumulate, as in NumPy's loop). (``reduce``, ``outer``, ``accumulate``
    are NumPy's.)"""
    if kwargs:
        raise TypeError("ufunc.at() takes no keyword arguments")  # NumPy's message
    if b is _NOT_GIVEN:
        return _np.floor_divide.at(a, indices)  # NumPy's "second operand needed"
    values = None if b is None else _np.asarray(b)
    # Anything but real numbers into a float array: NumPy's result (a Python int past int64), or
    # its error (None, a str, a complex), naming floor_divide.
    if values is None or values.dtype.kind not in "biuf" or not isinstance(a, _np.ndarray) or a.dtype.kind != "f":
        return _np.floor_divide.at(a, indices, b)
    saved = a[indices].copy()
    if _np.isfinite(values).all() and _np.isfinite(saved).all():
        # NumPy's loop first: an infinite operand at any step (x // 0, overflow) leaves a non-finite
        # element behind, and that step also made any warning, so none is lost by ignoring them.
        with _np.errstate(all="ignore"):
            _np.floor_divide.at(a, indices, b)
        if _np.isfinite(a[indices]).all():
            return None
        a[indices] = saved
    positions = _np.arange(a.size).reshape(a.shape)[indices]
    values = _np.broadcast_to(values, positions.shape).ravel()
    for position, value in zip(_np.ravel(positions), values):
        at = _np.unravel_index(position, a.shape)
        a[at] = floor_divide(a[at], value)
    return None


floor_divide.at = _floor_divide_at


def _complex_patch(r, mask, real, imag):
    if mask.any():
        r.real[mask] = _np.broadcast_to(real, mask.shape)[mask]
        r.imag[mask] = _np.broadcast_to(imag, mask.shape)[mask]


@_as_ufunc_parses(_np.expm1)
def expm1(x, /, out=None, **kwargs):
    """``exp(x) - 1``; complex infinities, NaNs and zeros follow the standard's table."""
    z = _np.asarray(x)
    if z.dtype.kind != "c" or "where" in kwargs or _numpys_subclass(x, out):
        return _np.expm1(x, **_with_out(kwargs, out))
    z = z.copy() if out is not None and _np.shares_memory(z, _out_array(out)) else z
    with _np.errstate(invalid="ignore"):  # NumPy warns for cases the standard defines
        r = _np.expm1(x, **_with_out(kwargs, out))
    r = r if isinstance(r, _np.ndarray) else _np.array(r)  # a 0-d input gives a NumPy scalar
    re, im = z.real, z.imag
    nonfinite_im = ~_np.isfinite(im)
    _complex_patch(r, (re == 0) & (im == 0), 0.0, im)
    _complex_patch(r, _np.isposinf(re) & (im == 0), _np.inf, im)
    _complex_patch(r, _np.isneginf(re) & nonfinite_im, -1.0, 0.0)
    _complex_patch(r, _np.isposinf(re) & nonfinite_im, _np.inf, _np.nan)
    _complex_patch(r, _np.isnan(re) & (im == 0), _np.nan, im)
    return _as_numpy_returns(r, out, z)


@_as_ufunc_parses(_np.tanh)
def tanh(x, /, out=None, **kwargs):
    """Hyperbolic tangent; ``tanh(±inf + bj)`` for finite b is ``±1 + copysign(0, b)j`` as the
    standard says (NumPy follows C99's ``copysign(0, sin(2b))``)."""
    z = _np.asarray(x)
    if z.dtype.kind != "c" or "where" in kwargs or _numpys_subclass(x, out):
        return _np.tanh(x, **_with_out(kwargs, out))
    mask = _np.isinf(z.real) & _np.isfinite(z.imag)
    real, imag = _np.sign(z.real), _np.copysign(0.0, z.imag)  # before an in-place out= overwrites z
    r = _np.tanh(x, **_with_out(kwargs, out))
    if not mask.any():
        return r
    r = r if isinstance(r, _np.ndarray) else _np.array(r)  # a 0-d input gives a NumPy scalar
    _complex_patch(r, mask, real, imag)
    return _as_numpy_returns(r, out, z)


_NO_VALUE = _np._NoValue  # an argument not given (None is a value: no bound), as NumPy's


def clip(a, *args, **kwargs):
    """Clamp to ``[min, max]``: NumPy's parameters, checks and messages (its signature is NumPy's
    below: libraries bind arguments by it), and the standard's ``clip(x, /, min=None, max=None)``:
    one bound given by position is ``min`` (``clip(a, 2)``: NumPy raises TypeError; the standard
    wins, README), ``min=``/``max=`` alone are the bounds. Both bounds None returns a copy of
    ``a``; a NaN bound gives NaN."""
    if len(args) > 3:
        raise TypeError(f"clip() takes from 1 to 4 positional arguments but {len(args) + 1} were given")
    given = dict(zip(("a_min", "a_max", "out"), args))
    for name in given:
        if name in kwargs:
            raise TypeError(f"clip() got multiple values for argument '{name}'")
    a_min = given.get("a_min", kwargs.pop("a_min", _NO_VALUE))
    a_max = given.get("a_max", kwargs.pop("a_max", _NO_VALUE))
    out = given.get("out", kwargs.pop("out", None))
    min = kwargs.pop("min", _NO_VALUE)  # noqa: A001
    max = kwargs.pop("max", _NO_VALUE)  # noqa: A001
    if len(args) == 1 and a_max is _NO_VALUE:  # the standard's lower bound, given first
        if min is not _NO_VALUE:
            raise TypeError("clip() got multiple values for argument 'min'")
        min, a_min = a_min, _NO_VALUE  # noqa: A001
    if a_min is _NO_VALUE and a_max is _NO_VALUE:
        min = None if min is _NO_VALUE else min  # noqa: A001
        max = None if max is _NO_VALUE else max  # noqa: A001
    elif a_min is _NO_VALUE:
        raise TypeError("clip() missing 1 required positional argument: 'a_min'")
    elif a_max is _NO_VALUE:
        raise TypeError("clip() missing 1 required positional argument: 'a_max'")
    elif min is not _NO_VALUE or max is not _NO_VALUE:
        raise ValueError("Passing `min` or `max` keyword argument when `a_min` and `a_max` are "
                         "provided is forbidden.")
    else:
        min, max = a_min, a_max  # noqa: A001
    if method_of_duck(a, "clip"):  # a pandas Series: its own clip, as NumPy calls it
        return _np.clip(a, min, max, out=out, **kwargs)
    a = _np.asanyarray(a)  # np.ma / np.matrix keep their own clip
    if a.dtype.kind in "iu":
        # A Python int bound outside the dtype's range is no bound (NumPy would raise).
        info = _np.iinfo(a.dtype)
        if type(min) is int and min <= info.min:
            min = None  # noqa: A001
        if type(max) is int and max >= info.max:
            max = None  # noqa: A001
    return _np.clip(a, min, max, out=out, **kwargs)


clip.__signature__ = _inspect.signature(_np.clip)
