"""ParallelWrapper(backend="process"): data-parallel training with a replica per worker process.

Each worker process holds its own copy of the model (inherited at fork, or unpickled under spawn)
and runs its steps with its own GIL and a capped BLAS pool. Batches, parameters and encoded
updates travel through shared memory (wsarray/parallel/_remote.py); the caller's thread drives the
rounds, as the thread backend's does:

* averaging: each worker gets up to ``averaging_frequency`` batches (worker 0 the first ones) and
  the parameters to start from (the last average; none in the first round, where every replica
  still holds the model's), runs ``fit_batch`` on each and returns its scores and parameters,
  which the caller averages (over the workers that trained);
* shared gradients: each step, every worker applies the messages of the previous step, computes
  ``gradients`` on its batch and returns the encoded update; the threshold adapts in the caller.

At the end the model passed in gets the final parameters. An exception in a worker is raised in
the caller with a note naming the replica and its process; a worker that dies raises
``wsarray.data.WorkerError``; in every case the processes are stopped before ``fit`` returns.
"""

import functools

import numpy

from .._workspaces import scope_out
from ..data import AsyncIterator
from ..data._batches import detach
from . import _sharing
from ._blas import available_cores
from ._remote import Replica, stop_all


def _numpy_copy(leaf):
    return numpy.array(leaf)


def blas_per_worker(blas_threads, workers):
    if blas_threads is None:
        return None
    if blas_threads == "auto":
        return max(1, available_cores() // workers)
    return blas_threads


def fit(wrapper, data, epochs, who, start_method):
    """The process backend's ``ParallelWrapper.fit`` (arguments checked by the caller)."""
    workers = wrapper.workers
    blas = blas_per_worker(wrapper.blas_threads, workers)
    with scope_out():
        layout = _sharing.Layout(wrapper.model.params)
    replicas = []
    try:
        for k in range(workers):  # in the try: an interrupt after one is made still stops it
            replicas.append(Replica(who, wrapper.model, k, start_method=start_method, blas_threads=blas,
                                    copy_out=_numpy_copy))
        run = _Run(wrapper, replicas, layout, data)
        for replica in replicas:
            replica.start()
        for epoch in range(epochs):
            run.start_epoch(epoch)
            if wrapper.training_mode == "shared_gradients":
                run.sharing_epoch(epoch)
            else:
                run.averaging_epoch(epoch)
            run.end_of_epoch(epoch)
            wrapper._stats["epochs"] += 1
        run.finish()
    finally:
        stop_all(replicas)
    return wrapper


class _Run:
    def __init__(self, wrapper, replicas, layout, data):
        self.wrapper, self.replicas, self.layout, self.data = wrapper, replicas, layout, data
        self.flat = None       # the last average (averaging)
        self.pending = None    # the last step's messages, not applied by every replica yet (sharing)
        self.source = None

    def start_epoch(self, epoch):
        if isinstance(self.data, AsyncIterator):
            if epoch:
                self.data.reset()
            self.source = iter(self.data)
        else:
            self.source = iter(self.data)

    def _batches(self, n):
        out = []
        for batch in self.source:
            if not isinstance(batch, (tuple, list)) or len(batch) != 2:
                raise TypeError(f"{self.wrapper!r}: a batch must be a pair (x, y), got {type(batch).__name__}")
            # An AsyncIterator's batch is retired by the next next(): keep a copy.
            out.append(tuple(detach(batch)) if isinstance(self.data, AsyncIterator) else tuple(batch))
            if len(out) == n:
                break
        return out

    # -- parameter averaging -------------------------------------------------------------------

    def averaging_epoch(self, epoch):
        w = self.wrapper
        while True:
            sent = {}
            for k, replica in enumerate(self.replicas):
                batches = self._batches(w.averaging_frequency)
                if not batches:
                    break
                replica.submit("round", (self.flat, batches))
                sent[k] = len(batches)
            if not sent:
                return
            total = []  # the sum of the workers' parameters, added from their result regions
            add = functools.partial(_accumulate, total=total)
            scores = {k: self.replicas[k].result(use=add) for k in sent}
            if len(sent) > 1:
                total[0] /= len(sent)
            self.flat = total[0]
            reports = {k: (scores[k], sent[k] < w.averaging_frequency) for k in sent}
            self._after_round(reports, list(sent), epoch)
            if any(n < w.averaging_frequency for n in sent.values()) or len(sent) < len(self.replicas):
                return

    # -- gradient sharing ----------------------------------------------------------------------

    def sharing_epoch(self, epoch):
        w = self.wrapper
        while True:
            batches = self._batches(len(self.replicas))
            if not batches:
                return
            tau = w._threshold.value
            for k, replica in enumerate(self.replicas):
                if k < len(batches):
                    replica.submit("share", (self.pending, batches[k]), tau)
                else:
                    replica.submit("apply", self.pending)
            results = [r.result() for r in self.replicas]
            messages = [_sharing.Message(kind, payload, count, t)
                        for score, kind, count, t, payload in results[:len(batches)]]
            self.pending = [(m.kind, m.count, m.tau, m.payload) for m in messages]
            w._note_shared(messages, self.layout)
            reports = {k: ([results[k][0]], False) for k in range(len(batches))}
            self._after_round(reports, list(reports), epoch)

    # -- both ------------------------------------------------------------------------------------

    def _after_round(self, reports, trained, epoch):
        w = self.wrapper
        for k, (scores, _) in reports.items():
            w._stats["batches_per_worker"][k] += len(scores)
        w._stats["rounds"] += 1
        w._report(reports, trained, epoch)
        plan = w._evaluation
        if plan and plan["every"] and w._stats["iterations"] - plan["last"] >= plan["every"]:
            self._publish()
            w._evaluate(_Holder(w.model), epoch)

    def end_of_epoch(self, epoch):
        w = self.wrapper
        if w._evaluation and not w._evaluation["every"]:
            self._publish()
            w._evaluate(_Holder(w.model), epoch)

    def _publish(self):
        """The model passed in gets the current parameters (for an evaluation, and at the end)."""
        if self.wrapper.training_mode == "shared_gradients":
            for replica in self.replicas[1:]:
                replica.submit("apply", self.pending)
            self.replicas[0].submit("params", self.pending)
            flat = self.replicas[0].result()
            for replica in self.replicas[1:]:
                replica.result()
            self.pending = None
        else:
            flat = self.flat
        if flat is not None:
            with scope_out():
                self.layout.unflatten_into(flat, self.wrapper.model.params)

    def finish(self):
        self._publish()


def _accumulate(result, total):
    scores, flat = result
    if total:
        total[0] += flat
    else:
        total.append(numpy.array(flat))
    return scores


class _Holder:
    """What ParallelWrapper._evaluate reads the model from."""

    def __init__(self, model):
        self.replicas = [model]
