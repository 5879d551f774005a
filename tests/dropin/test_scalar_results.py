"""Scalar results are NumPy's scalars themselves (a value: nothing reachable from one is a shared,
writeable buffer), in every way a program can reach one; NumPy's scalar arithmetic answers with a
NumPy scalar on either side, under every np.errstate; every API that takes a float takes one."""
import copy
import datetime
import decimal
import fractions
import functools
import json
import math
import operator
import pickle
import statistics
import time
import warnings

import numpy as np
import pytest

import wsarray as wnp

DTYPES = ["float64", "float32", "float16", "int64", "int32", "int8", "uint64", "uint8", "bool", "complex128",
          "complex64", "longdouble"]


def _values(dtype):
    return np.asarray([1, 0, 3, 2], dtype=dtype) if dtype != "bool" else np.asarray([True, False, True, True])


# Every way a program gets a scalar from wsarray: (description, make(module, array)).
SOURCES = [
    ("a[0]", lambda m, a: a[0]),
    ("a[0, 0] of 2-D", lambda m, a: a.reshape(2, 2)[0, 0]),
    ("m.sum(a)", lambda m, a: m.sum(a)),
    ("a.sum()", lambda m, a: a.sum()),
    ("m.max(a)", lambda m, a: m.max(a)),
    ("a.max()", lambda m, a: a.max()),
    ("a[0] > 0", lambda m, a: a[0] > 0),
    ("m.any(a)", lambda m, a: m.any(a)),
    ("iteration", lambda m, a: next(iter(a))),
    ("a.item() as NumPy's", lambda m, a: m.asarray(a)[()] if a.ndim == 0 else a[1]),
    ("a.flat[0]", lambda m, a: a.flat[0]),
    ("m.dot(a, a)", lambda m, a: m.dot(a, a)),
    ("m.vecdot(a, a)", lambda m, a: m.vecdot(a, a)),
    ("0-d [()]", lambda m, a: m.asarray(a[0])[()]),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("source", SOURCES, ids=[s[0] for s in SOURCES])
def test_every_scalar_result_is_numpys_scalar(source, dtype):
    _, make = source
    n = _values(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = make(np, n)
        except TypeError:  # (vecdot of bools: NumPy has no loop)
            return
        got = make(wnp, wnp.asarray(n))
    assert type(got) is type(want) and not isinstance(got, wnp.Array)
    assert repr(got) == repr(want) and got.dtype == want.dtype


@pytest.mark.parametrize("source", SOURCES, ids=[s[0] for s in SOURCES])
def test_no_export_of_a_scalar_result_is_shared_and_writeable(source):
    a = wnp.asarray([1.5, 2.5, 3.5, 4.5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = source[1](wnp, a)
    before = repr(s)
    exports = [np.asarray(s), np.array(s, copy=None), wnp.asarray(s), s[None], s[...], s[()],
               np.concatenate([s[None]]), copy.copy(s), copy.deepcopy(s), pickle.loads(pickle.dumps(s))]
    for view in exports:
        if isinstance(view, np.ndarray) and view.flags.writeable:
            view[...] = 77  # whatever a caller writes into what it got never reaches the value
    with pytest.raises(TypeError):
        memoryview(s)[...] = b"\0" * memoryview(s).nbytes  # a scalar's buffer is read-only
    assert repr(s) == before and float(np.asarray(s)) == float(s) and wnp.asarray(s)[()] == s
    with pytest.raises(TypeError):
        s[()] = 5  # a value: no item assignment


def test_boolean_results_are_numpys_singletons_and_cannot_be_changed():
    a = wnp.asarray([1.0, -1.0])
    t, f = a[0] > 0, a[1] > 0
    assert t is np.True_ and f is np.False_
    raw = np.asarray(a[0] > 0)
    raw[...] = False  # a new array each time (NumPy's): the singleton is untouched
    assert (a[0] > 0) is np.True_ and bool(a[0] > 0) and (a[0] > 0)[None].tolist() == [True]


NUMPY_SCALARS = [np.int8(-3), np.int16(300), np.int64(2**62), np.uint8(250), np.uint64(2**63), np.float16(1.5),
                 np.float32(3.25), np.float64(-0.5), np.longdouble(2.5), np.complex64(1 + 2j),
                 np.complex128(-1j), np.bool_(True)]
OPERATORS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
             operator.pow, operator.lt, operator.eq, operator.ne, operator.ge, operator.and_, operator.or_,
             operator.xor, operator.lshift, divmod]


def _outcome(f, errstate):
    with warnings.catch_warnings(record=True) as caught, np.errstate(all=errstate):
        warnings.simplefilter("always")
        try:
            r = f()
        except Exception as e:  # noqa: BLE001 -- the class is what is compared
            return type(e).__name__, []
    return (type(r), repr(r)), sorted(str(w.message) for w in caught)


@pytest.mark.parametrize("errstate", ["warn", "raise", "ignore"])
@pytest.mark.parametrize("dtype", ["int64", "int8", "uint64", "float64", "float32", "complex128", "bool"])
def test_numpy_scalar_on_either_side_is_numpys_scalar_math(dtype, errstate):
    n = np.asarray([np.iinfo(dtype).max if dtype[0] in "iu" else 0, 1], dtype=dtype) if dtype != "bool" \
        else np.asarray([True, False])
    w = wnp.asarray(n)
    for k in range(2):
        mine, numpys = w[k], n[k]
        for other in NUMPY_SCALARS:
            for op in OPERATORS:
                for order in ((other, mine, numpys), (mine, other, numpys)):
                    left, right = order[0], order[1]
                    want_left, want_right = (other, numpys) if left is other else (numpys, other)
                    got = _outcome(lambda: op(left, right), errstate)
                    want = _outcome(lambda: op(want_left, want_right), errstate)
                    assert got == want, (op, left, right)


def test_float_results_go_where_python_floats_go():
    x = wnp.arange(10.0)
    s = wnp.mean(x)  # np.float64, a float subclass
    assert isinstance(s, float) and json.dumps(s) == "4.5" and json.dumps({"loss": x.sum()}) == '{"loss": 45.0}'
    assert decimal.Decimal(s) == decimal.Decimal("4.5") and fractions.Fraction(s) == fractions.Fraction(9, 2)
    assert datetime.timedelta(seconds=s) == datetime.timedelta(seconds=4.5)
    assert math.trunc(s) == 4 and math.floor(s) == 4 and round(s) == 4 and math.isclose(s, 4.5)
    time.sleep(s * 0)
    assert statistics.mean([s, x.max()]) == 6.75 and pytest.approx(wnp.dot(x, x)) == 285.0
    assert [0, 1, 2][x.argmax() - 8] == 1 and operator.index(wnp.arange(3)[2]) == 2


def test_singledispatch_on_wsarray_arrays():
    @functools.singledispatch
    def kind(x):
        return "other"

    @kind.register(wnp.Array)
    def _(x):
        return "array"

    @kind.register(np.float64)
    def _(x):
        return "float64"

    # wsarray.Array (wsarray.ndarray) is a subclass of numpy.ndarray: registering it is registering
    # wsarray's arrays; a handler of numpy.ndarray's serves both unless Array has its own.
    assert kind(wnp.ones(2)) == "array" and kind(np.ones(2)) == "other" and kind(wnp.ones(2).sum()) == "float64"
    kind.register(np.ndarray, lambda x: "numpy")
    assert kind(wnp.ones(2)) == "array" and kind(np.ones(2)) == "numpy"
