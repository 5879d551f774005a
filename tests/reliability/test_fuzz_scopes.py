"""Random sequences of workspace operations checked against a plain Python model of the stacks.

Actors are `contextvars` contexts (what an asyncio task or `ctx.run` gives; a generator runs in its
caller's): each has its own stack of scopes and may copy itself (a new task inheriting its
creator's scopes). Operations: enter, exit (in or out of order, from the right or a wrong
context), borrow, scope_out, destroy, allocate (the array must land where the model says), touch
an older array (valid exactly while the model says), copy a context, and a callback into Python
during a wsarray call that itself enters, exits or destroys. Several threads run their own
sequences at once. After every operation the actor's `workspace_stack()` and
`current_workspace()` must equal the model's.

`WSARRAY_SCOPE_FUZZ_SEED` picks the seed (CI: fixed seeds), `WSARRAY_SCOPE_FUZZ_OPS` the count.
"""
import collections
import contextvars
import os
import random
import threading

import numpy as np
import pytest

import wsarray as wnp
from wsarray import memory

OPS = int(os.environ.get("WSARRAY_SCOPE_FUZZ_OPS", "100000"))
SEED = int(os.environ.get("WSARRAY_SCOPE_FUZZ_SEED", "0" if os.environ.get("CI") else
                          str(random.randrange(1 << 30))))
NAMES = ["A", "B", "C", "D", "E", "F"]


class MFrame:
    def __init__(self, kind, ws, ctx_id, serial):
        self.kind, self.ws, self.ctx_id, self.serial, self.open = kind, ws, ctx_id, serial, True


class MWorkspace:
    def __init__(self, name, handle):
        self.name, self.handle = name, handle
        self.alive, self.frame, self.serial, self.generation = True, None, 0, 1


class Model:
    """The expected state of one thread's workspaces and of its actors' stacks."""

    def __init__(self):
        self.ws = {}  # name -> MWorkspace (alive ones)
        self.stacks = {}  # actor id -> list of MFrame, bottom first

    def live(self, f):
        if not f.open:
            return False
        if f.kind == "scope_out":
            return True
        w = f.ws
        return w.alive and w.frame is not None and w.serial == f.serial

    def live_frames(self, actor):
        return [f for f in self.stacks[actor] if self.live(f)]

    def target(self, actor):
        frames = self.live_frames(actor)
        if not frames or frames[-1].kind == "scope_out":
            return None
        return frames[-1].ws.name

    def shown_stack(self, actor):
        return [(f.kind, f.ws.name if f.ws else None) for f in self.live_frames(actor)]


def refused(fuzzer, what, match):
    fuzzer.counts["refused: " + what] += 1
    return pytest.raises(wnp.WorkspaceError, match=match)


class Fuzzer:
    def __init__(self, seed, thread_tag):
        self.rng = random.Random(seed)
        self.tag = thread_tag
        self.model = Model()
        self.actors = {}  # actor id -> contextvars.Context
        self.next_actor = 0
        self.arrays = []  # (Array, MWorkspace, generation at allocation)
        self.scopes = {}  # actor id -> list of (scope object, MFrame) for borrows / scope_outs
        self.counts = collections.Counter()  # what happened, for the report
        self.new_actor(contextvars.Context(), [])

    def new_actor(self, ctx, frames):
        aid = self.next_actor
        self.next_actor += 1
        self.actors[aid] = ctx
        self.model.stacks[aid] = list(frames)
        self.scopes[aid] = []
        return aid

    def name(self, n):
        return f"{self.tag}{n}"

    # -- operations: each returns nothing and raises AssertionError on a mismatch ---------------
    def op_enter(self, actor):
        n = self.rng.choice(NAMES)
        m = self.model
        w = m.ws.get(n)
        if w is None:
            w = m.ws[n] = MWorkspace(n, wnp.workspace(self.name(n)))
        if w.frame is not None:
            with refused(self, "already", "already"):
                self.actors[actor].run(w.handle.__enter__)
            return
        self.actors[actor].run(w.handle.__enter__)
        w.serial += 1
        f = MFrame("cycle", w, actor, w.serial)
        w.frame = f
        m.stacks[actor].append(f)

    def op_exit(self, actor):
        m = self.model
        opened = [w for w in m.ws.values() if w.frame is not None]
        if not opened or self.rng.random() < 0.05:
            closed = [w for w in m.ws.values() if w.frame is None]
            if closed:
                w = self.rng.choice(closed)
                with refused(self, "no open cycle", "no open cycle"):
                    self.actors[actor].run(w.handle.__exit__, None, None, None)
            return
        w = self.rng.choice(opened)
        f = w.frame
        if f.ctx_id in self.actors and self.rng.random() < 0.8:
            actor = f.ctx_id  # mostly the right context closes it; else a refused attempt
        if f.ctx_id != actor:
            with refused(self, "another context", "another context"):
                self.actors[actor].run(w.handle.__exit__, None, None, None)
            return
        self.actors[actor].run(w.handle.__exit__, None, None, None)
        f.open = False
        w.frame = None
        w.generation += 1
        m.stacks[actor] = [g for g in m.stacks[actor] if g is not f and g.open and
                           not (g.kind == "borrow" and g.ws is w)]
        return actor

    def op_borrow(self, actor):
        m = self.model
        n = self.rng.choice(NAMES)
        w = m.ws.get(n)
        if w is None:
            return
        scope = w.handle.borrow()
        visible = any(f.kind == "cycle" and f.ws is w for f in m.live_frames(actor))
        if not visible:
            with refused(self, "no open cycle", "no open cycle"):
                self.actors[actor].run(scope.__enter__)
            return
        self.actors[actor].run(scope.__enter__)
        f = MFrame("borrow", w, actor, w.serial)
        m.stacks[actor].append(f)
        self.scopes[actor].append((scope, f))

    def op_scope_out(self, actor):
        scope = wnp.scope_out()
        self.actors[actor].run(scope.__enter__)
        f = MFrame("scope_out", None, actor, 0)
        self.model.stacks[actor].append(f)
        self.scopes[actor].append((scope, f))

    def op_leave_scope(self, actor):
        # Leave a borrow / scope_out this actor (or, sometimes, another actor) opened.
        owner = actor if self.rng.random() < 0.8 else self.rng.choice(list(self.actors))
        if not self.scopes[owner]:
            return
        scope, f = self.scopes[owner].pop(self.rng.randrange(len(self.scopes[owner])))
        if not f.open:
            return
        if f.ctx_id != actor:
            with refused(self, "another context", "another context"):
                self.actors[actor].run(scope.__exit__, None, None, None)
            return
        self.actors[actor].run(scope.__exit__, None, None, None)
        f.open = False
        self.model.stacks[actor] = [g for g in self.model.stacks[actor] if g is not f and g.open]

    def op_destroy(self, actor):
        m = self.model
        n = self.rng.choice(NAMES)
        w = m.ws.get(n)
        if w is None:
            with refused(self, "no workspace named", "no workspace named"):
                self.actors[actor].run(memory.destroy_workspace, self.name(n))
            return
        if w.frame is not None:
            with refused(self, "in use", "in use"):
                self.actors[actor].run(memory.destroy_workspace, self.name(n))
            return
        how = self.rng.choice(["memory", "handle"])
        self.actors[actor].run(memory.destroy_workspace if how == "memory" else
                               (lambda _: w.handle.destroy()), self.name(n))
        w.alive = False
        del m.ws[n]

    def op_allocate(self, actor):
        a = self.actors[actor].run(wnp.ones, self.rng.choice([1, 7, 100, 5000]))
        expected = self.model.target(actor)
        assert a.workspace == (self.name(expected) if expected else None), (a.workspace, expected)
        if expected:
            w = self.model.ws[expected]
            self.arrays.append((a, w, w.generation))
            if len(self.arrays) > 50:
                self.arrays.pop(0)

    def op_touch(self, actor):
        if not self.arrays:
            return
        a, w, gen = self.rng.choice(self.arrays)
        valid = w.alive and w.generation == gen and w.frame is not None
        if valid:
            assert float(self.actors[actor].run(a.sum)) == a.size
        else:
            with pytest.raises(wnp.WorkspaceError):
                self.actors[actor].run(a.sum)

    def op_copy_context(self, actor):
        if len(self.actors) >= 6:
            # Mostly an actor that owns no open cycle goes (a finished task); sometimes any one
            # (a task cancelled inside its 'with' blocks, whose copies may outlive it).
            others = [k for k in self.actors if k != actor]
            idle = [k for k in others if not any(f.open and f.kind == "cycle" and f.ctx_id == k
                                                 for f in self.model.stacks[k])]
            victim = self.rng.choice(idle if idle and self.rng.random() < 0.9 else others)
            # An actor that goes away: a cycle it opened and nobody can close any more ends when
            # its context is collected (as when an asyncio task finishes inside a 'with').
            ctx = self.actors.pop(victim)
            stack = self.model.stacks.pop(victim)
            self.scopes.pop(victim)
            del ctx
            still_held = {id(f) for s in self.model.stacks.values() for f in s}
            for f in stack:
                if f.kind == "cycle" and f.open and id(f) not in still_held:
                    f.open = False
                    f.ws.frame = None
                    f.ws.generation += 1
            for k in self.model.stacks:
                self.model.stacks[k] = [f for f in self.model.stacks[k] if f.open]
            return
        ctx = self.actors[actor].run(contextvars.copy_context)
        self.new_actor(ctx, self.model.stacks[actor])

    def op_callback(self, actor):
        """A Python callback during a wsarray call runs another operation of this actor."""
        m = self.model
        target = m.target(actor)
        w = m.ws.get(target) if target else None
        serial_before = w.serial if w else None
        sub = self.rng.choice([self.op_enter, self.op_exit, self.op_destroy, self.op_allocate])
        done = []
        fuzzer = self

        class E:
            def __add__(self, other):
                if not done:
                    done.append(1)
                    # Inside the call: the actor's context is current already.
                    ctx = fuzzer.actors[actor]
                    fuzzer.actors[actor] = _Current()
                    try:
                        sub(actor)
                    finally:
                        fuzzer.actors[actor] = ctx
                return 1

            __radd__ = __add__

        def call():
            return wnp.add(np.array([E(), E()], dtype=object), 1)

        lost = None
        try:
            r = self.actors[actor].run(call)
        except wnp.WorkspaceError as e:
            lost = str(e)
            self.counts["callback: results lost"] += 1
        if w is not None and (not w.alive or w.serial != serial_before or w.frame is None):
            assert lost and ("while this call ran" in lost or "cannot allocate" in lost), lost
        else:
            assert lost is None, lost
            assert r.workspace == (self.name(target) if target else None)

    def check(self, actor):
        ctx = self.actors[actor]
        stack = ctx.run(memory.workspace_stack)
        expected = [(k, self.name(n) if n else None) for k, n in self.model.shown_stack(actor)]
        assert stack == expected, (stack, expected)
        cur = ctx.run(memory.current_workspace)
        t = self.model.target(actor)
        assert cur == (self.name(t) if t else None), (cur, t)

    def run(self, n_ops):
        ops = [(self.op_enter, 6), (self.op_exit, 6), (self.op_borrow, 2), (self.op_scope_out, 2),
               (self.op_leave_scope, 4), (self.op_destroy, 2), (self.op_allocate, 6),
               (self.op_touch, 4), (self.op_copy_context, 1), (self.op_callback, 1)]
        funcs = [f for f, w in ops for _ in range(w)]
        history = []
        for i in range(n_ops):
            actor = self.rng.choice(list(self.actors))
            op = self.rng.choice(funcs)
            history.append(f"{op.__name__}({actor})")
            self.counts[op.__name__] += 1
            try:
                self.check(op(actor) or actor)
            except (AssertionError, pytest.fail.Exception, wnp.WorkspaceError) as e:
                raise AssertionError(f"seed {SEED}, thread {self.tag}, op {i} {op.__name__} "
                                     f"(actor {actor}): {e}; last operations: "
                                     f"{' '.join(history[-25:])}") from e
        self.cleanup()

    def cleanup(self):
        # Close everything still open, in the contexts that opened it, then destroy.
        for aid in list(self.actors):
            for scope, f in reversed(self.scopes[aid]):
                if f.open:
                    self.actors[aid].run(scope.__exit__, None, None, None)
                    f.open = False
        for w in self.model.ws.values():
            if w.frame is not None and w.frame.ctx_id in self.actors:
                self.actors[w.frame.ctx_id].run(w.handle.__exit__, None, None, None)
        self.actors.clear()
        memory.destroy_all_workspaces_for_current_thread()


class _Current:
    """Stands for "the context running now" (inside a callback, already the actor's)."""

    @staticmethod
    def run(f, *args):
        return f(*args)


def test_scope_fuzz_against_a_model():
    """At least 100,000 random operations per run, over three threads at once."""
    per_thread = OPS // 3
    errors = []

    def worker(k):
        try:
            Fuzzer(SEED * 31 + k, f"T{k}_").run(per_thread)
        except BaseException as e:  # noqa: BLE001 - reported to the main thread
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    try:
        Fuzzer(SEED * 31 + 2, "M_").run(OPS - 2 * per_thread)
    finally:
        for t in threads:
            t.join(600)
    assert not any(t.is_alive() for t in threads), "a fuzz thread hung"
    if errors:
        raise errors[0]
    assert memory.workspace_stack() == []


def test_asyncio_tasks_with_random_nested_scopes():
    """Tasks open random nested scopes (cycles, borrows, scope-outs) around awaits; at every step
    each task's allocations must land in its own innermost scope, whatever the others do."""
    import asyncio

    rng = random.Random(SEED)

    async def task(k, steps):
        names = [f"AT{k}_{i}" for i in range(3)]
        stack = []  # (kind, name) as the task sees it

        async def body(depth):
            for _ in range(steps):
                r = rng.random()
                if r < 0.3 and depth < 4:
                    free = [n for n in names if ("cycle", n) not in stack]
                    if free:
                        n = rng.choice(free)
                        with wnp.workspace(n):
                            stack.append(("cycle", n))
                            await body(depth + 1)
                            stack.pop()
                        continue
                if r < 0.4 and depth < 4 and any(kd == "cycle" for kd, _ in stack):
                    n = rng.choice([n for kd, n in stack if kd == "cycle"])
                    with wnp.workspace(n).borrow():
                        stack.append(("borrow", n))
                        await body(depth + 1)
                        stack.pop()
                    continue
                if r < 0.45 and depth < 4:
                    with wnp.scope_out():
                        stack.append(("scope_out", None))
                        await body(depth + 1)
                        stack.pop()
                    continue
                if r < 0.75:
                    await asyncio.sleep(0)
                a = wnp.ones(4)
                expected = stack[-1][1] if stack and stack[-1][0] != "scope_out" else None
                assert a.workspace == expected, (k, stack, a.workspace)
                assert memory.workspace_stack() == stack, (k, stack)
                if depth:
                    return

        await body(0)
        return k

    async def main():
        return await asyncio.gather(*(task(k, 40) for k in range(12)))

    assert asyncio.run(main()) == list(range(12))
    assert memory.workspace_stack() == []
