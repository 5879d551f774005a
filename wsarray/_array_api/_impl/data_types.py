"""``finfo``/``iinfo`` objects and the data type functions that differ from NumPy's."""
import inspect as _inspect
import operator as _operator
import types as _types
import warnings as _warnings

import numpy as _np

from ..._native import Array as _Array

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
    """A ``finfo`` field: a Python ``float`` (as the standard asks) that is NumPy's scalar of the
    type in every other respect: ``isinstance(x, np.float32)`` holds (through ``__class__``, as for
    wsarray's scalar results), arithmetic runs at the type's precision (``finfo(float32).max * 2``
    is ``float32(inf)`` with NumPy's overflow warning, and ``errstate`` applies), it prints and
    converts (``np.asarray``) as NumPy's. ``type(x)`` is this class."""

    __slots__ = ("_shown",)

    def __new__(cls, numpy_value):
        self = super().__new__(cls, float(numpy_value))
        self._shown = numpy_value
        return self

    @property
    def __class__(self):
        return type(self._shown)

    def __repr__(self):
        return repr(self._shown)

    def __str__(self):
        return str(self._shown)

    def __reduce__(self):
        return (float, (float(self),))

    def __array__(self, dtype=None, copy=None):
        return _np.asarray(self._shown, dtype=dtype)

    # NumPy's scalar operators would read a float subclass as a float64 (np.float32(1) - f.max):
    # a priority above theirs makes them defer to the reflected operators below, which compute
    # with the scalar. (No __array_ufunc__: wsarray would take it for another array library's.)
    __array_priority__ = 1.0

    def __getattr__(self, name):  # dtype, itemsize, astype, ... as NumPy's scalar has them
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._shown, name)


def _numpy_operator(function, reflected=False):
    # Through the operator module (not the scalar's dunder, which answers NotImplemented for a
    # wider NumPy scalar instead of letting it compute): NumPy's full binary-operator protocol.
    def method(self, *args):
        args = tuple(a._shown if type(a) is _Limit else a for a in args)
        return function(*args, self._shown) if reflected else function(self._shown, *args)
    return method


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow"):
    setattr(_Limit, f"__{_name}__", _numpy_operator(getattr(_operator, _name)))
    setattr(_Limit, f"__r{_name}__", _numpy_operator(getattr(_operator, _name), reflected=True))
_Limit.__divmod__, _Limit.__rdivmod__ = _numpy_operator(divmod), _numpy_operator(divmod, reflected=True)
for _name in ("neg", "pos", "abs", "eq", "ne", "lt", "le", "gt", "ge"):
    setattr(_Limit, f"__{_name}__", _numpy_operator(getattr(_operator, _name)))
_Limit.__hash__ = float.__hash__  # defining __eq__ would drop it
del _name


def _field(value):
    """A finfo field: a _Limit, or NumPy's scalar itself where a Python float cannot hold the value
    (longdouble: its max would read inf; the standard has no such dtype)."""
    return _Limit(value) if float(value) == value else value


class _Info(_NumpyFallback):
    """Common part of finfo and iinfo: read-only fields, NumPy's class-subscription (``finfo[np.float64]``
    as a type hint), equality and pickling by dtype."""

    __slots__ = ()
    __class_getitem__ = classmethod(_types.GenericAlias)

    def _set(self, **fields):
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"wsarray.{type(self).__name__}: attribute '{name}' is read-only")

    def __eq__(self, other):
        return type(other) is type(self) and other.dtype == self.dtype

    def __hash__(self):
        return hash((type(self).__name__, self.dtype))

    def __reduce__(self):
        return (type(self), (self.dtype,))


class finfo(_Info):  # noqa: N801  (the standard's and NumPy's name)
    """Machine limits of a floating-point dtype (array API ``finfo``): the standard's fields
    (``bits``, ``eps``, ``max``, ``min``, ``smallest_normal``, ``dtype``) and NumPy's others
    (``tiny``, ``resolution``, ``precision``, ...). An array is accepted, as the standard says."""

    __slots__ = ("bits", "eps", "max", "min", "smallest_normal", "dtype", "_numpy_info")
    __module__ = "wsarray"  # shown as wsarray.finfo

    def __new__(cls, type, /):  # noqa: A002  (the standard's parameter name)
        if type is None:  # NumPy's deprecation (None reads as float64 meanwhile)
            _warnings.warn("finfo() dtype cannot be None. This behavior will raise an error in the future. "
                           "(Deprecated in NumPy 1.25)", DeprecationWarning, stacklevel=2)
        dt = _dtype_of("finfo", type)
        if dt.kind not in "fc":
            raise ValueError(f"wsarray.finfo(): {dt} is not a floating-point dtype")
        fi = _np.finfo(dt)
        self = object.__new__(cls)
        self._set(bits=int(fi.bits), eps=_field(fi.eps), max=_field(fi.max), min=_field(fi.min),
                  smallest_normal=_field(fi.smallest_normal), dtype=fi.dtype, _numpy_info=fi)
        return self


class iinfo(_Info):  # noqa: N801  (the standard's and NumPy's name)
    """Machine limits of an integer dtype (array API ``iinfo``): Python ``int`` fields, as both the
    standard and NumPy give them, and NumPy's others. An array is accepted."""

    __slots__ = ("bits", "max", "min", "dtype", "_numpy_info")
    __module__ = "wsarray"  # shown as wsarray.iinfo

    def __new__(cls, type, /):  # noqa: A002  (the standard's parameter name)
        dt = _dtype_of("iinfo", type)
        if dt.kind not in "iu":
            raise ValueError(f"wsarray.iinfo(): {dt} is not an integer dtype")
        ii = _np.iinfo(dt)
        self = object.__new__(cls)
        self._set(bits=int(ii.bits), max=int(ii.max), min=int(ii.min), dtype=dt, _numpy_info=ii)
        return self


finfo_object, iinfo_object = finfo, iinfo  # the names they had before they were classes


def _dtype_of(fn, x):
    """The dtype of an array, a dtype, or (as NumPy allows) a scalar such as ``1.0``."""
    if isinstance(x, (_np.ndarray, _np.generic, _Array)):
        return x.dtype
    if isinstance(x, (bool, int, float, complex)):
        return _np.asarray(x).dtype
    try:
        return _np.dtype(x)
    except TypeError:
        raise TypeError(f"wsarray.{fn}(): expected a dtype or an array, not {x!r}") from None


def astype(x, dtype, /, *, copy=True, device=None):
    """``x`` converted to ``dtype``. Complex to real or integer is refused, as the standard says
    (NumPy drops the imaginary part with a warning): take ``real(x)`` or ``imag(x)`` first."""
    if not isinstance(x, (_np.ndarray, _np.generic)):
        return _np.astype(x, dtype, copy=copy, device=device)  # NumPy's error for what is no array
    source = _np.asarray(x).dtype  # x itself goes to NumPy: a NumPy scalar gives a scalar
    target = _np.dtype(dtype)
    if source.kind == "c" and target.kind in "iuf":
        raise TypeError(f"wsarray.astype(): casting {source} to {target} would drop the imaginary "
                        "part; use wsarray.real(x) or wsarray.imag(x) first")
    return _np.astype(x, target, copy=copy, device=device)


def can_cast(from_, to, casting="safe"):
    # NumPy's extra ``casting`` argument and its keywords (from_=, to=) are kept for NumPy code.
    return _np.can_cast(from_, to, casting=casting)


def result_type(*arrays_and_dtypes):
    if not arrays_and_dtypes:
        raise ValueError("at least one array or dtype is required")  # NumPy's message
    return _np.result_type(*arrays_and_dtypes)


# NumPy's C functions carry an explicit __signature__ (inspect, IDEs and NumPy's own tests read it);
# these two have NumPy's signature exactly, so they carry it too.
can_cast.__signature__ = _inspect.signature(_np.can_cast)
result_type.__signature__ = _inspect.signature(_np.result_type)
