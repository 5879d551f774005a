"""Type promotion as the array API standard specifies it: array with array (within a kind, and
integer with unsigned integer, and real with complex floating), and array with Python scalar."""
import itertools

import numpy as np
import pytest

import wsarray as wnp

SIGNED = [np.int8, np.int16, np.int32, np.int64]
UNSIGNED = [np.uint8, np.uint16, np.uint32, np.uint64]
REAL = [np.float32, np.float64]
COMPLEX = [np.complex64, np.complex128]


def bits(t):
    return np.dtype(t).itemsize * 8


def standard_promotion(a, b):
    """The standard's promotion table, written as its rules (None: not specified)."""
    ka, kb = np.dtype(a).kind, np.dtype(b).kind
    if ka == kb == "b":
        return np.bool_
    if {ka, kb} <= {"i", "u"}:
        if ka == kb:
            return a if bits(a) >= bits(b) else b
        s, u = (a, b) if ka == "i" else (b, a)
        if bits(u) == 64:
            return None
        return np.dtype(f"int{max(bits(s), 2 * bits(u))}").type
    if {ka, kb} <= {"f", "c"}:
        if ka == kb:
            return a if bits(a) >= bits(b) else b
        f, c = (a, b) if ka == "f" else (b, a)
        return np.dtype(f"complex{max(bits(c), 2 * bits(f))}").type
    return None


PAIRS = [(a, b) for a, b in itertools.product([np.bool_] + SIGNED + UNSIGNED + REAL + COMPLEX, repeat=2)
         if standard_promotion(a, b) is not None]


def test_pairs_cover_the_table():
    # bool; integers less uint64 with a signed integer (unspecified); real and complex floats
    assert len(PAIRS) == 1 + (8 * 8 - 2 * 4) + 4 * 4


@pytest.mark.parametrize("a, b", PAIRS, ids=lambda t: np.dtype(t).name)
def test_array_with_array(a, b):
    expected = standard_promotion(a, b)
    x, y = wnp.ones((2, 1), dtype=a), wnp.ones((3,), dtype=b)
    assert wnp.result_type(a, b) == expected
    assert wnp.result_type(x, y) == expected
    r = x * y if expected is not np.bool_ else x & y
    assert r.dtype == expected and r.shape == (2, 3)


SCALARS = [  # (array dtypes, Python scalar): the result keeps the array's dtype
    (SIGNED + UNSIGNED + REAL + COMPLEX, 1),
    (REAL + COMPLEX, 1.5),
    (COMPLEX, 1j),
    ([np.bool_], True),
]


@pytest.mark.parametrize("dtypes, scalar", SCALARS, ids=repr)
def test_array_with_python_scalar_keeps_dtype(dtypes, scalar):
    for t in dtypes:
        x = wnp.ones(3, dtype=t)
        for r in ((x & scalar, scalar & x) if t is np.bool_
                  else (x + scalar, scalar * x, wnp.multiply(x, scalar), wnp.where(x == x, x, scalar))):
            assert r.dtype == t, (t, scalar, r.dtype)
        assert wnp.result_type(x, scalar) == t


@pytest.mark.parametrize("t, expected", [(np.float32, np.complex64), (np.float64, np.complex128)])
def test_real_array_with_python_complex(t, expected):
    assert (wnp.ones(2, dtype=t) * 1j).dtype == expected
