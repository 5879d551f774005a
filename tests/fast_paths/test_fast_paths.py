"""The operators' float64 fast path (src/python/fast/fast_float64.cpp) against NumPy: values, dtypes, NaN,
floating-point error reporting, temporary elision, in-place operators, stale arrays, threads."""

import operator
import warnings

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import wsarray as wa

from error_helpers import raises_numpys
from thread_helpers import run_threads

SCOPE_WORKSPACE = "FAST_OWNED"

BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.lt, operator.le,
          operator.eq, operator.ne, operator.gt, operator.ge]
INPLACE = [operator.iadd, operator.isub, operator.imul, operator.itruediv]
# Sizes below and above the elision threshold (32 Ki elements) and the thread pool's (2**19).
SIZES = [1, 7, 1000, 40_000, 600_000]


def same(result, expected):
    """Exactly NumPy's result: type, dtype, shape and every bit (NaN where NumPy has NaN). NumPy's
    methods (a.sum(), ...) give NumPy scalars, as NumPy does; everything else a wsarray.Array."""
    assert type(result) is wa.Array or (isinstance(result, numpy.generic) and expected.ndim == 0)
    got = numpy.asarray(result)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert numpy.array_equal(got, expected, equal_nan=expected.dtype.kind in "fc")
    if expected.dtype.kind == "f":
        assert numpy.array_equal(numpy.signbit(got), numpy.signbit(expected))


def data(n, seed=0, special=True):
    rng = numpy.random.default_rng(seed)
    x = rng.standard_normal(n) * 10
    if special and n >= 8:
        x[:8] = [numpy.nan, numpy.inf, -numpy.inf, 0.0, -0.0, 1e-310, 5e-324, 1.0]
    return x


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("op", BINARY, ids=lambda f: f.__name__)
def test_binary_matches_numpy(op, n):
    a, b = data(n, 1), data(n, 2)
    with numpy.errstate(all="ignore"):
        expected = op(a, b)
        same(op(wa.asarray(a), wa.asarray(b)), expected)
        for scalar in (2.5, -3, 0.0, numpy.nan, 2**53, 2**60, True):
            same(op(wa.asarray(a), scalar), op(a, scalar))
            same(op(scalar, wa.asarray(a)), op(scalar, a))


@pytest.mark.parametrize("n", [1000, 40_000])
@pytest.mark.parametrize("op", BINARY[4:], ids=lambda f: f.__name__)
def test_comparisons_with_nan_everywhere_are_quiet(op, n):
    """NaN, inf and -0.0 spread through the vectorised body of the loops (not only its first
    elements): comparisons stay quiet (no "invalid") and match NumPy's element for element."""
    a, b = data(n, 5), data(n, 6)
    a[3::7], b[5::11], a[10::13], b[1::17] = numpy.nan, numpy.nan, -0.0, numpy.inf
    with numpy.errstate(invalid="raise"):
        same(op(wa.asarray(a), wa.asarray(b)), op(a, b))
        same(op(wa.asarray(a), 0.0), op(a, 0.0))
        same(op(-0.0, wa.asarray(b)), op(-0.0, b))


@pytest.mark.parametrize("n", SIZES)
def test_unary_matches_numpy(n):
    a = data(n)
    same(-wa.asarray(a), -a)
    same(abs(wa.asarray(a)), abs(a))


def test_strided_2d_slices_match_numpy():
    u = data(64 * 48).reshape(64, 48)
    w = wa.asarray(u)
    with numpy.errstate(all="ignore"):
        expected = u[1:-1, 1:-1] + 0.1 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4.0 * u[1:-1, 1:-1])
        got = w[1:-1, 1:-1] + 0.1 * (w[2:, 1:-1] + w[:-2, 1:-1] + w[1:-1, 2:] + w[1:-1, :-2] - 4.0 * w[1:-1, 1:-1])
    same(got, expected)
    same(w[::2, 1:] * w[1::2, :-1], u[::2, 1:] * u[1::2, :-1])   # row strides differ
    same(w.T * 2.0, u.T * 2.0)                                      # not row-contiguous: NumPy path
    same(w[:, ::-1] - w, u[:, ::-1] - u)                           # negative strides: NumPy path


@pytest.mark.parametrize("shape", [(700, 33), (3, 200_000), (1, 5), (9, 1)])
def test_contiguous_2d_and_nd_arrays_match_numpy(shape):
    """Contiguous rows run as one long row; mixed with a sliced operand they run row by row."""
    u, v = data(numpy.prod(shape), 7).reshape(shape), data(numpy.prod(shape), 8).reshape(shape)
    big = data((shape[0] + 2) * (shape[1] + 3), 9).reshape(shape[0] + 2, shape[1] + 3)
    s = big[1:-1, 2:-1]                                            # same shape, rows apart
    w, x, ws = wa.asarray(u), wa.asarray(v), wa.asarray(big)[1:-1, 2:-1]
    with numpy.errstate(all="ignore"):
        for op in BINARY:
            same(op(w, x), op(u, v))
            same(op(w, ws), op(u, s))
            same(op(ws, 2.5), op(s, 2.5))
        same(-w, -u)
        same(abs(ws), abs(s))
        same(wa.reshape(w, (1,) + shape) * 3.0, u.reshape((1,) + shape) * 3.0)
        w += x
        u += v
        same(w, u)
        ws *= w
        s *= u
        same(ws, s)


def test_other_dtypes_and_broadcasting_take_numpys_path():
    a = data(12).reshape(3, 4)
    same(wa.asarray(a) + wa.asarray(a[0]), a + a[0])
    same(wa.asarray(a.astype(numpy.float32)) * 2.5, a.astype(numpy.float32) * 2.5)
    same(wa.asarray(numpy.arange(12)) + 1, numpy.arange(12) + 1)
    same(wa.asarray(a) + numpy.float64(2.0), a + numpy.float64(2.0))
    same(wa.asarray(a) + 1j, a + 1j)
    same(wa.asarray(numpy.float64(3.0)) * wa.asarray(numpy.float64(2.0)), numpy.asarray(6.0))
    same(wa.asarray(numpy.zeros(0)) + 1.0, numpy.zeros(0) + 1.0)


@pytest.mark.parametrize("n", [1000, 600_000])
def test_floating_point_errors_reported_like_numpy(n):
    a = numpy.ones(n)
    a[n // 2 + 3] = 0.0  # inside the loops' vectorised body
    inf = numpy.array([numpy.inf])

    def run(xp):
        x, y = xp.asarray(a), xp.asarray(inf)
        return [x / 0.0, x * 1e308 * 10.0, y - numpy.inf, 1e-300 * (x * 1e-300)]

    for mode in ("warn", "ignore"):
        with numpy.errstate(all=mode, under=mode), warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            results = run(wa)
        with numpy.errstate(all=mode, under=mode), warnings.catch_warnings(record=True) as want:
            warnings.simplefilter("always")
            expected = run(numpy)
        for r, e in zip(results, expected):
            same(r, e)
        assert [str(x.message) for x in got] == [str(x.message) for x in want]
        assert len(want) == (5 if mode == "warn" else 0)
    w = wa.asarray(a)
    with numpy.errstate(divide="raise"), pytest.raises(FloatingPointError, match="divide by zero"):
        w / 0.0
    with numpy.errstate(invalid="raise"), pytest.raises(FloatingPointError, match="invalid value"):
        w - numpy.inf + numpy.inf  # inf - inf: the in-place (elided) result reports it too


@pytest.mark.parametrize("op", INPLACE, ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [5, 600_000])
def test_inplace_matches_numpy(op, n):
    a, b = data(n, 3, special=False), data(n, 4, special=False)
    w = wa.asarray(a.copy())
    r = op(w, wa.asarray(b))
    assert r is w
    same(w, op(a.copy(), b))
    op(w, 0.5)
    same(w, op(op(a.copy(), b), 0.5))


def test_inplace_on_overlapping_views_matches_numpy():
    a = numpy.arange(20.0)
    w = wa.asarray(a.copy())
    w[1:] += w[:-1]  # NumPy reads the inputs as if copied first
    b = a.copy()
    b[1:] += b[:-1]
    same(w, b)
    v = w[2:]
    v -= w[:-2]
    b[2:] -= b[:-2].copy()
    same(w, b)


@pytest.mark.parametrize("op", INPLACE)
@pytest.mark.parametrize("rows,cols,row_step", [(3, 4, 1), (5, 2, 0), (700, 1000, 3), (2, 6, 5)])
def test_inplace_on_a_target_whose_rows_overlap_matches_numpy(op, rows, cols, row_step):
    # as_strided rows that share elements: NumPy copies such a target first, so every element is
    # changed once; the lean path changed it once per row it is in (and, large, from several threads).
    base = numpy.arange(float(rows * row_step + cols)) + 1.0
    w = wa.asarray(base.copy())
    expected = base.copy()
    v = numpy.lib.stride_tricks.as_strided(expected, (rows, cols), (8 * row_step, 8))
    op(v, 2.0)
    wv = wa.lib.stride_tricks.as_strided(w, (rows, cols), (8 * row_step, 8))
    op(wv, 2.0)
    same(w, expected)


def test_operators_keep_a_dtype_s_metadata():
    dt = numpy.dtype("f8", metadata={"unit": "m"})
    a = numpy.arange(6.0).astype(dt)
    w = wa.asarray(a)
    kept = 0
    for f in (lambda x: x + 1, lambda x: x * 2.0, lambda x: x + x, lambda x: -x, lambda x: 1.0 - x):
        r, expected = f(w), f(a)
        assert r.dtype.metadata == expected.dtype.metadata  # NumPy: None for 1.0 - x
        kept += expected.dtype.metadata == {"unit": "m"}
        numpy.testing.assert_array_equal(numpy.asarray(r), expected)
    assert kept == 4


def test_inplace_on_read_only_array_raises_like_numpy():
    a = numpy.ones(4)
    a.flags.writeable = False
    w = wa.asarray(a)
    with pytest.raises(ValueError, match="read-only"):
        w += 1.0


def test_temporaries_are_reused_and_named_arrays_are_not():
    n = 100_000  # 800 kB: above the 256 kB elision threshold
    a, b = data(n, 5, special=False), data(n, 6, special=False)
    x, y = wa.asarray(a), wa.asarray(b)
    t = x * 2.0
    before = numpy.asarray(t).copy()
    r = t + y            # t is held by a name: must not be overwritten
    same(t, before)
    same(r, before + b)
    same((x * 2.0) + y, a * 2.0 + b)
    same(y - (x * 2.0), b - a * 2.0)
    same(-(x * 2.0), -(a * 2.0))
    ws = wa.workspace("FAST_ELIDE")
    for _ in range(3):
        with ws:
            same(((x + y) * 0.5 - x) / 2.0, ((a + b) * 0.5 - a) / 2.0)
    # One allocation for the whole chain once the first temporary is reused.
    assert ws.stats()["allocations"] == 3
    wa.memory.destroy_workspace("FAST_ELIDE")


def test_results_come_from_the_workspace_and_go_stale():
    x = wa.asarray(data(1000))
    ws = wa.workspace("FAST_STALE")
    with ws:
        for r in (x + x, x * 2.0, 2.0 - x, -x, abs(x), x < 0.5):
            assert r.workspace == "FAST_STALE"
        kept = x + 1.0
        big = wa.asarray(data(300_000)) * 2.0
        assert big.workspace == "FAST_STALE"
    for use in (lambda: kept + 1.0, lambda: 1.0 + kept, lambda: -kept, lambda: kept < 1.0,
                lambda: x + kept, lambda: big * 2.0):
        with pytest.raises(wa.WorkspaceError, match="cycle"):
            use()
    with pytest.raises(wa.WorkspaceError):
        kept += 1.0
    y = wa.asarray(data(1000))
    with pytest.raises(wa.WorkspaceError):
        y += kept
    wa.memory.destroy_workspace("FAST_STALE")


def test_threads_use_their_own_workspaces_and_the_pool():
    n = 600_000  # above the pool's threshold: kernels split over worker threads
    a, b = data(n, 7, special=False), data(n, 8, special=False)
    expected = (a * b + a * 2.0 - a / (b + 1.0)) < 0.5

    def worker(k):
        x, y = wa.asarray(a), wa.asarray(b)
        ws = wa.workspace(f"FAST_T{k}")
        for _ in range(5):
            with ws:
                r = (x * y + x * 2.0 - x / (y + 1.0)) < 0.5
                assert r.workspace == f"FAST_T{k}"
                assert numpy.array_equal(numpy.asarray(r), expected)
        wa.memory.destroy_workspace(f"FAST_T{k}")

    run_threads(worker, 4)


def test_pool_survives_an_error_raised_after_a_kernel():
    w = wa.asarray(numpy.ones(600_000))
    for _ in range(3):
        with numpy.errstate(divide="raise"), pytest.raises(FloatingPointError):
            w / 0.0
        same(w + 1.0, numpy.full(600_000, 2.0))


@settings(max_examples=50, deadline=None)
@given(hnp.arrays(numpy.float64, hnp.array_shapes(max_dims=3, max_side=6)),
       st.sampled_from(BINARY), st.floats(allow_nan=True, allow_infinity=True))
def test_property_against_numpy(a, op, s):
    with numpy.errstate(all="ignore"):
        same(op(wa.asarray(a), wa.asarray(a[::-1] if a.ndim == 1 else a)),
             op(a, a[::-1] if a.ndim == 1 else a))
        same(op(wa.asarray(a), s), op(a, s))
        same(op(s, wa.asarray(a)), op(s, a))


def test_basic_indexing_matches_numpy_and_checks_staleness():
    a = data(60).reshape(6, 10)
    w = wa.asarray(a)
    for key in (3, -1, slice(1, 4), (2, 5), (slice(None), 3), (Ellipsis, 2), (None, 1), (), (1, slice(None, None, -2))):
        got, expected = w[key], a[key]
        same(got, numpy.asarray(expected))
    with raises_numpys(IndexError, "index 10 is out of bounds", "ndarray.__getitem__"):
        w[10]
    ws = wa.workspace("FAST_INDEX")
    with ws:
        t = w * 2.0
        view, scalar = t[1:3], t[0, 0]
        assert view.workspace == "FAST_INDEX" and type(scalar) is numpy.float64  # a scalar: a value
        assert w[1:3].workspace is None
    assert repr(scalar) == repr(2.0 * a[0, 0])  # still readable after the cycle
    for use in (lambda: view[0], lambda: t[1:], lambda: t[0, 0]):
        with pytest.raises(wa.WorkspaceError):
            use()
    wa.memory.destroy_workspace("FAST_INDEX")


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_forked_child_gets_a_working_pool():
    import os

    x = wa.asarray(numpy.ones(600_000))
    same(x + 1.0, numpy.full(600_000, 2.0))  # the pool is running in this process now
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit code
        ok = numpy.array_equal(numpy.asarray((x + 2.0) * 3.0), numpy.full(600_000, 9.0))
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_rows_in_reverse_order_match_numpy():
    u = data(40 * 30, 9).reshape(40, 30)
    w = wa.asarray(u)
    same(w[::-1] * 2.0, u[::-1] * 2.0)
    same(w[::-2, 1:] - w[1::2, :-1], u[::-2, 1:] - u[1::2, :-1])
    same(-w[::-1], -u[::-1])
    v = wa.asarray(u.copy())
    r = v[::-1]
    r += 1.0
    expected = u.copy()
    expected[::-1] += 1.0
    same(v, expected)


@pytest.mark.parametrize("n", [1, 5, 8, 127, 128, 129, 1000, 8193, 70_001, 600_000, 3_000_001])
def test_sum_is_numpys_pairwise_sum_bit_for_bit(n):
    rng = numpy.random.default_rng(n)
    a = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)
    same(wa.asarray(a).sum(), numpy.asarray(a.sum()))
    same(wa.asarray(a[: n - n // 3]).sum(), numpy.asarray(a[: n - n // 3].sum()))
    if n % 5 == 0:
        same(wa.asarray(a.reshape(5, -1)).sum(), numpy.asarray(a.reshape(5, -1).sum()))


def test_sum_edge_values_and_errors_match_numpy():
    for a in (numpy.full(3, -0.0), numpy.full(20, -0.0), numpy.array([numpy.nan, 1.0]),
              numpy.array([numpy.inf, 1.0]), numpy.arange(12.0).reshape(3, 4)[:, 1:]):
        same(wa.asarray(a).sum(), numpy.asarray(a.sum()))
    for a in (numpy.full(4, 1e308), numpy.array([numpy.inf, -numpy.inf])):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            r = wa.asarray(a).sum()
        with warnings.catch_warnings(record=True) as want:
            warnings.simplefilter("always")
            e = a.sum()
        same(r, numpy.asarray(e))
        assert [str(w.message) for w in got] == [str(w.message) for w in want]
        with numpy.errstate(all="raise"), pytest.raises(FloatingPointError):
            wa.asarray(a).sum()
    ws = wa.workspace("FAST_SUM")
    with ws:
        s = wa.asarray(numpy.ones(10)).sum()
        assert type(s) is numpy.float64  # NumPy's method gives NumPy's scalar
        assert type(wa.sum(wa.asarray(numpy.ones(10)))) is numpy.float64  # NumPy's scalar, a value
        t = wa.asarray(numpy.ones(10)) * 2.0
    with pytest.raises(wa.WorkspaceError):
        t.sum()
    assert float(s) == 10.0
    wa.memory.destroy_workspace("FAST_SUM")
    same(wa.asarray(numpy.ones((3, 4))).sum(axis=0), numpy.ones((3, 4)).sum(axis=0))


# ---- lean paths of namespace functions and indexing (small arrays) ---------------------------

UNARY_UFUNCS = ["exp", "sqrt", "abs", "absolute", "sin", "cos", "log", "log1p", "expm1", "tanh",
                "negative", "square", "floor", "isnan", "isfinite", "sign", "logical_not", "invert"]
DTYPES = ["float64", "float32", "float16", "int64", "int32", "uint8", "bool", "complex128",
          "complex64", "longdouble"]


def values(dtype, n, seed=0):
    rng = numpy.random.default_rng(seed)
    x = rng.standard_normal(n) * 3
    if numpy.dtype(dtype).kind == "f" and n >= 6:
        x[:6] = [numpy.nan, numpy.inf, -numpy.inf, 0.0, -0.0, 1e-310]
    if numpy.dtype(dtype).kind == "c":
        return (x + 1j * rng.standard_normal(n)).astype(dtype)
    if numpy.dtype(dtype).kind in "iub":
        return (x * 10).astype("int64").astype(dtype)
    return x.astype(dtype)


def outcome(f, *args):
    """(result, warnings) or the exception of f(*args)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = f(*args)
        except Exception as e:  # noqa: BLE001
            return type(e), [str(w.message) for w in caught]
    return r, sorted(str(w.message) for w in caught)


def same_value(got, expected):
    """Exactly NumPy's result, where NumPy's scalar results are wsarray's 0-d scalar results (or,
    from NumPy's methods and functions beyond the array API, the very NumPy scalars)."""
    if type(got) is not wa.Array:
        assert type(got) is type(expected) and repr(got) == repr(expected)
        return
    assert type(got) is wa.Array
    if isinstance(expected, numpy.generic):
        assert got.ndim == 0 and repr(got) == repr(expected)
        expected = numpy.asarray(expected)
    g = numpy.asarray(got)
    assert g.dtype == expected.dtype and g.shape == expected.shape
    assert g.flags.c_contiguous == expected.flags.c_contiguous
    assert g.tobytes() == expected.tobytes() or numpy.array_equal(g, expected, equal_nan=True)


@pytest.mark.parametrize("name", UNARY_UFUNCS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_functions_match_numpy(name, dtype):
    f, g = getattr(wa, name), getattr(numpy, "abs" if name == "abs" else name)
    shapes = [(1,), (7,), (1000,), (3, 4), (), (0,), (2, 0)]
    for shape in shapes:
        x = values(dtype, int(numpy.prod(shape)) or 0).reshape(shape)
        for inside in (False, True):
            ws = wa.workspace("FAST_UFUNC")
            with ws if inside else wa.scope_out():
                got, got_w = outcome(f, wa.asarray(x))
                expected, expected_w = outcome(g, x)
                assert got_w == expected_w
                if isinstance(expected, type):  # NumPy raised: the same class
                    assert got is expected
                    continue
                if name in ("tanh", "expm1") and x.dtype.kind == "c":  # wsarray patches complex results
                    continue
                same_value(got, expected)
                if inside and got.ndim:  # an empty array is never attached (nothing to guard)
                    assert got.workspace == ("FAST_UFUNC" if got.size else None)
            wa.memory.destroy_workspace("FAST_UFUNC")


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # cos(inf), both sides
def test_unary_functions_on_views_and_other_layouts_match_numpy():
    a = values("float64", 60).reshape(6, 10)
    for key in ((slice(None), slice(None, None, 2)), (slice(None, None, -1),), (slice(1, 3),)):
        same_value(wa.exp(wa.asarray(a)[key]), numpy.exp(a[key]))
    f = numpy.asfortranarray(a)
    got = wa.cos(wa.asarray(f))
    assert numpy.asarray(got).flags.f_contiguous  # NumPy keeps the input's layout
    same_value(got, numpy.cos(f))
    swapped = a.astype(">f8")
    same_value(wa.exp(wa.asarray(swapped)), numpy.exp(swapped))
    same_value(wa.exp(wa.asarray(a[0, 0])), numpy.exp(a[0, 0]))  # 0-d: NumPy's scalar
    same_value(wa.exp(wa.asarray(a)[0, 0]), numpy.exp(a[0, 0]))  # scalar result in, scalar out
    out = wa.zeros((6, 10))
    assert wa.exp(wa.asarray(a), out=out) is out
    same_value(out, numpy.exp(a))
    same_value(wa.exp(wa.asarray(a), where=wa.asarray(a) > 0, out=out), numpy.exp(a, where=a > 0, out=numpy.exp(a)))


def reports_like_numpy(name, x):
    """wa.<name>(x) under every np.errstate mode: NumPy's warnings, errors and values."""
    for mode in ("ignore", "warn", "raise"):
        with numpy.errstate(all=mode):
            got, got_w = outcome(getattr(wa, name), wa.asarray(x))
            expected, expected_w = outcome(getattr(numpy, name), x)
        assert got_w == expected_w
        if isinstance(expected, type):
            assert got is expected
        else:
            same_value(got, expected)


def test_unary_functions_report_floating_point_errors_like_numpy():
    x = numpy.array([0.0, -1.0, 1.0])
    for f in ("log", "sqrt", "log1p", "arccosh"):
        reports_like_numpy(f, x)
    # A flag left set by earlier code is not reported by a clean call.
    with numpy.errstate(all="ignore"):
        numpy.log(x)
    with numpy.errstate(all="raise"):
        same_value(wa.exp(wa.asarray([1.0, 2.0])), numpy.exp([1.0, 2.0]))


@pytest.mark.parametrize("name,x", [
    ("exp", numpy.float32([700.0])), ("exp", numpy.float32([-200.0])),  # overflow, underflow
    ("reciprocal", numpy.float16([1e-5, 2.0])), ("square", numpy.float16([700.0])),
    ("deg2rad", numpy.float16([1e-7])), ("spacing", numpy.float16([65504.0])),
])
def test_floating_point_errors_numpy_raises_in_software_are_reported(name, x):
    # NumPy raises these flags with feraiseexcept (the x87 unit), not in the SSE register.
    reports_like_numpy(name, x)


def test_zero_d_inputs_take_numpys_path():
    # NumPy casts a 0-d float16 through float32 and reports the underflow of the cast back.
    for name in ("sinh", "log1p", "exp"):
        for v in (numpy.float16(1e-7), numpy.float16(6.1e-5)):
            reports_like_numpy(name, numpy.asarray(v))


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # arccos(-1.68), both sides
def test_size_one_views_with_negative_strides_run_numpys_loop():
    # NumPy runs another loop on x[::-1] of one element (its last bit differs from the
    # contiguous loop's): wsarray must not treat the view as contiguous.
    for dtype, v in (("float64", -1.6787300755521284), ("float32", 0.8557782)):
        x = numpy.array([v, 0.5], dtype=dtype)
        for f in ("sinh", "arccos", "cbrt", "exp", "tan"):
            for view in (x[-2::-1], x[:1], x[::2]):
                got = getattr(wa, f)(wa.asarray(x)[-2::-1] if view.strides[0] < 0 else wa.asarray(view))
                assert numpy.asarray(got).tobytes() == getattr(numpy, f)(view).tobytes(), (f, dtype)
        assert numpy.asarray(wa.sum(wa.asarray(x)[-2::-1])).tobytes() == numpy.sum(x[-2::-1]).tobytes()


def test_unary_functions_check_staleness_and_name_themselves():
    ws = wa.workspace("FAST_UFUNC_STALE")
    with ws:
        t = wa.asarray([1.0, 2.0]) * 2.0
        assert wa.exp(t).workspace == "FAST_UFUNC_STALE"
    for f in (wa.exp, wa.tanh, wa.abs, wa.sqrt):
        with pytest.raises(wa.WorkspaceError, match=rf"wsarray\.{f.__name__}\(\)"):
            f(t)
    with raises_numpys(TypeError, "ufunc 'invert' not supported", "invert"):
        wa.invert(wa.asarray([1.5]))
    wa.memory.destroy_workspace("FAST_UFUNC_STALE")


CREATION_CALLS = [
    ("zeros", (5,), {}), ("zeros", ((2, 3),), {}), ("zeros", (0,), {}), ("zeros", ((),), {}),
    ("zeros", (3, "int32"), {}), ("zeros", (3,), {"dtype": bool}), ("zeros", (3,), {"dtype": complex}),
    ("zeros", (3,), {"dtype": ">f8"}), ("zeros", (3,), {"dtype": object}), ("zeros", (3,), {"dtype": "U3"}),
    ("zeros", (3,), {"order": "F"}), ("zeros", ((2, 3),), {"order": "F"}), ("zeros", (-1,), {}),
    ("zeros", (2**62,), {}), ("zeros", (3.0,), {}), ("zeros", ([2, 2],), {}), ("zeros", ((2, -2),), {}),
    ("ones", (4,), {}), ("ones", ((2, 2),), {"dtype": "int8"}), ("ones", (3,), {"dtype": "float16"}),
    ("ones", (3,), {"dtype": "complex64"}), ("ones", (3,), {"dtype": "uint64"}),
    ("ones", (3,), {"dtype": "longdouble"}),
    ("ones", (3,), {"dtype": "bool"}), ("ones", (3,), {"dtype": "float32"}), ("ones", (0,), {}),
    ("empty", (0,), {}), ("empty", ((4, 0),), {"dtype": "int16"}),
    ("full", (3, 2.5), {}), ("full", ((2, 2), -0.0), {}), ("full", (3, float("nan")), {}),
    ("full", (3, 7), {}), ("full", (3, True), {}), ("full", (3, 2.5), {"dtype": "float32"}),
    ("full", (3, 2.5, int), {}), ("full", (0, 1.5), {}), ("full", (3, numpy.float32(1.5)), {}),
    ("full", (3, 1 + 2j), {}), ("full", (-3, 1.0), {}), ("zeros", (), {}), ("zeros", (3, None, "C"), {}),
    ("zeros", (3,), {"dtype": None}), ("zeros", (3, float), {"dtype": float}),
    ("arange", (5,), {}), ("arange", (1,), {}), ("arange", (0,), {}), ("arange", (-3,), {}),
    ("arange", (-3, 4), {}), ("arange", (4, -3), {}), ("arange", (2, 9), {}), ("arange", (2**62 - 3, 2**62), {}),
    ("arange", (2**63 - 3, 2**63 - 1), {}), ("arange", (2**70,), {}), ("arange", (5.0,), {}), ("arange", (1, 9, 2), {}),
    ("arange", (5,), {"dtype": "f4"}), ("arange", (True,), {}), ("arange", (numpy.int32(4),), {}), ("arange", (), {}),
    ("arange", (1, 3), {"step": 1}), ("arange", (1001,), {}), ("arange", (-(2**40), 3 - 2**40 + 3000), {}),
]


@pytest.mark.parametrize("name,args,kwargs", CREATION_CALLS, ids=lambda v: repr(v)[:40])
def test_creation_functions_match_numpy(name, args, kwargs):
    for inside in (False, True):
        ws = wa.workspace("FAST_CREATE")
        with ws if inside else wa.scope_out():
            got, _ = outcome(lambda: getattr(wa, name)(*args, **kwargs))
            expected, _ = outcome(lambda: getattr(numpy, name)(*args, **kwargs))
            if isinstance(expected, type):
                assert got is expected
                continue
            assert type(got) is wa.Array
            g = numpy.asarray(got)
            assert g.dtype == expected.dtype and g.shape == expected.shape and got.strides == expected.strides
            if name != "empty":
                assert g.tobytes() == expected.tobytes() or numpy.array_equal(g, expected, equal_nan=True)
            if inside and got.size:  # an empty array is never attached (nothing to guard)
                assert got.workspace == "FAST_CREATE"
            else:
                assert got.workspace is None
        wa.memory.destroy_workspace("FAST_CREATE")


def test_created_arrays_go_stale_and_reuse_freed_memory():
    ws = wa.workspace("FAST_CREATE_STALE")
    with ws:
        z = wa.zeros(4)
        dirty = wa.full(16, 7.0)
        del dirty
        again = wa.zeros(16)  # reused memory is zeroed
        assert not numpy.asarray(again).any()
        assert numpy.asarray(wa.ones(16)).tolist() == [1.0] * 16
    with pytest.raises(wa.WorkspaceError, match="cycle"):
        z + 1.0
    wa.memory.destroy_workspace("FAST_CREATE_STALE")


FLAG_NAMES = ["C_CONTIGUOUS", "F_CONTIGUOUS", "OWNDATA", "WRITEABLE", "ALIGNED", "WRITEBACKIFCOPY"]
OWNED_RESULTS = [  # results whose memory the fast paths allocate themselves (no NumPy handler lookup)
    ("zeros(64)", lambda m, x: m.zeros(64)), ("zeros((3, 5), int8)", lambda m, x: m.zeros((3, 5), m.int8)),
    ("empty(7)", lambda m, x: m.empty(7)), ("ones(5, bool)", lambda m, x: m.ones(5, dtype=bool)),
    ("full(9, 2.5)", lambda m, x: m.full(9, 2.5)), ("arange(6)", lambda m, x: m.arange(6)),
    ("exp(x)", lambda m, x: m.exp(x)), ("x * x", lambda m, x: x * x), ("x < 0.5", lambda m, x: x < 0.5),
]


@pytest.mark.parametrize("name,make", OWNED_RESULTS, ids=[c[0] for c in OWNED_RESULTS])
def test_results_own_their_memory_as_numpys_do(scope, name, make):
    x = numpy.linspace(0.0, 1.0, 16).reshape(4, 4)
    got, expected = make(wa, wa.asarray(x)), make(numpy, x)
    assert [got.flags[f] for f in FLAG_NAMES] == [expected.flags[f] for f in FLAG_NAMES]
    assert got.base is None and got.strides == expected.strides and got.dtype == expected.dtype
    if name != "empty(7)":
        assert numpy.asarray(got).tobytes() == expected.tobytes()
    assert got.workspace == (scope.name if scope else None)
    if scope:  # the block is the workspace's, and goes back to it with the array
        before = scope.stats()
        del got
        after = scope.stats()
        assert after["frees"] == before["frees"] + 1 and after["live_arrays"] == before["live_arrays"] - 1


def test_owned_results_are_traced_and_freed_as_numpys_are():
    import tracemalloc

    def numpy_bytes():
        domain = tracemalloc.DomainFilter(True, 389047)  # NumPy's tracemalloc domain
        return sum(t.size for t in tracemalloc.take_snapshot().filter_traces([domain]).traces)

    x = wa.ones(1000)
    tracemalloc.start()
    try:
        base = numpy_bytes()
        made = [wa.zeros(1000), wa.empty((10, 100)), wa.exp(x), x + x]
        assert numpy_bytes() - base == 4 * 8000
        del made
        assert numpy_bytes() == base
    finally:
        tracemalloc.stop()


def test_large_zeros_outside_workspaces_are_zero():
    z = wa.zeros(3 * 10**6)  # NumPy's calloc: untouched pages read as zero
    assert not numpy.asarray(z).any() and z.flags["OWNDATA"]
    z[-1] = 2.0
    assert float(z.sum()) == 2.0


ITEM_DTYPES = ["float64", "float32", "int64", "int8", "uint16", "bool", "complex128", "float16",
               "longdouble", ">f8", "object", "U2", "datetime64[s]"]


@pytest.mark.parametrize("dtype", ITEM_DTYPES)
def test_item_access_matches_numpy(dtype):
    base = numpy.arange(24).reshape(2, 3, 4)
    a = base.astype(dtype) if dtype != "object" else base.astype(object)
    views = [a, a[:, ::-1], a[1], a[0, 1], a.T]
    keys = [0, -1, 1, (0, 0), (1, -1), (-2, 2), (0, 1, 2), (1, -3, -4), (0, 0, 0, 0), 5, -6, (0, 9),
            True, numpy.int64(1), (0, numpy.int32(1)), 2**70, -(2**70), (), (0, slice(None))]
    for v in views:
        w = wa.asarray(v)
        for key in keys:
            for inside in (False, True):
                ws = wa.workspace("FAST_ITEM")
                with ws if inside else wa.scope_out():
                    got, _ = outcome(lambda: w[key])
                    expected, _ = outcome(lambda: v[key])
                    if isinstance(expected, type):
                        assert got is expected
                    elif isinstance(expected, numpy.ndarray):
                        same_value(got, expected)
                    elif isinstance(expected, numpy.generic) and numpy.asarray(expected).dtype.kind not in "OUSV":
                        same_value(got, expected)
                        assert type(got) is type(expected)  # NumPy's scalar: a value, in no workspace
                    else:
                        assert got == expected or (got != got and expected != expected)
                wa.memory.destroy_workspace("FAST_ITEM")


def test_item_access_errors_name_the_method_and_check_staleness():
    w = wa.asarray(numpy.arange(6.0).reshape(2, 3))
    for key in (2, -3, (0, 3), (0, -4), (0, 0, 0)):
        with raises_numpys(IndexError, "(index|too many indices)", "ndarray.__getitem__"):
            w[key]
    ws = wa.workspace("FAST_ITEM_STALE")
    with ws:
        t = w * 1.0
        x = t[1, 2]
        assert float(x) == 5.0 and type(x) is numpy.float64
        s = t[1:]
        assert s.workspace == "FAST_ITEM_STALE"
    assert float(x + 1) == 6.0  # the element read during the cycle is a value that stays valid
    for use in (lambda: t[0, 0], lambda: t[0], lambda: s[0], lambda: len(t), lambda: t.shape,
                lambda: t.dtype, lambda: t.ndim, lambda: t.size):
        with pytest.raises(wa.WorkspaceError, match="cycle"):
            use()
    with pytest.raises(wa.WorkspaceError, match=r"wsarray\.ndarray\.__setitem__\(\)"):
        t[0, 0] = 1.0
    wa.memory.destroy_workspace("FAST_ITEM_STALE")


def test_setitem_and_attributes_match_numpy():
    for dtype in ("float64", "int32", "bool", "complex128", "float32"):
        a = numpy.zeros((3, 4), dtype)
        w = wa.asarray(a.copy())
        for key, value in [(0, 1.5), ((1, 2), 7), (-1, True), ((slice(None), 1), 2.0), (Ellipsis, 0),
                           ((0, 0), 1 + 2j), (1, wa.asarray(numpy.arange(4.0))), ((2, -1), wa.asarray(3.0)),
                           ((0, 5), 1.0), (7, 1), ((0,), 2**70), (0, float("nan"))]:
            exp_v = numpy.asarray(value) if type(value) is wa.Array else value
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r1, _ = outcome(lambda: w.__setitem__(key, value))
                r2, _ = outcome(lambda: a.__setitem__(key, exp_v))
            if isinstance(r2, type):
                assert r1 is r2
            assert numpy.array_equal(numpy.asarray(w), a, equal_nan=True)
        assert w.shape == a.shape and w.dtype == a.dtype and w.ndim == a.ndim and w.size == a.size
        assert len(w) == len(a)
    with raises_numpys(TypeError, r"len\(\) of unsized object", "ndarray.__len__"):
        len(wa.asarray(1.0))
    with raises_numpys(ValueError, "cannot delete array elements", "ndarray.__delitem__"):
        del w[0]
    w.shape = (4, 3)
    assert w.shape == (4, 3)
    with raises_numpys(ValueError, "cannot reshape", "ndarray.shape"):
        w.shape = (5, 5)


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 127, 128, 129, 1000, 8193, 70_001, 600_001])
def test_mean_is_numpys_mean_bit_for_bit(n):
    x = data(n, 5, special=False) * 1e3
    same_value(wa.asarray(x).mean(), x.mean())
    same_value(wa.asarray(x.reshape(1, n)).mean(), x.reshape(1, n).mean())


def test_mean_edge_cases_match_numpy():
    cases = [numpy.full(3, -0.0), numpy.array([numpy.nan, 1.0]), numpy.array([numpy.inf, 1.0]),
             numpy.full(4, 1e308), numpy.array([numpy.inf, -numpy.inf]), numpy.zeros(0),
             numpy.arange(12.0).reshape(3, 4)[:, 1:], numpy.arange(5), numpy.arange(5, dtype="f4"),
             numpy.array(2.5), numpy.array([1 + 2j]), numpy.array([True, False])]
    for a in cases:
        for mode in ("warn", "raise"):
            with numpy.errstate(all=mode):
                got, got_w = outcome(lambda: wa.asarray(a).mean())
                expected, expected_w = outcome(lambda: a.mean())
            assert got_w == expected_w
            if isinstance(expected, type):
                assert got is expected
            else:
                same_value(got, expected)
    w = wa.asarray(numpy.arange(12.0).reshape(3, 4))
    same_value(w.mean(axis=0), numpy.arange(12.0).reshape(3, 4).mean(axis=0))
    same_value(w.mean(dtype="f4"), numpy.arange(12.0).reshape(3, 4).mean(dtype="f4"))
    ws = wa.workspace("FAST_MEAN")
    with ws:
        t = w * 1.0
        m = t.mean()
        assert type(m) is numpy.float64 and type(wa.mean(t)) is numpy.float64
    assert float(m) == 5.5
    with pytest.raises(wa.WorkspaceError, match=r"wsarray\.ndarray\.mean\(\)"):
        t.mean()
    wa.memory.destroy_workspace("FAST_MEAN")


def test_array_keys_match_numpy_and_check_staleness():
    a = numpy.arange(12.0).reshape(3, 4)
    w = wa.asarray(a)
    for key in (a > 4, numpy.array([2, 0]), numpy.array([[0, 1]]), numpy.array(1), numpy.array([], int),
                numpy.array([True, False, True]), numpy.array([5]), numpy.array([0.5]), a[0] > 1):
        got, _ = outcome(lambda: w[wa.asarray(key)])
        expected, _ = outcome(lambda: a[key])
        if isinstance(expected, type):
            assert got is expected
        else:
            same_value(got, expected)
    with raises_numpys(IndexError, "index 7 is out of bounds", "ndarray.__getitem__"):
        w[wa.asarray([7])]
    ws = wa.workspace("FAST_MASK")
    with ws:
        mask = w > 4
        r = w[mask]
        assert r.workspace == "FAST_MASK"
    with pytest.raises(wa.WorkspaceError, match=r"wsarray\.ndarray\.__getitem__\(\)"):
        w[mask]
    wa.memory.destroy_workspace("FAST_MASK")


@pytest.mark.parametrize("method", ["max", "min", "prod"])
def test_max_min_prod_without_arguments_match_numpy(method):
    cases = [numpy.arange(5.0), numpy.array([numpy.nan, 1.0]), numpy.arange(6).reshape(2, 3),
             numpy.array([True, False]), numpy.array(3.5), numpy.array([1 + 2j, 3 - 1j]), numpy.zeros(0),
             numpy.array(["b", "a"]), numpy.arange(4.0)[::-1], numpy.arange(24.0).reshape(2, 3, 4)[:, 1],
             numpy.array([1e308, 10.0]), numpy.array([-0.0, 0.0]), numpy.array([0.0, -0.0])]
    for a in cases:
        with numpy.errstate(all="warn"):
            got, got_w = outcome(lambda: getattr(wa.asarray(a), method)())
            expected, expected_w = outcome(lambda: getattr(a, method)())
        assert got_w == expected_w
        if isinstance(expected, type):
            assert got is expected
        else:
            same_value(got, expected)
    with raises_numpys(ValueError, "zero-size", f"ndarray.{method}") if method != "prod" \
            else warnings.catch_warnings():
        getattr(wa.zeros(0), method)()
    w = wa.asarray(numpy.arange(12.0).reshape(3, 4))
    same_value(getattr(w, method)(axis=1), getattr(numpy.arange(12.0).reshape(3, 4), method)(axis=1))
    ws = wa.workspace("FAST_REDUCE")
    with ws:
        t = w * 1.0
        r = getattr(t, method)()
        assert type(r) is numpy.float64 and type(getattr(wa, method)(t)) is numpy.float64
    assert float(r) == float(getattr(numpy.arange(12.0), method)())
    with pytest.raises(wa.WorkspaceError, match=rf"wsarray\.ndarray\.{method}\(\)"):
        getattr(t, method)()
    wa.memory.destroy_workspace("FAST_REDUCE")


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "longdouble", "int64", "int32", "uint8", "bool"])
def test_max_min_match_numpy_bit_for_bit(dtype):
    """Which of equal values (0.0, -0.0) and which NaN NumPy's reduction loop keeps, at every size
    around its SIMD block lengths and the 8192-element limit of the lean path."""
    rng = numpy.random.default_rng(3)
    pool = numpy.array([0.0, -0.0, numpy.nan, 1.0, -1.0, numpy.inf, -numpy.inf, 2.5])
    for n in (1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1000, 4096, 8191, 8192, 8193):
        for x in (rng.choice(pool, n), rng.choice(pool[:2], n), rng.integers(-100, 100, n)):
            with numpy.errstate(invalid="ignore"):  # NaN and inf cast to integers
                x = x.astype(dtype)
            for method in ("max", "min"):
                with numpy.errstate(all="ignore"):
                    got, expected = getattr(wa.asarray(x), method)(), getattr(x, method)()
                assert repr(got) == repr(expected)
                if dtype != "longdouble":  # its padding bytes are arbitrary
                    assert numpy.asarray(got).tobytes() == numpy.asarray(expected).tobytes()


def test_namespace_calls_by_vectorcall_keep_arguments():
    from wsarray._native import Function

    assert Function.__flags__ & (1 << 11)  # Py_TPFLAGS_HAVE_VECTORCALL: the layout check passed
    a = numpy.arange(6.0).reshape(2, 3)
    w = wa.asarray(a)
    same_value(wa.sum(w, axis=0), a.sum(axis=0))
    same_value(wa.sum(w, 1, keepdims=True), a.sum(1, keepdims=True))
    same_value(wa.exp(w, out=wa.empty((2, 3)), where=True), numpy.exp(a))
    many = [wa.asarray(a[0])] * 10  # more positional arguments than the engine's stack array
    for got, expected in zip(wa.broadcast_arrays(*many), numpy.broadcast_arrays(*([a[0]] * 10))):
        same_value(got, expected)
    with raises_numpys(TypeError, r"exp\(\) got an unexpected keyword", "exp"):
        wa.exp(w, bogus=1)
    with raises_numpys(TypeError, "zeros\\(\\) got an unexpected keyword", "zeros"):
        wa.zeros(3, bogus=1)
    f = Function(len, "length")
    assert f([1, 2, 3]) == 3
