"""The C++ sources (src/, tests/cpp/) are formatted as .clang-format says, checked with the
clang-format of the [test] extra (the PyPI wheel): its major version is the one pyproject.toml
pins, since another major version may lay out the same code differently. To fix a failure, run
`clang-format -i` on the files it names (`python -m pip install ".[test]"` installs it)."""
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
STYLE = REPO / ".clang-format"
CPP_SUFFIXES = {".cpp", ".h", ".inc"}


def pinned_major():
    """The clang-format major version the [test] extra pins ("clang-format>=23.1,<24": 23)."""
    text = (REPO / "pyproject.toml").read_text()
    found = re.search(r'"clang-format\s*[=~<>!]=?\s*(\d+)', text)
    assert found, "pyproject.toml's [test] extra does not pin clang-format"
    return int(found.group(1))


def clang_format():
    """The clang-format executable of this environment: the wheel's, else one on PATH."""
    try:
        import clang_format as wheel  # the PyPI package of the [test] extra
    except ImportError:
        wheel = None
    if wheel is not None:
        path = pathlib.Path(wheel.get_executable("clang-format"))
        if path.exists():
            return str(path)
    here = pathlib.Path(sys.executable).parent / "clang-format"
    if here.exists():
        return str(here)
    return shutil.which("clang-format")


def version_major(exe):
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60).stdout
    found = re.search(r"clang-format version (\d+)", out)
    return int(found.group(1)) if found else None


@pytest.fixture(scope="module")
def exe():
    path = clang_format()
    if path is None:
        pytest.skip('clang-format is not installed: python -m pip install ".[test]" installs it')
    major, wanted = version_major(path), pinned_major()
    if major != wanted:
        pytest.skip(f"{path} is clang-format {major}; the style is checked with clang-format {wanted} "
                    f'(python -m pip install ".[test]")')
    return path


def sources():
    roots = [REPO / "src", REPO / "tests" / "cpp"]
    return sorted(p for root in roots if root.exists() for p in root.rglob("*") if p.suffix in CPP_SUFFIXES)


def check(exe, files):
    return subprocess.run([exe, "--dry-run", "--Werror", f"--style=file:{STYLE}", *map(str, files)],
                          capture_output=True, text=True, timeout=300)


def test_cpp_sources_follow_clang_format(exe):
    files = sources()
    assert len(files) > 20, "the C++ sources were not found"
    proc = check(exe, files)
    unformatted = sorted({line.split(":", 1)[0] for line in proc.stderr.splitlines() if ": error:" in line})
    assert proc.returncode == 0, (
        f"{len(unformatted)} file(s) differ from .clang-format; run `clang-format -i` on them:\n"
        + "\n".join(unformatted) + "\n\n" + proc.stderr[-4000:])


def test_the_check_fails_on_unformatted_code(exe, tmp_path):
    bad = tmp_path / "bad.cpp"
    bad.write_text("int  f( int x ){return x+1;}\n")
    good = tmp_path / "good.cpp"
    good.write_text("int f(int x) { return x + 1; }\n")
    assert check(exe, [bad]).returncode != 0
    assert check(exe, [good]).returncode == 0
