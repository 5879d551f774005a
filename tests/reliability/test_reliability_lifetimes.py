"""Lifetimes and limits: nothing points at a destroyed workspace, a failure at the end of a cycle
leaves everything consistent, no destructor lets an exception out, limits are exact and values
are checked. Cases that crashed run in a child process."""
import gc
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import wsarray as wnp
from wsarray import memory


def run_child(code, timeout=60):
    """Run `code` in a fresh interpreter; return (returncode, stdout + stderr)."""
    proc = subprocess.run([sys.executable, "-P", "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout)
    return proc.returncode, proc.stdout + proc.stderr


# Python callbacks that run during a wsarray call and end its cycle and destroy its workspace.
CALLBACK_CALLS = {
    "object ufunc": "wnp.add(numpy.array([E(), E()], dtype=object), 1)",
    "sort comparison": "wnp.sort(numpy.array([E(), E(), E()], dtype=object))",
    "vectorize": "wnp.vectorize(lambda v: E() + v)(wnp.arange(3))",
    "frompyfunc": "wnp.frompyfunc(lambda v: E() + v, 1, 1)(wnp.arange(3))",
    "unique": "wnp.unique(numpy.array([E(), E()], dtype=object))",
    "cumsum": "wnp.cumsum(numpy.array([E(), E(), E()], dtype=object))",
}


@pytest.mark.parametrize("call", list(CALLBACK_CALLS), ids=list(CALLBACK_CALLS))
def test_a_callback_that_destroys_the_workspace_mid_call_gets_a_workspace_error(call):
    rc, out = run_child(f"""
        import numpy, wsarray as wnp
        h = wnp.workspace("W")
        h.__enter__()
        done = []
        class E:
            def end(self):
                global h
                if not done:
                    done.append(1)
                    h.__exit__(None, None, None)
                    del h  # the last handle goes too
                    wnp.memory.destroy_workspace("W")
            def __add__(self, other):
                self.end()
                return 1
            __radd__ = __add__
            def __lt__(self, other):
                self.end()
                return id(self) < id(other)
            def __eq__(self, other):
                self.end()
                return self is other
            def __hash__(self):
                return id(self)
        try:
            r = {CALLBACK_CALLS[call]}
            print("RESULT", type(r).__name__)
            r + 1
        except wnp.WorkspaceError as e:
            print("WORKSPACE_ERROR", str(e)[:60])
        print("ALIVE", wnp.memory.workspace_stack(), float(wnp.ones(3).sum()))
    """)
    assert rc == 0, out
    assert "WORKSPACE_ERROR" in out and "ALIVE [] 3.0" in out, out


@pytest.mark.parametrize("call", [
    lambda a: wnp.add(np.asarray(a), 1),  # the engine, on a NumPy array
    lambda a: a.prod(),          # a method without arguments: the ufunc's reduce, routed
    lambda a: a.astype(float),   # a method NumPy runs directly, routed
    lambda a: a.sum(),           # the general path
])
def test_results_of_a_call_whose_workspace_was_destroyed_are_refused(call):
    h = wnp.workspace("MID2")
    h.__enter__()

    class E:
        def __add__(self, other):
            if h.alive:
                h.__exit__(None, None, None)
                memory.destroy_workspace("MID2")
            return 1

        __radd__ = __mul__ = __rmul__ = __add__

        def __float__(self):
            return float(self.__add__(None))

    a = wnp.asarray(np.array([E(), E()], dtype=object))
    with pytest.raises(wnp.WorkspaceError, match="destroyed while this call ran"):
        call(a)
    assert memory.workspace_stack() == []


def test_an_old_handle_never_destroys_a_newer_workspace_of_the_same_name():
    old = wnp.workspace("SAME")
    old.destroy()
    new = wnp.workspace("SAME")
    assert old != new and old.alive is False and new.alive
    with pytest.raises(wnp.WorkspaceError, match="destroyed already"):
        old.destroy()
    assert new.alive and memory.workspace_exists("SAME")


def test_a_handle_from_another_thread_never_destroys_this_threads_workspace():
    mine = wnp.workspace("NAMED")
    box = {}
    done = threading.Event()

    def other():
        box["h"] = wnp.workspace("NAMED")  # that thread's own workspace of the same name
        done.wait(30)
        memory.destroy_all_workspaces_for_current_thread()

    t = threading.Thread(target=other)
    t.start()
    while "h" not in box:
        threading.Event().wait(0.005)
    with pytest.raises(wnp.WorkspaceError, match="another thread"):
        box["h"].destroy()
    assert mine.alive and box["h"].alive
    done.set()
    t.join(30)


def test_handles_of_one_workspace_compare_equal():
    a = wnp.workspace("EQ")
    b = wnp.workspace("EQ")
    assert a == b and hash(a) == hash(b) and a != wnp.workspace("OTHER")
    with a:
        assert b.is_open
    b.__enter__()
    a.__exit__(None, None, None)  # either handle closes the workspace's cycle
    assert not b.is_open


def test_mmap_directory_that_vanishes_mid_run_leaves_everything_consistent():
    d = tempfile.mkdtemp()
    ws = wnp.workspace("VANISH", wnp.WorkspaceConfig(location="mmap", temp_file_path=d))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ws:
            a = wnp.ones(100_000)
            os.rmdir(d)  # learning maps its first file at the end of this cycle
    assert any("could not map" in str(w.message) for w in caught), [str(w.message) for w in caught]
    assert memory.workspace_stack() == [] and memory.current_workspace() is None
    top = wnp.ones(10)
    assert not top.is_attached()  # top-level arrays never go into the workspace
    with pytest.raises(wnp.WorkspaceError):
        a.sum()
    for _ in range(3):  # later cycles work (spilling) and exit cleanly
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with ws:
                assert float(wnp.ones(1000).sum()) == 1000.0
    stats = ws.stats()
    assert stats["cycles"] == 4 and stats["live_arrays"] == 1  # `a`, stale, still holds its block
    del a
    stats = ws.stats()
    assert stats["used"] == 0 and stats["live_arrays"] == 0
    assert float(top.sum()) == 10.0


@pytest.mark.parametrize("where", ["thread exit", "interpreter exit"])
def test_a_suspended_generator_inside_a_failing_cycle_never_aborts_the_process(where):
    rc, out = run_child(f"""
        import os, tempfile, threading, wsarray as wnp
        d = tempfile.mkdtemp()
        def gen():
            with wnp.workspace("G", wnp.WorkspaceConfig(location="mmap", temp_file_path=d)):
                x = wnp.ones(100_000)
                yield 1
        kept = []
        def body():
            g = gen()
            next(g)
            os.rmdir(d)  # the cycle's end will fail to map its learned size
            kept.append(g)
        if {where == "thread exit"!r}:
            t = threading.Thread(target=body)
            t.start()
            t.join()
            print("JOINED", flush=True)
        else:
            body()
        print("END", flush=True)
    """)
    assert rc == 0, out
    assert "END" in out and "terminate" not in out and "Aborted" not in out, out


def test_max_size_is_never_exceeded():
    for max_size in ("3MB", "5MB", 2_500_000, "2MiB"):
        for cfg in (dict(initial_size=max_size), dict(spill="reallocate"), dict(learning="over_time",
                    cycles_before_initialization=2)):
            ws = wnp.workspace("CAP", wnp.WorkspaceConfig(max_size=max_size, **cfg))
            limit = wnp.parse_size(max_size)
            for n in (1000, 100_000, 200_000, 300_000, 400_000, 1_000_000):
                try:
                    with ws:
                        a = wnp.ones(n)
                        b = wnp.ones(n // 3)
                        del a, b
                except MemoryError:
                    pass
                s = ws.stats()
                assert s["capacity"] <= limit, (max_size, cfg, n, s["capacity"])
            memory.destroy_workspace("CAP")


def test_gc_window_refuses_what_it_cannot_represent():
    with pytest.raises(ValueError, match="at most"):
        memory.set_auto_gc_window(2**62)
    big = wnp._native._MAX_GC_WINDOW_MS
    memory.set_auto_gc_window(big)
    try:
        before = memory.gc_collections()
        for _ in range(3):
            with wnp.workspace("GCW"):
                pass
        assert memory.gc_collections() == before  # the window has not passed: no collection
    finally:
        memory.set_auto_gc_window(0)


@pytest.mark.parametrize("make, error, match", [
    (lambda: wnp.WorkspaceConfig(initial_size="9" * 400), ValueError, "too large"),
    (lambda: wnp.WorkspaceConfig(max_size="1" + "0" * 30 + "GB"), ValueError, "too large"),
    (lambda: wnp.WorkspaceConfig(location="mmap", temp_file_path="/tmp\0x"), ValueError, "NUL"),
    (lambda: wnp.WorkspaceConfig(location="mmap", temp_file_path="/\udc80"), ValueError, "temp_file_path"),
    (lambda: wnp.workspace("bad\udc80name"), ValueError, r"wsarray\.workspace\(\): name"),
    (lambda: memory.destroy_workspace("\udcff"), ValueError, "destroy_workspace"),
    (lambda: memory.workspace_exists(b"W"), TypeError, "workspace_exists"),
    (lambda: wnp.ones(2).leverage_to("\udc80"), ValueError, "leverage_to"),
    (lambda: wnp.WorkspaceConfig(trim_after_cycles=-1), ValueError, "trim_after_cycles"),
    (lambda: wnp.WorkspaceConfig(location="mmap", temp_file_path=__file__), NotADirectoryError,
     "not a directory"),
])
def test_bad_values_get_clear_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_thread_exit_is_named_as_the_cause_of_stale_arrays():
    def work():
        with wnp.workspace("POOLWS"):
            return wnp.arange(4.0)  # not detached: invalid once the cycle ends

    with ThreadPoolExecutor(1, thread_name_prefix="solver") as pool:
        a = pool.submit(work).result()
        with pytest.raises(wnp.WorkspaceError, match="cycle has ended|cycle .* ended"):
            a.sum()  # the thread still runs: its cycle ended
    with pytest.raises(wnp.WorkspaceError, match=r"thread 'solver_0', which has exited"):
        a.sum()  # shut down: the thread (and its workspaces) are gone
    assert "ended with its thread" in repr(a)

    box = {}
    t = threading.Thread(target=lambda: box.update(a=work()), name="worker-7")
    t.start()
    t.join()
    with pytest.raises(wnp.WorkspaceError, match=r"thread 'worker-7', which has exited"):
        box["a"].sum()  # right after join(): already the thread's exit, never a race


def test_a_threads_workspaces_are_gone_when_join_returns():
    box = {}

    def work():
        ws = wnp.workspace("GONE", wnp.WorkspaceConfig(learning="none", initial_size="32MiB"))
        with ws:
            box["a"] = wnp.ones(1000)
        box["ws"] = ws

    t = threading.Thread(target=work)
    t.start()
    t.join()
    gc.collect()
    assert not box["ws"].alive
    # The stale array keeps its own block (NumPy's code may still read it) until it dies.
    assert wnp._native._zombie_bytes() > 0
    with pytest.raises(wnp.WorkspaceError, match="exited"):
        box["a"].sum()
    del box["a"]
    gc.collect()
    assert wnp._native._zombie_bytes() == 0


class _EmptiesItsList:
    """An argument whose conversion empties the list it came in: the list held the last
    references to the wsarray arrays beside it, which the call must keep alive until it returns."""

    def __init__(self, victim):
        self.victim = victim

    def __array__(self, dtype=None, copy=None):
        self.victim.clear()
        return np.ones(4)


def test_arrays_in_a_list_emptied_during_the_call_stay_alive_and_are_the_results_items():
    for i in range(200):
        items = [wnp.ones(3) * i, wnp.arange(2.0)]
        items.append(_EmptiesItsList(items))
        r = wnp.array(items, dtype=object)  # ragged: NumPy keeps each item whole
        assert r.shape == (3,) and items == []
        assert type(r[0]) is wnp.ndarray and np.asarray(r[0]).tolist() == [float(i)] * 3
        assert type(r[1]) is wnp.ndarray and np.asarray(r[1]).tolist() == [0.0, 1.0]
        items = [wnp.ones(3) * i, wnp.ones(3)]
        items.append(_EmptiesItsList(items))
        with pytest.raises(ValueError, match="same shape"):  # NumPy's error: (4,) among (3,)s
            wnp.stack(items)


def test_a_list_emptied_by_code_the_collector_runs_while_it_is_read():
    # A gc callback (a finalizer would do the same) empties the list an argument came in while
    # wsarray reads its items: a clear error, as reading a shrinking list gives, never a crash.
    code, out = run_child("""
        import gc, numpy, wsarray as wnp
        victim = []
        def clear(phase, info):
            if phase == "start" and victim:
                victim[0].clear()
        gc.callbacks.append(clear)
        gc.set_threshold(1, 1, 1)
        outcomes = set()
        calls = (wnp.concatenate, wnp.stack, wnp.array, lambda items: wnp.add(items, 1))
        for i in range(300):
            for k, call in enumerate(calls):
                gc.disable()  # armed only once the list is made: the call itself reads it
                if k % 2:
                    items = [[wnp.ones(2), wnp.ones(2)] for _ in range(40)]
                else:
                    items = [wnp.ones(3) for _ in range(40)]
                victim[:] = [items]
                gc.enable()
                try:
                    r = call(items)
                    outcomes.add(type(r).__name__)
                except (RuntimeError, ValueError, TypeError) as e:
                    outcomes.add(type(e).__name__)
                victim.clear()
        gc.callbacks.remove(clear)
        gc.set_threshold(700, 10, 10)
        print(sorted(outcomes))
    """, timeout=240)
    assert code == 0, out
    assert "ndarray" in out
