"""wsarray._native._poke(fd): the process pipeline's wake-up of its dispatcher thread, one byte
written to a non-blocking pipe while the GIL stays held (os.write() would hand the GIL to the
thread it wakes). A full pipe, a pipe without reader and -1 (a pipeline already freed) are no
error: the reader is awake already, or gone."""
import os
import threading

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
