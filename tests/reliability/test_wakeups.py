"""wsarray._native._poke(fd): the process pipeline's wake-up of its dispatcher thread, one byte
written to a non-blocking pipe while the GIL stays held (os.write() would hand the GIL to the
thread it wakes). A full pipe, a pipe without reader and -1 (a pipeline already freed) are no
error: the reader is awake already, or gone. And wsarray._native._open_gates(gates): the Gates of a
batch's callers opened together, with one release of the GIL for all their wake-ups."""
import os
import threading

import pytest

from wsarray import _native


def test_a_poke_writes_one_byte():
    r, w = os.pipe()
    try:
        os.set_blocking(w, False)
        _native._poke(w)
        _native._poke(w)
        assert os.read(r, 100) == b"xx"
    finally:
        os.close(r)
        os.close(w)


def test_a_full_pipe_a_pipe_without_reader_and_minus_one_are_no_error():
    r, w = os.pipe()
    os.set_blocking(w, False)
    try:
        while True:  # fill it
            os.write(w, b"\0" * 65536)
    except BlockingIOError:
        pass
    _native._poke(w)  # returns at once (non-blocking), the reader is woken already
    os.close(r)
    _native._poke(w)  # the reader is gone: EPIPE (SIGPIPE is ignored by Python)
    os.close(w)
    _native._poke(-1)  # what a freed pipeline holds (a closed number may belong to another file)


def test_a_poke_wakes_a_thread_waiting_on_the_pipe():
    r, w = os.pipe()
    os.set_blocking(w, False)
    got = []
    reader = threading.Thread(target=lambda: got.append(os.read(r, 1)))
    reader.start()
    _native._poke(w)
    reader.join(10)
    os.close(r)
    os.close(w)
    assert got == [b"x"]


# -- _open_gates: a batch's callers woken at once -------------------------------------------------

def test_open_gates_opens_every_gate_and_wakes_every_waiter():
    gates = [_native.Gate() for _ in range(6)]
    woken = []
    waiters = [threading.Thread(target=lambda g=g: woken.append(g.wait(10))) for g in gates[:4]]
    for t in waiters:
        t.start()
    _native._open_gates(gates)
    for t in waiters:
        t.join(10)
    assert woken == [True] * 4 and all(g.is_set() for g in gates)
    _native._open_gates([])  # nothing to do


def test_open_gates_refuses_anything_but_a_list_of_gates_and_opens_none_then():
    gates = [_native.Gate(), _native.Gate()]
    with pytest.raises(TypeError, match=r"_open_gates\(\): item 1 is a int, not a Gate"):
        _native._open_gates([gates[0], 1, gates[1]])
    assert not any(g.is_set() for g in gates)  # checked before any opens
    with pytest.raises(TypeError, match="expected a list of Gates, got tuple"):
        _native._open_gates(tuple(gates))
