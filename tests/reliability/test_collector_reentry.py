"""Python code the garbage collector runs (finalizers, weakref and gc callbacks, signal handlers
between their bytecodes) may use workspaces while a context variable is being set: wsarray's own
scope changes, NumPy's errstate, a program's ContextVar.set. Before Python 3.12 the collector runs
inside those sets, and a scope opened there freed the variable map the set was building from: a
segfault (src/python/common/context_change.h). Each case runs in a child process, so that a crash
is an exit code, not the end of the test run.
"""
import subprocess
import sys
import textwrap

import pytest

import wsarray as wnp

# Every collection runs a workspace cycle (gc.callbacks), and a collection comes with nearly
# every allocation of a tracked object (threshold 1), so it lands inside every kind of set.
PRELUDE = """
import contextvars, gc, signal, sys, weakref
import numpy
import wsarray as wnp
from wsarray import memory

side = wnp.workspace("SIDE")
busy = [False]
ran = [0]

def side_cycles(times=2):
    if busy[0]:
        return
    busy[0] = True
    try:
        for _ in range(times):
            with side:
                assert float(wnp.ones(10).sum()) == 10.0
        ran[0] += 1
    finally:
        busy[0] = False

def on_collection(phase, info):
    side_cycles()

def collect_into_cycles():
    gc.callbacks.append(on_collection)
    gc.set_threshold(1, 1, 1)

def stop_collecting_into_cycles():
    gc.set_threshold(700, 10, 10)
    gc.callbacks.remove(on_collection)
"""


def run_child(body, timeout=240):
    code = PRELUDE + textwrap.dedent(body)
    proc = subprocess.run([sys.executable, "-P", "-X", "faulthandler", "-c", code], capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"exit code {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def test_cycles_run_by_the_collector_inside_wsarrays_own_scope_changes():
    out = run_child("""
        memory.record_history(True, max_entries=1000)
        main = wnp.workspace("MAIN")
        collect_into_cycles()
        for _ in range(3000):
            with main:
                x = wnp.arange(5) * 2
                assert int((x + 1).sum()) == 25
        stop_collecting_into_cycles()
        assert memory.workspace_stack() == []
        stats = memory.allocation_statistics()
        print(ran[0] > 0, stats["MAIN"]["cycles"], stats["SIDE"]["cycles"] == 2 * ran[0])
    """)
    assert out.split() == ["True", "3000", "True"]


def test_cycles_run_by_the_collector_inside_other_code_setting_context_variables():
    # The interrupted set is NumPy's (errstate) or the program's own: wsarray keeps the map it
    # builds from alive until a scope opens outside any collection.
    out = run_child("""
        var = contextvars.ContextVar("program")
        others = [contextvars.ContextVar(f"v{i}") for i in range(40)]  # a map of several levels
        collect_into_cycles()
        for i in range(3000):
            others[i % 40].set(i)
            with numpy.errstate(all="ignore"):
                var.set(i)
                assert numpy.isinf(numpy.ones(3) / 0).all()
        stop_collecting_into_cycles()
        kept = wnp._native._kept_context_maps()
        with wnp.workspace("AFTER"):  # the first scope opened outside a collection releases them
            wnp.ones(2)
        print(ran[0] > 0, kept > 0, wnp._native._kept_context_maps(), var.get(), others[7].get())
        assert memory.workspace_stack() == []
    """)
    assert out.split() == ["True", "True", "0", "2999", "2967"]


def test_a_signal_handler_opening_a_workspace_inside_finalizers_run_by_the_collector():
    # The shape found in CI: a periodic handler that uses workspaces, here run inside __del__
    # methods that the collector calls in the middle of the main loop's scope changes.
    out = run_child("""
        main = wnp.workspace("MAIN")
        signal.signal(signal.SIGALRM, lambda *_: side_cycles(1))

        armed = [True]

        class Node:
            def __del__(self):
                if armed[0]:
                    signal.setitimer(signal.ITIMER_REAL, 1e-6)
                for _ in range(200):  # bytecodes for the handler to run between
                    pass

        gc.set_threshold(1, 1, 1)
        for _ in range(3000):
            a, b = Node(), Node()
            a.other, b.other = b, a  # garbage only the collector frees
            del a, b
            with main:
                wnp.ones(10) + 1
        armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        gc.set_threshold(700, 10, 10)
        print(ran[0] > 0, memory.workspace_stack() == [])
    """)
    assert out.split() == ["True", "True"]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="from 3.12 on the collector runs only between bytecodes")
def test_changes_outside_any_collection_keep_nothing():
    before = wnp._native._kept_context_maps()
    for _ in range(100):
        with wnp.workspace("PLAIN"):
            wnp.ones(3)
    assert wnp._native._kept_context_maps() == 0 <= before
