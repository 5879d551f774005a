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
* ``shielded(fn, *args)``: on the main thread, ``fn`` runs on a helper thread (the shield) while
  the caller waits on a Gate; if the caller is interrupted, ``fn`` still runs to its end there and
  the interruption propagates. State changes that must happen together go in such an ``fn``;
  ``fn`` must not block (waits stay with the caller, on Gates). Elsewhere ``fn`` runs at once.
"""

import _thread
import collections
import contextvars
import os
import threading

from . import _native
from ._native import Gate

__all__ = ["Gate", "GateEvent", "shielded", "shield_barrier", "start_thread", "on_main_thread", "on_shield"]


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


def on_main_thread():
    return _thread.get_ident() == _main_ident


_main_ident = threading.main_thread().ident


class _Job:
    __slots__ = ("fn", "args", "context", "done", "value", "error")

    def __init__(self, fn, args):
        self.fn, self.args = fn, args
        self.context = contextvars.copy_context()
        self.done = Gate()
        self.value = self.error = None


_jobs = collections.deque()
_wake = Gate()
_shields = []  # shield threads started (a start an interruption cut short may leave two: both serve)


def _serve():
    while True:
        _wake.wait()
        _wake.clear()
        while _jobs:
            try:
                job = _jobs.popleft()
            except IndexError:  # another shield took it
                break
            try:
                job.value = job.context.run(job.fn, *job.args)
            except BaseException as e:  # noqa: BLE001 - handed to the caller
                job.error = e
            job.done.set()
            # The caller holds the job now: this long-lived thread keeps nothing of it (its
            # function, arguments and context would otherwise live until the next job, or past
            # the interpreter's end).
            del job


def _ensure_shield():
    for thread in _shields:
        # Started, or its start() was interrupted: give it a moment to begin before another one
        # is started (two would both serve; a start cut short before the thread existed, none).
        if thread.is_alive() or thread._started.wait(0.5):
            return
    thread = threading.Thread(target=_serve, name="wsarray-interrupt-shield", daemon=True)
    _shields.append(thread)  # before it starts: an interrupted start is looked at above
    start_thread(thread)


def shielded(fn, *args):
    """``fn(*args)``, run where no signal handler can split it (see the module docstring)."""
    if _thread.get_ident() != _main_ident:
        return fn(*args)
    _ensure_shield()
    job = _Job(fn, args)
    _jobs.append(job)
    _wake.set()
    job.done.wait()
    if job.error is not None:
        error, job.error = job.error, None
        raise error
    return job.value


def shield_barrier():
    """Wait until every job handed to the shield before this call has run; from any thread but
    the shield's own. A stop must not run beside a start the shield is still making (a Ctrl-C that
    ends the caller's wait does not end the shield's job: the start would finish after the stop)."""
    if not _shields or threading.current_thread() in _shields:
        return
    job = _Job(lambda: None, ())
    _jobs.append(job)
    _wake.set()
    job.done.wait()


def on_shield():
    """True on a shield thread (a stop made there must not wait for the shield: it is busy)."""
    return threading.current_thread() in _shields


def _after_fork_in_child():
    # The shields do not exist here, and a lock of theirs may have been held at the fork: new ones.
    global _main_ident, _jobs, _wake
    _main_ident = _thread.get_ident()  # the forking thread is the child's main thread
    _native._gate_after_fork()
    _jobs = collections.deque()
    _wake = Gate()
    _shields.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
