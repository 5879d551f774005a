"""The drop-in corpus: each program in tests/dropin_corpus/ is run with NumPy, with the import
swapped to wsarray, and swapped inside a workspace; printed text and the values left in the
program's globals (dtype, shape and bytes of arrays and scalars; repr of plain Python values) must
be identical. Inside the workspace every non-empty array the program keeps must come from it
(scalar results hold their value in ordinary memory)."""

import contextlib
import io
import pathlib
import re

import numpy
import pytest

import wsarray

CORPUS = pathlib.Path(__file__).parent / "dropin_corpus"
PROGRAMS = sorted(p.name for p in CORPUS.glob("p*.py"))
# Programs whose output differs because wsarray follows the array API standard where NumPy deviates
# (README, "Where the standard and NumPy disagree"): known conflicts of drop-in use, kept visible (strict xfail).
API_DEVIATIONS = {
    "p06_fft_signal.py": "argsort() is stable by default; NumPy's default orders equal keys differently",
}
CASES = [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=API_DEVIATIONS[name]))
         if name in API_DEVIATIONS else name for name in PROGRAMS]
IMPORT = re.compile(r"^import numpy as np$", re.M)
PLAIN = (int, float, complex, str, bool, type(None), list, tuple, dict)


def snapshot(namespace):
    """What a program computed: arrays and NumPy scalars by bytes, plain values by repr."""
    out = {}
    for name, value in namespace.items():
        if name.startswith("_"):
            continue
        if isinstance(value, (wsarray.Array, numpy.ndarray, numpy.generic)):
            nd = numpy.asarray(value)
            data = nd.tolist() if nd.dtype.hasobject or nd.dtype.names else nd.tobytes()
            out[name] = ("array", nd.dtype.str, nd.shape, data)
        elif isinstance(value, PLAIN):
            out[name] = ("plain", type(value).__name__, repr(value))
    return out


def run(name, module, workspace=None):
    """Run a corpus program with ``np`` bound to ``module``; returns (stdout, snapshot, escaped)."""
    source = (CORPUS / name).read_text()
    if module is wsarray:
        assert IMPORT.search(source), f"{name} must start with 'import numpy as np'"
        source = IMPORT.sub("import wsarray as np", source)
    namespace = {"__name__": "__main__"}
    stdout = io.StringIO()
    printopts, errs = numpy.get_printoptions(), numpy.geterr()
    escaped = []
    try:
        with contextlib.redirect_stdout(stdout):
            with workspace if workspace is not None else contextlib.nullcontext():
                exec(compile(source, str(CORPUS / name), "exec"), namespace)
                snap = snapshot(namespace)
                if workspace is not None:
                    # Scalar results (NumPy's scalars) hold their value in ordinary memory by
                    # design, NumPy's subclasses NumPy's memory; arrays must come from the workspace.
                    escaped = [k for k, v in namespace.items() if type(v) is wsarray.Array
                               and v.size and v.workspace is None]
    finally:
        numpy.set_printoptions(**printopts)
        numpy.seterr(**errs)
    return stdout.getvalue(), snap, escaped


@pytest.fixture(scope="module")
def expected():
    return {name: run(name, numpy)[:2] for name in PROGRAMS}


def test_corpus_is_large_enough():
    assert len(PROGRAMS) >= 25


@pytest.mark.parametrize("name", CASES)
def test_swapped_import_matches_numpy(name, expected):
    text, snap, _ = run(name, wsarray)
    want_text, want_snap = expected[name]
    assert text == want_text
    assert snap == want_snap


@pytest.mark.parametrize("name", CASES)
def test_inside_workspace_matches_numpy(name, expected):
    ws = wsarray.workspace("DROPIN", wsarray.WorkspaceConfig(initial_size="16MB", spill="reallocate"))
    text, snap, escaped = run(name, wsarray, ws)
    want_text, want_snap = expected[name]
    assert text == want_text
    assert snap == want_snap
    assert escaped == [], f"arrays allocated outside the workspace: {escaped}"
