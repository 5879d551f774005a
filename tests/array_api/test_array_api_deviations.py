"""Where NumPy deviates from the array API standard 2025.12 (README, "Where the standard and NumPy
disagree"): mostly the standard wins, and the result it prescribes is checked; where NumPy wins
(eig/eigvals, positional clip bounds, argument checks), NumPy's result or error is."""
import math
import operator
import re

import numpy as np
import pytest

import wsarray as wnp
from error_helpers import assert_numpys_error, raises_numpys

inf, nan = math.inf, math.nan


def arr(values, dtype=None):
    return wnp.asarray(values, dtype=dtype)


def same_bits(got, expected):
    """Values, signed zeros and NaNs equal; dtype as expected."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    for part in ((np.real, np.imag) if got.dtype.kind == "c" else (lambda v: v,)):
        g, e = part(got), part(expected)
        np.testing.assert_array_equal(g, e)
        real = ~np.isnan(e)
        np.testing.assert_array_equal(np.signbit(g[real]), np.signbit(e[real]))


# floor_divide: the standard's infinity cases, not Python's (NumPy gives NaN and -1.0).
FLOOR_DIVIDE = [
    (inf, 2.0, inf), (inf, -2.0, -inf), (-inf, 2.0, -inf), (-inf, -2.0, inf),
    (1.0, -inf, -0.0), (-1.0, inf, -0.0),
    (1.0, inf, 0.0), (-1.0, -inf, 0.0), (inf, inf, nan), (7.5, 2.0, 3.0), (-7.5, 2.0, -4.0),
]


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # inf // inf warns, as NumPy
@pytest.mark.parametrize("a, b, expected", FLOOR_DIVIDE)
def test_floor_divide_infinities(a, b, expected):
    x1, x2 = arr([a, a], wnp.float64), arr([b, b], wnp.float64)
    want = np.array([expected, expected])
    same_bits(wnp.floor_divide(x1, x2), want)
    same_bits(x1 // x2, want)
    same_bits(x1 // b, want)
    same_bits(a // x2, want)
    same_bits(wnp.floor_divide(arr([a], wnp.float32), arr([b], wnp.float32)),
              np.array([expected], np.float32))
    x1 //= x2
    same_bits(x1, want)


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")  # 2.0 // False, as NumPy
def test_floor_divide_special_cases_with_bool_and_int_divisors():
    same_bits(wnp.floor_divide(arr([inf, 1.0, -inf]), arr([True, True, True])), np.array([inf, 1.0, -inf]))
    same_bits(wnp.floor_divide(arr([inf, 6.0]), arr([-2, 4])), np.array([-inf, 1.0]))
    x = arr([nan, 2.0])
    x //= arr([True, False])
    same_bits(x, np.array([nan, inf]))


def test_floor_divide_keeps_numpys_warnings_for_the_other_elements():
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        same_bits(wnp.floor_divide(arr([0.0, inf]), arr([0.0, 1.0])), np.array([nan, inf]))
    assert [type(w.message) for w in caught] == [RuntimeWarning] and "invalid" in str(caught[0].message)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wnp.floor_divide(arr([inf, 4.0]), arr([2.0, 2.0]))  # only the standard's cases: quiet
    assert caught == []
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError):
        wnp.floor_divide(arr([0.0, inf]), arr([0.0, 1.0]))
    with pytest.raises(TypeError, match="floor_divide"):  # no common dtype: NumPy's error
        wnp.floor_divide(arr([True]), wnp.asarray(np.array(["2001-01-01"], dtype="M8[D]")))
    with warnings.catch_warnings(record=True) as caught:  # NumPy's casting error, before warnings
        warnings.simplefilter("always")
        with pytest.raises(TypeError, match="Cannot cast ufunc 'floor_divide' output"):
            wnp.floor_divide(arr([7, -3]), arr([-0.0, -inf], wnp.float16), out=wnp.zeros(2, dtype=wnp.int64))
    assert caught == []


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # NumPy's inf // 8.0
@pytest.mark.parametrize("call", [
    lambda m: m.floor_divide(m.asarray(nan), m.asarray(8.0)),
    lambda m: m.floor_divide(m.asarray(inf), m.asarray(8.0)),
    lambda m: m.expm1(m.asarray(complex(-7, -1))),
    lambda m: m.tanh(m.asarray(complex(inf, 1.0))),
])
def test_patched_functions_give_scalar_results_on_zero_d_input(call):
    got, want = call(wnp), call(np)
    assert isinstance(want, np.generic)
    assert type(got) is type(want) and wnp.isscalar(got)  # NumPy's scalar, as NumPy returns it
    assert type(got.item()) is type(want.item())


@pytest.mark.parametrize("name", ["tanh", "expm1", "floor_divide"])
def test_where_without_out_warns_as_numpy(name):
    import warnings
    args = (arr([1.0, 2.0]),) + ((2.0,) if name == "floor_divide" else ())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(wnp, name)(*args, where=arr([True, False]))
    assert any("'where' used without 'out'" in str(w.message) for w in caught)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's own, both sides
def test_special_case_wrappers_leave_numpys_subclasses_to_numpy():
    ma = np.ma.array([1.0, inf, 4.0], mask=[1, 0, 0])
    for f in (lambda m: m.floor_divide(ma, inf), lambda m: m.floor_divide(ma, 2.0),
              lambda m: m.expm1(np.ma.array([complex(inf, 0.0)], mask=[0])),
              lambda m: m.tanh(np.ma.array([complex(inf, 1.0)], mask=[0]))):
        got, want = f(wnp), f(np)
        assert type(got) is type(want) is np.ma.MaskedArray
        assert got.mask.tolist() == want.mask.tolist()
        assert np.array_equal(got.filled(0), want.filled(0), equal_nan=True)


def test_sort_argsort_and_clip_keep_numpys_subclasses():
    ma = np.ma.array([3.0, 1.0, 2.0, 5.0], mask=[0, 1, 0, 0])
    for f in (lambda m: m.sort(ma), lambda m: m.clip(ma, 0, 2)):
        got, want = f(wnp), f(np)
        assert type(got) is np.ma.MaskedArray
        assert got.mask.tolist() == want.mask.tolist() and got.filled(-1).tolist() == want.filled(-1).tolist()
    assert np.asarray(wnp.argsort(ma)).tolist() == np.argsort(ma).tolist() == [2, 0, 3, 1]
    with pytest.warns(PendingDeprecationWarning):
        mat = np.matrix([[3.0, 1.0], [2.0, 5.0]])
    got = wnp.sort(mat, axis=0)
    assert type(got) is np.matrix and got.tolist() == [[2.0, 1.0], [3.0, 5.0]]


def test_floor_divide_integers_unchanged():
    same_bits(arr([7, -7]) // 2, np.array([7, -7]) // 2)


# expm1 of complex infinities/NaNs/zeros (spec table; NumPy gives NaN parts and -0).
EXPM1 = [
    (complex(inf, 0.0), complex(inf, 0.0)),
    (complex(-inf, inf), complex(-1.0, 0.0)),
    (complex(inf, inf), complex(inf, nan)),
    (complex(-inf, nan), complex(-1.0, 0.0)),
    (complex(inf, nan), complex(inf, nan)),
    (complex(nan, 0.0), complex(nan, 0.0)),
    (complex(-0.0, 0.0), complex(0.0, 0.0)),
    (complex(0.5, 0.25), np.expm1(complex(0.5, 0.25))),
]


@pytest.mark.parametrize("z, expected", EXPM1, ids=str)
def test_expm1_complex_special_cases(z, expected):
    for dtype in (np.complex128, np.complex64):
        got = np.asarray(wnp.expm1(arr([z, 0.5], dtype)))
        assert got.dtype == dtype
        e = np.asarray(expected, dtype)
        if np.isfinite(e):
            np.testing.assert_allclose(got[0], e, rtol=1e-6)
        else:
            np.testing.assert_array_equal(got[0].real, e.real)
            np.testing.assert_array_equal(got[0].imag, e.imag)
        assert np.signbit(got[0].real) == np.signbit(e.real) or np.isnan(e.real)
        np.testing.assert_allclose(got[1], np.expm1(np.asarray(0.5, dtype)), rtol=1e-6)


# tanh(±inf + bj), finite b: ±1 + copysign(0, b)j (NumPy follows the sign of sin(2b)).
TANH = [(complex(inf, 1.0), complex(1.0, 0.0)), (complex(inf, 2.0), complex(1.0, 0.0)),
        (complex(inf, -2.0), complex(1.0, -0.0)), (complex(-inf, 2.0), complex(-1.0, 0.0))]


@pytest.mark.parametrize("z, expected", TANH, ids=str)
def test_tanh_complex_infinity(z, expected):
    got = np.asarray(wnp.tanh(arr([z])))[0]
    assert got == expected and np.signbit(got.imag) == np.signbit(expected.imag)


def test_finfo_iinfo_fields_are_python_numbers_and_accept_arrays():
    fi = wnp.finfo(arr([1.0], wnp.float32))
    assert all(isinstance(v, float) for v in (fi.eps, fi.max, fi.min, fi.smallest_normal))
    assert str(fi.max) == str(np.finfo(fi.dtype).max)  # prints as NumPy prints it
    assert fi.bits == 32 and fi.dtype == np.float32
    assert fi.eps == float(np.finfo(np.float32).eps)
    assert fi.resolution == np.finfo(np.float32).resolution  # NumPy's extra fields remain
    assert wnp.finfo(wnp.complex64).dtype == np.float32
    ii = wnp.iinfo(arr([1], wnp.int8))
    assert (ii.bits, ii.min, ii.max, type(ii.max)) == (8, -128, 127, int)
    assert ii.dtype == np.int8
    # NumPy's spellings still work: Python types and scalar instances.
    assert wnp.finfo(float).dtype == np.float64 and wnp.finfo(1.0).bits == 64
    assert wnp.finfo(np.float32(1)).bits == 32 and wnp.iinfo(int).max == 2**63 - 1
    assert wnp.iinfo(np.uint8(3)).max == 255
    with pytest.raises(ValueError, match="finfo"):
        wnp.finfo(wnp.int32)
    with pytest.raises(TypeError, match="wsarray.finfo"):
        wnp.finfo("not a dtype")
    with pytest.raises(ValueError, match="iinfo"):
        wnp.iinfo(wnp.float64)


SORTS = [
    # (call, expected): descending, stability of ties, NumPy's positional kind still works.
    (lambda: wnp.sort(arr([3, 1, 2]), descending=True), [3, 2, 1]),
    (lambda: wnp.argsort(wnp.zeros(20)), list(range(20))),
    (lambda: wnp.argsort(arr([1.0, 3.0, 1.0, 2.0, 3.0])), [0, 2, 3, 1, 4]),
    (lambda: wnp.argsort(arr([1.0, 3.0, 1.0, 2.0, 3.0]), descending=True), [1, 4, 3, 0, 2]),
    (lambda: wnp.argsort(arr([1, 3, 1, 2]), descending=True), [1, 3, 0, 2]),
    (lambda: np.signbit(np.asarray(wnp.sort(arr([0.0, -0.0, 1.0, -0.0])))), [False, True, True, False]),
    (lambda: np.signbit(np.asarray(wnp.sort(arr([0.0, -0.0, -1.0]), descending=True))),
     [False, True, True]),
    (lambda: wnp.sort(arr([[3, 1], [0, 2]]), 0, "mergesort"), [[0, 1], [3, 2]]),
    (lambda: wnp.sort(arr([[3, 1], [0, 2]]), axis=None), [0, 1, 2, 3]),
    (lambda: wnp.argsort(arr([[1.0, 1.0], [0.0, 1.0]]), axis=0, descending=True), [[0, 0], [1, 1]]),
]


@pytest.mark.parametrize("call, expected", SORTS)
def test_sort_descending_and_stable(call, expected):
    np.testing.assert_array_equal(np.asarray(call()), expected)


def test_sort_stable_false_and_kind_conflict():
    np.testing.assert_array_equal(np.asarray(wnp.sort(arr([2, 1]), stable=False)), [1, 2])
    with pytest.raises(ValueError, match="`kind` and keyword parameters can't be provided at the same time"):
        wnp.sort(arr([2, 1]), kind="quicksort", stable=False)  # NumPy's check and words


CLIPS = [
    (lambda x: wnp.clip(x, min=1, max=2), [1, 1, 2, 2]),
    (lambda x: wnp.clip(x, 1, 2), [1, 1, 2, 2]),
    (lambda x: wnp.clip(x, a_min=1, a_max=2), [1, 1, 2, 2]),
    (lambda x: wnp.clip(x, max=2), [0, 1, 2, 2]),
    (lambda x: wnp.clip(x), [0, 1, 2, 3]),
    (lambda x: wnp.clip(wnp.astype(x, wnp.int8), -1000, 1000), [0, 1, 2, 3]),
]


@pytest.mark.parametrize("call, expected", CLIPS)
def test_clip(call, expected):
    out = call(arr([0, 1, 2, 3]))
    np.testing.assert_array_equal(np.asarray(out), expected)
    assert out.dtype in (np.int64, np.int8)


def test_clip_nan_bound_and_conflicts():
    got = np.asarray(wnp.clip(arr([0.0, 5.0]), arr([nan, 1.0]), 2.0))
    assert np.isnan(got[0]) and got[1] == 2.0
    with raises_numpys(TypeError, r"clip\(\) got multiple values", "clip"):
        wnp.clip(arr([1]), 0, min=0, a_min=0)


def test_eig_and_eigvals_are_numpys():
    # README: NumPy wins here (real results for real eigenvalues; complex otherwise).
    for a in ([[2.0, 0.0], [0.0, 3.0]], [[0.0, 1.0], [-1.0, 0.0]], [[1.0, 2.0], [3.0, 4.0]]):
        for dtype in (np.float32, np.float64):
            n = np.array(a, dtype)
            res, want = wnp.linalg.eig(wnp.asarray(n)), np.linalg.eig(n)
            assert res.eigenvalues.dtype == want.eigenvalues.dtype
            assert res.eigenvectors.dtype == want.eigenvectors.dtype
            np.testing.assert_allclose(np.asarray(res.eigenvalues), want.eigenvalues, rtol=1e-6)
            assert wnp.linalg.eigvals(wnp.asarray(n)).dtype == np.linalg.eigvals(n).dtype
    assert wnp.linalg.eig(wnp.eye(2)).eigenvalues.dtype == np.float64


def test_clip_argument_checks_are_numpys_where_the_standard_is_silent():
    x, n = arr([0, 1, 2, 3]), np.arange(4)
    for call in (lambda m, a: m.clip(a, a_max=2), lambda m, a: m.clip(a, a_min=1)):
        with pytest.raises(TypeError) as numpys:
            call(np, n)
        with raises_numpys(TypeError, re.escape(str(numpys.value)), "clip"):
            call(wnp, x)
    with pytest.raises(ValueError) as numpys:
        np.clip(n, a_min=2, a_max=3, min=2)
    with raises_numpys(ValueError, re.escape(str(numpys.value)), "clip"):
        wnp.clip(x, a_min=2, a_max=3, min=2)
    np.testing.assert_array_equal(np.asarray(wnp.clip(x, None, 2)), np.clip(n, None, 2))
    np.testing.assert_array_equal(np.asarray(wnp.clip(x, a_min=1, a_max=2)), np.clip(n, 1, 2))
    # One positional bound: the standard's lower bound (NumPy raises TypeError: README).
    np.testing.assert_array_equal(np.asarray(wnp.clip(x, 2)), np.clip(n, 2, None))


def test_pinv_refuses_rcond_and_rtol_together_and_can_cast_takes_keywords():
    with pytest.raises(ValueError) as numpys:
        np.linalg.pinv(np.eye(2), rcond=1e-3, rtol=1e-3)
    with raises_numpys(ValueError, re.escape(str(numpys.value)), "linalg.pinv"):
        wnp.linalg.pinv(wnp.eye(2), rcond=1e-3, rtol=1e-3)
    assert wnp.can_cast(from_=wnp.int8, to=wnp.int16) and not wnp.can_cast(from_=wnp.float64, to=wnp.int8)
    assert wnp.can_cast(wnp.int8, wnp.int16, casting="same_kind")


def test_pinv_default_tolerance_is_the_standards():
    # singular value 5e-16: above max(M, N) * eps = 4.4e-16 (kept), below NumPy's 1e-15.
    x = arr([[1.0, 0.0], [0.0, 5e-16]])
    np.testing.assert_allclose(np.asarray(wnp.linalg.pinv(x)), [[1.0, 0.0], [0.0, 2e15]])
    np.testing.assert_allclose(np.asarray(wnp.linalg.pinv(x, 1e-15)), [[1.0, 0.0], [0.0, 0.0]])
    np.testing.assert_allclose(np.asarray(wnp.linalg.pinv(x, rtol=1e-15)), [[1.0, 0.0], [0.0, 0.0]])
    # Integer input works as in NumPy (computed in float64; NumPy's rtol=None path fails there).
    m = [[1, 2, 3], [5, 7, 11], [21, 29, 31]]
    np.testing.assert_allclose(np.asarray(wnp.linalg.pinv(wnp.asarray(m))), np.linalg.pinv(np.asarray(m)))


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_fftfreq_dtype(name):
    fn = getattr(wnp.fft, name)
    ref = getattr(np.fft, name)(8, 0.5)
    out = fn(8, d=0.5, dtype=wnp.float32, device="cpu")
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), ref)
    assert fn(8, 0.5).dtype == np.float64
    # With no dtype, NumPy's: the spacing's type decides (longdouble keeps its precision, a
    # complex spacing its imaginary part).
    for d in (np.longdouble(1) / 3, 0.1 + 1j, np.float32(0.5)):
        expected = getattr(np.fft, name)(8, d)
        got = fn(8, d)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(np.asarray(got), expected)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "longdouble"])
def test_argsort_keeps_nans_in_their_order(dtype):
    # NaNs sort as equal to each other but never compare equal: the tie check missed them, and
    # the default (stable) argsort returned their positions scrambled.
    rng = np.random.default_rng(5)
    x = rng.permutation(40).astype(dtype)
    x[[2, 3, 6, 7, 8, 10, 30, 31]] = np.nan
    x[11] = -np.nan
    expected = np.argsort(x, kind="stable")
    for call in (lambda m: m.argsort(x), lambda m: m.argsort(x, stable=True)):
        np.testing.assert_array_equal(np.asarray(call(wnp)), expected)
    down = np.asarray(wnp.argsort(x, descending=True)).tolist()
    nans = [i for i in down if np.isnan(x[i])]
    assert nans == sorted(nans) and len(nans) == 9  # equal elements keep their original order
    rest = [x[i] for i in down if not np.isnan(x[i])]
    assert rest == sorted(rest, reverse=True)
    # sort keeps the NaNs' signs where a stable sort puts them
    np.testing.assert_array_equal(np.signbit(np.asarray(wnp.sort(x))), np.signbit(np.sort(x, kind="stable")))


def test_inspection_namespace():
    info = wnp.__array_namespace_info__()
    assert info.devices() == ("cpu",) and info.default_device() == "cpu"  # the standard's tuple
    caps = info.capabilities()
    assert caps["boolean indexing"] is True and caps["data-dependent shapes"] is True
    assert caps["max dimensions"] == 64
    assert info.default_dtypes() == {"real floating": np.float64, "complex floating": np.complex128,
                                     "integral": np.int64, "indexing": np.int64}
    assert list(info.dtypes(kind="unsigned integer")) == ["uint8", "uint16", "uint32", "uint64"]
    assert set(info.dtypes(kind=("bool", "complex floating"))) == {"bool", "complex64", "complex128"}
    assert len(info.dtypes()) == 13
    numpys = np.__array_namespace_info__()
    # dtype objects, as NumPy's: dictionaries keyed by them find x.dtype (hash(np.float64) differs).
    assert info.dtypes() == numpys.dtypes() and info.default_dtypes() == numpys.default_dtypes()
    assert all(isinstance(d, np.dtype) for d in [*info.dtypes().values(), *info.default_dtypes().values()])
    table = {d: name for name, d in info.dtypes().items()}
    assert table[wnp.ones(2).dtype] == "float64" and table[wnp.arange(2, dtype=wnp.int8).dtype] == "int8"
    for call in (lambda i: i.dtypes(kind="strings"), lambda i: i.dtypes(device="gpu"),
                 lambda i: i.default_dtypes(device="gpu")):
        with pytest.raises(ValueError) as want:
            call(numpys)
        with pytest.raises(ValueError, match=re.escape(str(want.value))):
            call(info)


def test_astype_refuses_complex_to_real():
    z = arr([1 + 2j])
    with pytest.raises(TypeError, match="wsarray.astype.*imaginary"):
        wnp.astype(z, wnp.float64)
    with pytest.raises(TypeError, match="wsarray.astype"):
        wnp.astype(z, wnp.int32)
    np.testing.assert_array_equal(np.asarray(wnp.astype(z, wnp.bool)), [True])
    assert wnp.astype(z, wnp.complex64).dtype == np.complex64
    x = arr([1.5])
    assert wnp.astype(x, wnp.float64, copy=False) is x


def test_unique_values_is_sorted():
    x = arr([5, 3, 9, 3, 1, 5, 7] * 3)
    np.testing.assert_array_equal(np.asarray(wnp.unique_values(x)), [1, 3, 5, 7, 9])
    got = np.asarray(wnp.unique_values(arr([nan, 1.0, nan])))
    assert got[0] == 1.0 and np.isnan(got[1:]).all() and got.shape == (3,)


# Where NumPy returns a scalar, so does wsarray: NumPy's scalar itself (a value, immutable, a
# float where NumPy's is one), which the standard's 0-d results are satisfied by (shape (), dtype,
# device, __array_namespace__).
ZERO_D = [
    lambda m, a: m.sum(a([1, 2])),
    lambda m, a: a([1, 2])[0],
    lambda m, a: m.searchsorted(a([1, 2, 3]), 2),
    lambda m, a: m.linalg.det(m.eye(2)),
    lambda m, a: m.vecdot(a([1.0, 2.0]), a([3.0, 4.0])),
    lambda m, a: m.count_nonzero(a([0, 1, 2])),
]


@pytest.mark.parametrize("call", ZERO_D)
def test_zero_dimensional_results_are_numpys_scalars(call):
    r, want = call(wnp, arr), call(np, np.asarray)
    assert type(r) is type(want) and r == want
    assert r.ndim == 0 and r.shape == () and r.device == "cpu" and r.dtype == want.dtype


# Given no wsarray array, the standard's functions are NumPy's: NumPy's scalar, exactly.
NO_ARRAY = [
    lambda m: m.sqrt(2.0),
    lambda m: m.sum([1, 2, 3]),
    lambda m: m.left_shift(np.uint8(255), np.int64(1)),
    lambda m: m.maximum(1, 2.5),
    lambda m: m.exp(np.float32(1.5)),
    lambda m: m.sum(np.arange(4.0)),  # a NumPy ndarray
    lambda m: m.isnan(float("nan")),
]


def test_astype_of_a_numpy_scalar_is_numpys_scalar():
    got = wnp.astype(np.float64(1.5), wnp.int32)
    assert type(got) is np.int32 and got == 1
    with raises_numpys(TypeError, "Input should be a NumPy array or scalar", "astype"):
        wnp.astype([1, 2], wnp.int32)  # as np.astype


def test_named_tuples_without_wsarray_arrays_hold_numpys_scalars():
    got, want = wnp.linalg.slogdet(np.eye(2) * 3), np.linalg.slogdet(np.eye(2) * 3)
    assert type(got) is type(want) and [type(v) for v in got] == [type(v) for v in want]
    assert tuple(got) == tuple(want)
    got = wnp.linalg.slogdet(wnp.eye(2))  # on wsarray arrays: the same
    assert type(got) is type(want) and type(got.logabsdet) is np.float64


@pytest.mark.parametrize("call", NO_ARRAY)
def test_calls_without_wsarray_arrays_give_numpys_scalars(call):
    import json
    got, want = call(wnp), call(np)
    assert type(got) is type(want) and got == want
    assert json.dumps([got.item()]) == json.dumps([want.item()])
    # With a wsarray array among the arguments: NumPy's scalar too, as NumPy returns it.
    s = wnp.sum(arr([1.0, 1.0]))
    assert type(wnp.sqrt(s)) is np.float64 and type(wnp.maximum(arr(1), 2.5)) is np.float64
    assert type(wnp.sum([arr(1.0), 2.0])) is np.float64


def test_result_type_needs_an_argument():
    with pytest.raises(ValueError, match="^at least one array or dtype is required$"):  # NumPy's message
        wnp.result_type()
    assert wnp.result_type(arr([1], wnp.int8), 1) == np.int8
    assert wnp.result_type(wnp.float32, 1.0) == np.float32
    assert wnp.result_type(wnp.float32, 1j) == np.complex64


@pytest.mark.parametrize("op", [operator.floordiv])
def test_operator_hook_keeps_numpy_errors(op):
    with pytest.raises(TypeError, match="floor_divide"):
        op(arr([1.0]), "a")


def test_none_index_adds_an_axis():
    x = arr(3.0)
    assert x[None].shape == (1,) and x[None, ...].shape == (1,)
    y = wnp.zeros((2,))
    y[None] = 5.0
    np.testing.assert_array_equal(np.asarray(y), [5.0, 5.0])
    assert wnp.ones((2, 3))[:, None].shape == (2, 1, 3)


# The functions implemented in Python (wsarray/_impl) allocate from the workspace like the rest.
IN_WORKSPACE = [
    lambda x: wnp.sort(x, descending=True),
    lambda x: wnp.argsort(x, descending=True),
    lambda x: wnp.argsort(x),
    lambda x: wnp.clip(x, 0.5, 1.5),
    lambda x: wnp.floor_divide(x, -inf),
    lambda x: x // -inf,
    lambda x: wnp.expm1(wnp.astype(x, wnp.complex128)),
    lambda x: wnp.tanh(wnp.astype(x, wnp.complex64)),
    lambda x: wnp.linalg.eigvals(wnp.reshape(x, (2, 2))),
    lambda x: wnp.linalg.eig(wnp.reshape(x, (2, 2))).eigenvectors,
    lambda x: wnp.linalg.pinv(wnp.reshape(x, (2, 2))),
    lambda x: wnp.fft.fftfreq(4, dtype=wnp.float32),
    lambda x: wnp.unique_values(x),
    lambda x: wnp.astype(x, wnp.float32),
]


@pytest.mark.parametrize("call", IN_WORKSPACE)
def test_python_implemented_functions_allocate_in_the_workspace(call):
    x = arr([3.0, 1.0, 2.0, 1.0])
    with wnp.workspace("DEV"):
        r = call(x)
        assert type(r) is wnp.Array and r.workspace == "DEV" and r.is_in_scope()
        expected = np.asarray(r).copy()
    r_outside = call(x)
    assert r_outside.workspace is None
    np.testing.assert_array_equal(np.asarray(r_outside), expected)


def test_dlpack_protocol_and_from_dlpack():
    x = arr([1.0, 2.0, 3.0])
    assert x.__dlpack_device__() == (1, 0)
    capsule = x.__dlpack__(stream=None, max_version=(1, 0), dl_device=(1, 0), copy=False)
    assert type(capsule).__name__ == "PyCapsule"
    shared = wnp.from_dlpack(x, copy=False, device="cpu")
    copied = wnp.from_dlpack(x, copy=True)
    assert np.shares_memory(np.asarray(shared), np.asarray(x))
    assert not np.shares_memory(np.asarray(copied), np.asarray(x))
    np.testing.assert_array_equal(np.asarray(np.from_dlpack(x)), [1.0, 2.0, 3.0])
    with wnp.workspace("DL"):
        inside = wnp.from_dlpack(x, copy=True)
        assert inside.workspace == "DL"
    with raises_numpys(ValueError, "Device not understood", "from_dlpack"):
        wnp.from_dlpack(x, device="gpu")


def test_devices():
    x = arr([1.0])
    assert x.device == "cpu" and x.to_device("cpu") is x
    with pytest.raises(ValueError) as numpys:
        np.arange(2).to_device("cpu", stream=1)
    with pytest.raises(ValueError, match=re.escape(str(numpys.value))):
        x.to_device("cpu", stream=1)
    assert wnp.asarray([1], device=x.device).device == "cpu"
    assert wnp.zeros(2, device="cpu").device == "cpu"
    with pytest.raises(ValueError, match="to_device"):
        x.to_device("gpu")
    with raises_numpys(ValueError, "Device not understood", "zeros"):
        wnp.zeros(2, device="gpu")


def test_finfo_iinfo_print_as_numpys():
    # Fields are Python numbers (the standard), but the objects print as NumPy's do.
    for t in (np.float16, np.float32, np.float64, np.complex128):
        assert repr(wnp.finfo(t)) == repr(np.finfo(t)) and str(wnp.finfo(t)) == str(np.finfo(t))
    for t in (int, np.int8, np.int32, np.uint64):
        assert repr(wnp.iinfo(t)) == repr(np.iinfo(t)) and str(wnp.iinfo(t)) == str(np.iinfo(t))


def test_unorderable_object_arrays_get_numpys_default_sort_answer():
    # The stable sort compares other pairs than NumPy's default one: for objects that cannot all be
    # compared, the error a NumPy program sees is the default sort's (message included).
    for f in ("sort", "argsort"):
        values = ["a", None, "b"]
        with pytest.raises(TypeError) as want:
            getattr(np, f)(np.array(values, dtype=object))
        with pytest.raises(TypeError) as got:
            getattr(wnp, f)(wnp.array(values, dtype=object))
        assert_numpys_error(got.value, want.value, f)
    assert wnp.sort(wnp.array([3, 1, 2], dtype=object)).tolist() == [1, 2, 3]
    assert wnp.argsort(wnp.array(["b", "a", "b", "a"], dtype=object)).tolist() == [1, 3, 0, 2]  # stable
