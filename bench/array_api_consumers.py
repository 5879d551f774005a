"""Array-API consumers given wsarray arrays: every scikit-learn estimator that supports array API
dispatch, and SciPy's array-API-aware functions, agree with what they give for NumPy inputs.

    python -P bench/array_api_consumers.py            # prints one line per check and a summary
    python -P bench/array_api_consumers.py --json out.json

scikit-learn: each estimator whose tags say ``array_api_support`` is fitted under
``sklearn.config_context(array_api_dispatch=True)`` on the same data given as NumPy arrays and as
wsarray arrays; its outputs (predict, predict_proba, transform, fit_transform, score, as the
estimator has them) must agree (``numpy.testing.assert_allclose``, rtol 1e-6). SciPy: runs with
``SCIPY_ARRAY_API=1`` (set before SciPy is imported: this script re-runs itself in a child when
the variable is missing); a list of SciPy's array-API-aware functions are called on NumPy and
wsarray inputs and compared the same way. Exit status 1 if any check disagrees or raises.
"""

import argparse
import json
import os
import subprocess
import sys
import traceback
import warnings

import numpy as np

RTOL = 1e-6


def _data(xp, task, seed=0):
    rng = np.random.default_rng(seed)
    features = rng.normal(size=(60, 5))
    y = {"classifier": (features[:, 0] + 0.3 * rng.normal(size=60) > 0).astype(np.int64),
         "regressor": features @ np.arange(1.0, 6.0) + 0.1 * rng.normal(size=60)}.get(task)
    if task == "count":
        y = rng.poisson(np.exp(0.3 * features[:, 0]))
    if task == "labels":
        features = rng.integers(0, 4, size=60)
    features = np.abs(features) if task == "count" else features
    if task == "kernel":  # a kernel matrix (KernelCenterer): square
        features, y = features @ features.T, None
    return xp.asarray(features), (None if y is None else xp.asarray(y))


def _task(name):
    if name == "LabelEncoder":
        return "labels"
    if name == "PoissonRegressor":
        return "count"
    if name == "KernelCenterer":
        return "kernel"
    from sklearn.base import is_classifier, is_regressor
    from sklearn.utils import all_estimators

    est = dict(all_estimators())[name]()
    return "classifier" if is_classifier(est) else "regressor" if is_regressor(est) else "transformer"


def _outputs(name, xp):
    import sklearn
    from sklearn.utils import all_estimators

    cls = dict(all_estimators())[name]
    task = _task(name)
    features, y = _data(xp, task)
    out = {}
    with sklearn.config_context(array_api_dispatch=True), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = cls()
        if "random_state" in est.get_params():  # the same random draws for both inputs
            est.set_params(random_state=0)
        if task == "labels":
            out["fit_transform"] = est.fit_transform(features)
            out["inverse_transform"] = est.inverse_transform(out["fit_transform"])
            return out
        est.fit(features, y) if y is not None else est.fit(features)
        for method in ("predict", "predict_proba", "decision_function", "transform", "score"):
            if hasattr(est, method):
                try:
                    call = getattr(est, method)
                    out[method] = call(features, y) if method == "score" else call(features)
                except (TypeError, ValueError) as e:  # score(X) without y for unsupervised ones
                    out[method] = f"raises {type(e).__name__}"
    return out


def _same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=RTOL, atol=1e-9)
    return True


def sklearn_checks():
    import wsarray
    from sklearn.utils import all_estimators

    results = []
    for name, cls in all_estimators():
        try:
            supported = cls().__sklearn_tags__().array_api_support
        except Exception:  # noqa: BLE001  (estimators that need arguments: not checked)
            continue
        if not supported:
            continue
        try:
            want, got = _outputs(name, np), _outputs(name, wsarray)
            assert set(want) == set(got), (sorted(want), sorted(got))
            for key in want:
                _same(got[key], want[key])
            results.append({"consumer": f"sklearn.{name}", "ok": True, "checked": sorted(want)})
        except Exception as e:  # noqa: BLE001  (reported, not raised)
            results.append({"consumer": f"sklearn.{name}", "ok": False,
                            "error": f"{type(e).__name__}: {e}".splitlines()[0][:300],
                            "trace": traceback.format_exc(limit=4)})
    return results


# SciPy's functions that dispatch on the array API namespace (SCIPY_ARRAY_API=1), with arguments.
def _scipy_cases():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=200), rng.normal(size=200)
    m = rng.normal(size=(6, 8))
    p = np.abs(x[:50]) / np.abs(x[:50]).sum()
    return [
        ("special.logsumexp", (x,), {}), ("special.softmax", (m,), {"axis": 1}),
        ("special.log_softmax", (m,), {"axis": 0}), ("special.erf", (x,), {}), ("special.expit", (x,), {}),
        ("special.entr", (p,), {}), ("special.xlogy", (p, p), {}), ("special.gammaln", (np.abs(x) + 0.5,), {}),
        ("special.ndtr", (x,), {}), ("special.rel_entr", (p, p[::-1]), {}),
        ("stats.zscore", (x,), {}), ("stats.moment", (x,), {"order": 3}), ("stats.skew", (x,), {}),
        ("stats.kurtosis", (x,), {}), ("stats.variation", (np.abs(x) + 1,), {}),
        ("stats.gmean", (np.abs(x) + 0.1,), {}), ("stats.hmean", (np.abs(x) + 0.1,), {}),
        ("stats.pmean", (np.abs(x) + 0.1, 2.0), {}), ("stats.sem", (x,), {}), ("stats.entropy", (p,), {}),
        ("stats.pearsonr", (x, y), {}), ("stats.ttest_1samp", (x, 0.0), {}), ("stats.ttest_ind", (x, y), {}),
        ("stats.ttest_rel", (x, y), {}), ("stats.describe", (x,), {}),
        ("fft.fft", (x,), {}), ("fft.rfft", (x,), {}), ("fft.dct", (x,), {}), ("fft.fftshift", (x,), {}),
        ("cluster.vq.whiten", (m,), {}), ("signal.fftconvolve", (x, y[:20]), {}),
        ("signal.convolve", (x, y[:20]), {}), ("signal.correlate", (x, y[:20]), {}),
        ("signal.detrend", (x,), {}), ("ndimage.gaussian_filter", (m, 1.0), {}),
        ("linalg.norm", (m,), {}), ("integrate.trapezoid", (x,), {}), ("integrate.simpson", (x,), {}),
    ]


def _flatten(result):
    """A SciPy result as a list of plain floats arrays (named tuples, result objects)."""
    if hasattr(result, "_asdict"):
        result = tuple(result)
    elif hasattr(result, "statistic") and hasattr(result, "pvalue"):
        result = (result.statistic, result.pvalue)
    if isinstance(result, tuple):
        return [part for item in result for part in _flatten(item)]
    return [np.asarray(result, dtype=complex if np.iscomplexobj(result) else float)]


def scipy_checks():
    import importlib

    import wsarray

    results = []
    for path, args, kwargs in _scipy_cases():
        module_name, _, func_name = path.rpartition(".")
        name = f"scipy.{path}"
        try:
            func = getattr(importlib.import_module(f"scipy.{module_name}"), func_name)
            want = _flatten(func(*args, **kwargs))
            got = _flatten(func(*[wsarray.asarray(a) if isinstance(a, np.ndarray) else a for a in args], **kwargs))
            assert len(want) == len(got)
            for g, w in zip(got, want):
                np.testing.assert_allclose(g, w, rtol=RTOL, atol=1e-12)
            results.append({"consumer": name, "ok": True})
        except Exception as e:  # noqa: BLE001
            results.append({"consumer": name, "ok": False,
                            "error": f"{type(e).__name__}: {e}".splitlines()[0][:300],
                            "trace": traceback.format_exc(limit=4)})
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--only", choices=("sklearn", "scipy"), help="one of the two consumers")
    options = parser.parse_args(argv)
    if os.environ.get("SCIPY_ARRAY_API") != "1":  # SciPy reads it once, at import
        env = dict(os.environ, SCIPY_ARRAY_API="1")
        sys.exit(subprocess.run([sys.executable, "-P", *sys.argv], env=env).returncode)
    results = []
    if options.only != "scipy":
        results += sklearn_checks()
    if options.only != "sklearn":
        results += scipy_checks()
    for r in results:
        print(f"{'ok  ' if r['ok'] else 'FAIL'} {r['consumer']}" + ("" if r["ok"] else f": {r['error']}"))
    failed = [r for r in results if not r["ok"]]
    print(f"\n{len(results) - len(failed)}/{len(results)} consumers agree with NumPy on wsarray inputs")
    if options.json:
        with open(options.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
