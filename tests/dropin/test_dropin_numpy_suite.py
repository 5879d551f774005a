"""NumPy's own test suite against wsarray (bench/numpy_suite.py): the runner's import rewriting,
its handling of crashes and hangs, the deviations file, and a sample of NumPy's shipped test files
whose pass rates must not fall (README, "NumPy's test suite")."""

import glob
import os
import pathlib
import sys
import textwrap
import threading
import time

import numpy
import pytest

import wsarray

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))  # bench/ is no package (as for bench/run.py)

import numpy_suite  # noqa: E402
import numpy_suite_run  # noqa: E402
import numpy_suite_rewrite as rewriting  # noqa: E402

# The sample: files from four of the packages, about 2,500 tests NumPy passes, about 30 s on two
# cores for the three runs of each file (NumPy itself, and both forms of wsarray).
SAMPLE = ["lib/tests/test_function_base.py", "_core/tests/test_numeric.py", "_core/tests/test_shape_base.py",
          "polynomial/tests/test_classes.py", "fft/tests/test_pocketfft.py"]
# Thresholds: the pass rates measured after issue 23's fixes (NumPy 2.4.6: 2,485 of the 2,494 tests
# NumPy passes in both forms, 99.6%; they were 1,960 and 2,472 when the runner was added), less
# three tests. Raise them as the classes still open in bench/numpy_suite_findings.md are fixed.
# Since the long tail was listed (branch dropin3), the 9 tests the sample fails are all in the
# deviations file: a failure outside it fails the build too.
MIN_PASS_RATE = {"numpy": 0.995, "wsarray": 0.995}

SOURCE = textwrap.dedent('''\
    """A test file."""
    import numpy as np
    import numpy.linalg as LA
    from numpy import (
        arange,
        float64,
    )
    from numpy.linalg import inv
    from numpy.testing import assert_equal, assert_allclose
    from numpy.testing._private.utils import requires_memory
    from numpy._core import umath
    from numpy.lib import stride_tricks
    from numpy.lib import user_array
    import numpy.ma as ma

    core = np._core.umath
    testing = np.testing
    def f():
        return np.arange(3), np.linalg._linalg
''')


def _exec(source):
    namespace = {}
    exec(compile(source, "<rewritten>", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("form", rewriting.FORMS)
def test_rewrite_points_public_numpy_at_wsarray(form):
    out = rewriting.rewrite(SOURCE, form)
    assert out.count("\n") == SOURCE.count("\n")  # tracebacks keep their line numbers
    ns = _exec(out)
    assert ns["np"] is wsarray and ns["LA"] is wsarray.linalg
    assert ns["arange"] is wsarray.arange and ns["float64"] is wsarray.float64 and ns["inv"] is wsarray.linalg.inv
    assert ns["stride_tricks"] is wsarray.lib.stride_tricks
    import numpy.lib.user_array
    import numpy.testing._private.utils

    # Private modules, helpers and what wsarray does not offer stay NumPy's.
    assert ns["umath"] is numpy._core.umath and ns["core"] is numpy._core.umath
    assert ns["requires_memory"] is numpy.testing._private.utils.requires_memory
    assert ns["user_array"] is numpy.lib.user_array
    assert ns["ma"] is numpy.ma
    arr, private = ns["f"]()
    assert type(arr) is wsarray.Array and private is numpy.linalg._linalg
    testing = numpy.testing if form == "numpy" else wsarray.testing
    assert ns["testing"] is testing
    assert ns["assert_equal"] is testing.assert_equal and ns["assert_allclose"] is testing.assert_allclose


def test_rewrite_keeps_names_wsarray_testing_lacks_from_numpy(monkeypatch):
    # Only names wsarray.testing has come from it; the others stay numpy.testing's.
    monkeypatch.setattr(rewriting, "_has_name", lambda module, name: name != "assert_allclose")
    ns = _exec(rewriting.rewrite(SOURCE, "wsarray"))
    assert ns["assert_equal"] is wsarray.testing.assert_equal
    assert ns["assert_allclose"] is numpy.testing.assert_allclose


def test_rewrite_refuses_unknown_form():
    with pytest.raises(ValueError, match="form must be one of"):
        rewriting.rewrite(SOURCE, "cupy")


# Files with every import form the suite uses: plain `import numpy`, `import numpy.dtypes`,
# `import numpy.ma.core`, imports inside functions, multi-line `from numpy import (...)`.
UNUSUAL_IMPORTS = ["_core/tests/test_datetime.py", "_core/tests/test_dtype.py", "ma/tests/test_core.py",
                   "linalg/tests/test_linalg.py", "random/tests/test_random.py", "lib/tests/test_io.py"]


def test_shipped_test_files_rewrite_to_valid_python():
    # bench/numpy_suite.py checks every file when it runs; here a few (rewriting all takes ~10 s).
    files = numpy_suite.discover(numpy_suite.PACKAGES, UNUSUAL_IMPORTS + SAMPLE)
    assert len(files) == len(UNUSUAL_IMPORTS + SAMPLE)
    for rel in files:
        with open(os.path.join(numpy_suite.numpy_dir(), rel), encoding="utf-8") as f:
            source = f.read()
        for form in rewriting.FORMS:
            out = rewriting.rewrite(source, form)
            compile(out, rel, "exec")
            assert out.count("\n") == source.count("\n"), rel


def test_deviations_file_entries_have_reasons_and_name_shipped_files():
    deviations = numpy_suite.load_deviations(numpy_suite.DEVIATIONS)
    assert deviations
    patterns = [p for p, _ in deviations]
    assert len(patterns) == len(set(patterns)), "a pattern is listed twice"
    shipped = numpy_suite.discover(numpy_suite.PACKAGES)
    for pattern, reason in deviations:
        assert len(reason) > 20, f"{pattern}: give the reason"
        file_part = pattern.split("::")[0]
        assert any(__import__("fnmatch").fnmatchcase(rel, file_part) for rel in shipped), pattern


def test_deviations_file_rejects_an_entry_without_reason(tmp_path):
    bad = tmp_path / "deviations.txt"
    bad.write_text("# comment\nlib/tests/test_io.py::test_x\n")
    with pytest.raises(SystemExit, match="expected 'PATTERN | REASON'"):
        numpy_suite.load_deviations(str(bad))


CRASHY_FILE = '''\
import ctypes
import time

def test_first():
    pass

def test_crash():
    ctypes.string_at(0)  # SIGSEGV

def test_fails():
    raise ValueError("bad value 12 at 0x7f00")

def test_hang():
    time.sleep(600)

def test_last():
    pass
'''


def test_runner_records_crash_and_hang_and_goes_on(tmp_path):
    root = str(tmp_path / "root")
    numpy_suite_run.make_root(root)
    os.remove(os.path.join(root, "conftest.py"))  # NumPy's fixtures are not needed here
    os.makedirs(os.path.join(root, "pkg", "tests"))
    (tmp_path / "root" / "pkg" / "tests" / "test_crashy.py").write_text(CRASHY_FILE)
    options = numpy_suite.parse_args(["--test-timeout", "2", "--file-timeout", "120", "--max-restarts", "4"])
    result = numpy_suite_run.run_file(root, "pkg/tests/test_crashy.py", options)
    tests = {nodeid.split("::")[1]: t for nodeid, t in result["tests"].items()}
    assert tests["test_first"]["outcome"] == "passed"
    # Under AddressSanitizer (.ci/sanitize), which handles the SIGSEGV: SIGABRT, or exit status 1
    # when the fault handler's traceback dump faults again inside ASan's handler (seen on some
    # machines, with this file's build and older ones alike).
    causes = ("crash: SIGSEGV",)
    if os.environ.get("WSARRAY_SANITIZED"):
        causes += ("crash: SIGABRT", "crash: exit status 1 before pytest finished")
    assert tests["test_crash"]["outcome"] == "crash" and tests["test_crash"]["cause"] in causes
    assert tests["test_fails"]["outcome"] == "failed"
    assert tests["test_fails"]["cause"] == "ValueError: bad value 12 at 0x?"
    assert tests["test_hang"]["outcome"] == "hang"
    assert tests["test_last"]["outcome"] == "passed"  # the file went on after the crash and the hang
    assert result["file_errors"] == []
    # No process is left behind: the hung one was killed with its process group.
    assert _processes_under(root) == []


def test_runner_stops_a_running_file_when_the_run_ends(tmp_path):
    # Ctrl-C or an error in the main thread sets the stop flag: a file's run kills its pytest.
    root = str(tmp_path / "root")
    numpy_suite_run.make_root(root)
    os.remove(os.path.join(root, "conftest.py"))
    os.makedirs(os.path.join(root, "pkg", "tests"))
    (tmp_path / "root" / "pkg" / "tests" / "test_slow.py").write_text(
        "import time\n\ndef test_slow():\n    time.sleep(600)\n")
    options = numpy_suite.parse_args([])
    outcome = {}

    def target():
        try:
            numpy_suite_run.run_file(root, "pkg/tests/test_slow.py", options)
        except numpy_suite_run.Stopped as e:
            outcome["stopped"] = e

    worker = threading.Thread(target=target)
    worker.start()
    record = os.path.join(root, ".runs", "pkg_tests_test_slow.py", "record.jsonl")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (os.path.exists(record) and "start" in open(record).read()):
        time.sleep(0.1)
    numpy_suite_run.stop.set()
    try:
        worker.join(timeout=30)
    finally:
        numpy_suite_run.stop.clear()
    assert not worker.is_alive() and "stopped" in outcome
    assert _processes_under(root) == []


def _processes_under(root):
    """Processes whose command line names the folder ``root`` (pytest runs started there)."""
    found = []
    for path in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            with open(path, "rb") as f:
                if root.encode() in f.read():
                    found.append(path)
        except OSError:  # the process ended meanwhile
            pass
    return found


def test_compare_excludes_what_numpy_does_not_pass_and_separates_deviations():
    ok, fail = {"outcome": "passed", "cause": "", "where": ""}, {"outcome": "failed", "cause": "E: x", "where": ""}
    runs = {"reference": {"tests": {"f.py::a": ok, "f.py::b": ok, "f.py::c": ok, "f.py::d": dict(fail)},
                          "file_errors": [], "seconds": 1.0}}
    for form in rewriting.FORMS:
        runs[form] = {"tests": {"f.py::a": ok, "f.py::b": fail, "f.py::c": fail, "f.py::d": fail},
                      "file_errors": [], "seconds": 1.0}
    result = numpy_suite.compare("f.py", runs, [("f.py::c", "a documented reason")])
    assert result["numpy_passed"] == 3  # d fails in NumPy too: not counted
    for form in rewriting.FORMS:
        figures = result["forms"][form]
        assert figures["passed"] == 1
        assert [f["nodeid"] for f in figures["failures"]] == ["f.py::b"]
        assert [f["nodeid"] for f in figures["deviations"]] == ["f.py::c"]


def test_numpy_suite_sample_does_not_regress():
    options = numpy_suite.parse_args(["-j2"])
    deviations = numpy_suite.load_deviations(numpy_suite.DEVIATIONS)
    results = numpy_suite.run(numpy_suite.discover(numpy_suite.PACKAGES, SAMPLE), options, deviations)
    assert [r["file"] for r in results] == sorted(SAMPLE)
    total = numpy_suite.totals(results)["all"]
    assert total["numpy_passed"] > 2000, "NumPy itself should pass the sample"
    for form, minimum in MIN_PASS_RATE.items():
        figures = total["forms"][form]
        failures = [f for r in results for f in r["forms"][form]["failures"]]
        top = numpy_suite.cause_groups(failures)[:5]
        rate = figures["passed"] / total["numpy_passed"]
        assert rate >= minimum, (f"{form}.testing form: {rate:.2%} of NumPy's passes, below {minimum:.1%}; "
                                 f"top causes: {[(c, len(n)) for c, n in top]}")
        assert not failures, (f"{form}.testing form: failures not in the deviations file: "
                              f"{[(f['nodeid'], f['cause']) for f in failures]}")
        assert figures.get("crashes", 0) == 0 and figures.get("hangs", 0) == 0, figures
