"""Libraries written against the array API standard accept wsarray: array-api-compat finds the
namespace, and scikit-learn (array API dispatch) fits PCA and LinearDiscriminantAnalysis on
wsarray arrays with NumPy's results."""
import os
import subprocess
import sys
import textwrap

import array_api_compat
import numpy as np

import wsarray as wnp


def test_array_api_compat_takes_wsarray_arrays_as_numpys():
    # A wsarray array is a NumPy array (a subclass): array-api-compat gives NumPy's namespace for
    # it (its check is issubclass(type(x), numpy.ndarray)), whose functions dispatch to wsarray
    # through __array_function__ / __array_ufunc__; the array's own method gives wsarray.
    import array_api_compat.numpy as compat_numpy

    x = wnp.asarray([[1.0, 2.0], [3.0, 4.0]])
    assert array_api_compat.array_namespace(x) is compat_numpy and array_api_compat.is_numpy_array(x)
    assert array_api_compat.array_namespace(x, wnp.asarray([1]), np.ones(2)) is compat_numpy
    assert x.__array_namespace__() is wnp
    assert array_api_compat.is_array_api_obj(x)
    assert array_api_compat.device(x) == "cpu"
    assert array_api_compat.to_device(x, "cpu") is x
    assert array_api_compat.size(x) == 4
    xp = array_api_compat.array_namespace(x)
    inv = xp.linalg.inv(x)
    assert type(inv) is wnp.Array  # NumPy's function, dispatched to wsarray
    np.testing.assert_allclose(np.asarray(inv), np.linalg.inv(np.asarray(x)))


# scikit-learn needs SciPy's array API mode, which is read when SciPy is first imported: run the
# fits in a fresh interpreter so the rest of the test session is unaffected.
SKLEARN_SCRIPT = textwrap.dedent("""
    import numpy as np
    import sklearn
    from sklearn.decomposition import PCA
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    import wsarray as wnp

    rng = np.random.default_rng(0)
    X = rng.standard_normal((80, 6)) @ rng.standard_normal((6, 6))
    y = (X[:, 0] + 0.5 * rng.standard_normal(80) > 0).astype(np.int64) + (X[:, 1] > 1)
    wX, wy = wnp.asarray(X), wnp.asarray(y)

    pca_np = PCA(n_components=3, svd_solver="full").fit(X)
    lda_np = LinearDiscriminantAnalysis(solver="svd").fit(X, y)
    with sklearn.config_context(array_api_dispatch=True):
        # wsarray arrays are NumPy arrays to array-api-compat: NumPy's namespace fits them, its
        # calls on wsarray arrays dispatched to wsarray; the fitted values are NumPy's.
        pca = PCA(n_components=3, svd_solver="full").fit(wX)
        lda = LinearDiscriminantAnalysis(solver="svd").fit(wX, wy)
        assert isinstance(pca.components_, np.ndarray), type(pca.components_)
        assert isinstance(lda.coef_, np.ndarray), type(lda.coef_)
        for attr in ("components_", "explained_variance_", "mean_"):
            np.testing.assert_allclose(np.asarray(getattr(pca, attr)), getattr(pca_np, attr),
                                       rtol=1e-10, atol=1e-12)
        for attr in ("coef_", "intercept_", "classes_", "means_", "explained_variance_ratio_"):
            np.testing.assert_allclose(np.asarray(getattr(lda, attr)), getattr(lda_np, attr),
                                       rtol=1e-10, atol=1e-12)
        np.testing.assert_array_equal(np.asarray(lda.predict(wX)), lda_np.predict(X))
        with wnp.workspace("SK"):
            t = pca.transform(wX)  # inside a workspace too (NumPy's conversions make NumPy arrays)
            np.testing.assert_allclose(np.asarray(t), pca_np.transform(X), rtol=1e-10, atol=1e-12)
    print("sklearn ok")
""")


def test_sklearn_pca_and_lda_on_wsarray():
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    proc = subprocess.run([sys.executable, "-P", "-c", SKLEARN_SCRIPT], capture_output=True,
                          text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "sklearn ok" in proc.stdout


def test_numpy_style_use_of_scikit_learn_and_scipy():
    """Without array API dispatch, libraries call numpy.asarray on wsarray arrays and get NumPy's
    answers; wsarray functions given to them as parameters survive sklearn's clone (deepcopy)."""
    import scipy.optimize
    from sklearn.base import clone
    from sklearn.linear_model import LinearRegression
    from sklearn.preprocessing import FunctionTransformer

    rng = np.random.default_rng(0)
    X = rng.random((30, 3))
    y = X @ np.array([1.0, 2.0, 3.0]) + 0.5
    want = LinearRegression().fit(X, y)
    got = LinearRegression().fit(wnp.asarray(X), wnp.asarray(y))
    assert np.array_equal(got.coef_, want.coef_) and got.intercept_ == want.intercept_
    assert clone(FunctionTransformer(wnp.log1p)).func is wnp.log1p
    res = scipy.optimize.minimize(lambda v: wnp.sum((v - wnp.asarray([1.0, 2.0])) ** 2), wnp.zeros(2))
    want_res = scipy.optimize.minimize(lambda v: np.sum((v - np.asarray([1.0, 2.0])) ** 2), np.zeros(2))
    assert np.array_equal(res.x, want_res.x) and res.nit == want_res.nit


def test_numpy_asarray_is_a_view_for_code_that_needs_an_ndarray():
    """C code that accepts only an exact ndarray (torch.from_numpy) gets numpy.asarray(x): a view of
    the same memory, no copy."""
    x = wnp.arange(4.0)
    v = np.asarray(x)
    v[0] = 9.0
    assert type(v) is np.ndarray and x[0] == 9.0
    try:
        import torch
    except ImportError:
        return
    t = torch.from_numpy(np.asarray(x))
    t[1] = 7.0
    assert float(x[1]) == 7.0


ISINSTANCE_SCRIPT = textwrap.dedent("""
    import array_api_compat, numpy as np, wsarray as wnp
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV

    rng = np.random.default_rng(0)
    X = rng.random((40, 3))
    y = (X[:, 0] > 0.5).astype(int)
    got = GridSearchCV(LogisticRegression(), {"C": wnp.logspace(-3, 3, 4)}, cv=2).fit(wnp.asarray(X), y)
    want = GridSearchCV(LogisticRegression(), {"C": np.logspace(-3, 3, 4)}, cv=2).fit(X, y)
    assert got.best_params_ == want.best_params_
    assert array_api_compat.is_numpy_array(wnp.asarray(X))  # a NumPy array, a subclass
    try:
        import dask.array as da  # the dask extra, not the test extra
    except ImportError:
        print("isinstance ok (no dask)")
        raise SystemExit(0)
    d = da.from_array(np.arange(6.0), chunks=3)
    for lazy, want in ((d + wnp.arange(6.0), np.arange(6.0) * 2), (wnp.arange(6.0) * d, np.arange(6.0) ** 2),
                       (wnp.add(wnp.arange(6.0), d), np.arange(6.0) * 2)):
        assert isinstance(lazy, da.Array)  # dask handles the mix (both sides refused it before)
        np.testing.assert_array_equal(np.asarray(lazy.compute()), want)
    print("isinstance ok")
""")


def test_isinstance_ndarray_checks_in_libraries_take_wsarray_arrays():
    """isinstance(x, numpy.ndarray) holds for wsarray arrays (README): scikit-learn's check of a
    parameter grid accepts np.logspace(...), and dask treats an Array as an array chunk. In a fresh
    interpreter: importing dask here would grow this process, which fork tests measure."""
    proc = subprocess.run([sys.executable, "-P", "-c", ISINSTANCE_SCRIPT], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "isinstance ok" in proc.stdout
