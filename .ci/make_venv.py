"""Make the virtual environment the README's two commands use, with nothing but python3.

    python3 .ci/make_venv.py [DIR]        # DIR defaults to .venv; does nothing if it already has pip

A virtual environment keeps the install away from the system's Python, which Debian and Ubuntu
refuse to change (PEP 668: "externally-managed-environment"). Where ``ensurepip`` is missing (their
python3 without the python3-venv package), the environment is made without pip and pip is fetched
from PyPI as a wheel and installed by running it from that wheel: the standard library is all this
needs. ``WSARRAY_VENV_WITHOUT_ENSUREPIP=1`` takes that path even where ensurepip exists (a test
does, so that the path CI never needs is still checked).
"""

import json
import os
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
import venv

PYPI = "https://pypi.org/pypi/pip/json"


def has_pip(python):
    return os.path.exists(python) and subprocess.run([python, "-m", "pip", "--version"],
                                                     capture_output=True).returncode == 0


def ensurepip_available():
    if os.environ.get("WSARRAY_VENV_WITHOUT_ENSUREPIP"):
        return False
    try:
        import ensurepip  # noqa: F401
    except ImportError:
        return False
    return True


def pip_from_pypi(python):
    """Install pip into the environment of ``python`` from its wheel on PyPI."""
    with urllib.request.urlopen(PYPI, timeout=60) as response:
        release = json.load(response)
    wheel = next(u for u in release["urls"] if u["filename"].endswith(".whl"))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, wheel["filename"])
        url = urllib.parse.urljoin(PYPI, wheel["url"])  # a mirror may give it relative to the index
        with urllib.request.urlopen(url, timeout=120) as response, open(path, "wb") as out:
            out.write(response.read())
        # A wheel is a zip that Python can run from: pip installs itself from its own wheel.
        subprocess.run([python, os.path.join(path, "pip"), "install", "--quiet", path], check=True)


def main(argv):
    target = argv[1] if len(argv) > 1 else ".venv"
    python = os.path.join(target, "bin", "python")
    if has_pip(python):
        return 0
    with_pip = ensurepip_available()
    venv.EnvBuilder(with_pip=with_pip).create(target)
    if not has_pip(python):
        pip_from_pypi(python)
    if not has_pip(python):
        print(f"{argv[0]}: could not give {target} a working pip", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
