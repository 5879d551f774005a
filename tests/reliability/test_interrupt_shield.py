"""The interrupt shield (wsarray/_interrupts.py: calls run where no Ctrl-C can split them, on a
long-lived daemon thread) keeps nothing of a call once it returned: neither its function, its
arguments nor its result outlive it (they would otherwise live until the next call, or past the
interpreter's end, where nanobind reports the core's objects among them as leaked)."""
import gc
import subprocess
import sys
import weakref

from wsarray._interrupts import shielded


class Token:
    pass


def test_a_shielded_call_leaves_nothing_behind():
    arg, result = Token(), Token()
    seen = weakref.ref(arg), weakref.ref(result)
    assert shielded(lambda a, r: r, arg, result) is result
    del arg, result
    gc.collect()
    assert seen[0]() is None and seen[1]() is None


def test_the_interpreter_exits_without_leaked_core_objects_after_a_pipeline():
    code = ("import numpy\nfrom wsarray.data import AsyncIterator\n"
            "with AsyncIterator(iter([numpy.ones(10)] * 6), queue_size=2) as it:\n"
            "    for _ in it:\n        pass\n")
    proc = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "leaked" not in proc.stderr, proc.stderr
