"""Waiting and changing shared state where a signal handler cannot split it.

Python runs signal handlers (Ctrl-C's KeyboardInterrupt, a handler that raises) only on the main
thread, between bytecodes: after any call returns, at the start of any Python function. A handler
that raises in the middle of ``threading.Condition.wait()`` leaves its lock released or held when
the code around it assumes the opposite; one that raises between two steps of an update leaves it
half done. wsarray's blocking APIs (ParallelInference, AsyncIterator, ParallelWrapper) are built
from three things that cannot be split:

* ``Gate`` (``wsarray._native.Gate``): an event whose set/clear/wait are one C++ call each; its wait
  ends with a handler's exception and leaves the gate as it was. Every wait of those APIs is a
  Gate's; ``GateEvent`` gives it ``threading.Event``'s names.
* ``start_thread(thread)``: ``Thread.start()`` waits on an Event for the thread to begin; with a
  GateEvent there, an interruption cannot stop the new thread from running (it would be blocked
  forever inside that Event), only the caller from waiting for it.
* ``shielded(fn, *args)``: ``fn`` runs at once, on the caller's thread, with the Python signal
  handlers held back until it returns (``wsarray._native.defer_signals``: on the main thread each
  Python handler is swapped for a recorder meanwhile; a signal that arrived is then handed to its
  handler, whose exception propagates after ``fn``'s change is whole). State changes that must
  happen together go in such an ``fn``; ``fn`` must not block (a Ctrl-C waits for it; waits stay
  with the caller, on Gates) nor set a signal handler (the originals are put back after it).
  Nested, or on another thread, ``fn`` just runs.
"""

import os

from . import _native
from ._native import Gate

__all__ = ["Gate", "GateEvent", "shielded", "start_thread"]


class GateEvent:
    """``threading.Event``'s interface over a Gate: set, clear, is_set, wait(timeout) -> bool."""

    __slots__ = ("_gate",)

    def __init__(self, gate=None):
        self._gate = Gate() if gate is None else gate

    def set(self):
        self._gate.set()

    def clear(self):
        self._gate.clear()

    def is_set(self):
        return self._gate.is_set()

    isSet = is_set  # noqa: N815  (threading.Event's old name, which Thread may call)

    def _at_fork_reinit(self):
        # threading calls it in a forked child (Event's name): a fresh gate in the same state.
        was_set = self._gate.is_set()
        self._gate = Gate()
        if was_set:
            self._gate.set()

    def wait(self, timeout=None):
        if self._gate.is_set():
            return True
        return self._gate.wait(None if timeout is None else max(float(timeout), 0.0))


def start_thread(thread):
    """``thread.start()``, waiting for it to begin on a Gate (see the module docstring)."""
    thread._started = GateEvent()  # what Thread.start() waits on and the new thread sets
    thread.start()


#: ``shielded(fn, *args)``: ``fn(*args)``, run where no signal handler can split it (see the
#: module docstring).
shielded = _native.defer_signals


def _after_fork_in_child():
    _native._gate_after_fork()  # the forking thread is the child's main thread
    _native._signals_after_fork()  # a fork inside a shielded call: the child's handlers back


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
