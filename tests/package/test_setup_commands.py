"""The README's set-up commands make their virtual environment with `.ci/make_venv.py`, which
gives it a working pip even where ensurepip is missing (Debian's python3 without python3-venv):
the path CI never takes is taken here on purpose (pip fetched from PyPI). (test_docs checks that
`.ci/run` runs the README's test command.)"""
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_make_venv_without_ensurepip_fetches_pip(tmp_path):
    target = tmp_path / "env"
    env = dict(os.environ, WSARRAY_VENV_WITHOUT_ENSUREPIP="1")
    script = os.path.join(REPO, ".ci", "make_venv.py")
    done = subprocess.run([sys.executable, script, str(target)], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    pip = subprocess.run([str(target / "bin" / "python"), "-m", "pip", "--version"], capture_output=True,
                         text=True, timeout=60)
    assert pip.returncode == 0 and str(target) in pip.stdout
    again = subprocess.run([sys.executable, script, str(target)], capture_output=True, text=True, timeout=60)
    assert again.returncode == 0  # an environment with pip is left as it is
