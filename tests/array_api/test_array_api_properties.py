"""Property tests: wsarray against NumPy on arrays drawn by Hypothesis's array API strategies
(built through wsarray itself), across dtypes and shapes; some run inside a workspace and check
that the results belong to it."""
import contextlib
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.array_api import make_strategies_namespace

import wsarray as wnp

xps = make_strategies_namespace(wnp)
SETTINGS = settings(max_examples=25, deadline=None)
shapes = xps.array_shapes(min_dims=0, max_dims=3, max_side=4)
nd_shapes = xps.array_shapes(min_dims=1, max_dims=3, max_side=4)


def same(w, n, in_workspace=None):
    """wsarray result ``w`` equals NumPy result ``n`` (type, dtype, shape, values incl. NaNs): a
    NumPy scalar where NumPy gives one, else a wsarray array."""
    scalar = isinstance(n, np.generic)
    if scalar:
        assert type(w) is type(n), (type(w), type(n))
    else:
        assert type(w) is wnp.Array, type(w)
    n = np.asarray(n)
    got = np.asarray(w)
    assert got.dtype == n.dtype, (got.dtype, n.dtype)
    assert got.shape == n.shape
    np.testing.assert_array_equal(got, n)
    if in_workspace is not None and not scalar:
        assert w.workspace == in_workspace and w.is_in_scope()


@contextlib.contextmanager
def maybe_workspace(inside):
    if inside:
        with wnp.workspace("PROP"):
            yield "PROP"
    else:
        yield None


UNARY = {
    "abs": ("numeric", np.abs), "negative": ("numeric", np.negative),
    "sqrt": ("floating", np.sqrt), "exp": ("floating", np.exp), "log1p": ("floating", np.log1p),
    "sin": ("floating", np.sin), "tanh": ("real floating", np.tanh),
    "floor": ("real numeric", np.floor), "round": ("numeric", np.round),
    "sign": ("numeric", np.sign), "isnan": ("numeric", np.isnan), "isfinite": ("numeric", np.isfinite),
    "logical_not": ("bool", np.logical_not), "bitwise_invert": ("integral", np.invert),
    "square": ("numeric", np.square), "signbit": ("real floating", np.signbit),
    "conj": ("complex floating", np.conj), "imag": ("complex floating", np.imag),
}


def dtypes_of(kind):
    return {
        "numeric": xps.numeric_dtypes(), "floating": xps.floating_dtypes() | xps.complex_dtypes(),
        "real floating": xps.floating_dtypes(), "real numeric": xps.real_dtypes(),
        "integral": xps.integer_dtypes() | xps.unsigned_integer_dtypes(),
        "bool": xps.boolean_dtypes(), "complex floating": xps.complex_dtypes(),
    }[kind]


@pytest.mark.parametrize("name", sorted(UNARY))
@SETTINGS
@given(data=st.data(), inside=st.booleans())
def test_unary_elementwise(name, data, inside):
    kind, ref = UNARY[name]
    x = data.draw(xps.arrays(dtypes_of(kind), shapes), label="x")
    with np.errstate(all="ignore"), maybe_workspace(inside) as ws:
        r = getattr(wnp, name)(x)
        # imag() of a complex array is a view of it, not a new array.
        same(r, ref(np.asarray(x)), None if name == "imag" else ws)


BINARY = {
    "add": ("numeric", np.add), "multiply": ("numeric", np.multiply),
    "subtract": ("numeric", np.subtract), "divide": ("floating", np.divide),
    "maximum": ("real numeric", np.maximum), "equal": ("numeric", np.equal),
    "less": ("real numeric", np.less), "atan2": ("real floating", np.arctan2),
    "bitwise_and": ("integral", np.bitwise_and), "logical_or": ("bool", np.logical_or),
    "hypot": ("real floating", np.hypot), "copysign": ("real floating", np.copysign),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@SETTINGS
@given(data=st.data(), inside=st.booleans())
def test_binary_elementwise_broadcasting(name, data, inside):
    kind, ref = BINARY[name]
    dtype = data.draw(dtypes_of(kind), label="dtype")
    s1, s2 = data.draw(xps.mutually_broadcastable_shapes(2, max_dims=3, max_side=3),
                       label="shapes").input_shapes
    x1 = data.draw(xps.arrays(dtype, s1), label="x1")
    x2 = data.draw(xps.arrays(dtype, s2), label="x2")
    with np.errstate(all="ignore"), maybe_workspace(inside) as ws:
        same(getattr(wnp, name)(x1, x2), ref(np.asarray(x1), np.asarray(x2)), ws)


@SETTINGS
@given(x=xps.arrays(xps.real_dtypes(), shapes), scalar=st.integers(0, 3), inside=st.booleans())
def test_python_scalars_keep_the_array_dtype(x, scalar, inside):
    """array op Python int keeps the array's dtype (the standard's scalar promotion)."""
    with np.errstate(all="ignore"), maybe_workspace(inside) as ws:
        for op in (np.add, np.multiply, np.maximum):
            r = getattr(wnp, op.__name__)(x, scalar)
            assert r.dtype == x.dtype
            same(r, op(np.asarray(x), scalar), ws)
        same(x * scalar, np.asarray(x) * scalar, ws)


@SETTINGS
@given(data=st.data(), inside=st.booleans())
def test_reductions(data, inside):
    x = data.draw(xps.arrays(xps.real_dtypes(), nd_shapes), label="x")
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    n = np.asarray(x)
    with np.errstate(all="ignore"), warnings.catch_warnings(), maybe_workspace(inside) as ws:
        warnings.simplefilter("ignore", RuntimeWarning)  # std/var with correction >= size
        for name in ("sum", "prod", "max", "min", "any", "all"):
            same(getattr(wnp, name)(x, axis=axis, keepdims=keepdims),
                 getattr(np, name)(n, axis=axis, keepdims=keepdims), ws)
        if x.dtype.kind == "f":
            same(wnp.mean(x, axis=axis, keepdims=keepdims), np.mean(n, axis=axis, keepdims=keepdims), ws)
            same(wnp.std(x, axis=axis, correction=1), np.std(n, axis=axis, ddof=1), ws)
            same(wnp.var(x, axis=axis, ddof=1), np.var(n, axis=axis, ddof=1), ws)
        if axis is not None:
            same(wnp.argmax(x, axis=axis, keepdims=keepdims), np.argmax(n, axis=axis, keepdims=keepdims), ws)
            same(wnp.cumulative_sum(x, axis=axis, include_initial=True),
                 np.cumulative_sum(n, axis=axis, include_initial=True), ws)


@SETTINGS
@given(data=st.data(), inside=st.booleans())
def test_manipulation(data, inside):
    x = data.draw(xps.arrays(xps.scalar_dtypes(), nd_shapes), label="x")
    n = np.asarray(x)
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    with maybe_workspace(inside) as ws:
        same(wnp.reshape(x, (-1,)), n.reshape(-1))  # a view of x
        same(wnp.flip(x, axis=axis), np.flip(n, axis=axis))
        same(wnp.roll(x, 2, axis=axis), np.roll(n, 2, axis=axis), ws)
        same(wnp.expand_dims(x, axis=(0, -1)), np.expand_dims(n, (0, -1)))
        same(wnp.moveaxis(x, axis, 0), np.moveaxis(n, axis, 0))
        same(wnp.permute_dims(x, tuple(reversed(range(x.ndim)))), n.transpose())
        same(wnp.concat([x, x], axis=axis), np.concat([n, n], axis=axis), ws)
        same(wnp.stack([x, x], axis=0), np.stack([n, n]), ws)
        same(wnp.repeat(x, 2, axis=axis), np.repeat(n, 2, axis=axis), ws)
        same(wnp.tile(x, (2,)), np.tile(n, (2,)), ws)
        parts = wnp.unstack(x, axis=axis)
        assert isinstance(parts, tuple) and len(parts) == x.shape[axis]
        for p, q in zip(parts, np.unstack(n, axis=axis)):
            same(p, q)
        same(wnp.take(x, wnp.asarray([0, 0]), axis=axis), np.take(n, [0, 0], axis=axis), ws)


@SETTINGS
@given(data=st.data(), inside=st.booleans())
def test_sorting_and_searching(data, inside):
    x = data.draw(xps.arrays(xps.real_dtypes(), nd_shapes, elements={"allow_nan": False}), label="x")
    n = np.asarray(x)
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    with maybe_workspace(inside) as ws:
        same(wnp.sort(x, axis=axis), np.sort(n, axis=axis, kind="stable"), ws)
        same(wnp.argsort(x, axis=axis), np.argsort(n, axis=axis, kind="stable"), ws)
        same(wnp.argsort(x, axis=axis, stable=False).shape and wnp.take_along_axis(
            x, wnp.argsort(x, axis=axis, stable=False), axis=axis), np.sort(n, axis=axis))
        for a, b in zip(wnp.nonzero(x), np.nonzero(n)):
            same(a, b)
        same(wnp.where(x > 0, x, wnp.zeros_like(x)), np.where(n > 0, n, 0).astype(n.dtype))


def matrices(min_side=1):
    side = st.integers(min_side, 4)
    return st.tuples(st.sampled_from([wnp.float32, wnp.float64]), side, st.integers(0, 2))


@SETTINGS
@given(spec=matrices(), seed=st.integers(0, 2**32 - 1), inside=st.booleans())
def test_linalg(spec, seed, inside):
    dtype, k, batch = spec
    rng = np.random.default_rng(seed)
    shape = (batch, k, k) if batch else (k, k)
    a = (rng.standard_normal(shape) + 4 * np.eye(k)).astype(dtype)  # well conditioned
    b = rng.standard_normal(shape).astype(dtype)
    spd = a @ np.swapaxes(a, -1, -2)
    wa, wb, wspd = wnp.asarray(a), wnp.asarray(b), wnp.asarray(spd)
    # NumPy's reference reads the very same buffers (BLAS results may depend on alignment).
    a, b, spd = np.asarray(wa), np.asarray(wb), np.asarray(wspd)
    with maybe_workspace(inside) as ws:
        same(wnp.matmul(wa, wb), np.matmul(a, b), ws)
        same(wa @ wb, a @ b, ws)
        same(wnp.linalg.inv(wa), np.linalg.inv(a), ws)
        same(wnp.linalg.solve(wa, wb), np.linalg.solve(a, b), ws)
        same(wnp.linalg.det(wa), np.linalg.det(a), ws)
        same(wnp.linalg.cholesky(wspd), np.linalg.cholesky(spd), ws)
        same(wnp.linalg.svdvals(wa), np.linalg.svdvals(a), ws)
        q, r = wnp.linalg.qr(wa)
        same(q, np.linalg.qr(a).Q, ws)
        same(r, np.linalg.qr(a).R, ws)
        same(wnp.linalg.matrix_norm(wa), np.linalg.matrix_norm(a), ws)
        same(wnp.linalg.vector_norm(wa, axis=-1), np.linalg.vector_norm(a, axis=-1), ws)
        same(wnp.vecdot(wa, wb), np.vecdot(a, b), ws)
        same(wnp.matrix_transpose(wa), np.matrix_transpose(a))
        axes = ([a.ndim - 1], [b.ndim - 2])
        same(wnp.tensordot(wa, wb, axes=axes), np.tensordot(a, b, axes=axes), ws)
        w = wnp.linalg.eigvals(wa)
        assert w.dtype == np.linalg.eigvals(a).dtype  # NumPy's dtype rule (README)
        np.testing.assert_allclose(np.sort_complex(np.asarray(w).ravel()),
                                   np.sort_complex(np.linalg.eigvals(a).ravel()), rtol=1e-6, atol=1e-6)


@SETTINGS
@given(x=xps.arrays(xps.floating_dtypes() | xps.complex_dtypes(), nd_shapes), inside=st.booleans())
def test_fft(x, inside):
    n = np.asarray(x)
    with np.errstate(all="ignore"), maybe_workspace(inside) as ws:
        same(wnp.fft.fft(x), np.fft.fft(n), ws)
        same(wnp.fft.ifftn(x), np.fft.ifftn(n), ws)
        if x.dtype.kind == "f":
            same(wnp.fft.rfft(x), np.fft.rfft(n), ws)
        same(wnp.fft.fftshift(x), np.fft.fftshift(n))


@SETTINGS
@given(data=st.data(), inside=st.booleans())
def test_indexing(data, inside):
    x = data.draw(xps.arrays(xps.scalar_dtypes(), nd_shapes), label="x")
    n = np.asarray(x)
    idx = data.draw(xps.indices(x.shape), label="idx")
    mask = data.draw(xps.arrays(wnp.bool, x.shape), label="mask")
    with maybe_workspace(inside):
        same(x[idx], n[idx])
        same(x[mask], n[np.asarray(mask)])
        y = wnp.asarray(x, copy=True)
        value = x[(0,) * x.ndim]
        y[mask] = value
        m = n.copy()
        m[np.asarray(mask)] = np.asarray(value)
        same(y, m)
