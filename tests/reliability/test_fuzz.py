"""Fuzz: call wsarray's namespace, Array methods and operators with random (mostly wrong) arguments
and compare with NumPy: the same result or the same exception class, and never a crash.

The fuzzing runs in a child process (this file run as a script), so a segmentation fault or an
abort is a test failure with the offending call printed, not the end of pytest. Hypothesis draws the
calls; nothing inside raises, so Hypothesis never shrinks and every example counts.
``WSARRAY_FUZZ_EXAMPLES=5000 python -P tests/reliability/test_fuzz.py`` runs a longer fuzz by hand: it prints
each mismatch and exits 1 if there is one. The call running now is written to the file named by
``WSARRAY_FUZZ_LAST`` (overwritten each call), which names the culprit of a crash; with
``WSARRAY_FUZZ_TRACE=1`` every call goes to stderr as well.
"""
import json
import operator
import os
import signal
import subprocess
import sys
import warnings

EXAMPLES = int(os.environ.get("WSARRAY_FUZZ_EXAMPLES", "400"))
# A longer hunt: another seed draws other calls (the default is Hypothesis' derandomized run).
SEED = os.environ.get("WSARRAY_FUZZ_SEED")
# Debugging a crash: "numpy" or "wsarray" runs only that side of every comparison.
SIDE = os.environ.get("WSARRAY_FUZZ_SIDE", "both")
# Debugging a crash: "lo:hi" runs only calls lo <= k < hi (the draws stay the same).
EXEC_RANGE = tuple(int(x) for x in os.environ.get("WSARRAY_FUZZ_CALLS", f"0:{2**62}").split(":"))
# Testing the fuzz itself: report the first call as a mismatch (a fuzz must be able to fail).
INJECT = bool(os.environ.get("WSARRAY_FUZZ_INJECT_MISMATCH"))


def test_fuzz_namespace_methods_and_operators_against_numpy(tmp_path):
    last_call = tmp_path / "last_call"
    proc = subprocess.run([sys.executable, "-P", __file__, str(EXAMPLES)], capture_output=True,
                          text=True, timeout=600, env={**os.environ, "WSARRAY_FUZZ_LAST": str(last_call)})
    tail = "\n".join(proc.stderr.splitlines()[-15:])
    if proc.returncode < 0:
        call = last_call.read_text() if last_call.exists() else "?"
        raise AssertionError(f"the fuzz child crashed (signal {-proc.returncode}) in {call}:\n{tail}")
    lines = proc.stdout.strip().splitlines()
    assert lines, f"the fuzz child failed:\n{tail}"
    report = json.loads(lines[-1])
    assert report["mismatches"] == [], report["mismatches"][:10]
    assert proc.returncode == 0, f"the fuzz child failed:\n{tail}"
    # namespace, method and operator calls (Hypothesis skips a draw it has already run)
    assert report["calls"] >= 3 * EXAMPLES * 0.95
    assert report["raised"] > report["calls"] // 10  # most arguments are wrong: errors were tested
    print(f"fuzz: {report['calls']} calls, {report['raised']} raised, {report['timeouts']} timeouts")


def test_the_fuzz_fails_on_a_mismatch_and_prints_only_the_mismatch():
    proc = subprocess.run([sys.executable, "-P", __file__, "5"], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "WSARRAY_FUZZ_INJECT_MISMATCH": "1"})
    assert proc.returncode == 1
    assert proc.stderr.count("MISMATCH ") == 1 and "CALL " not in proc.stderr


# ---- the child ----------------------------------------------------------------------------------


class Junk:
    def __repr__(self):
        return "Junk()"


class CallTimeout(BaseException):
    """A call ran too long (e.g. a loop over an absurd count); neither side is compared."""


def _alarm(signum, frame):
    raise CallTimeout


SKIP_FUNCTIONS = {
    "from_dlpack",  # covered with junk objects in test_reliability_inputs.py
}
VALUES_ONLY_SHAPE = {"empty", "empty_like"}  # uninitialised memory
ARRAY_METHODS = ["reshape", "sum", "mean", "astype", "transpose", "take", "clip", "flatten", "ravel",
                 "squeeze", "swapaxes", "argmax", "argmin", "cumsum", "any", "all", "max", "min",
                 "round", "repeat", "nonzero", "sort", "fill", "copy", "view", "tolist", "item",
                 "dot", "searchsorted", "diagonal", "trace", "std", "var", "prod", "compress",
                 "put", "argsort", "conj", "__getitem__", "__setitem__", "__len__", "__bool__",
                 "__int__", "__float__", "__index__", "__contains__", "__format__"]
BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
          operator.mod, operator.pow, operator.matmul, operator.and_, operator.or_, operator.xor,
          operator.lshift, operator.rshift, operator.lt, operator.le, operator.eq, operator.ne,
          operator.gt, operator.ge, divmod, operator.iadd, operator.isub, operator.imul,
          operator.itruediv, operator.ipow, operator.iand]
INPLACE = {operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ipow,
           operator.iand}
UNARY = [operator.neg, operator.pos, operator.abs, operator.invert]
KEYWORDS = ["axis", "dtype", "keepdims", "shape", "n", "k", "ord", "kind", "side", "device", "copy",
            "order", "axes", "out_dtype", "casting", "subok", "like", "where", "initial", "mode"]


def namespace_functions(wnp):
    out = {}
    for mod, prefix in ((wnp, ""), (wnp.linalg, "linalg."), (wnp.fft, "fft.")):
        for name in mod.__all__:
            f = getattr(mod, name)
            if type(f).__name__ == "Function" and name not in SKIP_FUNCTIONS:
                out[prefix + name] = f
    return out


def child(examples):
    import faulthandler

    import hypothesis.extra.numpy as hnp
    import numpy as np
    from hypothesis import HealthCheck, given, seed, settings
    from hypothesis import strategies as st

    import wsarray as wnp

    faulthandler.enable()
    signal.signal(signal.SIGALRM, _alarm)
    functions = namespace_functions(wnp)
    numpy_of = {name: f.__wsarray_runs__ for name, f in functions.items()}
    stats = {"calls": 0, "raised": 0, "timeouts": 0, "mismatches": []}

    dtypes = st.sampled_from([np.bool_, np.int8, np.uint8, np.int64, np.float32, np.float64,
                              np.complex128])
    arrays = dtypes.flatmap(lambda dt: hnp.arrays(dt, hnp.array_shapes(min_dims=0, max_dims=3,
                                                                        min_side=0, max_side=4)))
    scalars = st.one_of(
        st.integers(-3, 5),
        st.sampled_from([2**40, -2**40, 2**62, 2**63, -2**63, 2**100]),
        st.floats(allow_nan=True, allow_infinity=True, width=64),
        st.complex_numbers(max_magnitude=10),
        st.booleans(),
        st.none(),
        st.sampled_from(["abc", "float64", "int8", "C", "F", "ij,jk->ik", "ii", "12 parsecs",
                         "cpu", "cuda", "", "bogus", "stable", "left", "fro", "reflect"]),
        st.sampled_from([np.float64, np.int32, np.bool_, np.dtype("c16"), Ellipsis,
                         slice(None, None, -1), slice(0, 2), slice(None, None, 0), Junk(), object]),
    )
    values = st.recursive(st.one_of(scalars, arrays),
                          lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                  st.tuples(inner, inner)), max_leaves=4)

    def to_wsarray(v):
        if isinstance(v, np.ndarray):
            return wnp.asarray(v.copy())
        if isinstance(v, list):
            return [to_wsarray(x) for x in v]
        if isinstance(v, tuple):
            return tuple(to_wsarray(x) for x in v)
        return v

    def to_numpy(v):
        """A result made plain (NumPy scalars become 0-d arrays, as wsarray returns them)."""
        if type(v) is wnp.Array:
            return ("array", np.array(v, copy=True))
        if isinstance(v, (np.ndarray, np.generic)):
            return ("array", np.array(v, copy=True))
        if isinstance(v, (list, tuple)):
            return (type(v).__name__ if type(v) in (list, tuple) else "tuple", [to_numpy(x) for x in v])
        return ("value", v)

    def same(a, b, shape_only):
        if a[0] != b[0]:
            return False
        if a[0] == "array":
            x, y = a[1], b[1]
            if x.dtype != y.dtype or x.shape != y.shape:
                return False
            if shape_only or x.dtype == object:
                return True
            return bool(np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"))
        if a[0] in ("list", "tuple"):
            return len(a[1]) == len(b[1]) and all(same(p, q, shape_only) for p, q in zip(a[1], b[1]))
        x, y = a[1], b[1]
        try:
            return x == y or (x != x and y != y) or repr(x) == repr(y)
        except Exception:  # noqa: BLE001 - incomparable values: compare their text
            return repr(x) == repr(y)

    def run(call, side):
        """('ok', plain result) or ('raised', exception class); CallTimeout propagates."""
        if SIDE not in ("both", side):
            return ("raised", Exception)
        signal.setitimer(signal.ITIMER_REAL, 2.0)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return ("ok", to_numpy(call()))
        except CallTimeout:
            raise
        except Exception as e:  # noqa: BLE001 - the class is what we compare
            return ("raised", type(e))
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    def compare(what, numpy_call, wsarray_call, in_workspace, shape_only=False, after=None):
        note_call(what)
        stats["calls"] += 1
        lo, hi = EXEC_RANGE
        if not lo <= stats["calls"] < hi:
            return
        try:
            expected = run(numpy_call, "numpy")
            expected_after = after[0]() if after else None
            with wnp.workspace("FUZZ") if in_workspace else wnp.scope_out():
                got = run(wsarray_call, "wsarray")
                got_after = after[1]() if after else None
        except CallTimeout:
            stats["timeouts"] += 1
            return
        if expected[0] == "raised":
            stats["raised"] += 1
        ok = expected[0] == got[0]
        if ok and expected[0] == "raised":
            # A workspace may refuse first, with its MemoryError subclass.
            ok = (got[1] is expected[1]
                  or (issubclass(expected[1], MemoryError) and issubclass(got[1], MemoryError))
                  # NumPy's internal-error class for a bad argument (0-d __format__ with a
                  # non-str spec); wsarray checks the argument and raises TypeError.
                  or (expected[1] is SystemError and got[1] is TypeError))
        elif ok:
            ok = same(expected[1], got[1], shape_only)
        if ok and after:
            ok = same(expected_after, got_after, False)
        if not ok or (INJECT and stats["calls"] == 1):
            stats["mismatches"].append(f"{what}: numpy {expected!r:.200} wsarray {got!r:.200}")

    settings_ = settings(max_examples=examples, deadline=None, database=None,
                         derandomize=SEED is None, suppress_health_check=list(HealthCheck))
    seeded = seed(int(SEED)) if SEED is not None else (lambda f: f)

    @seeded
    @settings_
    @given(st.sampled_from(sorted(functions)), st.lists(values, max_size=3),
           st.dictionaries(st.sampled_from(KEYWORDS), values, max_size=2), st.booleans())
    def fuzz_namespace(name, args, kwargs, in_workspace):
        wargs, wkwargs = to_wsarray(args), to_wsarray(kwargs)  # copies, before NumPy runs
        compare(f"{name}(*{args!r:.300}, **{kwargs!r:.300})",
                lambda: numpy_of[name](*args, **kwargs),
                lambda: functions[name](*wargs, **wkwargs),
                in_workspace,
                # where= leaves the unselected outputs uninitialised
                shape_only=name.split(".")[-1] in VALUES_ONLY_SHAPE or "where" in kwargs)

    @seeded
    @settings_
    @given(arrays, st.sampled_from(ARRAY_METHODS), st.lists(values, max_size=3), st.booleans())
    def fuzz_methods(a, method, args, in_workspace):
        n, w, wargs = a.copy(), wnp.asarray(a.copy()), to_wsarray(args)
        compare(f"<{a.dtype}{a.shape}>.{method}(*{args!r:.300})",
                lambda: getattr(n, method)(*args),
                lambda: getattr(w, method)(*wargs), in_workspace,
                after=(lambda: to_numpy(n), lambda: to_numpy(w)))

    @seeded
    @settings_
    @given(arrays, st.sampled_from(BINARY + UNARY), values, st.booleans(), st.booleans())
    def fuzz_operators(a, op, other, reflected, in_workspace):
        n, w, wother = a.copy(), wnp.asarray(a.copy()), to_wsarray(other)
        if op in UNARY:
            calls = (lambda: op(n), lambda: op(w))
        elif reflected and op not in INPLACE:  # (an in-place operator would modify `other`)
            if isinstance(other, np.dtype):
                # Known difference (README, Reliability): a dtype on the left compares first and
                # np.dtype() accepts objects with a .dtype attribute (it refuses only ndarrays), so
                # `dtype <= wsarray_array` compares two dtypes where NumPy compares elementwise.
                return
            calls = (lambda: op(other, n), lambda: op(wother, w))
        else:
            calls = (lambda: op(n, other), lambda: op(w, wother))
        compare(f"{op.__name__}(<{a.dtype}{a.shape}>, {other!r:.300}, reflected={reflected})",
                calls[0], calls[1], in_workspace, after=(lambda: to_numpy(n), lambda: to_numpy(w)))

    fuzz_namespace()
    fuzz_methods()
    fuzz_operators()
    leftover = wnp.memory.workspace_stack()
    if leftover:
        stats["mismatches"].append(f"workspace stack left open: {leftover}")
    print(json.dumps(stats))
    for m in stats["mismatches"]:
        print(f"MISMATCH {m}", file=sys.stderr)
    return 1 if stats["mismatches"] else 0


_last_call = None


def note_call(what):
    """Keep the call running now where a crash leaves it readable (and print it if tracing)."""
    global _last_call
    if os.environ.get("WSARRAY_FUZZ_TRACE"):
        sys.stderr.write(f"CALL {what}\n")
        sys.stderr.flush()
    path = os.environ.get("WSARRAY_FUZZ_LAST")
    if path:
        if _last_call is None:
            _last_call = open(path, "w")
        _last_call.seek(0)
        _last_call.write(what)
        _last_call.truncate()
        _last_call.flush()


if __name__ == "__main__":
    sys.exit(child(int(sys.argv[1]) if len(sys.argv) > 1 else EXAMPLES))
