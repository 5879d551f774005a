"""Operators on scalar results computed in C++ (src/python/fast_scalars.cpp) against NumPy's scalar
arithmetic: every operator and in-place operator, float64 and int64 scalar results with each other
and with Python floats and ints, over edge values (signed zeros, subnormals, the largest values,
inf, nan, int64's bounds, zero divisors), comparing value bits, dtype and the warnings or errors
np.errstate asks for. Pairs the C++ path declines (bools, other dtypes, huge Python ints) go to
NumPy's path and must agree too."""

import itertools
import math
import operator
import warnings

import numpy
import pytest

import wsarray as wa

FLOATS = [0.0, -0.0, 1.5, -2.5, 3.0, 1e308, -1e308, 1e-200, 5e-324, 2.2250738585072014e-308,
          math.inf, -math.inf, math.nan, 0.1]
INTS = [0, 1, -1, 3, -3, 7, -7, 2**62, -2**63, 2**63 - 1, 2**53 + 1]
PY_INTS = [0, 2, -3, 2**53, 2**53 + 1, 2**63 - 1, 2**63, -2**64]

BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
          operator.lt, operator.le, operator.eq, operator.ne, operator.gt, operator.ge]
INPLACE = {operator.add: operator.iadd, operator.sub: operator.isub, operator.mul: operator.imul,
           operator.truediv: operator.itruediv, operator.floordiv: operator.ifloordiv,
           operator.mod: operator.imod}


def scalar_result(value, dtype):
    """A scalar result of wsarray (a 0-d Array standing for the NumPy scalar) and NumPy's scalar."""
    return wa.asarray([value], dtype=dtype)[0], numpy.asarray([value], dtype=dtype)[0]


def outcome(fn):
    """(value bits, dtype) of fn()'s result, or the error class; plus the warnings' messages."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = fn()
        except (ArithmeticError, TypeError, ValueError) as e:
            got = type(e).__name__
        else:
            if isinstance(r, wa.Array):
                assert r.shape == ()
                r = numpy.asarray(r)[()]
            got = (numpy.asarray(r).dtype.str, numpy.asarray(r).tobytes())
    return got, sorted(str(w.message) for w in caught)


def operands():
    for x, y in itertools.product(FLOATS, FLOATS):
        yield ("float64", x), ("float64", y)
    for x, y in itertools.product(INTS, INTS):
        yield ("int64", x), ("int64", y)
    for x, y in itertools.product(INTS[:7], FLOATS):
        yield ("int64", x), ("float64", y)
        yield ("float64", y), ("int64", x)
    for x, y in itertools.product(FLOATS + [2.0**60], PY_INTS + [1.5, -0.0, math.inf, math.nan]):
        yield ("float64", x), ("py", y)
        yield ("py", y), ("float64", x)
    for x, y in itertools.product(INTS, PY_INTS + [2.5, -0.0, math.nan, True]):
        yield ("int64", x), ("py", y)
        yield ("py", y), ("int64", x)
    yield ("bool", True), ("int64", 3)
    yield ("float32", 1.5), ("float64", 2.0)
    yield ("int32", 5), ("py", 2)


def make(kind, value):
    if kind == "py":
        return value, value
    return scalar_result(value, kind)


@pytest.mark.parametrize("errstate", ["warn", "raise"])
@pytest.mark.parametrize("op", BINARY, ids=lambda f: f.__name__)
def test_binary_operators_as_numpys_scalars(op, errstate):
    with numpy.errstate(all=errstate):
        for left, right in operands():
            wx, nx = make(*left)
            wy, ny = make(*right)
            want = outcome(lambda: op(nx, ny))
            got = outcome(lambda: op(wx, wy))
            assert got == want, (op.__name__, left, right)


@pytest.mark.parametrize("op", list(INPLACE), ids=lambda f: f.__name__)
def test_inplace_operators_rebind_as_numpys_scalars(op):
    iop = INPLACE[op]
    for left, right in operands():
        if left[0] == "py":
            continue
        wx, nx = make(*left)
        wy, ny = make(*right)
        keep = wx
        want = outcome(lambda: iop(nx, ny))
        got = outcome(lambda: iop(wx, wy))
        assert got == want, (op.__name__, left, right)
        assert numpy.asarray(keep)[()] == numpy.asarray(make(*left)[0])[()] or left[1] != left[1]


def test_results_are_scalar_results_inside_a_workspace_and_out():
    a = wa.arange(6.0)
    with wa.workspace("FAST_SCALARS"):
        x = a[2] * a[3] + 1.0
        b = a[4] < 5
        k = wa.arange(9)[7] % 4
    wa.memory.destroy_workspace("FAST_SCALARS")
    # Scalar results hold ordinary memory: usable after the cycle, as NumPy's scalars would be.
    assert float(x) == 7.0 and bool(b) is True and int(k) == 3
    assert type(x) is wa.Array and x.dtype == numpy.float64 and k.dtype == numpy.int64
    assert repr(x) == "np.float64(7.0)" and repr(b) == "np.True_"


def test_element_loops_match_numpy():
    data = numpy.random.default_rng(7).random(64)
    ints = (data * 100).astype(int)
    for mod, a, b in ((numpy, data, ints), (wa, wa.asarray(data), wa.asarray(ints))):
        s = 0.0
        for i in range(len(a)):
            s += a[i] * a[i]
        count = sum(1 for i in range(len(b)) if b[i] % 3 == 0)
        if mod is numpy:
            want = (numpy.float64(s).tobytes(), count)
        else:
            assert type(s) is wa.Array
            got = (numpy.asarray(s).tobytes(), count)
    assert got == want


def test_stale_array_operand_still_raises():
    with wa.workspace("FAST_SCALARS_STALE"):
        a = wa.ones(3)
    s = wa.asarray([2.0])[0]
    with pytest.raises(wa.WorkspaceError):
        s + a
    with pytest.raises(wa.WorkspaceError):
        s += a


def _probes():
    import copy
    import pickle

    return {
        "repr": repr, "str": str, "float": float, "int": int, "bool": bool, "complex": complex,
        "hash": hash, "round": round, "format": lambda x: f"{x:.3e}", "item": lambda x: x.item(),
        "tolist": lambda x: x.tolist(), "dtype": lambda x: x.dtype, "shape": lambda x: x.shape,
        "ndim": lambda x: x.ndim, "class": lambda x: x.__class__, "tobytes": lambda x: x.tobytes(),
        "astype": lambda x: repr(x.astype("float32")), "numpy.asarray": lambda x: repr(numpy.asarray(x)),
        "array": lambda x: repr(wa.asarray(x)), "pickle": lambda x: repr(pickle.loads(pickle.dumps(x))),
        "deepcopy": lambda x: repr(copy.deepcopy(x)), "copy": lambda x: repr(x.copy()),
        "isinstance": lambda x: (isinstance(x, numpy.floating), isinstance(x, numpy.integer),
                                 isinstance(x, numpy.ndarray)),
        "memoryview": lambda x: memoryview(x).tobytes(), "abs": lambda x: repr(abs(-x)),
        "neg": lambda x: repr(-x), "pow": lambda x: repr(x ** 2), "index": lambda x: [1, 2, 3, 4][x]
        if isinstance(x, numpy.integer) else None, "sum": lambda x: repr(wa.sum(x)),
        "add array": lambda x: repr(x + wa.ones(2)), "view": lambda x: repr(x[()]),
        "ellipsis": lambda x: repr(x[...]), "set": lambda x: len({x, x}),
    }


@pytest.mark.parametrize("dtype,value", [("float64", 2.5), ("float64", -0.0), ("int64", -7), ("int64", 2**62)])
def test_value_only_scalar_results_answer_as_numpy_scalar_results(dtype, value):
    """a[i] and fast operators make float64/int64 scalar results that hold the value only; every
    question asked of them gets the answer a scalar result holding NumPy's scalar gives."""
    inline = wa.asarray([value], dtype=dtype)[0]  # value only
    reference = wa.max(wa.asarray([value], dtype=dtype))  # holds NumPy's scalar
    want_numpy = numpy.asarray([value], dtype=dtype)[0]
    assert repr(reference) == repr(want_numpy)
    for name, probe in _probes().items():
        try:
            want = ("ok", probe(reference))
        except Exception as e:  # noqa: BLE001 - the same error class is the expectation
            want = ("error", type(e))
        try:
            got = ("ok", probe(wa.asarray([value], dtype=dtype)[0]))
        except Exception as e:  # noqa: BLE001
            got = ("error", type(e))
        assert got == want, name
    assert repr(inline) == repr(want_numpy)


TRUTH_VALUES = [0.0, -0.0, 1.5, float("nan"), float("inf"), 0, 7, -1]


@pytest.mark.parametrize("dtype", ["float64", "int64", "float32", "int8", "uint64", "bool", "complex128", "float16"])
def test_truth_of_elements_and_scalar_results_is_numpys(dtype):
    with numpy.errstate(invalid="ignore"):  # NaN and inf cast to integers: whatever NumPy makes
        values = numpy.array(TRUTH_VALUES).astype(dtype) if dtype != "bool" else numpy.array([0, 1, 1, 0], bool)
    a = wa.asarray(values)
    for i in range(len(values)):
        element, want = a[i], values[i]
        assert bool(element) is bool(want)  # a[i]: held inline for float64 and int64
        with numpy.errstate(invalid="ignore"):  # complex NaN times 1
            assert bool(element * 1) is bool(want * 1) and (not element) is (not want)
        assert bool(element == 0) is bool(want == 0)
    assert [bool(x) for x in wa.asarray(values)] == [bool(x) for x in values]


@pytest.mark.parametrize("shape", [(), (1,), (1, 1), (3,), (0,), (2, 2)], ids=str)
def test_truth_of_arrays_is_numpys_with_numpys_errors(shape):
    for fill in (0.0, 2.0):
        want = numpy.full(shape, fill)
        try:
            expected = bool(want)
        except ValueError as e:
            with pytest.raises(ValueError, match=f"^{str(e)[:40]}"):
                bool(wa.asarray(want))
        else:
            assert bool(wa.asarray(want)) is expected


def test_truth_of_a_stale_array_raises_naming_bool():
    with wa.workspace("FAST_SCALARS_BOOL"):
        x = wa.ones(1)
    with pytest.raises(wa.WorkspaceError, match=r"Array.__bool__"):
        bool(x)
    with pytest.raises(wa.WorkspaceError, match=r"Array.__bool__"):
        if x:
            pass
    wa.memory.destroy_workspace("FAST_SCALARS_BOOL")
