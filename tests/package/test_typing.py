"""Type-checking user programs with mypy --strict against the installed package (py.typed).

typing_programs/training_loop.py (workspaces, wsarray.data.AsyncIterator, wsarray.memory, the
namespace, wsarray.typing) and typing_programs/pipeline_tools.py (WorkspaceManager,
PerformanceListener, save_batches/BatchDirectory, ParallelWrapper/ParallelInference, fuse,
show_config) must check without an error, and run; typing_programs/mistakes.py marks
each line mypy must report with ``# E:``. wsarray/_annotations.py declares what type checkers see of
wsarray.Array: the last test keeps its wsarray methods in step with the compiled class.
"""
import os
import re
import subprocess
import sys

import numpy
import pytest

import wsarray

PROGRAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "typing_programs")


@pytest.fixture(scope="module")
def mypy_report(tmp_path_factory):
    pytest.importorskip("mypy", reason="mypy (the [test] extra) type-checks the programs")
    cache = tmp_path_factory.mktemp("mypy_cache")
    # One run for the three programs (numpy's stubs are the slow part); -P keeps the repository's
    # source folder off the path, so that mypy reads the installed package as users get it.
    proc = subprocess.run(
        [sys.executable, "-P", "-m", "mypy", "--strict", "--no-error-summary", "--show-error-codes",
         "--cache-dir", str(cache), "training_loop.py", "pipeline_tools.py",
         "mistakes.py"],
        capture_output=True, text=True, cwd=PROGRAMS, timeout=300)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr  # 2: mypy itself failed
    return proc.stdout


def _errors(report, program):
    return {int(m.group(1)): line for line in report.splitlines()
            if (m := re.match(re.escape(program) + r":(\d+): error:", line))}


@pytest.mark.parametrize("program", ["training_loop.py", "pipeline_tools.py"])
def test_the_user_programs_type_check_strictly(mypy_report, program):
    assert _errors(mypy_report, program) == {}, mypy_report


def test_the_training_loop_runs():
    proc = subprocess.run([sys.executable, "-P", "training_loop.py"], capture_output=True, text=True,
                          cwd=PROGRAMS, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("epoch loss") == 3


def test_the_pipeline_tools_program_runs():
    proc = subprocess.run([sys.executable, "-P", "pipeline_tools.py"], capture_output=True, text=True,
                          cwd=PROGRAMS, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "wrapper 8 (3,)" in proc.stdout and "inference 4 4" in proc.stdout, proc.stdout


def test_each_mistake_is_reported(mypy_report):
    with open(os.path.join(PROGRAMS, "mistakes.py")) as f:
        marked = {i: [p.strip() for p in line.split("# E:")[1].split("|")]
                  for i, line in enumerate(f, 1) if "# E:" in line}
    assert len(marked) == 13
    errors = _errors(mypy_report, "mistakes.py")
    assert set(errors) == set(marked), mypy_report
    for line, pieces in marked.items():
        assert all(p in errors[line] for p in pieces), (pieces, errors[line])


def test_the_declared_array_methods_are_the_compiled_ones():
    import ast

    import wsarray._annotations as typed

    with open(typed.__file__) as f:
        tree = ast.parse(f.read())
    cls = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "Array")
    declared = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    own = {n for n in dir(wsarray.Array) if not hasattr(numpy.ndarray, n) and not n.startswith("_")}
    assert own <= declared, f"declare {sorted(own - declared)} in wsarray/_annotations.py"
    instance = wsarray.zeros((2, 2))  # NumPy methods not on the class are reached through __getattr__
    assert [n for n in declared if not hasattr(instance, n)] == []


def test_ndarray_alias_at_run_time():
    from wsarray.typing import ArrayLike, DTypeLike, NDArray

    assert ArrayLike is numpy.typing.ArrayLike and DTypeLike is numpy.typing.DTypeLike
    alias = NDArray[numpy.float32]
    assert alias.__origin__ is wsarray.Array and alias.__args__[1] == numpy.dtype[numpy.float32]
    assert isinstance(wsarray.zeros(2), wsarray.Array)
