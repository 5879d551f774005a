"""Worker threads that each own a workspace, shared by the pools of wsarray.parallel.

A worker is a daemon thread (a forgotten pool never blocks interpreter exit) bound to a device. It
creates its workspace before it reports ready, so a bad ``WorkspaceConfig`` fails the pool's
constructor instead of the first request, runs the pool's ``serve(worker, workspace)`` loop, and
destroys every workspace of its thread when it stops, however it stops. A worker that dies of an
error outside the model (a bug) records it and re-raises it, so ``threading.excepthook`` reports
it: workers never die silently. Pools still open at interpreter exit are stopped by an atexit
hook, which waits a bounded time for running batches. In a child made by ``fork()`` the workers
do not exist: pools inherited there are closed, and their requests fail with a clear error.
"""

import atexit
import itertools
import os
import threading
import time
import weakref

from .. import memory
from .._interrupts import GateEvent, shielded
from .._workspaces import workspace
from ._queue import POLL_S

SUPPORTED_DEVICES = ("cpu",)
EXIT_JOIN_S = 2.0  # how long interpreter exit waits for running batches, in all


def parse_devices(devices, workers, who):
    """One device per worker, assigned round-robin from ``devices`` (default: the CPU)."""
    if devices is None:
        devices = SUPPORTED_DEVICES[:1]
    elif isinstance(devices, str):
        devices = (devices,)
    else:
        devices = tuple(devices)
    if not devices:
        raise ValueError(f"{who}: devices must name at least one device")
    for d in devices:
        if not isinstance(d, str):
            raise TypeError(f"{who}: a device must be a str such as 'cpu', not {type(d).__name__}")
        if d not in SUPPORTED_DEVICES:
            raise ValueError(f"{who}: device {d!r} is not supported; workers run on "
                             f"{', '.join(map(repr, SUPPORTED_DEVICES))} in this version")
    return [devices[i % len(devices)] for i in range(workers)]


class Worker:
    """One worker thread's identity, counters and latest workspace statistics."""

    def __init__(self, index, device, thread_name):
        self.index = index
        self.device = device
        self.thread_name = thread_name
        self.thread = None
        # Gates, which a Ctrl-C on a waiting thread cannot break (wsarray/_interrupts.py).
        self.ready = GateEvent()
        # Set as the thread's last step. Thread.is_alive() cannot be trusted after a join() that
        # Ctrl-C interrupted (CPython marks the thread stopped while it still runs).
        self.stopped = GateEvent()
        self.start_error = None
        self.error = None          # what killed it, if anything but a normal stop did
        self.batches = self.requests = self.rows = 0
        self.busy_s = 0.0
        self.workspace_stats = None

    def counters(self):
        return {"worker": self.index, "device": self.device, "thread": self.thread_name,
                "alive": self.thread is not None and not self.stopped.is_set(),
                "batches": self.batches, "requests": self.requests, "rows": self.rows,
                "busy_s": self.busy_s, "workspace": self.workspace_stats}


def _worker_main(worker, workspace_name, workspace_config, serve, on_exit):
    try:
        try:
            ws = workspace(workspace_name, workspace_config)
            worker.workspace_stats = ws.stats()
        except BaseException as e:  # noqa: BLE001 - handed to the constructor, which raises it
            worker.start_error = e
            return
        finally:
            worker.ready.set()
        serve(worker, ws)
    except BaseException as e:
        worker.error = e
        raise  # reported by threading.excepthook
    finally:
        try:
            memory.destroy_all_workspaces_for_current_thread()
        except Exception as e:  # noqa: BLE001 - a scope the model left open; report, go on
            worker.error = worker.error or e
        try:
            on_exit(worker)
        finally:
            worker.stopped.set()


def start_workers(workers, workspace_name, workspace_config, serve, on_exit):
    """Start one daemon thread per ``Worker`` and wait until each has its workspace; returns the
    first start-up error (the caller stops the others and raises it), or None. The threads are
    started on the interrupt shield (wsarray/_interrupts.py): a Ctrl-C meanwhile interrupts the
    wait, never a start half done."""
    shielded(_start_threads, workers, workspace_name, workspace_config, serve, on_exit)
    for w in workers:
        while not w.ready.wait(POLL_S):
            pass
    return next((w.start_error for w in workers if w.start_error is not None), None)


def _start_threads(workers, workspace_name, workspace_config, serve, on_exit):
    for i, w in enumerate(workers):
        thread = threading.Thread(
            target=_worker_main, name=w.thread_name, daemon=True,
            args=(w, workspace_name, workspace_config, serve, on_exit))
        try:
            thread.start()
        except BaseException:  # no thread left to start: these workers count as stopped
            for never in workers[i:]:
                never.ready.set()
                on_exit(never)
                never.stopped.set()
            raise
        w.thread = thread


def join_workers(workers, timeout=None):
    """Wait for ``workers`` to stop, waking every POLL_S (Ctrl-C stays responsive); True when
    all have stopped, False when ``timeout`` seconds passed first. A worker calling this (a model
    that shuts its own pool down) is not waited for: it stops once its call returns."""
    deadline = None if timeout is None else time.monotonic() + timeout
    me = threading.current_thread()
    for w in workers:
        if w.thread is None or w.thread is me:
            continue
        while not w.stopped.is_set():
            wait = POLL_S
            if deadline is not None:
                wait = min(wait, deadline - time.monotonic())
                if wait <= 0:
                    return False
            w.stopped.wait(wait)
        w.thread.join(POLL_S)  # it has only to return now
    return True


_open_pools = weakref.WeakSet()
_pool_numbers = itertools.count()


def next_pool_number():
    """A number for a new pool's thread names (``...-<pool>_<worker>``, as ThreadPoolExecutor)."""
    return next(_pool_numbers)


def stop_at_exit(pool):
    """Have ``pool.stop_at_exit(seconds)`` called at interpreter exit if it is still open, and
    ``pool.after_fork_in_child()`` in a forked child."""
    _open_pools.add(pool)


def _stop_open_pools():
    deadline = time.monotonic() + EXIT_JOIN_S
    for pool in list(_open_pools):
        pool.stop_at_exit(max(0.0, deadline - time.monotonic()))


def _close_pools_in_forked_child():
    for pool in list(_open_pools):
        pool.after_fork_in_child()


atexit.register(_stop_open_pools)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_pools_in_forked_child)
