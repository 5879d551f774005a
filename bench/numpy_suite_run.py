"""Runs one of NumPy's test files with pytest in a subprocess, for bench/numpy_suite.py.

``make_root`` makes a folder pytest runs in (NumPy's conftest.py, the recording plugin
bench/numpy_suite_plugin.py, a pytest.ini), ``prepare`` copies the packages' test folders into it
(rewritten for a form of bench/numpy_suite_rewrite.py, or as shipped), ``run_file`` runs one file
there: each test's outcome comes from the plugin's record, a test that crashes the interpreter or
runs longer than the test timeout is recorded as a crash or a hang (the process group is killed),
and the file is run again without the tests already done. Setting ``stop`` (Ctrl-C or an error in
the runner) makes every running ``run_file`` kill its pytest and raise ``Stopped``.
"""

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import numpy_suite_rewrite as rewriting

HERE = os.path.dirname(os.path.abspath(__file__))
PLUGIN = os.path.join(HERE, "numpy_suite_plugin.py")
PYTEST_INI = """[pytest]
addopts = -p no:cacheprovider -p numpy_suite_plugin -q --tb=no
filterwarnings =
    ignore:Not importing directory
    ignore:numpy.dtype size changed
    ignore:numpy.ufunc size changed
    ignore::UserWarning:cpuinfo
    ignore:the matrix subclass is not
    ignore:Importing from numpy.matlib is
"""


def numpy_dir():
    import numpy

    return os.path.dirname(numpy.__file__)


def make_root(root):
    """A folder pytest runs in: NumPy's conftest.py, the recording plugin and a pytest.ini."""
    os.makedirs(root)
    shutil.copy(os.path.join(numpy_dir(), "conftest.py"), root)
    shutil.copy(PLUGIN, root)
    with open(os.path.join(root, "pytest.ini"), "w", encoding="utf-8") as f:
        f.write(PYTEST_INI)


def prepare(root, variant, files):
    """make_root() plus the packages' test folders (data and helpers too), with ``files`` as
    shipped (reference) or rewritten (a form)."""
    make_root(root)
    for package in sorted({rel.split("/")[0] for rel in files}):
        shutil.copytree(os.path.join(numpy_dir(), package, "tests"), os.path.join(root, package, "tests"),
                        ignore=shutil.ignore_patterns("__pycache__"))
    if variant != "reference":
        for rel in files:
            path = os.path.join(root, rel)
            with open(path, encoding="utf-8") as f:
                source = f.read()
            with open(path, "w", encoding="utf-8") as f:
                f.write(rewriting.rewrite(source, variant))


def _read_records(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:  # a line cut short by a crash
            pass
    return records


def _last_event(path):
    """The event of the last complete line of the record ("start" while a test runs)."""
    with open(path, "rb") as f:
        f.seek(max(0, os.path.getsize(path) - 4096))
        lines = f.read().splitlines()
    for line in reversed(lines):
        try:
            return json.loads(line)["event"]
        except (ValueError, KeyError):
            continue
    return None


class Stopped(Exception):  # noqa: N818  (a signal, not an error)
    """The run was interrupted (an error or Ctrl-C elsewhere): a file's run gives up."""


stop = threading.Event()  # set when the run must end: every child process is killed


def _kill(process):
    try:
        os.killpg(process.pid, signal.SIGKILL)  # the group this runner created for the child
    except ProcessLookupError:
        pass
    process.wait()


def run_file(root, rel, options, *, config=None, path=()):
    """Run ``rel`` (a path or a list of paths) in the tree ``root``; returns {"tests": {nodeid:
    {outcome, cause, where}}, "file_errors": [causes], "seconds": s}. Crashes and hangs are
    recorded against the test that was running, and the file is run again without the tests done
    so far. ``config``: the pytest configuration file to use instead of ``root``'s pytest.ini (the
    recording plugin is then named on the command line); ``path``: folders put before ``root`` on
    PYTHONPATH."""
    targets = rel if isinstance(rel, list) else [rel]
    name = "_".join(targets).replace("/", "_")
    if len(name) > 120:  # many paths and options: a file name has 255 bytes at most
        name = name[:80] + "_" + hashlib.sha1(name.encode()).hexdigest()[:16]
    work = os.path.join(root, ".runs", name)
    os.makedirs(work, exist_ok=True)
    record, skip = os.path.join(work, "record.jsonl"), os.path.join(work, "skip.txt")
    python_path = os.pathsep.join([*path, root] + ([HERE] if config else []))
    env = dict(os.environ, NUMPY_SUITE_RECORD=record, NUMPY_SUITE_SKIP=skip, PYTHONPATH=python_path,
               NPY_AVAILABLE_MEM=options.available_memory, OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONFAULTHANDLER="1")
    tests, file_errors, started = {}, [], time.monotonic()
    deadline = started + options.file_timeout
    for attempt in range(options.max_restarts + 1):
        with open(skip, "w", encoding="utf-8") as f:
            f.writelines(n + "\n" for n in tests)
        done_before = len(_read_records(record))
        command = [sys.executable, "-P", "-m", "pytest", "-c", config or os.path.join(root, "pytest.ini"),
                   "--rootdir", root, "-p", "no:randomly", *targets]
        if config:
            command[-len(targets):-len(targets)] = ["-p", "numpy_suite_plugin", "-p", "no:cacheprovider",
                                                   "-q", "--tb=no"]
        if options.label != "full":
            command += ["-m", "not slow"]
        with open(os.path.join(work, f"log{attempt}.txt"), "w", encoding="utf-8") as log:
            process = subprocess.Popen(command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
                                       start_new_session=True)
            status, size, last_progress, in_test = None, -1, time.monotonic(), False
            while status is None:
                try:
                    process.wait(timeout=0.5)
                    status = process.returncode
                except subprocess.TimeoutExpired:
                    if stop.is_set():
                        _kill(process)
                        raise Stopped() from None
                    now = time.monotonic()
                    new_size = os.path.getsize(record) if os.path.exists(record) else 0
                    if new_size != size:
                        size, last_progress = new_size, now
                        in_test = new_size > 0 and _last_event(record) == "start"
                    # A hang: a test that has been running too long (start-up is not timed).
                    if (in_test and now - last_progress > options.test_timeout) or now > deadline:
                        _kill(process)
                        status = "hang"
        records = _read_records(record)[done_before:]
        running = None
        for r in records:
            if r["event"] == "start":
                running = r["nodeid"]
            elif r["event"] == "done":
                tests[r["nodeid"]] = {k: r[k] for k in ("outcome", "cause", "where")}
                running = None
            elif r["event"] == "collect_error":
                file_errors.append(r["cause"])
        ended = any(r["event"] == "end" for r in records)
        if status == "hang":
            what = f"hang: no progress in {options.test_timeout:g} s"
        elif isinstance(status, int) and status < 0:
            what = f"crash: {signal.Signals(-status).name}"
        elif not ended:
            what = f"crash: exit status {status} before pytest finished"
        else:
            break
        if running is None:  # died outside a test (collection, start-up): the file is lost
            file_errors.append(what)
            break
        tests[running] = {"outcome": what.split(":")[0], "cause": what, "where": ""}
        if time.monotonic() > deadline:
            file_errors.append(f"hang: file took more than {options.file_timeout:g} s")
            break
    return {"tests": tests, "file_errors": file_errors, "seconds": round(time.monotonic() - started, 1)}
