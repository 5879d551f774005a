"""The per-thread workspace stack: nesting, borrowing, scope-out, restore order, threads."""
import threading

import numpy as np
import pytest

import wsarray as wnp
from wsarray import memory

from thread_helpers import run_threads


def test_nesting_allocates_in_the_innermost_workspace():
    with wnp.workspace("OUTER") as outer:
        a = wnp.ones(10)
        with wnp.workspace("INNER"):
            b = wnp.ones(10)
            assert memory.current_workspace() == "INNER"
            assert memory.workspace_stack() == [("cycle", "OUTER"), ("cycle", "INNER")]
        assert memory.current_workspace() == "OUTER"
        assert (a.workspace, b.workspace) == ("OUTER", "INNER")
        assert a.is_in_scope() and not b.is_in_scope()
        assert outer.is_open
    assert memory.current_workspace() is None and not a.is_in_scope()


def test_borrow_allocates_in_the_outer_workspace():
    outer = wnp.workspace("OUTER")
    with outer:
        with wnp.workspace("INNER"):
            with outer.borrow():
                kept = wnp.arange(5.0)
                assert memory.current_workspace() == "OUTER"
            tmp = wnp.ones(3)
        # the inner cycle ended, the borrowed allocation is still valid
        assert kept.workspace == "OUTER" and float(kept.sum()) == 10.0
        with pytest.raises(wnp.WorkspaceError):
            tmp.sum()


def test_borrow_needs_an_open_workspace():
    closed = wnp.workspace("CLOSED")
    with pytest.raises(wnp.WorkspaceError, match="no open cycle"):
        with closed.borrow():
            pass
    assert memory.workspace_stack() == []


def test_scope_out_bypasses_workspaces_and_restores_inside_a_borrow():
    outer = wnp.workspace("OUTER")
    with outer:
        with wnp.workspace("INNER"):
            with outer.borrow():
                with wnp.scope_out():
                    free = wnp.ones(4)
                    assert memory.current_workspace() is None
                # ND4J's old bug: after scope-out inside a borrow, the borrowed one comes back
                assert memory.current_workspace() == "OUTER"
            assert memory.current_workspace() == "INNER"
    assert not free.is_attached() and float(free.sum()) == 4.0


def test_exceptions_restore_the_stack():
    with pytest.raises(ZeroDivisionError):
        with wnp.workspace("A"):
            with wnp.workspace("B"):
                with wnp.scope_out():
                    1 / 0
    assert memory.workspace_stack() == []
    assert not memory.workspace_active("A") and not memory.workspace_active("B")
    with wnp.workspace("A"):  # usable again
        assert float(wnp.ones(3).sum()) == 3.0


def test_keyboard_interrupt_inside_nested_scopes():
    with pytest.raises(KeyboardInterrupt):
        with wnp.workspace("A"):
            with wnp.workspace("B"):
                raise KeyboardInterrupt
    assert memory.workspace_stack() == []


def test_out_of_order_exit_closes_only_its_own_scope():
    a, b = wnp.workspace("A"), wnp.workspace("B")
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)  # A ends; B, opened after it, stays open and current
    assert memory.workspace_stack() == [("cycle", "B")] and b.is_open and not a.is_open
    assert memory.current_workspace() == "B"
    b.__exit__(None, None, None)
    assert memory.workspace_stack() == []
    with pytest.raises(wnp.WorkspaceError, match="no open cycle to close"):
        b.__exit__(None, None, None)


def test_workspace_cannot_nest_in_itself():
    ws = wnp.workspace("SELF")
    with ws:
        with pytest.raises(wnp.WorkspaceError, match="already open"):
            with wnp.workspace("SELF"):
                pass
        assert ws.is_open
    assert memory.workspace_stack() == []


def test_generation_advances_per_cycle():
    ws = wnp.workspace("GEN")
    g = ws.generation
    for _ in range(3):
        with ws:
            pass
    assert ws.generation == g + 3 and ws.stats()["cycles"] == 3


def test_destroy_and_queries():
    ws = wnp.workspace("D")
    assert memory.workspace_exists("D") and not memory.workspace_active("D")
    with ws:
        assert memory.workspace_active("D")
        with pytest.raises(wnp.WorkspaceError, match="in use"):
            memory.destroy_workspace("D")
        with pytest.raises(wnp.WorkspaceError, match="in use"):
            memory.destroy_all_workspaces_for_current_thread()
    memory.destroy_workspace("D")
    assert not memory.workspace_exists("D") and not ws.alive
    with pytest.raises(wnp.WorkspaceError, match="destroyed"):
        with ws:
            pass
    with pytest.raises(wnp.WorkspaceError, match="no workspace named 'NOPE'"):
        memory.destroy_workspace("NOPE")
    with pytest.raises(TypeError, match="destroy_workspace"):
        memory.destroy_workspace(3)
    with wnp.workspace("D"):  # a new one under the same name
        assert memory.workspace_active("D")


def test_allocation_statistics_and_print(capsys):
    with wnp.workspace("S1"):
        wnp.ones(100)
    with wnp.workspace("S2"):
        pass
    stats = memory.allocation_statistics()
    assert set(stats) == {"S1", "S2"}
    assert stats["S1"]["allocations"] >= 1 and stats["S2"]["allocations"] == 0
    for key in ("capacity", "used", "peak_cycle_bytes", "spilled_bytes", "cycles", "allocations"):
        assert key in stats["S1"]
    memory.print_allocation_statistics()
    out = capsys.readouterr().out
    assert "S1" in out and "S2" in out and "peak_cycle_bytes" in out


def test_threads_have_independent_stacks_and_workspaces():
    results = {}
    barrier = threading.Barrier(4)

    def worker(k):
        barrier.wait()
        assert memory.workspace_stack() == []
        assert not memory.workspace_exists("LOOP")
        x = wnp.arange(1000.0)
        for _ in range(200):
            with wnp.workspace("LOOP"):
                y = (x * k + 1.0).sum()
                assert memory.current_workspace() == "LOOP"
                val = float(y)
        results[k] = (val, memory.allocation_statistics()["LOOP"]["cycles"])

    run_threads(worker, 4)
    for k in range(4):
        assert results[k] == (float((np.arange(1000.0) * k + 1.0).sum()), 200)
    assert not memory.workspace_exists("LOOP")


def test_workspace_handle_used_on_another_thread_is_refused():
    ws = wnp.workspace("MINE")
    caught = []

    def other():
        try:
            with ws:
                pass
        except wnp.WorkspaceError as e:
            caught.append(str(e))

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert caught and "belongs to another thread" in caught[0]


def test_array_from_another_threads_workspace():
    """Rule: an array may be read on another thread while its cycle is open; after that, stale."""
    ready, done = threading.Event(), threading.Event()
    box = {}

    def producer():
        with wnp.workspace("P"):
            box["a"] = wnp.arange(10.0)
            ready.set()
            done.wait(10)
        memory.destroy_all_workspaces_for_current_thread()

    t = threading.Thread(target=producer)
    t.start()
    ready.wait(10)
    assert float(box["a"].sum()) == 45.0  # producer's cycle is open: valid
    done.set()
    t.join()
    with pytest.raises(wnp.WorkspaceError):
        box["a"].sum()
