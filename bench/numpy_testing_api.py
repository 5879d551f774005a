"""numpy.testing's public API on wsarray arrays, next to NumPy's own arrays.

    python -P bench/numpy_testing_api.py            # the table of cases whose outcome differs
    python -P bench/numpy_testing_api.py --all      # every case
    python -P bench/numpy_testing_api.py --json out.json

Every public name of ``numpy.testing`` that takes arrays (or callables that make them) is called
with the same values three ways: NumPy arrays through ``numpy.testing`` (the reference), wsarray
arrays through ``numpy.testing`` (what a user's test suite does after ``import wsarray as np``), and
wsarray arrays through ``wsarray.testing``. An outcome is "ok", the exception type and the first
line of its message, or the returned value; a failing assertion's full message is compared too.
The names that take no arrays (constants, ``SkipTest``, ``jiffies``, ...) are listed as such.
Feeds the numpy.testing section of bench/numpy_suite_findings.md (issue 23).
"""

import argparse
import contextlib
import io
import json
import operator
import os
import sys
import warnings

import numpy
import numpy.testing as nt

import wsarray
import wsarray.testing as wt

NO_ARRAYS = {
    "IS_PYPY", "HAS_REFCOUNT", "IS_WASM", "HAS_LAPACK64", "IS_PYSTON", "IS_MUSL", "NOGIL_BUILD",
    "IS_EDITABLE", "IS_INSTALLED", "NUMPY_ROOT", "IS_64BIT", "BLAS_SUPPORTS_FPE", "verbose",
    "SkipTest", "KnownFailureException", "IgnoreException", "TestCase", "jiffies", "memusage",
    "decorate_methods", "check_support_sve", "break_cycles", "assert_string_equal",
    # Context managers and file helpers that hold no arrays, and runners of code strings or
    # doctests (the arrays are the code's own):
    "suppress_warnings", "clear_and_catch_warnings", "tempdir", "temppath", "measure", "rundocs",
}


def cases():
    """(function name, case label, build) with build(xp) -> (args, kwargs); xp is numpy or wsarray."""
    sdt = numpy.dtypes.StringDType()
    rec = numpy.dtype([("a", "i4"), ("b", "f8")])
    c = []

    def add(name, label, build):
        c.append((name, label, build))

    # assert_equal: the dispatch on isinstance(x, numpy.ndarray) decides everything.
    add("assert_equal", "arange(3) == [0, 1, 2]", lambda xp: ((xp.arange(3), [0, 1, 2]), {}))
    add("assert_equal", "arange(3) != [0, 1, 3] (fails)", lambda xp: ((xp.arange(3), [0, 1, 3]), {}))
    add("assert_equal", "zeros(3) == 0 (broadcast)", lambda xp: ((xp.zeros(3), 0), {}))
    add("assert_equal", "[0, 1, 2] == arange(3) (desired array)", lambda xp: (([0, 1, 2], xp.arange(3)), {}))
    add("assert_equal", "array(3.0) (0-d) == 3.0", lambda xp: ((xp.array(3.0), 3.0), {}))
    add("assert_equal", "x.sum() == 3.0 (scalar result)", lambda xp: ((xp.arange(3.0).sum(), 3.0), {}))
    add("assert_equal", "sum(x) == 3.0 (standard function)", lambda xp: ((xp.sum(xp.arange(3.0)), 3.0), {}))
    add("assert_equal", "x[1] == 1.0 (indexing)", lambda xp: ((xp.arange(3.0)[1], 1.0), {}))
    add("assert_equal", "array([nan]) == [nan]", lambda xp: ((xp.array([numpy.nan]), [numpy.nan]), {}))
    add("assert_equal", "arange(3) vs arange(3.) strict (fails)",
        lambda xp: ((xp.arange(3), xp.arange(3.0)), {"strict": True}))
    add("assert_equal", "shape (2,) vs (1, 2) strict (fails)",
        lambda xp: ((xp.zeros(2), xp.zeros((1, 2))), {"strict": True}))
    add("assert_equal", "empty array == []", lambda xp: ((xp.zeros(0), []), {}))
    add("assert_equal", "{'a': arange(2)} == {'a': [0, 1]}", lambda xp: (({"a": xp.arange(2)}, {"a": [0, 1]}), {}))
    add("assert_equal", "(arange(2), 1) == ([0, 1], 1)", lambda xp: (((xp.arange(2), 1), ([0, 1], 1)), {}))
    add("assert_equal", "complex array", lambda xp: ((xp.array([1 + 2j]), [1 + 2j]), {}))
    add("assert_equal", "datetime64 array", lambda xp: ((xp.array(["2000-01-01"], "M8[D]"),
                                                        numpy.array(["2000-01-01"], "M8[D]")), {}))
    add("assert_equal", "StringDType array", lambda xp: ((xp.array(["a", "bc"], dtype=sdt), ["a", "bc"]), {}))
    add("assert_equal", "structured array", lambda xp: ((xp.zeros(2, rec), numpy.zeros(2, rec)), {}))
    add("assert_equal", "void V5 array", lambda xp: ((xp.zeros(2, "V5"), numpy.zeros(2, "V5")), {}))
    # assert_almost_equal: same dispatch (isinstance ndarray, tuple, list).
    add("assert_almost_equal", "arange(3.) ~ [0, 1, 2+1e-9]",
        lambda xp: ((xp.arange(3.0), [0, 1, 2 + 1e-9]), {}))
    add("assert_almost_equal", "arange(3.) vs [0, 1, 2.1] (fails)", lambda xp: ((xp.arange(3.0), [0, 1, 2.1]), {}))
    add("assert_almost_equal", "arange(3.) ~ arange(3.)", lambda xp: ((xp.arange(3.0), xp.arange(3.0)), {}))
    add("assert_almost_equal", "x.sum() ~ 3.0", lambda xp: ((xp.arange(3.0).sum(), 3.0), {}))
    add("assert_almost_equal", "array(3.0) ~ 3.0", lambda xp: ((xp.array(3.0), 3.0), {}))
    add("assert_approx_equal", "x.sum() ~ 3.0000001", lambda xp: ((xp.arange(3.0).sum(), 3.0000001), {}))
    add("assert_approx_equal", "array(3.0) ~ 3.5 (fails)", lambda xp: ((xp.array(3.0), 3.5), {}))
    for name in ("assert_array_equal", "assert_array_almost_equal"):
        add(name, "arange(3) vs [0, 1, 2]", lambda xp: ((xp.arange(3), [0, 1, 2]), {}))
        add(name, "arange(3) vs [0, 1, 3] (fails)", lambda xp: ((xp.arange(3), [0, 1, 3]), {}))
        add(name, "array(3.0) vs 3.0", lambda xp: ((xp.array(3.0), 3.0), {}))
        add(name, "StringDType array", lambda xp: ((xp.array(["a"], dtype=sdt), ["a"]), {}))
    add("assert_array_equal", "strict: arange(3) vs list (fails)",
        lambda xp: ((xp.arange(3), [0, 1, 2]), {"strict": True}))
    add("assert_array_equal", "void V5 array vs itself", lambda xp: ((xp.zeros(2, "V5"), xp.zeros(2, "V5")), {}))
    add("assert_array_less", "arange(3) < [1, 2, 3]", lambda xp: ((xp.arange(3), [1, 2, 3]), {}))
    add("assert_array_less", "arange(3) < [1, 2, 2] (fails)", lambda xp: ((xp.arange(3), [1, 2, 2]), {}))
    add("assert_allclose", "arange(3.) ~ [0, 1, 2+1e-9]", lambda xp: ((xp.arange(3.0), [0, 1, 2 + 1e-9]), {}))
    add("assert_allclose", "arange(3.) vs [0, 1, 3] (fails)", lambda xp: ((xp.arange(3.0), [0, 1, 3]), {}))
    add("assert_allclose", "x.sum() ~ 3", lambda xp: ((xp.arange(3.0).sum(), 3), {}))
    add("assert_allclose", "strict dtype (fails)", lambda xp: ((xp.arange(3.0), xp.arange(3)), {"strict": True}))
    add("assert_array_almost_equal_nulp", "x vs x + 1 ulp",
        lambda xp: ((xp.array([1.0]), xp.array([numpy.nextafter(1.0, 2.0)])), {}))
    add("assert_array_max_ulp", "x vs x + 1 ulp (returns max ulp)",
        lambda xp: ((xp.array([1.0]), xp.array([numpy.nextafter(1.0, 2.0)])), {}))
    add("assert_array_compare", "operator.eq", lambda xp: ((operator.eq, xp.arange(3), [0, 1, 2]), {}))
    add("assert_array_compare", "operator.lt (fails)", lambda xp: ((operator.lt, xp.arange(3), [0, 1, 2]), {}))
    add("build_err_msg", "message text", lambda xp: (([xp.arange(3.0) / 3, xp.arange(3)], "note"), {}))
    add("print_assert_equal", "printed equal", lambda xp: (("t", [xp.arange(2)], [xp.arange(2)]), {}))
    add("assert_", "assert_(x.sum() > 0)", lambda xp: ((xp.arange(3).sum() > 0,), {}))
    add("assert_", "assert_(array) (ambiguous in NumPy too)", lambda xp: ((xp.arange(3),), {}))
    # Helpers that take callables making arrays.
    add("assert_raises", "reshape to a bad shape", lambda xp: ((ValueError, xp.reshape, xp.arange(6), (4,)), {}))
    add("assert_raises_regex", "reshape message",
        lambda xp: ((ValueError, "cannot reshape", xp.reshape, xp.arange(6), (4,)), {}))
    add("assert_warns", "log(0) warns", lambda xp: ((RuntimeWarning, xp.log, xp.zeros(1)), {}))
    add("assert_no_warnings", "exp(1) does not", lambda xp: ((xp.exp, xp.ones(1)), {}))
    add("assert_no_gc_cycles", "x + 1 leaves no cycle", lambda xp: ((lambda: xp.arange(3) + 1,), {}))
    add("run_threaded", "arange in 2 threads", lambda xp: ((lambda: xp.arange(3).sum(),), {"max_workers": 2}))
    add("runstring", "code using arrays", lambda xp: (("y = np.arange(3) * 2", {"np": xp}), {}))
    # numpy.testing.overrides: is a function one NumPy dispatches (wsarray's are Function objects).
    add("overrides.allows_array_ufunc_override", "add", lambda xp: ((xp.add,), {}))
    add("overrides.allows_array_function_override", "concatenate", lambda xp: ((xp.concatenate,), {}))
    add("overrides.get_overridable_numpy_array_functions", "contains concatenate",
        lambda xp: ((), {}))
    return c


def outcome(func, args, kwargs):
    """What a call does: ('ok', value) or ('raises', 'Type: first line', full message)."""
    out = io.StringIO()
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(out):
            warnings.simplefilter("ignore")
            value = func(*args, **kwargs)
    except Exception as e:  # noqa: BLE001  (any outcome is a result here)
        text = str(e)
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        return {"kind": "raises", "what": f"{type(e).__name__}: {first}"[:120], "message": text}
    shown = value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)
    return {"kind": "ok", "what": "ok" if value is None else f"returns {shown!r}"[:120], "printed": out.getvalue()}


def run():
    rows = []
    for name, label, build in cases():
        row = {"function": name, "case": label}
        for key, module, xp in (("numpy arrays, numpy.testing", nt, numpy),
                                ("wsarray arrays, numpy.testing", nt, wsarray),
                                ("wsarray arrays, wsarray.testing", wt, wsarray)):
            args, kwargs = build(xp)
            func = module
            for part in name.split("."):
                func = getattr(func, part)
            if name.endswith("get_overridable_numpy_array_functions"):
                func = (lambda f, xp: lambda: xp.concatenate in f())(func, xp)  # noqa: B023  (bound by the call)
            row[key] = outcome(func, args, kwargs)
        ref = row["numpy arrays, numpy.testing"]
        for key in ("wsarray arrays, numpy.testing", "wsarray arrays, wsarray.testing"):
            got = row[key]
            same = got["what"] == ref["what"]
            if same and ref["kind"] == "raises" and got.get("message") != ref.get("message"):
                got["note"] = "same error, different message"
            if same and ref["kind"] == "ok" and got.get("printed") != ref.get("printed"):
                got["note"] = "same result, different printout"
            got["same"] = same and "note" not in got
        rows.append(row)
    covered = {name.split(".")[0] for name, _, _ in cases()}
    untested = sorted(set(nt.__all__) - covered - NO_ARRAYS)
    return rows, covered, untested


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--all", action="store_true", help="print every case, not only the differing ones")
    p.add_argument("--json", help="write the table to this file")
    options = p.parse_args(argv)
    rows, covered, untested = run()
    forms = ("wsarray arrays, numpy.testing", "wsarray arrays, wsarray.testing")
    for form in forms:
        bad = [r for r in rows if not r[form]["same"]]
        print(f"\n== {form}: {len(rows) - len(bad)} of {len(rows)} cases as with NumPy arrays")
        for r in rows if options.all else bad:
            got, ref = r[form], r["numpy arrays, numpy.testing"]
            mark = "  " if got["same"] else "!!"
            print(f"{mark} {r['function']:<30} {r['case']:<42} numpy: {ref['what']:<40} wsarray: {got['what']}"
                  + (f"  ({got['note']})" if got.get("note") else ""))
    print(f"\nnames taking arrays, covered: {len(covered)}; without arrays: {len(NO_ARRAYS)}; "
          f"not covered: {', '.join(untested) or 'none'}")
    if options.json:
        with open(options.json, "w", encoding="utf-8") as f:
            json.dump({"rows": rows, "untested": untested}, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    sys.exit(main())
