"""The committed stub of the compiled core (wsarray/_native.pyi) is what nanobind's stub generator
makes of the build, so it cannot drift (regenerate: python -m nanobind.stubgen -P -m wsarray._native
-p src/python/stub_patterns.txt -o wsarray/_native.pyi, from outside the repository's root, with absolute paths)."""
import os
import subprocess
import sys

import pytest

import wsarray

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_committed_stub_is_the_generated_one(tmp_path):
    nanobind = pytest.importorskip("nanobind", reason="nanobind (the [test] extra) generates the stub")
    built_with = wsarray.show_config(mode="dicts")["build"]["nanobind"]
    if built_with.split(".")[:2] != nanobind.__version__.split(".")[:2]:
        pytest.skip(f"the core was built with nanobind {built_with}, the stub generator is {nanobind.__version__}: "
                    "signatures are written differently across versions")
    out = tmp_path / "_native.pyi"
    patterns = os.path.join(REPO, "src", "python", "stub_patterns.txt")
    proc = subprocess.run([sys.executable, "-P", "-m", "nanobind.stubgen", "-q", "-P", "-m", "wsarray._native",
                           "-p", patterns, "-o", str(out)], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    with open(os.path.join(REPO, "wsarray", "_native.pyi")) as f:
        committed = f.read()
    assert out.read_text() == committed, "wsarray/_native.pyi is out of date: regenerate it (see this file's docstring)"


def test_the_package_ships_its_types():
    here = os.path.dirname(wsarray.__file__)
    assert os.path.exists(os.path.join(here, "py.typed"))  # PEP 561: type checkers read the package
    with open(os.path.join(here, "_native.pyi")) as f:
        stub = f.read()
    assert "class WorkspaceConfig" in stub and "allocation: Literal['overallocate', 'strict']" in stub
