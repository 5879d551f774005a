"""The operators' float64 fast path (src/python/fast_ops.cpp) against NumPy: values, dtypes, NaN,
floating-point error reporting, temporary elision, in-place operators, stale arrays, threads."""

import operator
import warnings

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import wsarray as wa

from thread_helpers import run_threads

BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.lt, operator.le,
          operator.eq, operator.ne, operator.gt, operator.ge]
INPLACE = [operator.iadd, operator.isub, operator.imul, operator.itruediv]
# Sizes below and above the elision threshold (32 Ki elements) and the thread pool's (2**19).
SIZES = [1, 7, 1000, 40_000, 600_000]


def same(result, expected):
    """Exactly NumPy's result: type, dtype, shape and every bit (NaN where NumPy has NaN)."""
    assert isinstance(result, wa.Array)
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
    with pytest.raises(IndexError, match="wsarray.Array.__getitem__"):
        w[10]
    ws = wa.workspace("FAST_INDEX")
    with ws:
        t = w * 2.0
        view, scalar = t[1:3], t[0, 0]
        assert view.workspace == "FAST_INDEX" and scalar.workspace == "FAST_INDEX"
        assert w[1:3].workspace is None
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
        assert s.workspace == "FAST_SUM" and s.ndim == 0
        t = wa.asarray(numpy.ones(10)) * 2.0
    with pytest.raises(wa.WorkspaceError):
        t.sum()
    with pytest.raises(wa.WorkspaceError):
        float(s)
    wa.memory.destroy_workspace("FAST_SUM")
    same(wa.asarray(numpy.ones((3, 4))).sum(axis=0), numpy.ones((3, 4)).sum(axis=0))
