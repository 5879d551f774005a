"""wsarray.fuse: results equal NumPy's evaluation of the same function (dtype and bits), over
generated shapes, dtypes, broadcasting, non-contiguous views and scalar kinds; reductions exact;
unsupported bodies fall back with a warning; outputs come from the current workspace."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import wsarray as wnp
from wsarray.fusion import api, blocks


@pytest.fixture(autouse=True)
def _blocks_for_every_size(monkeypatch):
    """The tests use small arrays: run them through the traced block machinery, not the shortcut
    that calls the function itself for small inputs (tested on its own below)."""
    monkeypatch.setattr(api, "_EAGER_UP_TO", 0)

DTYPES = [np.float64, np.float32, np.int64, np.int32, np.uint8, np.bool_, np.complex128]
BIG = 3 * blocks.BLOCK + 17  # several blocks and a partial one


def same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert np.array_equal(got, want, equal_nan=want.dtype.kind in "fc"), (got, want)
    if want.dtype.kind == "f":  # bit for bit: signs of zeros, NaN payloads of ordinary results
        assert np.array_equal(np.signbit(got), np.signbit(want))


def both(f, *args):
    """f on wsarray through fuse, and on NumPy as the reference (numpy's own functions)."""
    fused = wnp.fuse(f)
    with np.errstate(all="ignore"):
        want = f(*[np.asarray(a) if type(a) is wnp.Array else a for a in args])
        got = fused(*args)
    return got, want


FUNCTIONS = [
    lambda a, b: a * b + 1.0,
    lambda a, b: (a - b) * (a + b) / (b * b + 1),
    lambda a, b: np.exp(a * 0.5) * b + np.sqrt(np.abs(b)) - a / (b + 1.0),
    lambda a, b: np.where(a > b, a, b * 2),
    lambda a, b: np.maximum(a, b) - np.minimum(a, 3),
    lambda a, b: (a < b) | (a == 0),
    lambda a, b: np.sin(a) ** 2 + np.cos(b) ** 2,
    lambda a, b: (a * 2).astype(np.float32) + b,
    lambda a, b: np.clip(a, -1, 2) * b,
    lambda a, b: np.log1p(np.abs(a)) + np.tanh(b),
]


@pytest.mark.parametrize("k", range(len(FUNCTIONS)))
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_elementwise_chains_equal_numpy(k, dtype):
    rng = np.random.default_rng(k)
    a = (rng.standard_normal(BIG) * 3).astype(dtype)
    b = (rng.standard_normal(BIG) * 3).astype(dtype)
    got, want = both(FUNCTIONS[k], wnp.asarray(a), wnp.asarray(b))
    same(got, want)
    assert type(got) is wnp.Array


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(DTYPES), st.sampled_from(DTYPES),
       hnp.array_shapes(min_dims=0, max_dims=3, max_side=40), st.booleans(), st.booleans(),
       st.sampled_from([2, 0.5, True, -3, 1.5 + 0j]), st.integers(0, len(FUNCTIONS) - 1))
def test_generated_shapes_dtypes_views_and_scalars(da, db, shape, transpose, broadcast, scalar, k):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(shape) * 4).astype(da)
    b = (rng.standard_normal(shape[1:] if broadcast and shape else shape) * 4).astype(db)
    if transpose and a.ndim >= 2:
        a = a.T  # a non-contiguous view (shapes may then broadcast or not: both are checked)
    f = FUNCTIONS[k]

    def g(x, y, s):
        return f(x, y) * s

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = g(a, b, scalar)
        except Exception as e:  # noqa: BLE001 - NumPy refuses: so must the fused call
            with pytest.raises(type(e)):
                wnp.fuse(g)(wnp.asarray(a), wnp.asarray(b), scalar)
            return
        got = wnp.fuse(g)(wnp.asarray(a), wnp.asarray(b), scalar)
    same(got, want)


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "any", "all"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.complex128])
def test_whole_array_reductions_are_numpys_bit_for_bit(name, dtype):
    if dtype == np.complex128 and name in ("max", "min"):
        pytest.skip("complex max/min order is NumPy's lexicographic one, tested elsewhere")
    rng = np.random.default_rng(1)
    n = 10 * blocks.BLOCK + 123
    a = (rng.random(n) + 0.5).astype(dtype)
    b = (rng.random(n) * 0.01 + 0.995).astype(dtype)

    def f(x, y):
        return getattr(np, name)(x * y + 1e-3 if dtype != np.int64 else x * y)

    got, want = both(f, wnp.asarray(a), wnp.asarray(b))
    same(got, want)
    for threads in ("1", "2"):  # the same bits whatever the thread count
        import os
        old = os.environ.get("WSARRAY_NUM_THREADS")
        os.environ["WSARRAY_NUM_THREADS"] = threads
        try:
            same(wnp.fuse(f)(wnp.asarray(a), wnp.asarray(b)), want)
        finally:
            if old is None:
                del os.environ["WSARRAY_NUM_THREADS"]
            else:
                os.environ["WSARRAY_NUM_THREADS"] = old


@pytest.mark.parametrize("axis", [0, 1, (0, 1), -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_with_axis(axis, keepdims):
    rng = np.random.default_rng(2)
    a, b = rng.random((300, 70)), rng.random((300, 70))
    got, want = both(lambda x, y: np.sum(np.exp(x) * y, axis=axis, keepdims=keepdims), wnp.asarray(a), wnp.asarray(b))
    same(got, want)


def test_outputs_come_from_the_current_workspace():
    f = wnp.fuse(lambda a, b: a * b + 1.0)
    a = wnp.ones(BIG)
    with wnp.workspace("FUSE") as ws:
        before = ws.stats()["allocated_bytes"]
        r = f(a, a)
        assert r.workspace == "FUSE"
        # one output, no full-size temporaries
        assert ws.stats()["allocated_bytes"] - before < 2 * BIG * 8
        total = float(r.sum())
    assert total == 2.0 * BIG
    with pytest.raises(wnp.WorkspaceError):
        r.sum()


def test_unsupported_bodies_fall_back_with_a_warning_once():
    def data_dependent(a):
        if a.sum() > 0:  # Python control flow on values: cannot be traced
            return a * 2
        return a

    f = wnp.fuse(data_dependent)
    a = wnp.arange(5.0)
    with pytest.warns(wnp.FuseWarning, match="runs unfused"):
        r = f(a)
    assert np.asarray(r).tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f(a)  # no second warning

    g = wnp.fuse(lambda a: np.sort(a) + 1)
    with pytest.warns(wnp.FuseWarning, match="sort"):
        assert np.asarray(g(wnp.asarray([3.0, 1.0]))).tolist() == [2.0, 4.0]


def test_small_inputs_call_the_function_itself(monkeypatch):
    monkeypatch.setattr(api, "_EAGER_UP_TO", 64)
    calls = []

    def f(a, b, s):
        calls.append(type(a))
        return wnp.sqrt(a * s + b)

    fused = wnp.fuse(f)
    x, y = wnp.arange(64.0), wnp.ones(64)
    for _ in range(3):
        same(fused(x, y, 2.0), np.sqrt(np.arange(64.0) * 2.0 + 1))
    assert calls == [wnp.Array] * 3  # called with the arrays themselves: no trace, no blocks
    out = wnp.empty(64)
    assert fused(x, y, 2.0, out=out) is out and float(out[3]) == np.sqrt(7.0)
    calls.clear()
    fused(wnp.arange(65.0), wnp.ones(65), 2.0)  # above the limit: traced (proxies, not Arrays)
    fused(x.reshape(64, 1), wnp.ones(64), 2.0)  # small inputs that broadcast to 4,096 elements
    # (each signature with a scalar argument is traced twice: see test_traced_once_per_signature)
    assert wnp.Array not in calls and len(calls) == 4


def test_traced_once_per_signature():
    calls = []

    def f(a, s):
        calls.append(1)
        return a * s

    fused = wnp.fuse(f)
    x = wnp.ones(10)
    for _ in range(3):
        fused(x, 2.0)
    # Traced twice: again with another value of the scalar, which shows that the constant it
    # multiplies by is the argument itself (bound at every call, never traced again for it).
    assert len(calls) == 2
    assert float(fused(x, 5.0)[0]) == 5.0 and len(calls) == 2
    fused(x, 2)  # an int scalar: another signature
    fused(wnp.ones(10, dtype=np.float32), 2.0)
    assert len(calls) == 6


def test_floor_division_follows_the_standard_as_wsarray_does():
    a = wnp.asarray([np.inf, -np.inf, 5.0, -5.0])
    b = wnp.asarray([2.0, 2.0, -np.inf, np.inf])
    want = a // b
    got = wnp.fuse(lambda x, y: x // y)(a, b)
    same(got, want)


def test_bad_input_gets_numpys_error_or_a_clear_one():
    f = wnp.fuse(lambda a, b: a + b)
    with pytest.raises(ValueError, match="broadcast"):
        f(wnp.ones(3), wnp.ones(4))
    with pytest.raises(TypeError, match="wsarray.fuse"):
        wnp.fuse(3)
    with wnp.workspace("OLD"):
        stale = wnp.ones(3)
    with pytest.raises(wnp.WorkspaceError):
        f(stale, stale)


def test_floating_point_errors_are_reported_as_numpy_reports_them():
    a = wnp.asarray(np.linspace(0, 1000, BIG))
    f = wnp.fuse(lambda x: np.exp(x) * 2.0)
    with pytest.warns(RuntimeWarning, match="overflow encountered in exp"):
        r = f(a)
    same(r, np.exp(np.asarray(a)) * 2.0)
    with np.errstate(over="raise"), pytest.raises(FloatingPointError, match="overflow encountered in exp"):
        f(a)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        f(a)  # ignored, as NumPy ignores it
    g = wnp.fuse(lambda x: np.max(np.exp(x)))
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        g(a)


def test_the_native_runner_takes_plain_float_chains():
    from wsarray.fusion.native import native_for

    f = wnp.fuse(lambda a, b: np.sqrt(np.abs(a)) * b + 1.0)
    x = wnp.ones(10)
    f(x, x)
    (plan,) = f._plans.values()
    assert native_for(plan, {}) is not None
    g = wnp.fuse(lambda a: np.where(a > 0, a, 0))  # where: the Python block path
    g(x)
    (plan,) = g._plans.values()
    assert native_for(plan, {}) is None


def test_out_receives_a_strided_result_like_the_heat_stencil():
    rng = np.random.default_rng(3)
    u = rng.random((70, 90))
    stencil = wnp.fuse(lambda c, n, s, e, w: c + 0.1 * (n + s + e + w - 4.0 * c))
    want = u.copy()
    c = u[1:-1, 1:-1]
    want[1:-1, 1:-1] = c + 0.1 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4.0 * c)
    U = wnp.asarray(u.copy())
    got = wnp.asarray(u.copy())
    r = stencil(U[1:-1, 1:-1], U[2:, 1:-1], U[:-2, 1:-1], U[1:-1, 2:], U[1:-1, :-2], out=got[1:-1, 1:-1])
    assert np.array_equal(np.asarray(got), want)
    assert np.shares_memory(np.asarray(r), np.asarray(got))
    # out= overlapping an input: computed as the function would compute it, then assigned
    x = wnp.asarray(np.arange(10.0))
    wnp.fuse(lambda a: a * 2)(x, out=x)
    assert np.asarray(x).tolist() == [2.0 * k for k in range(10)]


@pytest.mark.parametrize("n", [8, 100_000])
def test_out_casts_as_a_ufuncs_out_does(n):
    # A float result into an int array is NumPy's same-kind casting error at every size (small
    # calls run the function eagerly, large ones by blocks), never a silent truncation; a
    # same-kind out (float32) receives the result cast, as np.multiply(..., out=) does.
    x = wnp.asarray(np.linspace(0.0, 1.0, n))
    fused = wnp.fuse(lambda a, b: a * b + 0.5)
    with pytest.raises(TypeError) as want:
        np.multiply(np.asarray(x), np.asarray(x), out=np.empty(n, np.int64))
    ints = wnp.zeros(n, dtype=wnp.int64)
    with pytest.raises(TypeError, match="Cannot cast"):
        fused(x, x, out=ints)
    assert isinstance(want.value, TypeError) and not np.asarray(ints).any()
    singles = wnp.empty(n, dtype=wnp.float32)
    assert fused(x, x, out=singles) is singles
    assert np.array_equal(np.asarray(singles), (np.asarray(x) * np.asarray(x) + 0.5).astype(np.float32))


@pytest.mark.parametrize("n", [8, 300_000])
def test_an_out_no_ufunc_could_write_is_refused_and_left_as_it_was(n, tmp_path):
    x = wnp.asarray(np.linspace(1.0, 2.0, n))
    fused = wnp.fuse(lambda a: a * 2.0 + 1.0)
    readonly = np.zeros(n)
    readonly.flags.writeable = False
    immutable = np.frombuffer(bytes(8 * n), dtype=np.float64)
    path = tmp_path / "ro.bin"
    np.zeros(n).tofile(path)
    mapped = np.memmap(path, dtype=np.float64, mode="r", shape=(n,))  # pages mapped read-only
    for out in (readonly, immutable, mapped):
        with pytest.raises(ValueError, match="output array is read-only"):
            fused(x, out=out)
        assert not np.asarray(out).any()
    ws = wnp.workspace("FUSE_OUT")
    with ws:
        stale = wnp.zeros(n)
    with pytest.raises(wnp.WorkspaceError, match="cycle"):
        fused(x, out=stale)
    if n > 8:
        with pytest.raises(TypeError, match="wsarray.fuse: out must be an array, not list"):
            fused(x, out=[0.0] * n)


def test_floating_point_errors_are_reported_once_per_call_with_the_callers_handler():
    a = wnp.asarray(np.arange(2_000_000) % 7)
    f = wnp.fuse(lambda x: (x // (x % 3)) + 1)  # integer division by zero in many blocks
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        r = f(a)
    with warnings.catch_warnings(record=True) as want:
        warnings.simplefilter("always")
        expected = (np.asarray(a) // (np.asarray(a) % 3)) + 1
    same(r, expected)
    assert [str(w.message) for w in got] == [str(w.message) for w in want] == \
        ["divide by zero encountered in floor_divide"]
    calls = []
    with np.errstate(divide="call", call=lambda kind, flag: calls.append(kind)):
        f(a)
    assert calls == ["divide by zero"]
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError, match="divide by zero"):
        f(a)


def test_raise_mixed_with_reported_errors_keeps_numpys_order():
    a = wnp.asarray(np.linspace(-1.0, 800.0, BIG))
    f = wnp.fuse(lambda x: np.sqrt(x) / (x - x) * np.exp(x))  # invalid, divide, then overflow
    ref = np.asarray(a)
    for modes in ({"invalid": "warn", "divide": "warn", "over": "raise"},
                  {"invalid": "call", "divide": "call", "over": "raise"}):
        outcomes = []
        for call in (lambda: f(a), lambda: np.sqrt(ref) / (ref - ref) * np.exp(ref)):
            calls = []
            with warnings.catch_warnings(record=True) as caught, \
                    np.errstate(call=lambda kind, flag: calls.append(kind), **modes):
                warnings.simplefilter("always")
                with pytest.raises(FloatingPointError, match="overflow") as raised:
                    call()
            outcomes.append(([str(w.message) for w in caught], calls, str(raised.value)))
        assert outcomes[0] == outcomes[1]


LARGE = 200_000  # above the threads' threshold (16 blocks)


@pytest.mark.parametrize("make", [
    lambda x: np.sum(x > 0.5), lambda x: np.mean(x > 0.5), lambda x: np.sum((x * 100).astype(np.int8) + 1),
    lambda x: np.prod((x * 3).astype(np.int8) | 1), lambda x: np.sum((x * 100).astype(np.uint16)),
    lambda x: np.mean((x * 2**62).astype(np.int64)), lambda x: np.sum((x * 2**62).astype(np.int64)),
    lambda x: np.max((x * 100).astype(np.int8)),
])
def test_whole_reductions_of_small_integers_and_masks_are_numpys(make):
    # NumPy sums and multiplies bools and small integers in the default integer, and takes the
    # mean of integers in float64: the blocks reduced in the elementwise dtype (a count of a
    # mask came out as 25 where NumPy says 99,652).
    x = np.random.default_rng(1).random(LARGE)
    with np.errstate(all="ignore"):
        same(wnp.fuse(make)(wnp.asarray(x)), make(x))


def test_scalar_arguments_are_the_call_s_and_values_computed_from_them_too():
    x = wnp.ones(LARGE)
    times = wnp.fuse(lambda a, s: a * s)
    derived = wnp.fuse(lambda a, s: a * (s * 2))
    branch = wnp.fuse(lambda a, s: a + 1 if s > 0 else a - 1)
    root = wnp.fuse(lambda a, s: a * np.sqrt(s))
    for s in (3.0, 5.0, -2.0, 3.0, 16.0):
        assert float(times(x, s)[7]) == s  # the scalar was baked in at the first trace
        assert float(derived(x, s)[7]) == s * 2
        assert float(branch(x, s)[7]) == (2.0 if s > 0 else 0.0)
        with np.errstate(invalid="ignore"):
            same(root(x, s), np.ones(LARGE) * np.sqrt(s))
    scale = 2.0
    closure = wnp.fuse(lambda a: a * scale)
    assert float(closure(x)[0]) == 2.0
    scale = 7.0
    assert float(closure(x)[0]) == 7.0  # closure values are part of the plan's key


def test_a_loop_that_raises_raises_numpys_error_wherever_it_runs():
    # NumPy's integer power reports a negative exponent through Python from inside its loop: on
    # the calling thread that became a SystemError; on a pool thread the error was lost and the
    # rest of the block never written.
    x = np.full(LARGE, 2, dtype=np.int64)
    for where in (5, LARGE - 5):
        y = np.ones(LARGE, dtype=np.int64)
        y[where] = -1
        with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed"):
            wnp.fuse(lambda a, b: a ** b)(wnp.asarray(x), wnp.asarray(y))
        with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed"):
            wnp.fuse(lambda a, b: np.sum(a ** b))(wnp.asarray(x), wnp.asarray(y))


def test_axis_reductions_keep_one_program_per_plan():
    # The elementwise part of a plan was made anew at every call, and each thread kept a
    # compiled program (with its block buffers) for every one of them: memory grew per call.
    f = wnp.fuse(lambda a: np.sum(np.where(a > 0.5, a, 0.0) * 2.0, axis=0))
    x = wnp.asarray(np.random.default_rng(2).random((400, 500)))
    for _ in range(50):
        f(x)
    assert len(blocks._local.programs) <= 2


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, np.float32, np.float64, np.float16])
@pytest.mark.parametrize("exponent", [2, 2.0, 0.5, -1, 1, 3])
def test_a_python_scalar_exponent_is_numpys_operator(dtype, exponent):
    # ndarray.__pow__ runs square, sqrt, reciprocal or positive for these exponents, which differ
    # from power for complex numbers.
    rng = np.random.default_rng(3)
    a = (rng.random(LARGE) + 0.5).astype(dtype)
    if np.dtype(dtype).kind == "c":
        a = a + (1j * rng.random(LARGE)).astype(dtype)
    with np.errstate(all="ignore"):
        same(wnp.fuse(lambda v: v ** exponent)(wnp.asarray(a)), a ** exponent)


def test_reductions_follow_numpys_memory_order_and_mean_division():
    rng = np.random.default_rng(4)
    x = np.asfortranarray(rng.random((300, 700)).astype(np.float32))
    y = np.asfortranarray(rng.random((300, 700)).astype(np.float32))
    same(wnp.fuse(lambda a, b: np.sum(a * b, axis=-1))(wnp.asarray(x), wnp.asarray(y)), np.sum(x * y, axis=-1))
    z = (rng.random(LARGE) + 1j * rng.random(LARGE)).astype(np.complex64)
    same(wnp.fuse(lambda a: np.mean(a * 2))(wnp.asarray(z)), np.mean(z * 2))
    w = rng.random(LARGE).astype(np.float32)
    same(wnp.fuse(lambda a: np.mean(a * 3))(wnp.asarray(w)), np.mean(w * 3))
