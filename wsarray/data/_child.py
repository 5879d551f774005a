"""What every worker process of wsarray does first and how it serves its owner (wsarray.data's
batch workers, wsarray.parallel's model replicas).

``begin(close_fds)``: freeze the inherited heap (``gc.freeze()``: the worker's collections then
scan only what it makes, and never write to pages inherited from a forked owner), ignore SIGINT
(the owner decides when workers stop; a terminal's Ctrl-C reaches the whole process group), and
close the owner's ends of the channels a fork inherited (so that the worker sees end-of-file
when its owner is gone). ``serve(conn, owner_pid, handle)``: answer each message with
``handle(message)`` (None: no answer) until "stop", the pipe's end, or the owner's death (its
parent process changed). ``pickled_error(e)``: an exception as bytes the owner can raise;
``unpickled_error(data, traceback_text, where)``, on the owner's side, the exception again, with a
note saying where it was raised and the worker's traceback.
"""

import gc
import os
import pickle
import signal
import traceback
from multiprocessing.reduction import ForkingPickler

POLL_S = 0.5  # how often an idle worker checks that its owner is alive


def begin(close_fds):
    gc.freeze()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for fd in close_fds:
        try:
            os.close(fd)
        except OSError:
            pass


def serve(conn, owner_pid, handle, error_reply):
    """Answer the owner's messages with ``handle`` until told to stop or orphaned. A reply that
    does not pickle (a lambda, a lock among the values that are not arrays) is answered with
    ``error_reply(reply, error, traceback_text)`` instead: the owner raises it, naming the value,
    and the worker lives on (it exited, and only its stderr said why)."""
    while True:
        try:
            if not conn.poll(POLL_S):
                if os.getppid() != owner_pid:
                    return
                continue
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message[0] == "stop":
            return
        reply = handle(message)
        if reply is None:
            continue
        try:
            data = ForkingPickler.dumps(reply)  # as Connection.send() pickles
        except Exception as e:  # noqa: BLE001 - any failure to pickle: raised at the owner instead
            error = TypeError(f"a value in the worker's result cannot be sent to the owner process "
                              f"({type(e).__name__}: {e}); values that are not arrays must pickle")
            data = ForkingPickler.dumps(error_reply(reply, error, traceback.format_exc()))
        try:
            conn.send_bytes(data)
        except OSError:
            return


def pickled_error(error):
    try:
        return pickle.dumps(error)
    except Exception:  # noqa: BLE001 - an exception that does not pickle goes as its text
        return pickle.dumps(RuntimeError(f"{type(error).__name__}: {error}"))


def unpickled_error(data, traceback_text, where):
    """The worker's exception (``pickled_error``'s bytes) with a note: ``where`` and its traceback."""
    try:
        error = pickle.loads(data)
    except Exception as e:  # noqa: BLE001 - an exception class the owner cannot rebuild
        error = RuntimeError(f"an exception that could not be unpickled here ({e})")
    if hasattr(error, "add_note"):
        error.add_note(f"(raised in {where}; the worker's traceback:\n{traceback_text.rstrip()})")
    return error
