"""NumPy's own test helpers on wsarray arrays (issue 23, C01): every public name of ``numpy.testing``
that takes arrays behaves with wsarray arrays as with NumPy's, through ``numpy.testing`` itself and
through ``wsarray.testing`` (results, failures and their messages); so do ``numpy.ma.testutils``
and ``numpy.ma``, whose Python code asks ``isinstance(x, numpy.ndarray)``, which holds for an Array
(README, "isinstance(x, np.ndarray)")."""

import pathlib
import sys

import numpy as np
import numpy.ma.testutils as mt
import pytest

import wsarray as wnp

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench"))  # bench/ is no package
import numpy_testing_api as api

ROWS, COVERED, UNTESTED = api.run()
FORMS = ["wsarray arrays, numpy.testing", "wsarray arrays, wsarray.testing"]


def test_every_public_name_taking_arrays_is_covered():
    assert UNTESTED == [] and len(COVERED) >= 20
    assert set(np.testing.__all__) <= COVERED | api.NO_ARRAYS


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r['function']}: {r['case']}")
def test_numpy_testing_case_as_with_numpy_arrays(row, form):
    ref, got = row["numpy arrays, numpy.testing"], row[form]
    assert got["same"], (got, ref)


def test_isinstance_ndarray_holds_for_arrays_not_scalar_results(scope):
    a = wnp.arange(3.0)
    assert isinstance(a, np.ndarray) and type(a) is wnp.Array and issubclass(type(a), np.ndarray)
    assert a.__class__ is wnp.Array is wnp.ndarray and isinstance(a, wnp.ndarray)
    s = a.sum()  # a scalar result: NumPy's scalar type, no ndarray
    assert not isinstance(s, np.ndarray) and isinstance(s, np.float64)
    assert wnp.isscalar(s) and not wnp.isscalar(a) and not wnp.isscalar(wnp.asarray(1.0))


def test_numpy_ma_testutils_and_ma_take_arrays(scope):
    a, n = wnp.arange(6.0), np.arange(6.0)
    mt.assert_equal(a, n)
    mt.assert_almost_equal(a + 1e-9, n)
    with pytest.raises(AssertionError):
        mt.assert_equal(a, n + 1)
    m = np.ma.array(a, mask=a > 3)
    assert type(m) is np.ma.MaskedArray and m.sum() == np.ma.array(n, mask=n > 3).sum()
    out = wnp.zeros(())
    np.ma.sum(np.ma.array(n), out=out)  # numpy.ma's isinstance(out, ndarray) check accepts an Array
    assert float(out) == n.sum()


# The workspace of the `scope` fixture (conftest.py).
SCOPE_WORKSPACE = "DROPIN_TESTING"
