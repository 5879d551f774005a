"""The Array type: NumPy results, NumPy interop, protocols, and workspace membership."""
import copy
import doctest
import operator
import pickle
import traceback

import numpy as np
import pytest

import wsarray as wnp
from error_helpers import assert_numpys_error, raises_numpys

BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
          operator.mod, operator.pow, operator.lt, operator.le, operator.eq, operator.ne,
          operator.gt, operator.ge]
INT_BINARY = [operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift]


def same(w, n):
    """wsarray result `w` equals NumPy result `n`: type, dtype, shape and bits. A NumPy scalar
    (from NumPy's methods, beyond the array API) must be exactly NumPy's scalar type."""
    if not isinstance(w, wnp.Array):
        assert type(w) is type(n), (type(w), type(n))
    ref = np.asarray(n)
    got = np.asarray(w)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    np.testing.assert_array_equal(got, ref)


@pytest.fixture(params=[False, True], ids=["plain", "in_workspace"])
def scope(request):
    if request.param:
        with wnp.workspace("T") as ws:
            yield ws
    else:
        yield None


@pytest.mark.parametrize("op", BINARY, ids=lambda f: f.__name__)
def test_binary_operators_match_numpy(op, scope):
    a = np.linspace(-3, 3, 12).reshape(3, 4)
    b = np.arange(1.0, 13.0).reshape(3, 4)
    with np.errstate(all="ignore"):
        same(op(wnp.asarray(a), wnp.asarray(b)), op(a, b))
        same(op(wnp.asarray(a), 2.5), op(a, 2.5))
        same(op(2, wnp.asarray(b)), op(2, b))
        same(op(wnp.asarray(a), b[0]), op(a, b[0]))  # mixing with NumPy and broadcasting


@pytest.mark.parametrize("op", INT_BINARY, ids=lambda f: f.__name__)
def test_integer_operators_match_numpy(op, scope):
    a, b = np.arange(12, dtype=np.int32), np.arange(12, dtype=np.int32) % 5
    same(op(wnp.asarray(a), wnp.asarray(b)), op(a, b))
    same(op(wnp.asarray(a), 3), op(a, 3))


@pytest.mark.parametrize("op", [operator.neg, operator.pos, operator.abs, operator.invert])
def test_unary_operators(op, scope):
    a = np.arange(-5, 5, dtype=np.int64)
    same(op(wnp.asarray(a)), op(a))


def test_inplace_operators_write_in_place(scope):
    a = wnp.arange(6.0)
    before = a
    a += 1
    a *= wnp.full(6, 2.0)
    a -= 1
    a /= 2
    assert a is before
    same(a, (np.arange(6.0) + 1) * 2 / 2 - 0.5)
    i = wnp.arange(6)
    i //= 2
    i <<= 1
    same(i, (np.arange(6) // 2) << 1)


def test_matmul_and_divmod(scope):
    a = np.arange(12.0).reshape(3, 4)
    same(wnp.asarray(a) @ wnp.asarray(a.T), a @ a.T)
    q, r = divmod(wnp.asarray(a), 5.0)
    same(q, a // 5.0)
    same(r, a % 5.0)


def test_attributes(scope):
    a = wnp.asarray(np.ones((2, 3, 4), dtype=np.float32))
    assert a.shape == (2, 3, 4) and a.ndim == 3 and a.size == 24 and a.dtype == wnp.float32
    assert a.device == "cpu" and a.itemsize == 4 and a.nbytes == 96
    assert a.strides == (48, 16, 4)
    assert a.mT.shape == (2, 4, 3) and isinstance(a.mT, wnp.Array)
    m = wnp.ones((2, 3))
    assert m.T.shape == (3, 2)
    assert a.T.shape == (4, 3, 2) and wnp.ones(3).T.shape == (3,)  # NumPy's .T for any rank


def test_indexing_and_setitem_match_numpy(scope):
    n = np.arange(24.0).reshape(4, 6)
    w = wnp.asarray(n)
    for key in [1, (1, 2), slice(1, 3), (Ellipsis, 2), (None, 1), (slice(None), [0, 2]),
                n > 10, (1, slice(None, None, -1))]:
        same(w[key], n[key])
    same(w[wnp.asarray(n > 10)], n[n > 10])
    same(w[wnp.asarray([0, 3])], n[[0, 3]])
    n2, w2 = n.copy(), wnp.asarray(n.copy())
    n2[1:3, ::2] = -1
    w2[1:3, ::2] = -1
    n2[n2 > 20] = 0
    w2[w2 > 20] = wnp.asarray(0.0)
    same(w2, n2)
    with raises_numpys(IndexError, "index 10 is out of bounds", "Array.__getitem__"):
        w[10]
    before = np.asarray(w2).copy()
    with pytest.raises(ValueError):
        w2[0] = np.ones(5)  # wrong shape: target unchanged
    np.testing.assert_array_equal(np.asarray(w2), before)


def test_methods_forwarded_to_numpy(scope):
    n = np.arange(12.0).reshape(3, 4)
    w = wnp.asarray(n)
    same(w.sum(axis=0), n.sum(axis=0))
    same(w.mean(), n.mean())
    same(w.reshape(4, 3), n.reshape(4, 3))
    same(w.astype(np.int16), n.astype(np.int16))
    same(w.argmax(axis=1), n.argmax(axis=1))
    same(w.ravel(), n.ravel())
    assert w.tolist() == n.tolist() and w[1, 2].item() == 6.0
    with pytest.raises(AttributeError, match="no attribute 'frobnicate'"):
        w.frobnicate()


def test_scalar_conversions_and_printing(scope):
    n = np.array([[1.5, 2.25], [3.0, -4.0]])
    w = wnp.asarray(n)
    assert repr(w) == repr(n) and str(w) == str(n)
    assert float(w[0, 0]) == 1.5 and int(w[1, 0]) == 3 and complex(w[0, 1]) == 2.25
    assert f"{w[0, 1]:.1f}" == "2.2" and bool(w[0, 0])
    assert [1, 2, 3][wnp.asarray(1)] == 2  # __index__
    assert len(w) == 2 and [r.tolist() for r in w] == n.tolist()
    assert 3.0 in w and 7.0 not in w
    with pytest.raises(ValueError):
        bool(w)
    assert hash(wnp.asarray(3.0)) == hash(3.0)
    with pytest.raises(TypeError, match="unhashable"):
        hash(w)


def test_numpy_functions_accept_and_return_wsarray(scope):
    n = np.arange(10.0)
    w = wnp.asarray(n)
    for f in (np.sum, np.cumsum, np.sort, np.sqrt, np.mean):
        r = f(w)
        assert isinstance(r, wnp.Array), f
        same(r, f(n))
    r = np.concatenate([w, w])
    same(r, np.concatenate([n, n]))
    same(np.add.reduce(w), np.add.reduce(n))
    assert np.asarray(w) is not None and np.shares_memory(np.asarray(w), np.asarray(w))


def test_namespace_functions(scope):
    n = np.arange(1.0, 7.0).reshape(2, 3)
    w = wnp.asarray(n)
    same(wnp.linalg.inv(wnp.asarray(n @ n.T)), np.linalg.inv(n @ n.T))
    same(wnp.sort(-w, axis=1), np.sort(-n, axis=1))
    vals, vecs = wnp.linalg.eigh(wnp.asarray(n @ n.T))
    assert isinstance(vals, wnp.Array) and type(wnp.linalg.eigh(w @ w.T)).__name__ == "EighResult"
    same(wnp.fft.fft(w), np.fft.fft(n))
    same(wnp.add.reduce(w, axis=1), np.add.reduce(n, axis=1))
    same(wnp.where(w > 3, w, 0.0), np.where(n > 3, n, 0.0))
    assert wnp.asarray(w) is w  # asarray does not copy


def test_buffer_dlpack_array_protocols():
    w = wnp.arange(6, dtype=np.int32)
    assert memoryview(w).tolist() == list(range(6))
    n = np.from_dlpack(w)
    np.testing.assert_array_equal(n, np.arange(6))
    assert w.__dlpack_device__() == (1, 0)
    assert np.asarray(w, dtype=np.float64).dtype == np.float64
    with pytest.raises(ValueError):
        np.array(w, dtype=np.float64, copy=False)
    assert w.__array_namespace__() is wnp
    with pytest.raises(ValueError, match="unsupported api_version"):
        w.__array_namespace__(api_version="1999.01")
    assert w.to_device("cpu") is w
    with pytest.raises(ValueError, match="unknown device"):
        w.to_device("gpu:7")


def test_copy_and_pickle():
    with wnp.workspace("P"):
        w = wnp.arange(5.0)
        c = copy.copy(w)
        d = copy.deepcopy(w)
        assert c.workspace == "P" and d is not w
        blob = pickle.dumps(w)
    back = pickle.loads(blob)
    assert back.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0] and not back.is_attached()


def test_array_cannot_be_constructed_directly():
    with pytest.raises(TypeError):
        wnp.Array()


def test_errors_name_the_function():
    # NumPy's exception class and message; the traceback names the wsarray function.
    with pytest.raises(ValueError) as info:
        wnp.reshape(wnp.arange(6), (4, 4))
    with pytest.raises(ValueError) as want:
        np.reshape(np.arange(6), (4, 4))
    assert_numpys_error(info.value, want.value, "reshape")
    # what a doctest or a log compares (the last line of a traceback) is NumPy's
    assert traceback.format_exception_only(info.value) == traceback.format_exception_only(want.value)
    example = doctest.DocTestParser().get_doctest(
        ">>> np.reshape(np.arange(6), (4, 4))\nTraceback (most recent call last):\n"
        f"ValueError: {want.value}\n", {"np": wnp}, "reshape_example", None, 0)
    runner = doctest.DocTestRunner()
    runner.run(example, out=lambda text: None)
    assert runner.summarize(verbose=False) == (0, 1)
    with pytest.raises(TypeError):
        wnp.ones("three")
