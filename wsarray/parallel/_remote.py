"""The owner's side of a model replica in a worker process (wsarray.parallel's process backend).

``Replica`` starts one process (wsarray/parallel/_replica.py) with its own copy of the model and
calls operations on it: the input arrays go into a region of a shared slot of the replica's own
(``SharedSlots`` of wsarray.data, memfd memory), the result comes back in another, and only
skeletons and small values cross the pipe. ``submit`` sends a call, ``result`` waits for it (in
short waits that watch the process): a call is one round trip, and the replicas of a pool work
at the same time between the two. A replica whose process died raises ``WorkerError`` naming
it from ``result`` and starts a new process for the next call.

Channels, security and shutdown are the data pipeline's (wsarray/data/_processes.py): inherited
pipes and socket pairs, no listening socket, workers asked to stop, then terminated, then
killed. ``stop_all`` does that on a thread of its own, so that an interrupt can cut the caller's
wait short but never a join (a child reaped by an interrupted join would look alive forever).
"""

import os
import threading

import numpy

from .._interrupts import Gate, shielded, start_thread
from .._workspaces import WorkspaceConfig
from ..data._batches import copy_into_current_scope, map_arrays
from ..data._child import unpickled_error
from ..data._collate import Leaf, layout, rebuild, write
from ..data._process_pipeline import WorkerError
from ..data._processes import MAX_SEGMENTS, WorkerPool, exit_description, wait
from ..data._shared_slots import SharedSlots
from . import _replica

WAIT_S = 0.05
SLOTS = 3  # a call's input and result regions; the last one given back is reused last


class Replica:
    def __init__(self, who, model, index, *, start_method, blas_threads, copy_out):
        self.who, self.index = who, index
        spec = _replica.Spec(model, os.getpid(), blas_threads, MAX_SEGMENTS)
        self.pool = WorkerPool(who, spec, 1, start_method, target=_replica.main,
                               name="wsarray-parallel-replica")
        label = f"{who.split()[0]}:replica{index}:{id(self):x}"
        hint = (f"It was a result of replica {index} of {who}, valid until its next call; "
                "keep one with .detach().")
        config = WorkspaceConfig()
        self.inputs = SharedSlots(f"{label}:in", config, None, hint)
        self.outputs = SharedSlots(f"{label}:out", config, None, hint)
        self.copy_out = copy_out  # how a result leaf leaves the result region (it is reused)
        self.busy = None          # the call in flight: [input slot, output slot, output region, segment]
        self.calls = 0

    @property
    def worker(self):
        return self.pool.workers[0]

    def describe(self):
        w = self.worker
        return f"replica {self.index}" + (f" (pid {w.pid})" if w is not None else "")

    def start(self):
        """Start the process if it is not running. On the interrupt shield: a fork interrupted
        halfway (in the at-fork handlers of logging, say) leaves locks held and children lost."""
        if self.worker is None:
            shielded(self.pool.start, 0)

    # -- one call ------------------------------------------------------------------------------

    def submit(self, op, inputs, extra=None):
        """Send operation ``op`` with ``inputs`` (a structure of arrays and small values)."""
        self.start()
        skeleton, writes, nbytes = layout(inputs)
        self.inputs.grow_to(max(nbytes, 64))
        in_slot, in_region, in_segment = self.inputs.acquire(SLOTS)
        write(writes, numpy.asarray(in_region), 0)
        out = self._output_region()
        self.busy = [in_slot, out[0], out[1], out[2]]
        message = ("call", op, _region(in_region, in_segment), skeleton, _region(out[1], out[2]), extra)
        self._send(message, [in_segment, out[2]])
        self.calls += 1

    def result(self, use=None):
        """Wait for the call in flight: its result (arrays copied out by ``copy_out``), or with
        ``use``, what ``use(result)`` returns, called on views of the result region (no copy;
        valid only during the call)."""
        try:
            while True:
                reply = self._receive()
                if reply[0] == "need":
                    self._resize(reply[1])
                    continue
                if reply[0] == "error":
                    raise self._error(reply)
                self.outputs.grow_to(reply[2])
                if use is not None:
                    return use(_views(reply[1], numpy.asarray(self.busy[2])))
                return self._copied(reply[1], self.busy[2])
        finally:
            self._release()

    def _copied(self, skeleton, region):
        return map_arrays(_views(skeleton, region), self.copy_out)

    def call(self, op, inputs, extra=None):
        self.submit(op, inputs, extra)
        return self.result()

    def _output_region(self):
        if not self.outputs.target:
            self.outputs.grow_to(4096)
        slot, region, segment = self.outputs.acquire(SLOTS)
        return slot, region, segment

    def _resize(self, nbytes):
        self.outputs.release(self.busy[1])
        self.busy[1] = None
        self.outputs.grow_to(nbytes)
        slot, region, segment = self.outputs.acquire(SLOTS)
        self.busy[1:] = [slot, region, segment]
        self._send(("region", _region(region, segment)), [segment])

    def _send(self, message, segments):
        try:
            self.pool.send(self.worker, message, segments)
        except OSError:
            pass  # it died: _receive finds out

    def _receive(self):
        worker = self.worker
        if worker is None:  # stopped under the call (at interpreter exit, running pools are stopped)
            raise WorkerError(f"{self.who}: {self.describe()} was stopped during a call")
        while True:
            try:
                if worker.conn.poll(WAIT_S):  # one descriptor: cheaper than wait() on two
                    return worker.conn.recv()
                dead = bool(wait([worker.process.sentinel], 0))
            except (EOFError, OSError):
                dead = True
            if dead:
                # Reaped on the shield, never here: an interrupt between a waitpid() and the
                # exit code's store would make the process look alive forever.
                how = shielded(_bury, self.pool, worker)
                raise WorkerError(f"{self.who}: {self.describe_dead(worker)} {how} during a call; a new "
                                  "process takes the next one")

    @staticmethod
    def describe_dead(worker):
        return f"the worker process (pid {worker.pid})"

    def _error(self, reply):
        return unpickled_error(reply[1], reply[2], f"{self.describe()} of {self.who}")

    def _release(self):
        busy, self.busy = self.busy, None
        if busy is None:
            return
        if busy[0] is not None:
            self.inputs.release(busy[0])
        if busy[1] is not None:
            self.outputs.release(busy[1])
        forgotten = self.inputs.forgotten() + self.outputs.forgotten()
        if forgotten:
            self.pool.forget(forgotten)

    # -- stopping ------------------------------------------------------------------------------

    def stop(self, timeout):
        stopped = self.pool.stop(timeout)
        self.inputs.destroy()
        self.outputs.destroy()
        return stopped


class RemoteModel:
    """ParallelInference's model for a worker thread of the process backend: calling it runs
    ``model.<method>(*args)`` in the thread's own replica process; the result comes back copied
    into the caller's scope (the worker's workspace cycle)."""

    def __init__(self, replica, method):
        self.replica, self.method = replica, method

    def __call__(self, *args):
        return self.replica.call("call", args, self.method)

    def close(self, timeout=2.0):
        """Stop the replica's process (from the worker thread, as it exits)."""
        return self.replica.stop(timeout)

    def abandon(self):
        """Kill the replica's process now (its call outlived ``shutdown(timeout=...)``): the worker
        thread waiting for it gets WorkerError for that call, and exits (closing the replica)."""
        worker = self.replica.worker
        if worker is not None:
            worker.process.kill()  # a signal only: the waiting thread reaps it


def remote_models(model, entry, workers, *, who, start_method, blas_threads):
    """One RemoteModel per worker, each with a replica process (started now)."""
    method = "__call__" if entry is model else entry.__name__
    models = [RemoteModel(Replica(who, model, k, start_method=start_method, blas_threads=blas_threads,
                                  copy_out=copy_into_current_scope), method) for k in range(workers)]
    try:
        for m in models:
            m.replica.start()
    except BaseException:
        stop_all([m.replica for m in models])
        raise
    return models


def stop_all(replicas, timeout=2.0):
    """Stop every replica's process on a thread of its own and wait for it (see the banner). The
    thread is made and started in one shielded step: an interrupt landing before it started left
    the processes unstopped, and unreaped once they exited (zombies)."""
    done, result = Gate(), []
    thread = shielded(_start_stopper, replicas, timeout, done, result)
    done.wait()
    thread.join(1.0)  # it set `done` last: gone a moment later, and once this returns
    return bool(result and result[0])


def _start_stopper(replicas, timeout, done, result):
    def work():
        stopped = True
        try:
            for r in replicas:  # each one, even when stopping another failed
                try:
                    stopped = r.stop(timeout) and stopped
                except Exception:  # noqa: BLE001 - its processes are killed by the pool's exit handler
                    stopped = False
            result.append(stopped)
        finally:
            done.set()

    # Thread.start() interrupted before the thread exists would leave it registered forever.
    thread = threading.Thread(target=work, name="wsarray-parallel-stop", daemon=True)
    start_thread(thread)
    return thread


def _bury(pool, worker):
    worker.process.join(1.0)
    how = exit_description(worker.process)
    pool.bury(worker)
    return how


def _region(region, segment):
    key, fd, offset, length = segment
    return (key, length, offset, int(region.shape[0]))


def _views(skeleton, region):
    return rebuild(skeleton, lambda leaf: _view(region, leaf), (Leaf,))


def _view(region, leaf):
    flat = region[leaf.offset:leaf.offset + leaf.nbytes]
    return flat.view(leaf.dtype).reshape(leaf.shape)
