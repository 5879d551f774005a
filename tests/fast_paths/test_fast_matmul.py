"""x @ y between Arrays (src/python/types/array_operators.cpp, fast_matmul and the @ type slot) against
NumPy: dtypes, batched and broadcast shapes, transposed and strided operands, the results' memory
inside and outside a workspace, stale operands, errors, and the operands the lean path leaves to
the general one (1-D, scalars, ndarrays, other types)."""

import numpy
import pytest

import wsarray as wa

from error_helpers import raises_numpys
from thread_helpers import run_threads

DTYPES = ["float64", "float32", "float16", "int64", "int8", "uint16", "bool", "complex128", "object"]


def operands(dtype, a_shape, b_shape, seed=0):
    rng = numpy.random.default_rng(seed)
    a = (rng.standard_normal(a_shape) * 4).astype(dtype)
    b = (rng.standard_normal(b_shape) * 4).astype(dtype)
    return a, b


def same(got, want):
    assert type(got) is wa.Array
    got = numpy.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert numpy.array_equal(got, want)


SCOPE_WORKSPACE = "FAST_MATMUL"  # the `scope` fixture's workspace (conftest.py)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((1, 1), (1, 1)), ((8, 8), (8, 8)), ((3, 5), (5, 2)), ((4, 2, 3), (4, 3, 6)),
                                    ((2, 1, 3, 4), (5, 4, 2)), ((0, 3), (3, 4)), ((3, 0), (0, 4))])
def test_products_are_numpys(dtype, shapes, scope):
    a, b = operands(dtype, *shapes)
    got = wa.asarray(a) @ wa.asarray(b)
    same(got, a @ b)
    # Made in the workspace's cycle when there is one (empty results never are), else ordinary.
    assert got.is_attached() == (scope is not None and (a @ b).size > 0)


def test_transposed_strided_and_mixed_dtype_operands(scope):
    a, b = operands("float64", (6, 8), (6, 8))
    wa_a, wa_b = wa.asarray(a), wa.asarray(b)
    same(wa_a.T @ wa_b, a.T @ b)
    same(wa_a[::2] @ wa_b[::2].T, a[::2] @ b[::2].T)
    same(wa_a[:, 1::3] @ wa_b.T[1::3], a[:, 1::3] @ b.T[1::3])
    i = numpy.arange(48, dtype="int32").reshape(8, 6)
    same(wa_a @ wa.asarray(i), a @ i)  # promotion as NumPy's


def test_operands_left_to_the_general_path_behave_as_numpys():
    a, b = operands("float64", (3, 4), (4,))
    same(wa.asarray(a) @ wa.asarray(b), a @ b)  # 2-D @ 1-D
    same(wa.asarray(b) @ wa.asarray(a.T), b @ a.T)  # 1-D @ 2-D
    s = wa.asarray(b) @ wa.asarray(b)  # 1-D @ 1-D: a scalar result
    assert float(s) == float(b @ b) and s.shape == ()
    same(a.T @ wa.asarray(a), a.T @ a)  # an ndarray on the left: the reflected operator
    same(wa.asarray(a) @ a.T, a @ a.T)
    same(wa.asarray(a) @ a.T.tolist(), a @ a.T)


def test_errors_are_numpys_and_name_the_operator():
    a = wa.ones((3, 4))
    with raises_numpys(ValueError, "matmul: Input operand 1 has a mismatch", "ndarray.__matmul__"):
        a @ wa.ones((3, 4))
    with raises_numpys(ValueError, "matmul: Input operand 1 does not have enough dimensions",
                       "ndarray.__matmul__"):
        a @ 2.0
    with pytest.raises(TypeError):
        a @ "x"


def test_stale_operands_raise_and_results_go_stale_with_their_cycle():
    with wa.workspace("FAST_MATMUL_STALE"):
        a = wa.ones((4, 4))
        p = a @ a
        assert p.is_attached() and p.workspace == "FAST_MATMUL_STALE"
        kept = (a @ a).detach()
    try:
        for use in (lambda: a @ kept, lambda: kept @ a, lambda: p.sum()):
            with pytest.raises(wa.WorkspaceError, match="cycle"):
                use()
        same(kept, numpy.full((4, 4), 4.0))
    finally:
        wa.memory.destroy_workspace("FAST_MATMUL_STALE")


def test_a_type_deferring_to_its_reflected_matmul_gets_it():
    class Deferring:
        __array_ufunc__ = None

        def __rmatmul__(self, other):
            return "rmatmul"

    assert wa.ones((2, 2)) @ Deferring() == "rmatmul"


BITWISE_DTYPES = ["float64", "float32", "float16", "complex128", "complex64", "int64", "int16", "uint8", "bool",
                  "longdouble"]
LAYOUTS = {  # 2-D operands as NumPy's own matmul loop receives them: contiguous, transposed, strided
    "C": lambda x: x, "F": numpy.asfortranarray, "reversed rows": lambda x: x[::-1], "every other column":
    lambda x: numpy.repeat(x, 2, axis=1)[:, ::2], "reversed columns": lambda x: x[:, ::-1],
}


@pytest.mark.parametrize("dtype", BITWISE_DTYPES)
@pytest.mark.parametrize("mnp", [(1, 1, 1), (8, 8, 8), (1, 9, 1), (5, 1, 3), (100, 70, 90)], ids=str)
def test_two_dimensional_products_are_numpys_bit_for_bit(dtype, mnp, scope):
    m, n, p = mnp  # (100, 70, 90): BLAS, and the GIL released while it runs
    a, b = operands(dtype, (m, n), (n, p), seed=m + n + p)
    for la, lb in [("C", "C"), ("F", "reversed rows"), ("every other column", "reversed columns")]:
        x, y = LAYOUTS[la](a), LAYOUTS[lb](b)
        got, want = wa.asarray(x) @ wa.asarray(y), x @ y
        assert got.dtype == want.dtype and got.shape == want.shape and got.strides == want.strides
        if dtype == "longdouble":  # 10 bytes of 16 hold the value; the rest is whatever was there
            assert numpy.array_equal(numpy.asarray(got), want) and numpy.signbit(got).tolist() == numpy.signbit(
                want).tolist()
        else:
            assert numpy.asarray(got).tobytes() == want.tobytes(), (la, lb)
        flags = ["C_CONTIGUOUS", "F_CONTIGUOUS", "OWNDATA", "WRITEABLE", "ALIGNED"]
        assert [got.flags[f] for f in flags] == [want.flags[f] for f in flags]
        assert got.workspace == (scope.name if scope else None)


@pytest.mark.parametrize("values", [(numpy.inf, 0.0), (numpy.nan, 1.0), (1e300, 1e300)], ids=str)
def test_floating_point_errors_of_products_are_numpys(values):
    a = numpy.full((3, 3), values[0])
    b = numpy.full((3, 3), values[1])
    for setting in ("ignore", "warn", "raise"):
        with numpy.errstate(all=setting):
            want = outcome(lambda: a @ b)
            got = outcome(lambda: numpy.asarray(wa.asarray(a) @ wa.asarray(b)))
        assert got[0] == want[0] and got[2] == want[2], setting
        if want[0] == "ok":
            assert got[1].tobytes() == want[1].tobytes()


def outcome(fn):
    """("ok", result, warnings) or (exception class, message, warnings) of fn()."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            kind, value = "ok", fn()
        except Exception as e:  # noqa: BLE001 -- compared with NumPy's
            kind, value = type(e), str(e)
    return kind, value, [(w.category, str(w.message)) for w in caught]


def test_unaligned_and_byte_swapped_operands_are_left_to_numpy():
    a, b = operands("float64", (4, 4), (4, 4))
    raw = numpy.zeros(a.nbytes + 1, numpy.uint8)
    unaligned = numpy.frombuffer(raw[1:].data, dtype="float64").reshape(4, 4)
    unaligned[...] = a
    assert not unaligned.flags.aligned
    same(wa.asarray(unaligned) @ wa.asarray(b), unaligned @ b)
    swapped = a.astype(">f8")
    same(wa.asarray(swapped) @ wa.asarray(swapped), swapped @ swapped)


def test_large_products_on_two_threads_are_numpys():
    a, b = operands("float64", (300, 200), (200, 250))
    want = (a @ b).tobytes()
    results = []
    run_threads(lambda i: results.append(numpy.asarray(wa.asarray(a) @ wa.asarray(b)).tobytes()), 2)
    assert results == [want, want]
