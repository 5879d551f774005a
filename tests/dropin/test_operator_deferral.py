"""Every operator of a wsarray array against operands of other kinds follows NumPy's ndarray:
NEP 13's rules (an operand whose type sets ``__array_ufunc__ = None`` gets its reflected
operator; one that defines ``__array_ufunc__`` gets the ufunc call with the operands in their
order), NumPy's legacy ``__array_priority__`` rule for operands without ``__array_ufunc__``, and
in-place operators that never defer. The matrix: each operator, both operand orders and in-place,
against each kind of operand; the outcome (result, the ufunc and operand types an override saw, or
the error class) must be NumPy's with ``numpy.ndarray`` read as ``wsarray.Array``."""
import operator

import numpy as np
import pytest

import wsarray as wnp


class Overrides:
    """Defines __array_ufunc__ (another array library, a wrapper): says what it was handed."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return ("ufunc", ufunc.__name__, method, tuple(type(i).__name__ for i in inputs),
                "out" in kwargs)


def _reflected(name):
    return lambda self, other: ("reflected", name, type(other).__name__)


class OptsOut:
    """__array_ufunc__ = None: NumPy gives it its reflected operators (numpy's polynomials)."""

    __array_ufunc__ = None
    __radd__, __rsub__, __rmul__ = _reflected("add"), _reflected("sub"), _reflected("mul")
    __rtruediv__, __rfloordiv__, __rmod__ = _reflected("truediv"), _reflected("floordiv"), _reflected("mod")
    __rpow__, __rmatmul__, __rand__ = _reflected("pow"), _reflected("matmul"), _reflected("and")
    __ror__, __rxor__, __rlshift__ = _reflected("or"), _reflected("xor"), _reflected("lshift")
    __rrshift__, __rdivmod__ = _reflected("rshift"), _reflected("divmod")

    def __eq__(self, other):
        return ("reflected", "eq", type(other).__name__)

    __hash__ = None


class Legacy:
    """No __array_ufunc__, a priority above an ndarray's: NumPy's legacy rule defers to it."""

    __array_priority__ = 50.0

    def __radd__(self, other):
        return ("reflected", "add", type(other).__name__)

    def __rmul__(self, other):
        return ("reflected", "mul", type(other).__name__)

    def __rmatmul__(self, other):
        return ("reflected", "matmul", type(other).__name__)


class LowPriority(Legacy):
    __array_priority__ = -1.0  # below an ndarray's: no deferral


class Plain:
    """An ordinary object: NumPy makes an object array of it."""

    def __radd__(self, other):
        return ("reflected", "add", type(other).__name__)


class Number:
    """Converts with __float__/__index__ only (NumPy treats it as an object)."""

    def __float__(self):
        return 2.0


BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
          operator.pow, operator.matmul, operator.and_, operator.or_, operator.xor, operator.lshift,
          operator.rshift, divmod, operator.lt, operator.le, operator.eq, operator.ne, operator.gt,
          operator.ge]
INPLACE = [operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ifloordiv, operator.imod,
           operator.ipow, operator.iand, operator.ior, operator.ixor, operator.ilshift, operator.irshift,
           operator.imatmul]
OTHERS = [Overrides, OptsOut, Legacy, LowPriority, Plain, Number]


def outcome(f):
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 -- the class is what is compared
        return type(e).__name__
    if isinstance(r, tuple) and r and r[0] in ("ufunc", "reflected"):
        return r
    if isinstance(r, tuple):
        return tuple(outcome(lambda v=v: v) for v in r)
    if isinstance(r, np.ndarray):
        return ("array", r.dtype.kind, r.shape)
    return type(r).__name__


def arrays(xp):
    return xp.asarray([[1, 2], [3, 4]], dtype=np.int64)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("other", OTHERS, ids=[c.__name__ for c in OTHERS])
@pytest.mark.parametrize("op", BINARY, ids=[getattr(f, "__name__", str(f)) for f in BINARY])
def test_binary_operators_defer_as_numpy(op, other):
    o = other()
    for order in ("array first", "other first"):
        got = outcome(lambda: op(arrays(wnp), o) if order == "array first" else op(o, arrays(wnp)))
        want = outcome(lambda: op(arrays(np), o) if order == "array first" else op(o, arrays(np)))
        assert got == want, (order, got, want)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("other", OTHERS, ids=[c.__name__ for c in OTHERS])
@pytest.mark.parametrize("op", INPLACE, ids=[f.__name__ for f in INPLACE])
def test_inplace_operators_never_defer(op, other):
    o = other()
    got, want = outcome(lambda: op(arrays(wnp), o)), outcome(lambda: op(arrays(np), o))
    assert got == want, (got, want)


def test_an_override_sees_the_array_itself_and_its_out():
    a = arrays(wnp)
    r = Overrides()
    assert (a @ r)[3] == ("ndarray", "Overrides")
    assert wnp.add(a, r, out=a)[3:] == (("ndarray", "Overrides"), True)
    assert np.add(a, r)[3] == ("ndarray", "Overrides")  # NumPy's own ufunc on a wsarray array


def test_where_with_an_object_whose_override_declines_gives_numpys_object_array():
    class Declines:
        def __array_ufunc__(self, *args, **kwargs):
            return NotImplemented

    d = Declines()
    got, want = wnp.where(wnp.asarray([True, False]), d, 0), np.where(np.asarray([True, False]), d, 0)
    assert got.dtype == want.dtype == object and got.tolist() == want.tolist()


def test_item_assignment_converts_objects_with_overrides_as_numpy():
    class IntLike:
        def __array_ufunc__(self, *args, **kwargs):
            return NotImplemented

        def __int__(self):
            return 7

        def __index__(self):
            return 7

    for xp in (np, wnp):
        b = xp.zeros(3, dtype=np.int64)
        b[0] = IntLike()
        b[1:2] = IntLike()
        assert b.tolist() == [7, 7, 0]
