"""The service behind ParallelInference: workers taking batches from the queue and running them.

Each batch runs inside one cycle of the worker's own workspace: the requests are concatenated
along axis 0 (a lone request is passed as it is), the model runs once, and the results are split
and detached before the cycle ends; futures are completed after it, so done-callbacks never run
inside the workspace. A batch whose cycle raises (the model, a bad output, MemoryError) is retried
one request per cycle, so each request gets its own result or its own original exception. A
request's deadline is checked once more as the worker starts the batch: none runs after it. With
pad buckets the batch is padded and masked (wsarray/parallel/_buckets.py). Requests the queue
takes out (expired, shed, cancelled) are failed and counted here.
"""

import threading
import time
import traceback
from concurrent.futures import CancelledError

from .._array_api.creation import asarray
from .._numpy.manipulation import concatenate
from .._interrupts import GateEvent, shielded
from . import _blas
from ._deadlines import DeadlineReaper
from ._queue import BatchQueue
from ._requests import RequestShed, complete_all, detached, split_detached
from ._stats import PoolStats
from ._workers import Worker, join_workers, next_pool_number, start_workers

WORKSPACE_NAME = "ParallelInference"


class InferenceService:
    def __init__(self, who, models, devices, *, batched, batch_limit, queue_limit, max_wait_s,
                 workspace_config, blas_token, buckets=None):
        self.who = who
        self.batched = batched
        self.buckets = buckets
        self.queue = BatchQueue(batched=batched, batch_limit=batch_limit, queue_limit=queue_limit,
                                max_wait_s=max_wait_s, on_dropped=self._dropped)
        self.stats = PoolStats()
        pool = next_pool_number()
        self.workers = [Worker(i, d, f"wsarray-parallel-inference-{pool}_{i}")
                        for i, d in enumerate(devices)]
        self.reaper = DeadlineReaper(self.queue, f"wsarray-parallel-inference-{pool}_deadlines")
        self._models = models
        self._workspace_config = workspace_config
        self._blas_token = blas_token
        self._lock = threading.RLock()
        self._running = len(self.workers)

    # -- life cycle ---------------------------------------------------------------------------

    def start(self):
        try:
            error = start_workers(self.workers, WORKSPACE_NAME, self._workspace_config,
                                  self._serve, self._worker_exited)
            if error is None:
                self.reaper.start()
        except BaseException:
            # Interrupted (Ctrl-C): the workers started so far stop by themselves once the queue
            # is closed; waiting for them could be interrupted too.
            self._close(True, "start-up was interrupted")
            self.release_blas()
            raise
        if error is not None:
            self.shutdown(wait=True, cancel_pending=True, reason="a worker failed to start")
            raise error

    def shutdown(self, *, wait, cancel_pending, timeout=None,
                 reason="shutdown(cancel_pending=True) was called"):
        """Stop taking requests; cancel the waiting ones or let the workers drain them; with
        ``wait``, join the workers (True when all stopped within ``timeout``). Interrupted (Ctrl-C),
        the pool still stops: the queue is closed first, and the workers stop once it is empty."""
        self._close(cancel_pending, reason)
        try:
            stopped = join_workers([*self.workers, self.reaper], timeout) if wait else True
        except BaseException:  # Ctrl-C while draining: drop what is still waiting
            self._close(True, "the caller was interrupted")
            self.release_blas()
            raise
        if stopped:
            self.release_blas()
        elif wait:
            self.abandon_busy()
        return stopped

    def abandon_busy(self):
        """After a shutdown's timeout: the workers still in a call whose model can be abandoned
        (a process backend's replica) have it killed, so that they fail that call and exit; a
        thread running the model itself cannot be stopped and keeps running."""
        for worker in self.workers:
            if not worker.stopped.is_set():
                abandon = getattr(self._models[worker.index], "abandon", None)
                if abandon is not None:
                    abandon()

    def _close(self, drop_waiting, reason):
        """Close the queue and fail the requests it dropped, in one step no Ctrl-C can split."""
        shielded(lambda: self._cancel(self.queue.close(drop_waiting=drop_waiting), reason))

    def release_blas(self):
        """Drop this pool's BLAS cap (once), on the thread that shuts the pool down: OpenBLAS
        takes thread-count changes from the main thread only (see _blas)."""
        token, self._blas_token = self._blas_token, None
        if token is not None:
            _blas.release_blas_cap(token)
        _blas.settle()

    def stop_at_exit(self, seconds):
        self.shutdown(wait=True, cancel_pending=True, timeout=seconds,
                      reason="the interpreter is exiting")
        self.release_blas()

    def after_fork_in_child(self):
        # The waiting requests belong to the parent's callers, which are not in this process.
        self.queue.reset_in_forked_child()
        self.stats.reset_lock_in_forked_child()
        self._lock = threading.RLock()
        for w in self.workers:
            w.stopped = GateEvent()
            w.stopped.set()
        self.reaper.mark_stopped_in_forked_child()
        self._blas_token = None  # the parent releases its cap; the child keeps the counts

    def _cancel(self, requests, reason, error_type=CancelledError):
        for r in requests:
            if r.future.set_running_or_notify_cancel():
                r.future.set_exception(error_type(
                    f"{self.who}: the request was cancelled before a worker took it: {reason}"))
            self.stats.count("cancelled")

    def discard(self, request):
        """``request``'s future was cancelled: out of the queue, if it still waits there."""
        if self.queue.discard(request):
            self.stats.count("cancelled")

    def _dropped(self, requests, why, by):
        """Fail the requests the queue took out: ``why`` is "expired" or "shed" (for ``by``)."""
        for r in requests:
            if not r.future.set_running_or_notify_cancel():
                self.stats.count("cancelled")  # cancelled meanwhile
                continue
            if why == "expired":
                error = TimeoutError(f"{self.who}: the request's deadline ({r.budget:g} s after "
                                     "submit) passed before a worker took it")
            else:
                error = RequestShed(
                    f"{self.who}: the request (priority {r.priority}) was shed: the queue was full "
                    f"({self.queue.queue_limit} requests waiting, queue_limit) when one of higher "
                    f"priority ({by.priority}) came; the newest request of the lowest priority "
                    "waiting makes room")
            r.future.set_exception(error)
            self.stats.count(why)

    def _worker_exited(self, worker):
        close = getattr(self._models[worker.index], "close", None)
        if close is not None:  # the process backend: the worker's replica process stops with it
            close()
        with self._lock:
            self._running -= 1
            last = self._running == 0
        if last and not self.queue.closed:  # every worker died of an internal error
            self._cancel(self.queue.close(drop_waiting=True), f"every worker stopped "
                         f"(worker {worker.index}: {worker.error!r})", RuntimeError)

    # -- the worker loop ----------------------------------------------------------------------

    def _serve(self, worker, ws):
        model = self._models[worker.index]
        while True:
            batch = self.queue.take()  # the requests of a batch
            if batch is None:
                return
            self._serve_batch(worker, ws, model, batch)
            if self.batched:
                # Yield the GIL once: callers just woken by this batch's results resubmit before
                # this worker looks for work, instead of it taking their first request alone.
                # Not a timer (a lone request still runs at once); in a closed loop of 16 clients
                # it took the mean batch from about 5 requests to 9 here.
                time.sleep(0)

    def _serve_batch(self, worker, ws, model, batch):
        now = time.perf_counter()
        expired = [r for r in batch if r.deadline is not None and r.deadline <= now]
        if expired:  # in the moment since the queue gave the batch out
            self._dropped(expired, "expired", None)
            batch = [r for r in batch if r.deadline is None or r.deadline > now]
        live = [r for r in batch if r.future.set_running_or_notify_cancel()]
        if len(live) < len(batch):
            self.stats.count("cancelled", len(batch) - len(live))
        if not live:
            return
        self.stats.batch_taken(live, time.perf_counter())
        try:
            try:
                results = self._run_cycle(worker, ws, model, live)
            except BaseException as error:  # noqa: BLE001 - goes to the callers' futures
                _drop_locals(error)
                if len(live) == 1:
                    self._finish(live[0], error=error)
                    return
                self.stats.count("retried_batches")
                for r in live:
                    self._serve_alone(worker, ws, model, r)
                return
            complete_all(self._finish, live, results)
        except BaseException as crash:  # our own failure: no caller is left waiting forever
            for r in live:
                if not r.future.done():
                    r.future.set_exception(RuntimeError(
                        f"{self.who}: worker {worker.index} failed: {crash!r}"))
            raise

    def _serve_alone(self, worker, ws, model, request):
        try:
            (result,) = self._run_cycle(worker, ws, model, [request])
        except BaseException as error:  # noqa: BLE001 - goes to the caller's future
            _drop_locals(error)
            self._finish(request, error=error)
        else:
            self._finish(request, result=result)

    def _run_cycle(self, worker, ws, model, requests):
        rows = [r.rows for r in requests]
        start = time.perf_counter()
        try:
            with ws:
                return self._compute(model, requests, rows)
        finally:
            worker.batches += 1
            worker.requests += len(requests)
            worker.rows += sum(rows)
            worker.busy_s += time.perf_counter() - start
            worker.workspace_stats = ws.stats()
            self.stats.batch_run(len(requests), sum(rows))

    def _compute(self, model, requests, rows):
        # A frame of its own: its arrays are freed before the cycle ends (statistics show no
        # live arrays between batches).
        if self.buckets is not None:
            inputs, mask = self.buckets.assemble(requests)
            outputs = model(inputs, mask)
            return split_detached(outputs, rows, self.who, self.buckets.trimmer(requests))
        if len(requests) == 1:
            inputs = asarray(requests[0].data)
        else:
            inputs = concatenate([r.data for r in requests], axis=0)
        outputs = model(inputs)
        if self.batched:
            return split_detached(outputs, rows, self.who)
        return [detached(outputs)]

    def _finish(self, request, *, result=None, error=None):
        self.stats.finished(request, error is None, time.perf_counter())
        if error is None:
            request.future.set_result(result)
        else:
            request.future.set_exception(error)


def _drop_locals(error):
    """Clear the finished frames of ``error``'s traceback: their locals are workspace arrays, and
    a caller keeping the exception would keep that memory from being reused."""
    traceback.clear_frames(error.__traceback__)
