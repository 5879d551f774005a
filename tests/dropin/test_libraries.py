"""Libraries on top of NumPy, given wsarray: array-API consumers (bench/array_api_consumers.py:
every scikit-learn estimator with array API dispatch, SciPy's array-API-aware functions) agree
with their NumPy results, and the harness that runs libraries' own suites swapped to wsarray
(bench/library_suites.py) rewrites imports as a user would."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))  # bench/ is no package (as for bench/run.py)


def test_array_api_consumers_agree_with_numpy(tmp_path):
    pytest.importorskip("sklearn", reason="scikit-learn (the [test] extra) is the array-API consumer checked")
    out = tmp_path / "consumers.json"
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    proc = subprocess.run([sys.executable, "-P", str(BENCH / "array_api_consumers.py"), "--json", str(out)],
                          env=env, capture_output=True, text=True, timeout=600)
    results = json.loads(out.read_text())
    failed = [f"{r['consumer']}: {r['error']}" for r in results if not r["ok"]]
    assert not failed and proc.returncode == 0, "\n".join(failed) or proc.stderr[-2000:]
    consumers = {r["consumer"].split(".")[0] for r in results}
    assert consumers == {"sklearn", "scipy"} and len(results) >= 40


def test_library_imports_are_swapped_as_a_user_would():
    from library_suites import swap_imports

    source = ("import numpy as np\nimport numpy\nimport numpy.linalg as la\nimport numpy.random\n"
              "from numpy import (\n    array,\n    zeros,\n)\nfrom numpy.testing import assert_equal\n"
              "from numpy._core.multiarray import normalize_axis_index\nimport numpyro, os\n"
              "from numpyx import y\ndef f():\n    import numpy as inner\n    return inner\n"
              "text = 'import numpy as np'\n"
              "m = pytest.importorskip('numpy')\nk = importlib.import_module(\"numpy.linalg\")\n"
              "o = pytest.importorskip(name)\np = pytest.importorskip('numpyro')\nq = print('numpy')\n")
    swapped = swap_imports(source)
    assert swapped.splitlines() == [
        "import wsarray as np", "import wsarray as numpy", "import wsarray.linalg as la",
        "import wsarray.random, wsarray as numpy", "from wsarray import (", "    array,", "    zeros,", ")",
        "from wsarray.testing import assert_equal", "from wsarray._core.multiarray import normalize_axis_index",
        "import numpyro, os", "from numpyx import y", "def f():", "    import wsarray as inner", "    return inner",
        "text = 'import numpy as np'",
        "m = pytest.importorskip('wsarray')", 'k = importlib.import_module("wsarray.linalg")',
        "o = pytest.importorskip(name)", "p = pytest.importorskip('numpyro')", "q = print('numpy')"]
    # What it gives runs: every swapped import resolves (private paths are NumPy's objects).
    scope = {}
    exec(compile("\n".join(swapped.splitlines()[:10]), "<swapped>", "exec"), scope)
    import numpy as real_numpy

    import wsarray

    assert scope["np"] is wsarray and scope["la"] is wsarray.linalg
    assert scope["normalize_axis_index"] is real_numpy._core.multiarray.normalize_axis_index


def test_numpys_random_takes_wsarray_arrays_as_its_own():
    import warnings

    import numpy as np

    import wsarray as wnp

    seeds = wnp.arange(4)
    assert np.random.default_rng(seeds).random() == np.random.default_rng(np.arange(4)).random()
    x, n = wnp.arange(10), np.arange(10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "not a Sequence" warning: it is an ndarray
        np.random.RandomState(0).shuffle(x)
        np.random.default_rng(0).shuffle(x)
    np.random.RandomState(0).shuffle(n)
    np.random.default_rng(0).shuffle(n)
    assert x.tolist() == n.tolist() and type(x) is wnp.Array


def test_numpy_asarray_of_a_wsarray_array_is_a_view_of_it():
    # NumPy's C conversion of any ndarray subclass is a base-class view: it does not own the data
    # (NumPy's rule for subclasses; README), and shares it.
    import numpy as np

    import wsarray as wnp

    a = wnp.ones(3) * 2
    v = np.asarray(a)
    assert type(v) is np.ndarray and not v.flags.owndata and np.shares_memory(v, a)
    v[0] = 5
    assert a[0] == 5 and a.flags.owndata


def test_wsarrays_random_generators_are_numpys_to_libraries():
    # SciPy's and scikit-learn's check_random_state take only numpy.random's classes (and their
    # subclasses): scipy.stats' rvs(random_state=np.random.default_rng(0)) refused wsarray's.
    import pickle

    import numpy as np
    import scipy.stats
    from sklearn.utils import check_random_state

    import wsarray as wnp

    for make in (lambda m: m.default_rng(0), lambda m: m.RandomState(0), lambda m: m.Generator(m.PCG64(0))):
        mine, numpys = make(wnp.random), make(np.random)
        assert isinstance(mine, type(numpys)) and type(mine) is not type(numpys)
        np.testing.assert_array_equal(scipy.stats.norm.rvs(size=5, random_state=mine),
                                      scipy.stats.norm.rvs(size=5, random_state=numpys))
        with wnp.workspace("RANDOM_SUBCLASSES"):
            got = mine.random(3)
            assert type(got) is wnp.Array and got.workspace == "RANDOM_SUBCLASSES"
            np.testing.assert_array_equal(np.asarray(got), numpys.random(3))
        back = pickle.loads(pickle.dumps(mine))
        assert type(back) is type(mine)
        np.testing.assert_array_equal(np.asarray(back.random(4)), numpys.random(4))
    legacy = wnp.random.RandomState(0)
    assert check_random_state(legacy) is legacy
    # One given NumPy's generator draws from its bit generator: the same stream, shared.
    shared = np.random.default_rng(3)
    wrapped = wnp.random.Generator(shared)
    assert wrapped.bit_generator is shared.bit_generator
    first, second = float(wrapped.random()), shared.random()
    reference = np.random.default_rng(3).random(2)
    assert (first, second) == (reference[0], reference[1])
    with pytest.raises(AttributeError, match="'str' object has no attribute 'capsule'"):
        wnp.random.Generator("not a bit generator")  # NumPy's error


def test_a_subclass_of_the_swapped_ndarray_names_wsarray_as_its_namespace():
    # xarray compares x.__array_namespace__() with its `np`: NumPy's subclasses name NumPy.
    import numpy as np

    import wsarray as wnp

    class Sub(wnp.ndarray):
        pass

    class SubSub(Sub):
        pass

    class Own(wnp.ndarray):
        def __array_namespace__(self, *, api_version=None):
            return "mine"

    x = wnp.arange(3.0).view(Sub)
    assert x.__array_namespace__() is wnp and x.view(SubSub).__array_namespace__() is wnp
    assert x.__array_namespace__(api_version="2024.12") is wnp
    with pytest.raises(ValueError, match=r"Sub\.__array_namespace__\(\): unsupported api_version '1999.01'"):
        x.__array_namespace__(api_version="1999.01")
    assert x.view(Own).__array_namespace__() == "mine"
    assert np.ma.masked_array([1.0]).__array_namespace__() is np  # NumPy's own subclasses: NumPy
    assert wnp.arange(3.0).__array_namespace__() is wnp
