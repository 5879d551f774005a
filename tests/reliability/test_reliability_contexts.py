"""Scopes follow the code's context: asyncio tasks, contextvars contexts, generators, threads.

Each context has its own stack of scopes; a new asyncio task inherits its creator's; only the
context (on the thread) that opened a scope may close it, and trying elsewhere is a WorkspaceError
that closes nothing.
"""
import asyncio
import contextvars
import threading
import warnings

import numpy as np
import pytest

import wsarray as wnp
from wsarray import memory


def run(coro):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "inner scopes were closed" or similar warnings
        return asyncio.run(coro)


def test_many_concurrent_tasks_each_allocate_in_their_own_workspace():
    """An inference-server shape: 40 tasks interleave at every await."""

    async def request(k):
        name = f"REQ{k}"
        with wnp.workspace(name) as ws:
            x = wnp.arange(100.0) * k
            for step in range(5):
                await asyncio.sleep(0.001 * ((k * 7 + step) % 3))
                assert memory.current_workspace() == name
                assert memory.workspace_stack() == [("cycle", name)]
                x = x + 1.0
                assert x.workspace == name
            result = float(x.sum())
            assert ws.is_open
        assert memory.workspace_stack() == []
        assert not ws.is_open
        return result

    async def main():
        return await asyncio.gather(*(request(k) for k in range(40)))

    results = run(main())
    assert results == [float((np.arange(100.0) * k + 5).sum()) for k in range(40)]
    assert memory.workspace_stack() == []
    for k in range(40):
        assert memory.allocation_statistics()[f"REQ{k}"]["cycles"] == 1


def test_nested_scopes_in_tasks_survive_interleaving():
    async def task(k):
        outer, inner = wnp.workspace(f"O{k}"), wnp.workspace(f"I{k}")
        with outer:
            await asyncio.sleep(0)
            with inner:
                tmp = wnp.ones(3)
                await asyncio.sleep(0)
                with outer.borrow():
                    kept = wnp.full(4, float(k))
                    await asyncio.sleep(0)
                    assert memory.current_workspace() == f"O{k}"
                    with wnp.scope_out():
                        free = wnp.ones(2)
                        await asyncio.sleep(0)
                        assert memory.current_workspace() is None
                    assert memory.current_workspace() == f"O{k}"
                assert memory.current_workspace() == f"I{k}" and tmp.workspace == f"I{k}"
            with pytest.raises(wnp.WorkspaceError):
                tmp.sum()
            assert kept.workspace == f"O{k}" and float(kept.sum()) == 4.0 * k
            assert memory.workspace_stack() == [("cycle", f"O{k}")]
        assert not free.is_attached()
        return k

    async def main():
        return await asyncio.gather(*(task(k) for k in range(10)))

    assert run(main()) == list(range(10))
    assert memory.workspace_stack() == []


def test_two_tasks_cannot_share_one_open_workspace():
    started = []

    async def first():
        with wnp.workspace("SHARED"):
            started.append(1)
            await asyncio.sleep(0.02)
            return float(wnp.ones(3).sum())

    async def second():
        await asyncio.sleep(0.005)
        assert started
        with pytest.raises(wnp.WorkspaceError, match="another context"):
            with wnp.workspace("SHARED"):
                pass
        return "refused"

    async def main():
        return await asyncio.gather(first(), second())

    assert run(main()) == [3.0, "refused"]
    assert memory.workspace_stack() == []


def test_a_child_task_inherits_but_cannot_close_its_creators_scope():
    async def main():
        ws = wnp.workspace("PARENT")
        with ws:
            async def child():
                a = wnp.ones(5)  # the inherited scope decides where the child allocates
                assert a.workspace == "PARENT"
                with pytest.raises(wnp.WorkspaceError, match="another context"):
                    ws.__exit__(None, None, None)
                assert ws.is_open  # nothing was closed
                return float(a.sum())

            assert await asyncio.create_task(child()) == 5.0
            assert memory.workspace_stack() == [("cycle", "PARENT")]
        assert not ws.is_open

    run(main())


def test_copied_contexts_have_independent_stacks():
    ws = wnp.workspace("CTX")
    ctx = contextvars.copy_context()
    with ws:
        assert ctx.run(memory.workspace_stack) == []  # copied before the scope opened
        assert ctx.run(lambda: wnp.ones(2).is_attached()) is False
        inside = contextvars.copy_context()  # copied while it is open: inherits it
        assert inside.run(memory.current_workspace) == "CTX"
        with pytest.raises(wnp.WorkspaceError, match="another context"):
            inside.run(ws.__exit__, None, None, None)
        assert ws.is_open
    assert inside.run(memory.workspace_stack) == []  # closed for every context that held it


def test_a_generator_resumed_inside_another_scope_closes_only_its_own():
    def gen():
        with wnp.workspace("GEN"):
            yield wnp.ones(2).workspace
            yield "done"

    g = gen()
    assert next(g) == "GEN"
    with wnp.workspace("CALLER") as caller:
        assert memory.current_workspace() == "CALLER"
        assert next(g) == "done"
        with pytest.raises(StopIteration):
            next(g)  # leaves GEN's block: GEN closes, CALLER stays open and current
        assert caller.is_open and memory.current_workspace() == "CALLER"
        assert float(wnp.ones(3).sum()) == 3.0
    assert memory.workspace_stack() == []


def test_isolated_gives_a_generator_its_own_context():
    def gen():
        with wnp.workspace("ISO"):
            for k in range(3):
                a = wnp.full(2, float(k))
                yield a.workspace, memory.current_workspace()

    seen = []
    with wnp.workspace("LOOP"):
        for where in wnp.isolated(gen()):
            seen.append(where)
            assert memory.current_workspace() == "LOOP"  # the generator's scope stays in it
            assert wnp.ones(1).workspace == "LOOP"
    assert seen == [("ISO", "ISO")] * 3
    assert memory.workspace_stack() == []
    assert not wnp.workspace("ISO").is_open

    @wnp.isolated
    def decorated():
        with wnp.workspace("ISO2"):
            yield memory.current_workspace()

    assert list(decorated()) == ["ISO2"]
    assert memory.workspace_stack() == []


def test_a_generator_finished_on_another_thread_closes_nothing_there():
    def gen():
        with wnp.workspace("T1GEN"):
            yield 1
            yield 2

    g = gen()
    assert next(g) == 1  # entered on this thread
    outcome = {}

    def other():
        with wnp.workspace("T2OWN") as own:
            try:
                for _ in g:
                    pass
            except wnp.WorkspaceError as e:
                outcome["error"] = str(e)
            outcome["own_open"] = own.is_open
            outcome["current"] = memory.current_workspace()
            outcome["stack"] = memory.workspace_stack()
        memory.destroy_all_workspaces_for_current_thread()

    t = threading.Thread(target=other)
    t.start()
    t.join(30)
    assert "another thread" in outcome["error"] and "Nothing was closed" in outcome["error"]
    assert outcome["own_open"] and outcome["current"] == "T2OWN"
    assert outcome["stack"] == [("cycle", "T2OWN")]
    # The generator's scope is still open here, where it was opened; close it properly.
    assert memory.workspace_stack() == [("cycle", "T1GEN")]
    wnp.workspace("T1GEN").__exit__(None, None, None)
    assert memory.workspace_stack() == []


def _suspended_in(scope):
    """A generator suspended inside ``with scope:``, with an array it made there; only a reference
    cycle holds it, so the garbage collector finalizes it wherever it runs."""
    def gen():
        with scope:
            yield wnp.ones(3)
            yield None

    g = gen()
    made = next(g)
    cycle = [g]
    cycle.append(cycle)
    return made


@pytest.mark.parametrize("where", ["another thread", "another context", "close() on another thread"])
def test_a_suspended_generator_finalized_elsewhere_closes_its_scope_for_its_thread(where):
    import gc

    def gen():
        with wnp.workspace("GCGEN"):
            yield wnp.ones(3)
            yield None

    g = gen()
    made = next(g)
    assert memory.workspace_stack() == [("cycle", "GCGEN")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing "ignored" in a finalizer
        if where == "close() on another thread":
            t = threading.Thread(target=g.close)
        else:
            cycle = [g]  # only a reference cycle holds it: the collector finalizes it where it runs
            cycle.append(cycle)
            del g, cycle
            if where == "another thread":
                t = threading.Thread(target=gc.collect)
            else:
                async def collect():
                    gc.collect()
                t = threading.Thread(target=lambda: None)
                asyncio.run(collect())
        t.start()
        t.join(30)
    assert not wnp.workspace("GCGEN").is_open  # the owner closed it before looking
    with wnp.workspace("GCGEN"):  # and it can be entered again at once
        pass
    assert memory.workspace_stack() == []
    assert wnp.ones(2).workspace is None  # later arrays are plain again
    with pytest.raises(wnp.WorkspaceError, match="GCGEN"):
        made.sum()  # its cycle ended
    memory.destroy_all_workspaces_for_current_thread()  # nothing is left open


def test_a_worker_threads_generator_closed_by_the_main_thread_is_closed_for_the_worker():
    box, ready, closed = {}, threading.Event(), threading.Event()

    def gen():
        with wnp.workspace("WORKERGEN"):
            yield wnp.ones(2)

    def worker():
        g = gen()
        box["made"], box["gen"] = next(g), g
        ready.set()
        closed.wait(30)
        box["stack"] = memory.workspace_stack()  # the worker closes the handed-over scope here
        try:
            box["made"].sum()
        except wnp.WorkspaceError as e:
            box["stale"] = str(e)
        box["after"] = wnp.ones(1).workspace

    t = threading.Thread(target=worker)
    t.start()
    ready.wait(30)
    box.pop("gen").close()  # GeneratorExit on the main thread: handed to the worker
    closed.set()
    t.join(30)
    assert box["stack"] == [] and "WORKERGEN" in box["stale"] and box["after"] is None


def test_a_generator_that_outlives_its_thread_closes_quietly():
    box = {}

    def worker():
        def gen(scope):
            with scope:
                yield 1

        for scope in (wnp.workspace("OUTLIVED"), wnp.scope_out()):
            g = gen(scope)
            next(g)
            box.setdefault("gens", []).append(g)

    t = threading.Thread(target=worker)
    t.start()
    t.join(30)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for g in box.pop("gens"):
            g.close()  # its thread ended its cycle: nothing to close, no error
    assert memory.workspace_stack() == []


def test_a_scope_out_of_a_generator_finalized_on_another_thread_is_closed():
    import gc

    with wnp.workspace("HOLDER"):
        _suspended_in(wnp.scope_out())
        assert wnp.ones(1).workspace is None
        t = threading.Thread(target=gc.collect)
        t.start()
        t.join(30)
        assert wnp.ones(1).workspace == "HOLDER"  # the scope_out no longer decides
        assert memory.workspace_stack() == [("cycle", "HOLDER")]
    assert memory.workspace_stack() == []


def test_a_copied_context_run_on_another_thread_sees_no_scopes():
    with wnp.workspace("HOME"):
        ctx = contextvars.copy_context()
        box = {}

        def other():
            box["stack"] = ctx.run(memory.workspace_stack)
            box["attached"] = ctx.run(lambda: wnp.ones(2).is_attached())

        t = threading.Thread(target=other)
        t.start()
        t.join(30)
    assert box == {"stack": [], "attached": False}


def test_scope_identities_are_unique_across_threads():
    """Every thread numbered its scopes from 1: an id from one thread closed another's scope."""
    handles = {}
    errors = []
    barrier = threading.Barrier(3)

    def worker(k):
        try:
            h = wnp.workspace(f"U{k}")
            h.__enter__()
            handles[k] = h
            barrier.wait(10)
            barrier.wait(10)  # the main thread tries to close the other's scope in between
            assert memory.workspace_stack() == [("cycle", f"U{k}")]
            h.__exit__(None, None, None)
        except BaseException as e:  # noqa: BLE001 - reported to the main thread
            errors.append(e)
        finally:
            memory.destroy_all_workspaces_for_current_thread()

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    barrier.wait(10)
    scope = wnp.scope_out()
    with scope:
        for h in handles.values():
            with pytest.raises(wnp.WorkspaceError, match="another thread"):
                h.__exit__(None, None, None)
        assert memory.workspace_stack() == [("scope_out", None)]
    barrier.wait(10)
    for t in threads:
        t.join(30)
    assert not errors, errors
