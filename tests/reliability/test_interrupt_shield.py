"""The interrupt shield (wsarray/_interrupts.py: calls run where no Ctrl-C can split them, on a
long-lived daemon thread) keeps nothing of a call once it returned: neither its function, its
arguments nor its result outlive it (they would otherwise live until the next call, or past the
interpreter's end, where a sanitizer build's nanobind reports the core's objects among them as
leaked)."""
import gc
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


def test_the_shield_thread_holds_no_call_between_calls():
    import numpy
    import threading
    from wsarray.data import AsyncIterator
    with AsyncIterator(iter([numpy.ones(10)] * 6), queue_size=2) as it:  # closing it runs shielded calls
        for _ in it:
            pass
    shields = [t for t in threading.enumerate() if t.name == "wsarray-interrupt-shield"]
    assert shields, "the pipeline's close ran no shielded call"
    frames = sys._current_frames()
    for t in shields:
        frame = frames[t.ident]
        while frame is not None and frame.f_code.co_name != "_serve":
            frame = frame.f_back
        assert frame is not None and "job" not in frame.f_locals, frame and frame.f_locals.keys()
