"""The C++ unit tests of the memory system (tests/cpp/*.cpp against src/core/memory): configured
and built with CMake into a temporary folder (under AddressSanitizer and UndefinedBehaviorSanitizer
when the compiler has them), then run; a failing check fails this test with the binary's output.
Skipped, saying so, when CMake is not installed (python -m pip install cmake ninja provides it)."""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent


def tool(name):
    """An executable from PATH, next to this Python, or from its PyPI package (cmake, ninja)."""
    found = shutil.which(name) or shutil.which(name, path=str(pathlib.Path(sys.executable).parent))
    if found:
        return found
    try:
        module = __import__(name)
    except ImportError:
        return None
    folder = getattr(module, "CMAKE_BIN_DIR", None) or getattr(module, "BIN_DIR", None)
    candidate = pathlib.Path(folder, name) if folder else None
    return str(candidate) if candidate and candidate.exists() else None


def clean_env():
    """The environment without what a sanitized Python run sets for itself (.ci/sanitize): the
    compiler and the test binary must not get the ASan runtime preloaded or its options."""
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "PYTHONMALLOC", "ASAN_OPTIONS",
                                                            "UBSAN_OPTIONS")}
    return env


def run(cmd, timeout, env=None):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env or clean_env())


@pytest.fixture(scope="module")
def core_tests(tmp_path_factory):
    """Path of the built test binary."""
    cmake = tool("cmake")
    if cmake is None:
        pytest.skip("cmake is not installed (python -m pip install cmake ninja)")
    build = tmp_path_factory.mktemp("core-tests")
    configure = [cmake, "-S", str(HERE), "-B", str(build)]
    ninja = tool("ninja")
    if ninja:
        configure += ["-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}"]
    proc = run(configure, timeout=180)
    assert proc.returncode == 0, f"cmake could not configure tests/cpp:\n{proc.stdout}\n{proc.stderr}"
    proc = run([cmake, "--build", str(build), "--parallel", str(os.cpu_count() or 2)], timeout=600)
    assert proc.returncode == 0, f"tests/cpp did not build:\n{proc.stdout[-8000:]}\n{proc.stderr[-8000:]}"
    return build / "core_tests"


def run_tests(binary, *names):
    env = clean_env()
    env["ASAN_OPTIONS"] = "detect_leaks=1:halt_on_error=1:abort_on_error=0"
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    proc = run([str(binary), *names], timeout=300, env=env)
    if proc.returncode != 0 and "LeakSanitizer has encountered a fatal error" in proc.stderr:
        # LeakSanitizer cannot run where ptrace is not allowed (some containers): run without it.
        env["ASAN_OPTIONS"] = "detect_leaks=0:halt_on_error=1:abort_on_error=0"
        proc = run([str(binary), *names], timeout=300, env=env)
    return proc


def test_core_cpp_tests_pass(core_tests):
    proc = run_tests(core_tests)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"tests/cpp failed:\n{output[-12000:]}"
    summary = proc.stdout.strip().splitlines()[-1]
    run_count = int(summary.split()[0])
    assert summary == f"{run_count} tests run, 0 failed" and run_count >= 40, output[-4000:]


def test_core_cpp_harness_reports_a_failing_check(core_tests):
    proc = run_tests(core_tests, "_harness_must_report_this_failure")
    assert proc.returncode == 1
    assert "FAIL _harness_must_report_this_failure" in proc.stdout
    assert "test_config.cpp" in proc.stdout and "1000 != 1024" in proc.stdout
    assert "no exception" in proc.stdout
    assert proc.stdout.strip().splitlines()[-1] == "1 tests run, 1 failed"
