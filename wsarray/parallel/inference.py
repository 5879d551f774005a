"""ParallelInference: serve a model from several worker threads, each with its own workspace.

After Deeplearning4j's ParallelInference, with the expectations of Triton's dynamic batcher and
Ray Serve's ``@serve.batch``: callers ``submit()`` requests (arrays with a leading batch axis) from
any thread and get ``concurrent.futures.Future`` objects, block in ``output()``, or await
``output_async()`` from asyncio. Requests have priorities and deadlines; variable-length requests
may be padded to a few bucket lengths. Workers are threads (NumPy releases the GIL in BLAS and
large kernels); each runs every batch in a cycle of its own workspace and hands back detached
results. The queue, the batching rule, the workers, the pad buckets and the statistics live in
the sibling modules; this one checks arguments and holds the public API.
"""

import asyncio
import functools
import queue
import time
import weakref
from collections.abc import Sequence
from typing import Any, Literal
from concurrent.futures import Future

from .._interrupts import shielded
from .._workspaces import WorkspaceConfig
from . import _blas
from ._buckets import check_takes_mask, parse_pad_buckets
from ._service import InferenceService
from ._process_training import blas_per_worker
from ._remote import remote_models
from ._requests import Request, RequestFuture, request_data
from ._setup import (backend_and_start_method, cap_blas, deadline_seconds, positive_int, priority_int,
                     seconds, worker_models)
from ._workers import parse_devices, stop_at_exit

WHO = "wsarray.parallel.ParallelInference"
MODES = ("batched", "sequential")
# Limits on what a caller may ask for, refused at once (ValueError) rather than found out by
# running out of threads or memory: each worker is a thread with a workspace of its own.
MAX_WORKERS = 1024
MAX_BATCH_LIMIT = 1 << 31
MAX_QUEUE_LIMIT = 1 << 24


class ParallelInference:
    """Serve ``model`` from ``workers`` threads, each running batches in its own workspace.

    ``model``: a callable, or an object with a ``predict`` method (used first) or ``__call__``;
    it receives a wsarray Array whose axis 0 holds the rows of one or more requests. With
    ``replicate=True`` every worker gets its own ``copy.deepcopy`` of it (models with state).

    ``mode="batched"`` (default): a free worker takes the oldest request of the highest priority
    waiting and joins to it the waiting requests of the same trailing shape and dtype, highest
    priority first and oldest first within a priority, up to ``batch_limit`` rows (stopping at the
    first that does not fit; a request over ``batch_limit`` runs alone); the model runs once per
    batch and must return arrays (or a tuple/list/dict of them) with one row per input row, which
    are split back per request. No timer: a lone request runs at once, and batches grow while the
    workers are busy; ``max_wait_ms > 0`` lets a worker wait that long for a batch to fill
    (Triton's queue delay). ``configure(batch_limit=, max_wait_ms=)`` changes both at run time.
    ``mode="sequential"``: every request runs alone (any output; ``batch_limit`` and
    ``max_wait_ms`` are not used). A batch that fails is retried request by request, so only the
    failing requests get the error (their own, original exception).

    ``queue_limit``: requests that may wait for a worker; ``submit()`` blocks (or raises
    ``queue.Full``) beyond it, except that a request of a higher priority than the lowest waiting
    sheds the newest request of that lowest priority (whose future fails with
    ``wsarray.parallel.RequestShed``, a ``queue.Full``) and takes its place.
    ``default_deadline``: seconds after ``submit()`` within which a worker must take a request
    (None: no limit); ``submit(deadline=)`` sets it per request. A request whose deadline passes
    first fails with ``TimeoutError`` at once (a timer thread watches the deadlines) and never
    runs.

    ``pad_buckets`` (batched mode): lengths such as ``[16, 32, 64, 128]``. Each request is padded
    with ``pad_value`` along ``pad_axis`` (>= 1) to the smallest bucket that holds it (ValueError
    at ``submit()`` if none does); only requests of one bucket are batched together, and the model
    is called as ``model(x, mask)``, ``mask`` a bool array of shape (rows, bucket) that is True on
    each row's real positions. With ``pad_trim=True`` (default) every output array whose
    ``pad_axis`` has the bucket's length is cut back to the request's own length (by shape alone:
    a pooled vector as long as the bucket is cut too), other outputs are returned as they are;
    ``pad_trim=False`` returns them all padded.

    ``workspace_config``: the ``WorkspaceConfig`` of each worker's workspace (default
    ``WorkspaceConfig()``: learns its size in the first cycles). ``devices``: where workers run,
    assigned round-robin (only ``"cpu"`` for now). ``blas_threads``: cap on the process-wide BLAS
    thread pool from the constructor until ``shutdown()``, so that workers times BLAS threads does
    not exceed the cores: ``"auto"`` (default) caps at ``max(1, cores // workers)`` when
    threadpoolctl is installed (warns otherwise), an int caps at that, ``None`` leaves BLAS alone.
    OpenBLAS takes the change from the main thread only: create and shut down pools there (a
    change made elsewhere is made again at the next one there, or at exit).

    ``backend="process"``: each worker thread runs the model in a process of its own (started
    now with ``start_method`` "fork", the default where the platform has it, or "spawn", where the
    model must pickle), so that a model whose work is Python runs on every core, not in turn on
    the GIL. Requests and results travel through shared memory (only skeletons are pickled); each
    process caps its BLAS at ``blas_threads`` (auto: cores // workers) and the caller's BLAS is
    left alone. Batching, priorities, deadlines and pad buckets are the thread backend's. A
    replica whose process dies fails its batch with ``wsarray.data.WorkerError`` naming it (the
    batch is then retried request by request, in a new process), so no request is lost; the
    processes stop with the pool (``shutdown()``, garbage collection, interpreter exit).
    """

    def __init__(self, model: Any, *, workers: int = 2, mode: Literal["batched", "sequential"] = "batched",
                 batch_limit: int = 32, queue_limit: int = 64, max_wait_ms: float = 0,
                 workspace_config: WorkspaceConfig | None = None, replicate: bool = False,
                 devices: Sequence[str] | None = None, blas_threads: int | Literal["auto"] | None = "auto",
                 default_deadline: float | None = None, pad_buckets: Sequence[int] | None = None,
                 pad_axis: int = 1, pad_value: float = 0, pad_trim: bool = True,
                 backend: Literal["thread", "process"] = "thread", start_method: str | None = None) -> None:
        who = f"{WHO}()"
        positive_int(workers, "workers", who, MAX_WORKERS,
                     "each worker is a thread with a workspace of its own (at least its initial_size of memory)")
        positive_int(batch_limit, "batch_limit", who, MAX_BATCH_LIMIT, "rows of one batch, concatenated in memory")
        positive_int(queue_limit, "queue_limit", who, MAX_QUEUE_LIMIT, "requests held in memory while they wait")
        if mode not in MODES:
            raise ValueError(f"{who}: mode must be 'batched' or 'sequential', not {mode!r}")
        seconds(max_wait_ms, "max_wait_ms", who)
        if workspace_config is not None and not isinstance(workspace_config, WorkspaceConfig):
            raise TypeError(f"{who}: workspace_config must be a wsarray.WorkspaceConfig, "
                            f"not {type(workspace_config).__name__}")
        if not isinstance(replicate, bool):
            raise TypeError(f"{who}: replicate must be a bool, not {type(replicate).__name__}")
        self._default_deadline = deadline_seconds(default_deadline, "default_deadline", who)
        buckets = parse_pad_buckets(pad_buckets, pad_axis, pad_value, pad_trim, mode == "batched", who)
        device_list = parse_devices(devices, workers, who)
        start_method = backend_and_start_method(backend, start_method, who)
        models = worker_models(model, workers, replicate and backend == "thread", who)
        if buckets is not None:
            check_takes_mask(models[0], who)
        _blas.settle()
        if backend == "process":
            if blas_threads not in (None, "auto"):
                positive_int(blas_threads, "blas_threads", who)
            models = remote_models(model, models[0], workers, who=who,
                                   start_method=start_method,
                                   blas_threads=blas_per_worker(blas_threads, workers))
            blas_threads = None  # the processes cap their own BLAS; the caller's stays as it is
        self.backend = backend
        blas_token = cap_blas(blas_threads, workers, who)
        self._mode = mode
        self._service = InferenceService(
            f"{WHO}()", models, device_list, batched=mode == "batched", batch_limit=batch_limit,
            queue_limit=queue_limit, max_wait_s=max_wait_ms / 1e3,
            workspace_config=workspace_config, blas_token=blas_token, buckets=buckets)
        self._service.start()
        # Dropped without shutdown(): the workers finish what is queued, then stop (as
        # ThreadPoolExecutor's do). The workers hold the core, never this object.
        weakref.finalize(self, self._service.shutdown, wait=False, cancel_pending=False).atexit = False
        stop_at_exit(self._service)

    # -- requests -----------------------------------------------------------------------------

    def submit(self, x: Any, *, block: bool = True, timeout: float | None = None, priority: int = 0,
               deadline: float | None = None) -> "Future[Any]":
        """Queue request ``x`` (rows along axis 0); returns a ``concurrent.futures.Future`` of its
        detached result. Waits for queue room (``timeout`` seconds at most, None: no limit), or
        with ``block=False`` raises ``queue.Full`` at once when the queue is full; a request of
        higher ``priority`` than the lowest waiting takes the place of the newest of those instead
        (shedding it: ``RequestShed``). ``priority``: an int, higher runs first (default 0).
        ``deadline``: seconds from now within which a worker must take the request, or its future
        fails with ``TimeoutError`` and it never runs (None: the pool's ``default_deadline``;
        ``math.inf``: none); it bounds the wait for room too. Do not modify ``x`` until the future
        is done (NumPy arrays are read by the worker, not copied)."""
        return self._submit(x, f"{WHO}.submit()", block, timeout, priority, deadline)

    def _submit(self, x, who, block, timeout, priority, deadline):
        if timeout is not None:
            seconds(timeout, "timeout", who)
        priority_int(priority, who)
        budget = deadline_seconds(deadline, "deadline", who)
        if deadline is None:
            budget = self._default_deadline
        submitted = time.perf_counter()
        request = Request(request_data(x, who), RequestFuture(), submitted, priority, budget)
        service = self._service
        if service.buckets is not None:
            service.buckets.place(request, who)
        request.future.on_cancel = functools.partial(service.discard, request)
        service.stats.count("submitted")
        try:
            service.queue.put(request, block=block, timeout=timeout, who=who)
        except queue.Full:
            request.future.on_cancel = None
            service.stats.count("submitted", -1)
            service.stats.count("rejected")
            raise queue.Full(f"{who}: the queue is full ({service.queue.queue_limit} requests "
                             "wait for a worker; queue_limit sets how many may)") from None
        except BaseException:
            request.future.on_cancel = None
            service.stats.count("submitted", -1)
            raise
        return request.future

    def output(self, x: Any, *, timeout: float | None = None, priority: int = 0,
               deadline: float | None = None) -> Any:
        """Run request ``x`` and return its detached result (or raise its exception). On a
        timeout (``TimeoutError``) or an interruption (Ctrl-C) the request is cancelled if no
        worker has taken it yet. ``priority`` and ``deadline``: as ``submit()``'s."""
        who = f"{WHO}.output()"
        if timeout is not None:
            seconds(timeout, "timeout", who)
        until = None if timeout is None else time.monotonic() + timeout
        future = self._submit(x, who, True, timeout, priority, deadline)
        try:
            remaining = None if until is None else max(until - time.monotonic(), 0.0)
            if not future.wait_done(remaining):  # a Gate's wait: a Ctrl-C cannot break the future
                raise TimeoutError(f"{who}: no result within {timeout} s")
        except BaseException:
            shielded(future.cancel)  # nobody waits for it any more
            raise
        return future.result()

    async def output_async(self, x: Any, *, priority: int = 0, deadline: float | None = None) -> Any:
        """``await`` the detached result of request ``x`` (or its exception) from an asyncio
        task, without a thread per request. Never blocks the event loop: a full queue raises
        ``queue.Full`` (or sheds a request of lower priority, as ``submit()``). Cancelling the
        awaiting task cancels the request if no worker has taken it yet (it leaves the queue and
        never runs); if a worker runs it, the result is dropped. ``priority`` and ``deadline``: as
        ``submit()``'s."""
        future = self._submit(x, f"{WHO}.output_async()", False, None, priority, deadline)
        # Chained: a cancel of the awaited future cancels ``future``; its result comes back
        # through loop.call_soon_threadsafe.
        return await asyncio.wrap_future(future)

    def configure(self, *, batch_limit: int | None = None, max_wait_ms: float | None = None) -> None:
        """Change ``batch_limit`` and ``max_wait_ms`` (checked as the constructor checks them; None
        keeps one as it is) for the batches formed from now on."""
        who = f"{WHO}.configure()"
        if batch_limit is not None:
            positive_int(batch_limit, "batch_limit", who, MAX_BATCH_LIMIT,
                         "rows of one batch, concatenated in memory")
        if max_wait_ms is not None:
            seconds(max_wait_ms, "max_wait_ms", who)
        self._service.queue.configure(
            batch_limit=batch_limit, max_wait_s=None if max_wait_ms is None else max_wait_ms / 1e3)

    def evaluate(self, data: Any, *metrics: Any, max_in_flight: int | None = None) -> Any:
        """Evaluate the served model on ``data`` (batches as ``wsarray.evaluation.evaluate`` takes
        them): each batch is a request; the worker that runs it updates its own copies of the
        metrics, merged into ``metrics`` at the end. Returns the metric, or a tuple of them.
        ``max_in_flight``: batches submitted and not yet finished (default: twice the workers). The
        first error (the model's, or a metric's EvaluationError) cancels what is still queued and is
        raised here."""
        from ._evaluate import evaluate_on_pool
        workers = len(self._service.workers)
        limit = 2 * workers if max_in_flight is None else max_in_flight
        return evaluate_on_pool(self, data, metrics, limit, f"{WHO}.evaluate()")

    # -- statistics ---------------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """Counters since start (or ``reset_stats()``): requests, completed, failed, cancelled,
        rejected, expired, shed, batches, retried_batches, mean_batch_requests, mean_batch_rows,
        queue_wait_ms and latency_ms ({mean, p50, p99, max}), waiting (queued now), batch_limit and
        max_wait_ms (as configured now), and per worker (cumulative since start): batches,
        requests, rows, busy_s and its workspace's ``stats()`` as of its last batch. Batches, pool
        and worker figures alike, are the model's calls: a batch whose model call failed and whose
        requests were then retried one by one counts that call and each retry (retried_batches
        says how many batches were retried)."""
        snap = self._service.stats.snapshot()
        snap["mode"] = self._mode
        snap["waiting"] = self._service.queue.waiting
        snap["batch_limit"] = self._service.queue.batch_limit
        snap["max_wait_ms"] = self._service.queue.max_wait_s * 1e3
        snap["workers"] = [w.counters() for w in self._service.workers]
        return snap

    def reset_stats(self) -> None:
        """Zero the pool-wide counters and latency windows (per-worker figures stay cumulative)."""
        self._service.stats.reset()

    # -- shutdown -----------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True once shutdown() was called (new requests are refused)."""
        return self._service.queue.closed

    def shutdown(self, wait: bool = True, *, cancel_pending: bool = False, timeout: float | None = None) -> None:
        """Refuse new requests. Requests no worker has taken yet are run (default) or, with
        ``cancel_pending=True``, failed with ``CancelledError``. With ``wait``, return when the
        workers have stopped (``TimeoutError`` if some still run a batch after ``timeout``
        seconds). A Ctrl-C while draining cancels what is still waiting. Safe to call again."""
        who = f"{WHO}.shutdown()"
        if timeout is not None:
            seconds(timeout, "timeout", who)
        stopped = self._service.shutdown(wait=wait, cancel_pending=cancel_pending, timeout=timeout)
        _blas.settle()  # BLAS thread counts another thread could not restore (see _blas)
        if not stopped:
            busy = [w.thread_name for w in self._service.workers if not w.stopped.is_set()]
            killed = " (their replica processes were stopped: those batches fail with WorkerError)" \
                if self.backend == "process" else ""
            raise TimeoutError(f"{who}: {len(busy)} worker(s) still running a batch after "
                               f"{timeout} s: {', '.join(busy)}{killed}")

    def __enter__(self) -> "ParallelInference":
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> Literal[False]:
        # Leaving on an exception (Ctrl-C included) cancels what waits instead of draining it.
        self.shutdown(wait=True, cancel_pending=exc_type is not None)
        return False

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return (f"<wsarray.parallel.ParallelInference mode={self._mode!r} "
                f"workers={len(self._service.workers)} {state}>")
