"""``finfo``/``iinfo`` objects and the data type functions that differ from NumPy's."""
from dataclasses import dataclass, field

import numpy as _np

__all__ = ["astype", "can_cast", "finfo", "finfo_object", "iinfo", "iinfo_object", "result_type"]


class _NumpyFallback:
    """Attributes the standard does not name come from NumPy's own info object."""

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(object.__getattribute__(self, "_numpy_info"), name)

    def __repr__(self):  # printed as NumPy's: finfo(resolution=1e-15, min=..., max=..., dtype=float64)
        return repr(self._numpy_info)

    def __str__(self):
        return str(self._numpy_info)


class _Limit(float):
    """A Python ``float`` (as the standard asks) that prints like NumPy's finfo field, so
    ``print(finfo(float32).max)`` shows ``3.4028235e+38`` as with NumPy."""

    __slots__ = ("_shown",)

    def __new__(cls, numpy_value):
        self = super().__new__(cls, float(numpy_value))
        self._shown = numpy_value
        return self

    def __repr__(self):
        return repr(self._shown)

    def __str__(self):
        return str(self._shown)

    def __reduce__(self):
        return (float, (float(self),))


@dataclass(frozen=True, repr=False)
class finfo_object(_NumpyFallback):  # noqa: N801  (the standard's name)
    """Machine limits of a floating-point dtype (array API ``finfo``)."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: _np.dtype
    _numpy_info: object = field(repr=False, compare=False)


@dataclass(frozen=True, repr=False)
class iinfo_object(_NumpyFallback):  # noqa: N801  (the standard's name)
    """Machine limits of an integer dtype (array API ``iinfo``)."""

    bits: int
    max: int
    min: int
    dtype: _np.dtype
    _numpy_info: object = field(repr=False, compare=False)


def _dtype_of(fn, x):
    """The dtype of an array, a dtype, or (as NumPy allows) a scalar such as ``1.0``."""
    if isinstance(x, (_np.ndarray, _np.generic)):
        return x.dtype
    if isinstance(x, (bool, int, float, complex)):
        return _np.asarray(x).dtype
    try:
        return _np.dtype(x)
    except TypeError:
        raise TypeError(f"wsarray.{fn}(): expected a dtype or an array, not {x!r}") from None


def finfo(type, /):  # noqa: A002  (the standard's parameter name)
    dt = _dtype_of("finfo", type)
    if dt.kind not in "fc":
        raise ValueError(f"wsarray.finfo(): {dt} is not a floating-point dtype")
    fi = _np.finfo(dt)
    return finfo_object(int(fi.bits), _Limit(fi.eps), _Limit(fi.max), _Limit(fi.min),
                        _Limit(fi.smallest_normal), fi.dtype, fi)


def iinfo(type, /):  # noqa: A002  (the standard's parameter name)
    dt = _dtype_of("iinfo", type)
    if dt.kind not in "iu":
        raise ValueError(f"wsarray.iinfo(): {dt} is not an integer dtype")
    ii = _np.iinfo(dt)
    return iinfo_object(int(ii.bits), int(ii.max), int(ii.min), dt, ii)


def astype(x, dtype, /, *, copy=True, device=None):
    """``x`` converted to ``dtype``. Complex to real or integer is refused, as the standard says
    (NumPy drops the imaginary part with a warning): take ``real(x)`` or ``imag(x)`` first."""
    source = _np.asarray(x).dtype  # x itself goes to NumPy: a NumPy scalar gives a scalar
    target = _np.dtype(dtype)
    if source.kind == "c" and target.kind in "iuf":
        raise TypeError(f"wsarray.astype(): casting {source} to {target} would drop the imaginary "
                        "part; use wsarray.real(x) or wsarray.imag(x) first")
    return _np.astype(x, target, copy=copy, device=device)


def can_cast(from_, to, /, casting="safe"):
    # NumPy's extra ``casting`` argument is kept for NumPy code.
    return _np.can_cast(from_, to, casting=casting)


def result_type(*arrays_and_dtypes):
    if not arrays_and_dtypes:
        raise ValueError("wsarray.result_type(): at least one array or dtype is required")
    return _np.result_type(*arrays_and_dtypes)
