"""os.fork(): the child can use wsarray, and parent and child never share workspace memory.

Rule (see README, Reliability): in the child, the forking thread keeps its workspaces (their memory
is the child's private copy); workspaces of the parent's other threads are destroyed there.
"""
import os
import signal
import threading
import warnings

import numpy as np
import pytest

import wsarray as wnp

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def in_child(fn, timeout=30):
    """Run fn() in a forked child; return (exit code, repr of its result or its error).
    A crash is a negative exit code; a hang is killed by SIGALRM."""
    r, w = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # forking with threads (3.12+)
        pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        code = 1
        try:
            os.close(r)
            signal.alarm(timeout)
            msg = repr(fn())
            code = 0
        except BaseException as e:  # noqa: BLE001 - reported to the parent
            msg = f"{type(e).__name__}: {e}"
        finally:
            try:
                os.write(w, msg.encode())
            finally:
                os._exit(code)
    os.close(w)
    chunks = []
    while data := os.read(r, 65536):
        chunks.append(data)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), b"".join(chunks).decode()


def test_child_uses_wsarray_and_its_own_copy_of_the_workspaces():
    ws = wnp.workspace("LOOP")
    x = wnp.arange(1000.0)
    for _ in range(3):
        with ws:
            float((x * 2).sum())
    before = ws.stats()

    def child():
        out = []
        for k in range(5):
            with wnp.workspace("LOOP"):
                out.append(float((x * k).sum()))
        with wnp.workspace("NEW"):
            out.append(float(wnp.linalg.inv(wnp.eye(3) * 2.0).sum()))
        results = []
        t = threading.Thread(target=lambda: results.append(float(wnp.ones(10).sum())))
        t.start()
        t.join()
        return out, results, wnp.workspace("LOOP").stats()["cycles"]

    code, msg = in_child(child)
    assert code == 0, msg
    expected = ([float((np.arange(1000.0) * k).sum()) for k in range(5)] + [1.5], [10.0], 8)
    assert msg == repr(expected)
    after = ws.stats()  # the child's cycles did not touch the parent's workspace
    assert (after["cycles"], after["allocations"]) == (before["cycles"], before["allocations"])
    assert not wnp.memory.workspace_exists("NEW")


def test_fork_inside_an_open_cycle():
    with wnp.workspace("OPEN"):
        a = wnp.arange(5.0)

        def child():
            assert wnp.memory.workspace_stack() == [("cycle", "OPEN")]
            a[0] = 99.0  # the child's copy
            total = float(a.sum())
            with wnp.workspace("INNER"):
                b = wnp.ones(3)
            try:
                b.sum()
            except wnp.WorkspaceError:
                return total, "stale"
            return total, "not stale"

        code, msg = in_child(child)
        assert code == 0, msg
        assert msg == repr((109.0, "stale"))
        assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_file_backed_workspace_is_not_shared_with_the_child():
    cfg = wnp.WorkspaceConfig(initial_size="1MiB", learning="none", location="mmap")
    with wnp.workspace("FILE", cfg):
        a = wnp.full(1000, 1.0)

        def child():
            seen = float(a.sum())
            a[:] = 2.0  # must not reach the parent's memory
            b = wnp.full(1000, 3.0)  # nor a new allocation in the child's copy
            return seen, float(a.sum()), float(b.sum())

        code, msg = in_child(child)
        assert code == 0, msg
        assert msg == repr((1000.0, 2000.0, 3000.0))
        assert float(a.sum()) == 1000.0
        c = wnp.full(1000, 4.0)
        assert float(a.sum()) == 1000.0 and float(c.sum()) == 4000.0


def test_other_threads_workspaces_are_destroyed_in_the_child():
    ready, release = threading.Event(), threading.Event()
    box = {}

    def owner():
        with wnp.workspace("THREAD"):
            box["a"] = wnp.arange(4.0)
            ready.set()
            release.wait(30)
        wnp.memory.destroy_all_workspaces_for_current_thread()

    t = threading.Thread(target=owner)
    t.start()
    try:
        assert ready.wait(30)

        def child():
            try:
                box["a"].sum()
            except wnp.WorkspaceError as e:
                err = str(e)
            else:
                err = "no error"
            with wnp.workspace("THREAD"):  # this thread's own, new workspace of that name
                mine = float(wnp.arange(4.0).sum())
            return "os.fork()" in err and "'THREAD'" in err, mine

        code, msg = in_child(child)
        assert code == 0, msg
        assert msg == repr((True, 6.0))
        assert float(box["a"].sum()) == 6.0  # still valid in the parent: its cycle is open
    finally:
        release.set()
        t.join()


def test_fork_while_another_thread_works_with_workspaces():
    """The registry mutex is held across fork(), so no child inherits it locked."""
    stop = threading.Event()
    errors = []

    def busy():
        try:
            x = wnp.arange(256.0)
            while not stop.is_set():
                with wnp.workspace("BUSY"):
                    y = x * 2.0 + 1.0
                    assert float(y[3]) == 7.0
            wnp.memory.destroy_all_workspaces_for_current_thread()
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    t = threading.Thread(target=busy)
    t.start()
    try:
        for _ in range(10):
            code, msg = in_child(lambda: float(wnp.ones(100).sum()) + _in_workspace(), timeout=20)
            assert code == 0, msg
            assert msg == repr(200.0)
    finally:
        stop.set()
        t.join()
    assert not errors, errors


def _in_workspace():
    with wnp.workspace("CHILD"):
        return float(wnp.ones(100).sum())
