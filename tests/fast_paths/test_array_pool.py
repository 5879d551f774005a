"""The pool of dead Arrays (src/python/results/array_object.cpp): every reference and weak reference
balanced, Python code that runs while an Array is destroyed (and makes or frees Arrays itself),
more Arrays than the pool holds, and interpreter exit."""

import subprocess
import sys
import weakref

import numpy

import wsarray as wa

POOL_CAPACITY = 512  # ArrayPool::kCapacity


def type_references():
    # Counted outside the assert statement: pytest's rewritten asserts keep their operands.
    return sys.getrefcount(wa.Array)


def test_arrays_made_and_freed_leave_the_type_references_balanced():
    warm = [wa.zeros(3) for _ in range(10)]
    del warm
    base = type_references()
    alive = [wa.zeros(3) for _ in range(3 * POOL_CAPACITY)]  # more than the pool holds
    count = type_references()
    assert count - base == len(alive)
    del alive
    count = type_references()
    assert count == base
    for _ in range(5000):
        x = wa.ones(2) * 2.0 + wa.arange(2)[1:].sum()
    del x
    count = type_references()
    assert count == base


def test_weak_references_die_with_the_array_and_stay_dead_when_it_is_reused():
    died = []
    a = wa.zeros(4)
    ref = weakref.ref(a, died.append)
    del a
    assert ref() is None and died == [ref]
    again = [wa.zeros(4) for _ in range(10)]  # one of them reuses the dead Array's object
    assert ref() is None and all(r.tolist() == [0.0] * 4 for r in again)


class MakesArraysWhenCollected:
    def __init__(self, drop):
        self.drop = drop  # Arrays to let go of while the owner is being destroyed
        self.made = None

    def __del__(self):
        self.drop.clear()
        self.made = [wa.zeros(2) + i for i in range(20)]
        MakesArraysWhenCollected.last = self.made


def test_python_code_run_while_an_array_is_destroyed_can_make_and_free_arrays():
    # The pool is full by the time the outer Array's destructor ends (its element's __del__ frees
    # Arrays): the outer one then goes back to nanobind instead.
    for dropped_inside in (1, 3 * POOL_CAPACITY):
        base = type_references()
        drop = [wa.zeros(1) for _ in range(dropped_inside)]
        filler = [wa.zeros(1) for _ in range(2 * POOL_CAPACITY)]
        owner = wa.asarray(numpy.array([MakesArraysWhenCollected(drop)], dtype=object))
        del filler  # the pool is full now, save the one `owner` came from
        del owner
        made = MakesArraysWhenCollected.last
        assert [m.tolist() for m in made] == [[float(i)] * 2 for i in range(20)]
        del made, MakesArraysWhenCollected.last
        count = type_references()
        assert count == base
        assert float(wa.ones(3).sum()) == 3.0


def test_arrays_made_and_freed_at_interpreter_exit():
    code = """
import atexit, wsarray as wa
kept = [wa.zeros(3) for _ in range(1000)]
del kept[::2]
class Late:
    def __del__(self):
        print(float((wa.ones(3) * 2).sum()))
late = Late()
atexit.register(lambda: print(float(wa.arange(4)[1:].sum())))
"""
    done = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["6.0", "6.0"] and done.stderr == ""
