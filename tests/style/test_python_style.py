"""The Python code keeps its style: ruff, configured in pyproject.toml ([tool.ruff]), finds nothing
(its RUF100 rule also fails on a noqa marker that silences nothing)."""
import pathlib
import shutil
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def ruff():
    exe = shutil.which("ruff")
    if exe:
        return [exe]
    try:
        import ruff  # noqa: F401  (the PyPI wheel carries the binary)
    except ImportError:
        pytest.skip("ruff is not installed (it is in the [test] extra: pip install '.[test]')")
    return [sys.executable, "-m", "ruff"]


def test_ruff_finds_nothing():
    proc = subprocess.run([*ruff(), "check", "--no-cache", "wsarray", "tests", "bench"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
