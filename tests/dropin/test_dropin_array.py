"""The Array type as NumPy programs see it: operators, methods, attributes, indexing, printing of
scalar results, round(), a.shape = ..., .T for any rank, x[None], protocols (buffer, DLPack, pickle,
copy), NumPy string scalars, errors, and workspace membership."""

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
    if type(w) is not wnp.Array:
        assert type(w) is type(n), (type(w), type(n))
    ref = np.asarray(n)
    got = np.asarray(w)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    np.testing.assert_array_equal(got, ref)


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
    assert a.mT.shape == (2, 4, 3) and type(a.mT) is wnp.Array
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
    with raises_numpys(IndexError, "index 10 is out of bounds", "ndarray.__getitem__"):
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
    assert hash(w[0, 0]) == hash(1.5)  # NumPy's scalar
    for unhashable in (w, wnp.asarray(3.0)):  # arrays are unhashable, 0-d ones too, as NumPy's
        with pytest.raises(TypeError, match="unhashable"):
            hash(unhashable)


def test_numpy_functions_accept_and_return_wsarray(scope):
    n = np.arange(10.0)
    w = wnp.asarray(n)
    for f in (np.sum, np.cumsum, np.sort, np.sqrt, np.mean):
        r, want = f(w), f(n)
        assert type(r) is type(want) if isinstance(want, np.generic) else type(r) is wnp.Array, f
        same(r, want)
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
    assert type(vals) is wnp.Array and type(wnp.linalg.eigh(w @ w.T)).__name__ == "EighResult"
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


def test_the_array_constructor_needs_a_shape_as_ndarrays_does():
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


# The workspace of the `scope` fixture (conftest.py).
SCOPE_WORKSPACE = "DROPIN_ARRAY"


def test_repr_of_scalar_results_matches_numpy(scope):
    n = np.array([[1.5, 2.0], [3.0, 4.25]])
    w = wnp.asarray(n)
    # The array API's functions, indexing and NumPy's own API give NumPy's scalars, as NumPy does.
    pairs = [(wnp.sum(w), n.sum()), (wnp.mean(w), n.mean()), (w[0, 1], n[0, 1]),
             (wnp.max(w) - wnp.min(w), n.max() - n.min()), (w.astype(np.float32)[0, 0], n.astype(np.float32)[0, 0]),
             (wnp.any(w > 2), (n > 2).any()), (wnp.argmax(w), n.argmax()), (wnp.sum(w) * 2, n.sum() * 2)]
    for got, want in pairs:
        assert type(got) is type(want) and repr(got) == repr(want) and str(got) == str(want)
    numpy_api = [(w.sum(), n.sum()), (w.mean(), n.mean()), (w.max() - w.min(), n.max() - n.min()),
                 ((w > 2).any(), (n > 2).any()), (w.argmax(), n.argmax()), (wnp.linalg.norm(w), np.linalg.norm(n)),
                 (w.sum() * 2, n.sum() * 2), (wnp.dot(w[0], w[1]), np.dot(n[0], n[1])), (wnp.median(w), np.median(n))]
    for got, want in numpy_api:
        assert type(got) is type(want) and repr(got) == repr(want)
    assert repr([w.sum(), w[1, 1]]) == repr([n.sum(), n[1, 1]])
    assert repr({w[0, 0]: 1}) == repr({n[0, 0]: 1})


def test_repr_of_real_zero_d_arrays_stays_array_repr(scope):
    for value in (5, 2.5, True):
        assert repr(wnp.asarray(value)) == repr(np.asarray(value))
    assert repr(wnp.zeros(())) == repr(np.zeros(()))


def test_scalar_results_have_scalar_methods(scope):
    w = wnp.asarray([1.5, 2.5])
    n = np.array([1.5, 2.5])
    assert w.sum().is_integer() is n.sum().is_integer()
    assert repr(w.sum().astype(np.float32)) == repr(n.sum().astype(np.float32))
    assert repr(w[0].round()) == repr(n[0].round())
    assert w.mean().item() == n.mean().item() and w.mean().tolist() == n.mean().tolist()
    # An explicit 0-d array keeps ndarray methods: astype gives a 0-d array, as in NumPy.
    assert repr(wnp.asarray(1.5).astype(np.float32)) == repr(np.asarray(1.5).astype(np.float32))


def test_round_follows_numpy_scalars(scope):
    w = wnp.asarray([2.567, 2.5])
    n = np.array([2.567, 2.5])
    assert repr(round(w[0], 2)) == repr(round(n[0], 2))
    r = round(w[1])
    assert r == round(n[1]) and type(r) is int
    with pytest.raises(TypeError, match="__round__"):
        round(w)
    with pytest.raises(TypeError):
        round(n)


def test_shape_assignment_reshapes_in_place(scope):
    w = wnp.arange(6)
    w.shape = (2, 3)
    assert w.shape == (2, 3) and w.tolist() == [[0, 1, 2], [3, 4, 5]]
    with raises_numpys(ValueError, "cannot reshape", "ndarray.shape"):
        w.shape = (4, 2)
    t = wnp.arange(6).reshape(2, 3).T
    with pytest.raises(AttributeError):  # NumPy: a copy would be needed
        t.shape = (6,)


def test_transpose_any_rank(scope):
    n = np.arange(24).reshape(2, 3, 4)
    w = wnp.asarray(n)
    assert np.array_equal(np.asarray(w.T), n.T) and w.T.shape == (4, 3, 2)
    assert wnp.arange(3).T.shape == (3,)


def test_none_index(scope):
    n = np.arange(3)
    w = wnp.asarray(n)
    assert w[None].shape == n[None].shape == (1, 3)
    f = wnp.zeros(2)
    f[None] = 4.0
    assert f.tolist() == [4.0, 4.0]
    o = wnp.asarray(np.array([1, 2], dtype=object))
    o[0] = None
    assert o.tolist() == [None, 2]


def test_string_scalars_are_numpy_strings(scope):
    names = wnp.asarray(np.array(["alice", "bob"]))
    first = names[0]
    assert type(first) is np.str_ and first.upper() == "ALICE" and len(names[1]) == 3
    assert type(wnp.asarray(np.array([b"ab"]))[0]) is np.bytes_


def test_scalar_results_are_values_that_outlive_the_cycle():
    # A scalar result is an immutable value (NumPy gives a scalar object, ND4J's sumNumber() a
    # Number): it holds its 8 bytes in ordinary memory, so a training loop may keep its losses.
    losses, items = [], []
    ws = wnp.workspace("DROPIN_ARRAY")
    for step in range(3):
        with ws:
            x = wnp.arange(4.0) * step
            losses.append(x.mean())
            items.append(x[3])
            assert x.workspace == "DROPIN_ARRAY" and type(wnp.mean(x)) is np.float64
    assert repr(losses) == repr([np.float64(0.0), np.float64(1.5), np.float64(3.0)])
    assert [float(v) for v in items] == [0.0, 3.0, 6.0] and float(sum(losses)) == 4.5
    with pytest.raises(wnp.WorkspaceError):
        x.sum()  # the array itself still belongs to its cycle
    wnp.memory.destroy_workspace("DROPIN_ARRAY")


def test_errors_keep_numpys_class_and_message_and_name_the_function(scope):
    cases = [(lambda m: m.arange(3).reshape(2, 2), ValueError, "ndarray.reshape"),
             (lambda m: m.ones(2) + m.ones(3), ValueError, "ndarray.__add__"),
             (lambda m: m.arange(3)[5], IndexError, "ndarray.__getitem__"),
             (lambda m: m.linalg.inv(m.zeros((2, 2))), np.linalg.LinAlgError, "linalg.inv")]
    for make, kind, name in cases:
        with pytest.raises(kind) as want:
            make(np)
        with pytest.raises(kind) as got:
            make(wnp)
        assert_numpys_error(got.value, want.value, name)


def test_the_programs_own_exceptions_pass_through_unchanged(scope):
    # An exception class of the program (a callback's, a signal handler's timeout) is not about
    # bad input to wsarray: its message stays the program's own.
    class Timeout(Exception):
        pass

    def callback(row):
        raise Timeout("cell timeout")

    with pytest.raises(Timeout) as got:
        wnp.apply_along_axis(callback, 0, wnp.ones((2, 2)))
    assert str(got.value) == "cell timeout"
    with raises_numpys(ValueError, "bad row", "apply_along_axis"):
        wnp.apply_along_axis(lambda row: (_ for _ in ()).throw(ValueError("bad row")), 0, wnp.ones((2, 2)))


def test_sequence_repetition_with_scalar_results(scope):
    w = wnp.arange(5)
    n = np.arange(5)
    assert [0] * w.argmax() == [0] * n.argmax() == [0, 0, 0, 0]
    assert w[2] * "ab" == "abab" and (1,) * w[1] == (1,)
    with pytest.raises(TypeError):
        [0] * wnp.asarray([1.5]).sum()
    # A real 0-d array multiplies elementwise, as in NumPy.
    same = wnp.asarray(3) * [1, 2]
    assert type(same) is wnp.Array and same.tolist() == (np.asarray(3) * [1, 2]).tolist()


def test_scalar_results_report_numpys_scalar_class(scope):
    f, i = wnp.asarray([1.5, 2.5]), wnp.asarray([1, 2])
    assert isinstance(f.sum(), float) and isinstance(f[0], np.floating) and isinstance(f.mean(), np.float64)
    assert isinstance(i[0], np.integer) and not isinstance(i.sum(), int)  # as np.int64
    assert type(wnp.sum(f)) is np.float64 and type(wnp.sum(f)) is not wnp.Array
    assert isinstance(f, np.ndarray)  # README: isinstance(f, np.ndarray)
    assert type(f.sum()) is np.float64  # NumPy's method: NumPy's scalar
    assert type(wnp.asarray(1.5)) is wnp.Array  # a real 0-d array is an array
    assert type((f > 2).any()) is np.bool_ and (f > 2).any() is np.True_


def test_copies_and_pickles_of_scalar_results_stay_scalars(scope):
    import copy
    import pickle
    s = wnp.sum(wnp.asarray([1.5, 2.5]))
    for c in (copy.copy(s), copy.deepcopy(s), pickle.loads(pickle.dumps(s))):
        assert type(c) is np.float64 and repr(c) == "np.float64(4.0)"
    assert repr(copy.copy(wnp.asarray(4.0))) == "array(4.)"


def test_records_index_like_numpy(scope):
    n = np.zeros(2, dtype=[("name", "U10"), ("age", "i4")])
    n["name"] = ["Ann", "Doug"]
    n["age"] = [25, 19]
    w = wnp.asarray(n.copy())
    assert repr(w[-1]) == repr(n[-1]) and type(w[-1]) is np.void
    assert repr(w[-1]["name"]) == repr(n[-1]["name"]) and w[1]["age"] == 19
    assert [r["name"] for r in w] == ["Ann", "Doug"]
    same = w["age"]
    assert type(same) is wnp.Array and same.tolist() == [25, 19]


def test_equality_with_none_and_other_types_is_numpys(scope):
    n = np.arange(3)
    w = wnp.arange(3)
    for other in (None, "", "a", object()):
        got_eq, got_ne = w == other, w != other
        assert type(got_eq) is wnp.Array
        assert got_eq.tolist() == (n == other).tolist() and got_ne.tolist() == (n != other).tolist()
    assert repr(w.sum() == "") == repr(n.sum() == "") and (w.sum() == None) == (n.sum() == None)  # noqa: E711
    assert (w == wnp.asarray([0, 5, 2])).tolist() == [True, False, True]
    assert (w == [0, 1, 5]).tolist() == [True, True, False] and (w != 1).tolist() == [True, False, True]


def test_inplace_operators_on_scalar_results_rebind(scope):
    # NumPy's scalars are immutable: s += 1 makes a new scalar, other names keep the old value
    # (accumulators such as best = losses.min(); prev = best; best -= 1 rely on it).
    for make in (lambda m: m.asarray([1.0, 2.0, 3.0]).sum(), lambda m: m.arange(3)[2],
                 lambda m: m.asarray([1, 2]).max()):
        for update in ("+= 1", "-= 2", "*= 2.5", "/= 4", "//= 2", "%= 2", "**= 2", "|= 1"):
            got, want = make(wnp), make(np)
            got_alias, want_alias = got, want
            try:
                exec(f"want {update}")
            except TypeError:  # |= on a float
                with pytest.raises(TypeError):
                    exec(f"got {update}")
                continue
            exec(f"got {update}")
            assert repr(got) == repr(want) and repr(got_alias) == repr(want_alias), update
    # A real 0-d array is mutable, as in NumPy.
    z, zn = wnp.asarray(1.0), np.asarray(1.0)
    alias, alias_n = z, zn
    z += 1
    zn += 1
    assert repr(alias) == repr(alias_n) == "array(2.)"


def test_numpy_computes_with_scalar_results_as_scalars(scope):
    w, n = wnp.asarray([1e-50, 2.5e-50]), np.asarray([1e-50, 2.5e-50])
    # NumPy's scalar power (libm) and its array power (SIMD) may differ in the last bit.
    sw, sn = wnp.logaddexp2(*wnp.log2(w)), np.logaddexp2(*np.log2(n))
    assert repr(2 ** sw) == repr(2 ** sn) and repr(abs(sw) ** 0.5) == repr(abs(sn) ** 0.5)
    # np.asarray / np.array of a scalar make a new 0-d array that does not write into the scalar.
    s = wnp.arange(4.0).sum()
    a = wnp.asarray(s)
    assert repr(a) == repr(np.asarray(np.arange(4.0).sum())) == "array(6.)"
    a[()] = 1
    assert repr(s) == "np.float64(6.0)"
    assert repr(wnp.array(s)) == "array(6.)"
    # Overflow of scalar math warns as NumPy's scalar math does.
    import warnings
    with warnings.catch_warnings(record=True) as got_w:
        warnings.simplefilter("always")
        wnp.asarray([100], dtype=np.int8)[0] * wnp.int8(2)
    with warnings.catch_warnings(record=True) as want_w:
        warnings.simplefilter("always")
        np.asarray([100], dtype=np.int8)[0] * np.int8(2)
    assert [str(x.message) for x in got_w] == [str(x.message) for x in want_w] != []


def test_real_imag_and_flat_can_be_assigned(scope):
    results = []
    for m in (wnp, np):
        a = m.array([1 + 2j, 3 + 4j, 5 + 6j])
        a.real = 9
        a.imag = m.array([8, 10, 12])
        x = m.arange(6).reshape(2, 3)
        x.flat = 3
        x.flat[[1, 4]] = 1
        f = m.zeros(3)
        f.real = m.asarray([1.0, 2.0, 3.0])
        results.append((repr(a), repr(x), repr(f), repr(a.real), repr(x.sum().real)))
    assert results[0] == results[1]
    with pytest.raises(AttributeError, match="not writable"):
        wnp.arange(3.0).sum().real = 1.0  # a scalar result is immutable, as NumPy's scalars


def test_lists_numpy_returns_are_numpys_objects(scope):
    # An element of an object array is the very object the array holds (a list, here).
    for m in (wnp, np):
        a = m.array([1, "m", [2, 3, 4]], dtype=object)
        b = a.copy()  # shallow, as NumPy's
        b[2][0] = 10
        assert a[2] == [10, 3, 4] and a[2] is b[2]
    t = wnp.asarray([[1, 2], [3, 4]]).tolist()
    assert t == [[1, 2], [3, 4]] and type(t[0][0]) is int


def test_iterating_zero_d_arrays_fails_as_in_numpy(scope):
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        list(wnp.asarray(1.0))
    with pytest.raises(TypeError, match="'numpy.float64' object is not iterable"):
        list(wnp.arange(3.0).sum())


def test_iteration_makes_items_one_at_a_time(scope):
    # As NumPy's iterator: a loop that breaks early makes only the items it reached (matplotlib's
    # hist iterates arrays it does not recognise), and the items are the same as indexing gives.
    x = wnp.arange(6.0).reshape(3, 2)
    it = iter(x)
    assert iter(it) is it and repr(next(it)) == "array([0., 1.])" and next(it).base is x.base
    assert [repr(v) for v in it] == ["array([4., 5.])"]
    assert [repr(v) for v in wnp.arange(3)] == [repr(v) for v in np.arange(3)]
    # Iteration is NumPy's API (the standard leaves it out): items are NumPy's scalars.
    assert [type(v) for v in wnp.arange(3.0)] == [np.float64] * 3
    if scope is not None:  # rows are views of the array
        assert all(v.workspace == scope.name for v in wnp.arange(6.0).reshape(3, 2))


def test_deepcopy_copies_the_elements_of_object_arrays(scope):
    import copy
    for m in (wnp, np):
        a = m.array([1, "m", [2, 3, 4]], dtype=object)
        c = copy.deepcopy(a)
        c[2][0] = 10
        assert a[2] == [2, 3, 4] and c[2] == [10, 3, 4]


def test_resize_checks_references_as_numpy_does(scope):
    def run(m):
        out = []
        a = m.array([[0, 1], [2, 3]])
        a.resize((2, 1))
        out.append(a.tolist())
        c = a
        try:
            a.resize((1, 1))
        except ValueError as e:
            out.append(str(e).removeprefix("wsarray.ndarray.resize(): "))
        a.resize((1, 1), refcheck=False)
        out.append((a.tolist(), c.tolist()))
        b = m.arange(4.0)
        b.resize(6)
        out.append(b.tolist())
        return out
    assert run(wnp) == run(np)
    assert "cannot resize an array that references" in run(np)[1]


def test_views_know_their_base_and_methods_may_return_self(scope):
    def run(m):
        a = m.arange(3.0)
        b = a.reshape(3, 1)
        x = m.arange(12.0).reshape(4, 3)
        return [a.base is None, a[1:].base is a, b.base is a, b[0].base is a, b.T.base is a,
                m.atleast_2d(a).base is a, m.atleast_3d(x).base is x.base, x.base is x.base,
                a.real is a, a.astype(float, copy=False) is a, a.squeeze() is a, m.asarray(a) is a,
                a[...] is a, a.reshape(3) is a, a.copy().base is None, a.sum().base is None]
    assert run(wnp) == run(np)


def test_iter_of_a_scalar_result_fails_like_numpys():
    # np.iterable() and matplotlib call iter() on every scalar result they meet (a type slot, no
    # C++ exception: about NumPy's cost; timings are never asserted in tests).
    s, n = wnp.arange(3.0)[0], np.arange(3.0)[0]
    messages = []
    for x in (s, n):
        with pytest.raises(TypeError) as e:
            iter(x)
        messages.append(str(e.value))
    assert messages[0] == messages[1]
    assert not wnp.iterable(s) and wnp.iterable(wnp.arange(3))
def test_base_of_views_is_the_array_they_view(scope):
    # Tutorials check `view.base is x` (from-python-to-numpy, scipy-lectures); NumPy's base is the
    # array owning the memory, so a view of a view names the owner too.
    for mod in (np, wnp):
        z = mod.zeros((5, 5))
        checks = [z.base is None, z[:3, :].base is z, z[:3][1:].base is z, z.ravel().base is z,
                  z[::2, ::2].ravel().base is None, z.flatten().base is None, z[[0, 1, 2], :].base is None,
                  z.T.base is z, z.reshape(25).base is z, z.view().base is z, z[1:].base is z[1:].base,
                  z.astype(z.dtype, copy=False) is z]
        if mod is np:
            want = checks
        else:
            assert checks == want
    r = wnp.arange(9).reshape(3, 3)
    assert type(r.base) is wnp.Array and r.base is r.base and r.base.shape == (9,)


def test_arrays_refuse_item_deletion_like_numpy(scope):
    a = wnp.arange(5)
    with pytest.raises(ValueError, match="cannot delete array elements"):
        del a[2:5]
    assert a.tolist() == [0, 1, 2, 3, 4]


def test_abs_is_absolute_and_version_module(scope):
    assert wnp.abs is wnp.absolute and wnp.abs.__name__ == np.abs.__name__ == "absolute"
    assert wnp.version.version == np.version.version and wnp.__config__ is np.__config__


def test_dtype_assignment_reinterprets_in_place(scope):
    # scipy-lectures' advanced NumPy chapter: x.dtype = "<i2" views the same bytes as int16.
    n, w = np.array([1, 2, 3, 4], dtype=np.uint8), wnp.asarray(np.array([1, 2, 3, 4], dtype=np.uint8))
    n.dtype = "<i2"
    w.dtype = "<i2"
    assert w.dtype == n.dtype and np.asarray(w).tolist() == n.tolist() == [513, 1027]
    with pytest.raises(ValueError) as want:
        n.dtype = "<i8"
    with pytest.raises(ValueError) as got:
        w.dtype = "<i8"
    assert_numpys_error(got.value, want.value, "ndarray.dtype")


def test_getsizeof_counts_the_data_like_numpy(scope):
    # w3resource-style exercises print sys.getsizeof(a) next to a.size * a.itemsize.
    import sys

    for n in (np.random.random((3, 4)), np.array([1, 7, 13, 105]), np.zeros(0), np.arange(10)[2:5]):
        w = wnp.asarray(n) if n.base is None else wnp.arange(10)[2:5]
        assert sys.getsizeof(w) == sys.getsizeof(n)
    assert sys.getsizeof(wnp.asarray([1.5, 2.5]).sum()) == sys.getsizeof(np.float64(4.0))


def test_operators_defer_to_operands_that_opt_out_of_ufuncs(scope):
    # NumPy's rule: an operand whose type sets __array_ufunc__ = None gets its reflected operator
    # (2 * arr.sum() * polynomial is a Polynomial; user classes opting out likewise).
    class OptOut:
        __array_ufunc__ = None

        def __rmul__(self, other):
            return "rmul"

        def __radd__(self, other):
            return "radd"

        def __gt__(self, other):
            return "gt"

    for mod in (np, wnp):
        p = mod.polynomial.Polynomial([1, 2])
        got = [repr(mod.arange(3) * p), repr(mod.arange(3.0).sum() * p), repr(mod.asarray(2.0) ** 2 * p),
               mod.arange(3) + OptOut(), mod.arange(3) * OptOut(), mod.arange(3) < OptOut(), mod.arange(3) == p]
        if mod is np:
            want = got
        else:
            assert got == want


def test_arrays_have_no_to_numpy_as_numpys_have_none():
    # pandas (and other libraries) take an object with to_numpy() for one of their own array types:
    # pd.Series(object array) called a.to_numpy(dtype=object) and failed on wsarray.
    pd = pytest.importorskip("pandas")
    a = wnp.array(["a", "b"], dtype=object)
    assert not hasattr(a, "to_numpy") and not hasattr(wnp.ndarray, "to_numpy")
    assert pd.Series(a).tolist() == pd.Series(np.array(["a", "b"], dtype=object)).tolist() == ["a", "b"]
    assert str(pd.Series(a).dtype) == str(pd.Series(np.array(["a", "b"], dtype=object)).dtype)


def test_array_interface_is_numpys_and_checked(scope):
    # NumPy's docs read x.__array_interface__; np.rec.array accepts any object that has one.
    a = wnp.arange(6.0)
    assert a.__array_interface__ == np.asarray(a).__array_interface__
    records = wnp.array([(1, 2.5), (3, 4.5)], dtype=[("x", "i8"), ("y", "f8")])
    rec = wnp.rec.array(records)
    assert rec.y.tolist() == [2.5, 4.5] and rec.dtype == records.dtype
    ws = wnp.workspace("IFACE")
    with ws:
        b = wnp.ones(3)
    with pytest.raises(wnp.WorkspaceError, match=r"ndarray\.__array_interface__"):
        b.__array_interface__
    with pytest.raises(wnp.WorkspaceError):
        np.sum(b)  # NumPy's functions dispatch to the Array, which checks it
    assert np.asarray(b).tolist() == [1.0, 1.0, 1.0]  # NumPy's C conversion: the array's own data


def test_structured_arrays_convert_to_numpy_with_their_dtype(scope):
    # Structured arrays export NumPy's buffer where NumPy reads its format back as the same dtype;
    # the others (padding NumPy cannot describe, raw void) refuse the buffer and convert through
    # __array__ instead, dtype and values intact.
    dt = [("a", "i8"), ("b", "U3")]
    a = wnp.array([(1, "ab"), (2, "c")], dtype=dt)
    n = np.asarray(a)
    assert n.dtype == np.dtype(dt) and n.tolist() == [(1, "ab"), (2, "c")]
    assert np.shares_memory(n, a.__array__())
    assert memoryview(a).format == memoryview(a.__array__()).format
    padded = np.dtype({"names": ["a", "b"], "formats": ["i4", "i4"], "offsets": [0, 8], "itemsize": 16})
    for dtype in (padded, np.dtype("V5")):
        p = wnp.zeros(2, dtype)
        assert np.asarray(p).dtype == dtype and np.shares_memory(np.asarray(p), p.__array__())
        with pytest.raises(BufferError, match=r"wsarray\.ndarray\.__buffer__\(\)"):
            memoryview(p)


class _EyeLike:
    """A NumPy program's class whose __array__ computes with `np` (wsarray once swapped in)."""

    def __init__(self, n, value):
        self.n, self.value = n, value
        self.calls = []

    def __array__(self, dtype=None, copy=None):
        self.calls.append((dtype, copy))
        if copy is False:
            raise ValueError("`copy=False` isn't supported. A copy is always created.")
        return self.value * wnp.eye(self.n, dtype=dtype)


def test_array_likes_whose_array_method_returns_wsarray_arrays(scope):
    obj = _EyeLike(3, 2)
    expected = 2 * np.eye(3)
    r = wnp.asarray(obj)
    assert type(r) is wnp.Array and r.tolist() == expected.tolist()
    assert wnp.asarray(obj, dtype=wnp.float32).dtype == np.float32
    assert wnp.multiply(obj, 2).tolist() == (expected * 2).tolist()
    assert wnp.concatenate([obj, obj]).shape == (6, 3)
    assert (wnp.ones(3) + wnp.asarray(obj)).tolist() == (1 + expected).tolist()
    # NumPy sees the same calls as when the method returns an ndarray (here: dtype None, copy None)
    assert (None, None) in obj.calls and all(c is not False for _, c in obj.calls)
    # An __array__ that fails for its own reasons still fails, named, with its message.
    class Broken:
        def __array__(self, dtype=None, copy=None):
            raise ValueError("no conversion here")
    with raises_numpys(ValueError, "no conversion here", "asarray"):
        wnp.asarray(Broken())


def test_ufuncs_are_instances_of_numpys_ufunc():
    from numpy.testing.overrides import allows_array_ufunc_override
    ufuncs = [n for n in dir(np) if isinstance(getattr(np, n), np.ufunc)]
    assert len(ufuncs) > 50
    missing = [n for n in ufuncs if hasattr(wnp, n) and not isinstance(getattr(wnp, n), wnp.ufunc)]
    assert missing == []
    assert allows_array_ufunc_override(wnp.add)
    assert not isinstance(wnp.sum, np.ufunc) and not isinstance(wnp.reshape, np.ufunc)
    assert type(wnp.add) is not np.ufunc  # still wsarray's routed function
    # wsarray's own floor_divide (the standard's special cases) offers NumPy's ufunc methods.
    assert wnp.floor_divide.nin == 2
    assert wnp.floor_divide.reduce(wnp.array([100, 3, 2])).item() == 16
    assert wnp.floor_divide.outer(wnp.array([7, 8]), wnp.array([2, 3])).tolist() == [[3, 2], [4, 2]]


_SCALAR_OPS = [lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y, lambda x, y: x / y,
               lambda x, y: x // y, lambda x, y: x % y, lambda x, y: x ** y, lambda x, y: x < y,
               lambda x, y: x == y, lambda x, y: x != y, lambda x, y: x >= y, lambda x, y: x & y,
               lambda x, y: x << y, lambda x, y: divmod(x, y), lambda x, y: x @ y]


def _outcome(f):
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = f()
        except Exception as e:  # noqa: BLE001 -- the class is what is compared
            return type(e), []
    return r, sorted(str(w.message) for w in caught)


def test_scalar_arithmetic_is_numpys_scalar_arithmetic(scope):
    # Elements are NumPy's scalars: every pairing with Python numbers and NumPy scalars is NumPy's
    # own scalar math (types, overflow warnings, division by zero, comparisons), in both orders.
    values = [np.float64(2.5), np.int8(100), np.int64(2**62), np.float32(0.0), np.uint8(3), np.bool_(True),
              np.complex128(1 - 2j), np.int64(0)]
    others = [3, 0, -1, 2.0, 1j, True, np.int16(7), np.float64(-0.5)]
    for v in values:
        w = wnp.asarray(np.asarray([v]))[0]
        assert type(w) is type(v)
        for o in others:
            for op in _SCALAR_OPS:
                for args_w, args_n in (((w, o), (v, o)), ((o, w), (o, v))):
                    got, got_warn = _outcome(lambda: op(*args_w))
                    want, want_warn = _outcome(lambda: op(*args_n))
                    assert got_warn == want_warn, (v, o, got_warn, want_warn)
                    if isinstance(want, type):
                        assert got is want, (v, o, got, want)
                    else:
                        assert type(got) is type(want) and repr(got) == repr(want), (v, o, got, want)


def test_methods_of_scalar_results_are_the_numpy_scalars_methods(scope):
    s, t = wnp.sum(wnp.arange(6.0)), np.float64(15.0)
    for name, args in [("astype", (int,)), ("round", ()), ("copy", ()), ("item", ()), ("reshape", (1,)),
                       ("ravel", ()), ("tolist", ()), ("max", ()), ("mean", ()), ("transpose", ()), ("clip", (0, 3))]:
        got, want = getattr(s, name)(*args), getattr(t, name)(*args)
        assert type(got) is type(want), (name, got)
        assert repr(got) == repr(want), (name, got, want)
    a = wnp.arange(6.0)
    assert a.astype(a.dtype, copy=False) is a and a.reshape(2, 3).base is a and a.ravel().base is a


def test_types_show_as_wsarray_names():
    # type(x) is what tutorials print: the public name, not the extension module's; the array
    # class is named as NumPy's (libraries print it, build test ids and messages from it).
    a = wnp.ones(2)
    assert repr(type(a)) == "<class 'wsarray.ndarray'>" and type(a) is wnp.ndarray is wnp.Array
    assert (type(a).__name__, type(a).__qualname__, type(a).__module__) == ("ndarray", "ndarray", "wsarray")
    assert pickle.loads(pickle.dumps(type(a))) is wnp.ndarray
    with pytest.raises(AttributeError, match="^'wsarray.ndarray' object has no attribute 'nope'$"):
        a.nope
    assert repr(type(wnp.sum)) == "<class 'wsarray.Function'>"
    assert repr(type(wnp.add)) == "<class 'wsarray.ufunc'>" and pickle.loads(pickle.dumps(type(wnp.add))) is wnp.ufunc


def test_power_operator_both_orders_and_three_argument_pow(scope):
    n = np.arange(4.0)
    w = wnp.asarray(n)
    assert (w ** 2).tolist() == (n ** 2).tolist() and (2 ** w).tolist() == (2 ** n).tolist()
    assert repr(wnp.sum(w) ** 2) == repr(n.sum() ** 2) and repr(2 ** wnp.sum(w)) == repr(2 ** n.sum())
    assert (wnp.arange(3) ** 2).dtype == np.arange(3).dtype  # ndarray's fast path (np.square)
    with pytest.raises(TypeError, match="unsupported operand"):
        pow(wnp.arange(3), 2, 5)  # refused, as ndarray refuses a modulus


def both_ways(f):
    """f(numpy) and f(wsarray): the result, or the exception class and NumPy's message."""
    out = []
    for lib in (np, wnp):
        try:
            out.append(("ok", np.asarray(f(lib)).tolist()))
        except Exception as e:  # noqa: BLE001 - comparing what each library raises
            out.append((type(e), str(e).split("(): ", 1)[-1]))
    return out


@pytest.mark.parametrize("a,b", [([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]), ([[1.0, 2.0], [3.0, 4.0]], [1.0, 2.0]),
                                 ([[1.0, 2.0], [3.0, 4.0]], [[0.0, 1.0], [1.0, 0.0]]),
                                 ([[1.0, 2.0]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])])
def test_inplace_matmul_is_ndarrays(scope, a, b):
    def imatmul(lib):
        x = lib.asarray(a)
        before = x
        x @= lib.asarray(b)
        assert x is before
        return x
    want, got = both_ways(imatmul)
    assert got == want


@pytest.mark.parametrize("dtype,key,value", [
    (int, 0, [1, 2, 3]),                 # TypeError: int() of a list
    (float, Ellipsis, [[1.0]]),          # deeper than the target
    (float, (0, slice(None)), [[1.0, 2.0]]),
    (bool, 0, [1, 2, 3, 4]),             # NumPy stores True
    (float, 0, [5.0]),
    (float, slice(None), [1.0, 2.0]),    # NumPy's broadcasting error
    (float, slice(None), [1.0, 2.0, 3.0]),
    ("float32", 0, [1e300]),             # too deep: NumPy's error, no cast warning first
    (float, slice(0, 2), [[1.0, 2.0]]),
    (float, 0, []),
    (complex, 0, (1, 2)),
])
def test_list_assignment_errors_are_numpys_and_leave_the_target(scope, dtype, key, value):
    def assign(lib):
        x = lib.zeros((3,), dtype=dtype) if not isinstance(key, tuple) else lib.zeros((2, 2), dtype=dtype)
        try:
            x[key] = value
        except Exception:
            assert not np.asarray(x).any()  # untouched
            raise
        return x
    want, got = both_ways(assign)
    assert got == want


def test_list_assignment_to_a_read_only_array_is_refused_first():
    for value in ([1j, 2, 3], ["a", "b", "c"], [1.0, 2.0, 3.0]):
        for key in (0, 9, slice(None)):
            for lib in (np, wnp):
                x = np.zeros((3, 3))
                x.flags.writeable = False
                with pytest.raises(ValueError, match="assignment destination is read-only"):
                    lib.asarray(x)[key] = value


def test_out_given_a_numpy_array_returns_it(scope):
    out = np.zeros(3)
    assert wnp.add(wnp.asarray([1.0, 2.0, 3.0]), 1.0, out=out) is out
    assert out.tolist() == [2.0, 3.0, 4.0]
    assert wnp.sqrt(np.arange(3.0), out=(out,)) is out
    o1, o2 = np.zeros(3), wnp.zeros(3)
    r = wnp.modf(wnp.asarray([1.5, 2.5, 3.5]), out=(o1, o2))
    assert r[0] is o1 and r[1] is o2 and o1.tolist() == [0.5] * 3
    # positional outs, as NumPy's ufuncs take them (also wsarray's own versions of ufuncs)
    assert wnp.add(wnp.asarray([1.0, 2.0, 3.0]), 2.0, out) is out and out.tolist() == [3.0, 4.0, 5.0]
    assert wnp.floor_divide(wnp.asarray([7.0, 8.0, 9.0]), 2.0, out) is out and out.tolist() == [3.0, 4.0, 4.0]
    o1, o2 = np.zeros(3), np.zeros(3)
    r = wnp.modf(wnp.asarray([1.5, 2.5, 3.5]), o1, o2)
    assert type(r) is tuple and r[0] is o1 and r[1] is o2 and o2.tolist() == [1.0, 2.0, 3.0]
    r = wnp.modf(wnp.asarray([1.5, 2.5, 3.5]), o1)
    assert r[0] is o1 and type(r[1]) is wnp.Array and r[1].tolist() == [1.0, 2.0, 3.0]
    w = wnp.zeros(3)
    assert wnp.multiply(wnp.asarray([1.0, 2.0, 3.0]), 2.0, w) is w and w.tolist() == [2.0, 4.0, 6.0]


def test_platform_long_double_aliases():
    for name in ("float96", "float128", "complex192", "complex256"):
        assert getattr(wnp, name, None) is getattr(np, name, None)


def test_shape_and_copy_methods_are_numpys(scope):
    x = np.arange(12.0)
    a = wnp.asarray(x)
    for call in (lambda v: v.reshape(3, 4), lambda v: v.reshape((4, 3), order="F"), lambda v: v.ravel(),
                 lambda v: v.transpose(), lambda v: v.reshape(3, 4).transpose(1, 0), lambda v: v.copy(),
                 lambda v: v.flatten(), lambda v: v.astype(np.float32), lambda v: v.astype("i8", copy=False)):
        got, want = call(a), call(x)
        assert type(got) is wnp.Array
        g = np.asarray(got)
        assert g.dtype == want.dtype and g.shape == want.shape and g.strides == want.strides
        assert g.tobytes() == want.tobytes()
    assert a.reshape(3, 4).base is a and a.ravel().base is a  # views name the array as base
    assert a.astype(a.dtype, copy=False) is a
    if scope is not None:
        assert a.copy().workspace == "DROPIN_ARRAY" and a.reshape(3, 4).workspace == a.workspace
    with raises_numpys(ValueError, "cannot reshape array of size 12", "ndarray.reshape"):
        a.reshape(5)
    with raises_numpys(TypeError, "data type 'nope'", "ndarray.astype"):
        a.astype("nope")
    with pytest.raises(TypeError, match="invalid keyword"):
        a.reshape(shape=(3, 4))  # as ndarray.reshape
    assert wnp.Array.reshape.__doc__ == np.ndarray.reshape.__doc__


def test_attribute_errors_other_than_missing_are_numpys():
    dates = wnp.asarray(np.array(["2001-01-01"], dtype="M8[D]"))
    with raises_numpys(ValueError, "cannot include dtype 'M' in a buffer", "ndarray.data"):
        dates.data
    with pytest.raises(AttributeError, match="no attribute 'nosuch'"):
        dates.nosuch
    assert wnp.arange(3.0).data.nbytes == 24


def test_scalar_results_refuse_item_assignment_and_resize_like_numpys_scalars(scope):
    a = wnp.arange(5.0)
    for s, like in ((a.sum(), np.float64(10.0)), (wnp.sum(a), np.float64(10.0)), (a[1] < a[2], np.True_)):
        with pytest.raises(TypeError, match="object does not support item assignment"):
            s[...] = 0
        assert s.resize(3) is None and repr(s) == repr(like)  # a value stays as it is
    # Comparison results are np.True_ / np.False_ values: one object each, as NumPy's.
    assert (a[1] < a[2]) is (a[0] < a[3]) and (a[1] > a[2]) is (a[0] > a[3])
    assert bool(a[1] < a[2]) is True and bool(a[1] > a[2]) is False


def test_divmod_is_numpys_api_and_gives_numpys_scalars(scope):
    for args in ((7.0, 2.0), (7, 2), (-7.5, 2.0)):
        got = divmod(wnp.asarray(args[0]), wnp.asarray(args[1]))
        want = divmod(np.asarray(args[0]), np.asarray(args[1]))
        assert [type(v) for v in got] == [type(v) for v in want] and got == want
    got = divmod(wnp.asarray([7.0, -3.0]), 2)
    assert all(type(v) is wnp.Array for v in got)
    assert [np.asarray(v).tolist() for v in got] == [v.tolist() for v in divmod(np.asarray([7.0, -3.0]), 2)]


def test_an_object_array_holds_the_array_itself():
    # `objs[i] = x` stores x, as NumPy stores the array object: objs[i] is x (tuple equality,
    # which compares by identity first, and nibabel's parcels rely on it); a slice takes its values.
    objs, x = wnp.empty(3, dtype=object), wnp.arange(3)
    objs[0] = x
    assert objs[0] is x and objs.tolist()[0] is x
    assert (objs[0], 1) == (x, 1)
    objs[1:] = x[:2]
    assert objs.tolist()[1:] == [0, 1] and type(objs[1]) is int
    want = np.empty(3, dtype=object)
    want[0], want[1:] = np.arange(3), np.arange(2)
    assert repr(objs) == repr(want)
    # An Array of a workspace stays checked there: no raw view of its memory outlives the cycle.
    with wnp.workspace("OBJECT_HOLDER"):
        objs[2] = wnp.ones(2)
    with pytest.raises(wnp.WorkspaceError, match="OBJECT_HOLDER"):
        objs[2].sum()


def test_an_object_array_built_from_arrays_holds_them():
    # np.array([x, y], dtype=object) of ragged arrays holds x and y themselves, as NumPy's does
    # (not a new wrapper per read), in lists, tuples and nested lists, and they stay checked.
    x, y = wnp.arange(2), wnp.ones(3)
    for build in (lambda: wnp.array([x, y], dtype=object), lambda: wnp.array((x, y, None), dtype=object),
                  lambda: wnp.asarray([[x], [y]], dtype=object).ravel()):
        b = build()
        assert b[0] is x and b[0] is b[0] and b[1] is y and b.tolist()[1] is y
    want = np.array([np.arange(2), np.ones(3)], dtype=object)
    assert repr(wnp.array([x, y], dtype=object)) == repr(want)
    # Arrays of equal shapes still make a 2-D object array of their values, as in NumPy.
    same = wnp.array([x, x + 1], dtype=object)
    assert same.shape == (2, 2) and same.tolist() == [[0, 1], [1, 2]] and type(same[0, 0]) is int
    with wnp.workspace("OBJECT_BUILDER"):
        inner = wnp.ones(2)
        held = wnp.array([inner, wnp.ones(3)], dtype=object).detach()
    with pytest.raises(wnp.WorkspaceError, match="OBJECT_BUILDER"):
        held[0].sum()


def test_an_object_array_holds_the_list_given_it():
    # objs[i] = [x] stores that very list (appends show through), as NumPy does; a list built
    # into an object array by np.array is the caller's list too; stale Arrays inside are refused.
    x, y = wnp.zeros(2), wnp.ones(3)
    lst, tup = [x], (x, 1)
    objs = wnp.empty(3, dtype=object)
    objs[0], objs[1] = lst, tup
    assert objs[0] is lst and objs[0][0] is x and objs[1] is tup
    objs[0].append("more")
    assert len(lst) == 2
    objs[1:3] = [x, y]
    assert objs[1] is x and objs[2] is y
    assert wnp.array([1, lst], dtype=object)[1] is lst
    want = np.empty(3, dtype=object)
    want[0], want[1], want[2] = [np.zeros(2), "more"], np.zeros(2), np.ones(3)
    assert repr(objs) == repr(want)
    with wnp.workspace("LIST_HOLDER"):
        inner = wnp.ones(2)
        objs[0] = [inner]
    with pytest.raises(wnp.WorkspaceError, match="LIST_HOLDER"):
        objs[0][0].sum()
    with pytest.raises(wnp.WorkspaceError, match="LIST_HOLDER"):
        objs[2] = [1, [inner]]
    assert objs[2] is y


def test_reduce_and_reduce_ex_answer_as_numpys():
    # a.__reduce__() (copy, some serializers) pickles as pickle does, a stale array of a living
    # workspace included; __reduce_ex__ parses its protocol as NumPy does (its errors).
    import pickle

    with wnp.workspace("REDUCED"):
        stale = wnp.arange(3.0) + 1
    for a in (wnp.arange(3.0), stale):
        rebuild, args = a.__reduce__()
        assert np.asarray(rebuild(*args)).tolist() == np.asarray(pickle.loads(pickle.dumps(a))).tolist()
    assert np.asarray(rebuild(*args)).tolist() == [1.0, 2.0, 3.0]
    for protocol in (2**70, "x", 2.0):
        with pytest.raises((OverflowError, TypeError)) as want:
            np.arange(3.0).__reduce_ex__(protocol)
        with pytest.raises(want.type, match=str(want.value).split(" ")[0]):
            wnp.arange(3.0).__reduce_ex__(protocol)


def test_array_protocol_methods_refuse_bad_arguments_as_numpy():
    # Called by hand with what NumPy's own methods refuse: NumPy's class and message.
    ours, theirs = wnp.ones(2), np.ones(2)
    calls = (lambda a: a.__array_wrap__(5), lambda a: a.__array_wrap__([1, 2]),
             lambda a: a.__array_ufunc__(None, None), lambda a: a.__array_ufunc__(np.add, 3),
             lambda a: a.__array_function__(None, None, None, None))
    for call in calls:
        with pytest.raises(TypeError) as want:
            call(theirs)
        with pytest.raises(TypeError) as got:
            call(ours)
        assert str(got.value) == str(want.value)
    assert np.asarray(ours.__array_ufunc__(np.add, "__call__", ours, ours)).tolist() == [2.0, 2.0]
