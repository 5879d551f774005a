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
              "text = 'import numpy as np'\n")
    swapped = swap_imports(source)
    assert swapped.splitlines() == [
        "import wsarray as np", "import wsarray as numpy", "import wsarray.linalg as la",
        "import wsarray.random, wsarray as numpy", "from wsarray import (", "    array,", "    zeros,", ")",
        "from wsarray.testing import assert_equal", "from wsarray._core.multiarray import normalize_axis_index",
        "import numpyro, os", "from numpyx import y", "def f():", "    import wsarray as inner", "    return inner",
        "text = 'import numpy as np'"]
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
