"""The worker processes of AsyncIterator(backend="process"): start, talk to, watch, stop.

Each worker gets two inherited channels and nothing else: a pipe for tasks and answers (small
pickled tuples: indices, offsets, the batch's skeleton) and a socket pair over which the owner
passes the file descriptors of shared segments (SCM_RIGHTS). Neither is ever named or listening:
no other process can reach them. With the fork start method the child closes the owner's ends of
every channel it inherited, so that a worker sees end-of-file as soon as its owner is gone.

The owner mirrors each worker's cache of mapped segments (the same least-recently-used rule on
both sides), so it knows when a descriptor must be sent along with a task. A worker that dies is
seen through its process sentinel; ``stop()`` asks every worker to exit, then terminates and kills
what is left: no orphan process.
"""

import atexit
import collections
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import socket
import time
import weakref

from ._worker import main

MAX_SEGMENTS = 64  # shared segments a worker keeps mapped (least recently used go first)


class Worker:
    __slots__ = ("id", "process", "conn", "fdsock", "segments", "tasks", "pid")

    def __init__(self, wid, process, conn, fdsock):
        self.id, self.process, self.conn, self.fdsock = wid, process, conn, fdsock
        self.segments = collections.OrderedDict()  # the worker's mapped segments, mirrored
        self.tasks = set()                          # batch numbers it was given, not answered
        self.pid = process.pid

    def describe(self):
        return f"worker {self.id} (pid {self.pid})"


#: At interpreter exit, how long the processes of every pool still running get to exit when asked
#: before they are terminated, then killed (a replica inside a long model call, one that ignores
#: SIGTERM): multiprocessing's own exit handler, which runs after this one, would join them forever.
EXIT_GRACE_S = 2.0
_running_pools = weakref.WeakSet()


@atexit.register
def _stop_running_pools():
    deadline = time.monotonic() + EXIT_GRACE_S
    for pool in list(_running_pools):
        if pool.alive():
            pool.stop(max(0.0, deadline - time.monotonic()))


def _forget_parents_workers():
    """In a fork child: the parent's workers are not this process's children, but multiprocessing's
    list of children came along with the fork, and at this process's exit multiprocessing would
    terminate every daemon process on it (SIGTERM to the parent's workers) and try to join it."""
    children = getattr(multiprocessing.process, "_children", None)
    if children is None:
        return
    for pool in list(_running_pools):
        for w in pool.workers:
            if w is not None:
                children.discard(w.process)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_parents_workers)


class WorkerPool:
    """``count`` processes running ``target(spec, wid, conn, fdsock, close_fds)`` (by default the
    data pipeline's worker; wsarray.parallel's replicas use their own)."""

    def __init__(self, who, spec, count, start_method, target=main, name="wsarray-data-worker"):
        self.who = who
        self.spec = spec
        self.target, self.name = target, name
        self.start_method = start_method
        self.context = multiprocessing.get_context(start_method)
        self.workers = [None] * count
        self.restarts = 0
        self.pid = os.getpid()  # only this process may join its workers (a fork child may not)

    def start_all(self):
        for wid in range(len(self.workers)):
            self.start(wid)

    def start(self, wid):
        """Start worker ``wid`` (again, after it died)."""
        _running_pools.add(self)
        owner_conn, worker_conn = self.context.Pipe(duplex=True)
        owner_sock, worker_sock = socket.socketpair()
        close_fds = []
        if self.start_method == "fork":
            close_fds = [owner_conn.fileno(), owner_sock.fileno()]
            for w in self.workers:
                if w is not None:
                    close_fds += [w.conn.fileno(), w.fdsock.fileno()]
        process = self.context.Process(target=self.target, name=f"{self.name}-{wid}", daemon=True,
                                       args=(self.spec, wid, worker_conn, worker_sock, close_fds))
        try:
            process.start()
        except Exception as e:
            owner_conn.close()
            owner_sock.close()
            if isinstance(e, (pickle.PicklingError, TypeError, AttributeError)):
                raise TypeError(f"{self.who}: the dataset (and collate, worker_init_fn) must pickle to "
                                f"start workers with start_method={self.start_method!r}: {e}") from e
            raise
        finally:
            worker_conn.close()
            worker_sock.close()
        self.workers[wid] = Worker(wid, process, owner_conn, owner_sock)
        return self.workers[wid]

    def alive(self):
        return [w for w in self.workers if w is not None]

    def send(self, worker, message, segments=()):
        """Send ``message``; each of ``segments`` ((key, fd, offset, length), as SharedSlots gives
        them) whose descriptor the worker lacks is passed first."""
        mirror = worker.segments
        for key, fd, _, length in segments:
            if key not in mirror:
                socket.send_fds(worker.fdsock, [pickle.dumps((key, length))], [fd])
                mirror[key] = True
                while len(mirror) > MAX_SEGMENTS:
                    mirror.popitem(last=False)
            mirror.move_to_end(key)
        worker.conn.send(message)

    def forget(self, keys):
        """Every worker unmaps the segments ``keys`` (their memory is going away)."""
        for w in self.alive():
            mine = [k for k in keys if k in w.segments]
            if mine:
                for k in mine:
                    del w.segments[k]
                try:
                    w.conn.send(("forget", 0, mine))
                except OSError:
                    pass

    def wait_objects(self):
        """{object to wait on: (worker, "conn" | "sentinel")}."""
        out = {}
        for w in self.alive():
            out[w.conn] = (w, "conn")
            out[w.process.sentinel] = (w, "sentinel")
        return out

    def bury(self, worker):
        """Forget a dead worker (its process has exited): its channels are closed. One whose
        process has not exited yet (its channel failed first) is killed and reaped: forgotten
        alive, it would exit later unreaped (a zombie)."""
        worker.process.join(0)
        if worker.process.exitcode is None and os.getpid() == self.pid:
            worker.process.kill()
            worker.process.join(2.0)
        self._forget(worker)

    def _forget(self, worker):
        for channel in (worker.conn, worker.fdsock):
            try:
                channel.close()
            except OSError:
                pass
        if self.workers[worker.id] is worker:
            self.workers[worker.id] = None

    def stop(self, timeout):
        """Ask every worker to exit, then terminate and kill what is left. True if all are gone.
        In a forked child the workers are the parent's: the child only drops its copies."""
        workers = self.alive()
        if os.getpid() != self.pid:
            for w in workers:
                self._forget(w)
            return True
        for w in workers:
            try:
                w.conn.send(("stop", 0))
            except (OSError, ValueError):  # gone, or its channel closed: terminated below
                pass
        deadline = time.monotonic() + max(timeout, 0.0)
        for w in workers:
            w.process.join(max(deadline - time.monotonic(), 0.0))
        for w in workers:
            if w.process.is_alive():
                w.process.terminate()
                w.process.join(0.5)
            if w.process.is_alive():
                w.process.kill()
                w.process.join(2.0)
        stopped = not any(w.process.is_alive() for w in workers)
        for w in workers:
            self.bury(w)
        return stopped


def exit_description(process):
    code = process.exitcode
    if code is None:
        return "is unresponsive"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"


def wait(objects, timeout):
    return multiprocessing.connection.wait(objects, timeout)

