"""ParallelInference: serve a model from several worker threads, each with its own workspace.

After Deeplearning4j's ParallelInference, with the expectations of Triton's dynamic batcher and
Ray Serve's ``@serve.batch``: callers ``submit()`` requests (arrays with a leading batch axis) from
any thread and get ``concurrent.futures.Future`` objects, or block in ``output()``. Workers are
threads (NumPy releases the GIL in BLAS and large kernels); each runs every batch in a cycle of its
own workspace and hands back detached results. The queue, the batching rule, the workers and the
statistics live in the sibling modules; this one checks arguments and holds the public API.
"""

import copy
import math
import queue
import time
import warnings
import weakref
from collections.abc import Sequence
from typing import Any, Literal
from concurrent.futures import Future

from .._interrupts import shielded
from .._workspaces import WorkspaceConfig, scope_out
from . import _blas
from ._service import InferenceService
from ._requests import Request, RequestFuture, request_data
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

    ``mode="batched"`` (default): a request joins the batch no worker has taken yet, up to
    ``batch_limit`` rows of the same trailing shape and dtype; the model runs once per batch and
    must return arrays (or a tuple/list/dict of them) with one row per input row, which are split
    back per request. No timer: a lone request runs at once, and batches grow while the workers
    are busy; ``max_wait_ms > 0`` lets a worker wait that long for a batch to fill (Triton's queue
    delay). ``mode="sequential"``: every request runs alone (any output; ``batch_limit`` and
    ``max_wait_ms`` are not used). A batch that fails is retried request by request, so only the
    failing requests get the error (their own, original exception).

    ``queue_limit``: requests that may wait for a worker; ``submit()`` blocks (or raises
    ``queue.Full``) beyond it. ``workspace_config``: the ``WorkspaceConfig`` of each worker's
    workspace (default ``WorkspaceConfig()``: learns its size in the first cycles). ``devices``:
    where workers run, assigned round-robin (only ``"cpu"`` for now). ``blas_threads``: cap on the
    process-wide BLAS thread pool from the constructor until ``shutdown()``, so that workers times
    BLAS threads does not exceed the cores: ``"auto"`` (default) caps at ``max(1, cores //
    workers)`` when threadpoolctl is installed (warns otherwise), an int caps at that, ``None``
    leaves BLAS alone. OpenBLAS takes the change from the main thread only: create and shut down
    pools there (a change made elsewhere is made again at the next one there, or at exit).
    """

    def __init__(self, model: Any, *, workers: int = 2, mode: Literal["batched", "sequential"] = "batched",
                 batch_limit: int = 32, queue_limit: int = 64, max_wait_ms: float = 0,
                 workspace_config: WorkspaceConfig | None = None, replicate: bool = False,
                 devices: Sequence[str] | None = None, blas_threads: int | Literal["auto"] | None = "auto") -> None:
        who = f"{WHO}()"
        _positive_int(workers, "workers", who, MAX_WORKERS,
                      "each worker is a thread with a workspace of its own (at least its initial_size of memory)")
        _positive_int(batch_limit, "batch_limit", who, MAX_BATCH_LIMIT, "rows of one batch, concatenated in memory")
        _positive_int(queue_limit, "queue_limit", who, MAX_QUEUE_LIMIT, "requests held in memory while they wait")
        if mode not in MODES:
            raise ValueError(f"{who}: mode must be 'batched' or 'sequential', not {mode!r}")
        _seconds(max_wait_ms, "max_wait_ms", who)
        if workspace_config is not None and not isinstance(workspace_config, WorkspaceConfig):
            raise TypeError(f"{who}: workspace_config must be a wsarray.WorkspaceConfig, "
                            f"not {type(workspace_config).__name__}")
        if not isinstance(replicate, bool):
            raise TypeError(f"{who}: replicate must be a bool, not {type(replicate).__name__}")
        device_list = parse_devices(devices, workers, who)
        models = _worker_models(model, workers, replicate, who)
        _blas.settle()
        blas_token = _cap_blas(blas_threads, workers, who)
        self._mode = mode
        self._service = InferenceService(
            f"{WHO}()", models, device_list, batched=mode == "batched", batch_limit=batch_limit,
            queue_limit=queue_limit, max_wait_s=max_wait_ms / 1e3,
            workspace_config=workspace_config, blas_token=blas_token)
        self._service.start()
        # Dropped without shutdown(): the workers finish what is queued, then stop (as
        # ThreadPoolExecutor's do). The workers hold the core, never this object.
        weakref.finalize(self, self._service.shutdown, wait=False, cancel_pending=False).atexit = False
        stop_at_exit(self._service)

    # -- requests -----------------------------------------------------------------------------

    def submit(self, x: Any, *, block: bool = True, timeout: float | None = None) -> "Future[Any]":
        """Queue request ``x`` (rows along axis 0); returns a ``concurrent.futures.Future`` of its
        detached result. Waits for queue room (``timeout`` seconds at most, None: no limit), or
        with ``block=False`` raises ``queue.Full`` at once when the queue is full. Do not modify
        ``x`` until the future is done (NumPy arrays are read by the worker, not copied)."""
        who = f"{WHO}.submit()"
        if timeout is not None:
            _seconds(timeout, "timeout", who)
        submitted = time.perf_counter()
        request = Request(request_data(x, who), RequestFuture(), submitted)
        stats = self._service.stats
        stats.count("submitted")
        try:
            self._service.queue.put(request, block=block, timeout=timeout, who=who)
        except queue.Full:
            stats.count("submitted", -1)
            stats.count("rejected")
            raise queue.Full(f"{who}: the queue is full ({self._service.queue.queue_limit} requests "
                             "wait for a worker; queue_limit sets how many may)") from None
        except BaseException:
            stats.count("submitted", -1)
            raise
        return request.future

    def output(self, x: Any, *, timeout: float | None = None) -> Any:
        """Run request ``x`` and return its detached result (or raise its exception). On a
        timeout (``TimeoutError``) or an interruption (Ctrl-C) the request is cancelled if no
        worker has taken it yet."""
        who = f"{WHO}.output()"
        if timeout is not None:
            _seconds(timeout, "timeout", who)
        deadline = None if timeout is None else time.monotonic() + timeout
        future = self.submit(x, timeout=timeout)
        try:
            remaining = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            if not future.wait_done(remaining):  # a Gate's wait: a Ctrl-C cannot break the future
                raise TimeoutError(f"{who}: no result within {timeout} s")
        except BaseException:
            shielded(future.cancel)  # nobody waits for it any more
            raise
        return future.result()

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
        rejected, batches, retried_batches, mean_batch_requests, mean_batch_rows, queue_wait_ms
        and latency_ms ({mean, p50, p99, max}), waiting (queued now), and per worker (cumulative
        since start): batches, requests, rows, busy_s and its workspace's ``stats()`` as of its
        last batch."""
        snap = self._service.stats.snapshot()
        snap["mode"] = self._mode
        snap["waiting"] = self._service.queue.waiting
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
            _seconds(timeout, "timeout", who)
        stopped = self._service.shutdown(wait=wait, cancel_pending=cancel_pending, timeout=timeout)
        _blas.settle()  # BLAS thread counts another thread could not restore (see _blas)
        if not stopped:
            busy = [w.thread_name for w in self._service.workers if not w.stopped.is_set()]
            raise TimeoutError(f"{who}: {len(busy)} worker(s) still running a batch after "
                               f"{timeout} s: {', '.join(busy)}")

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


def _positive_int(value, name, who, limit=None, why=""):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{who}: {name} must be an int, not {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{who}: {name} must be at least 1, got {value}")
    if limit is not None and value > limit:
        raise ValueError(f"{who}: {name} must be at most {limit}, got {value} ({why})")


def _seconds(value, name, who):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{who}: {name} must be a number, not {type(value).__name__}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{who}: {name} must be a finite number >= 0, got {value!r}")


def _entry_point(model, who):
    predict = getattr(model, "predict", None)
    if callable(predict):
        return predict
    if callable(model):
        return model
    raise TypeError(f"{who}: model must be callable or have a predict() method; "
                    f"{type(model).__name__} has neither")


def _worker_models(model, workers, replicate, who):
    entry = _entry_point(model, who)
    if not replicate:
        return [entry] * workers
    try:
        with scope_out():  # copies of arrays must not land in the caller's workspace
            copies = [copy.deepcopy(model) for _ in range(workers)]
    except Exception as e:
        raise TypeError(f"{who}: replicate=True needs a model copy.deepcopy() can copy: "
                        f"{type(e).__name__}: {e}") from e
    return [_entry_point(c, who) for c in copies]


def _cap_blas(blas_threads, workers, who):
    """Apply the BLAS cap; returns the token the core releases when the pool is shut down."""
    if blas_threads is None:
        return None
    cores = _blas.available_cores()
    if isinstance(blas_threads, str) and blas_threads == "auto":
        if _blas.threadpoolctl_or_none() is None:
            if workers > 1:
                warnings.warn(f"{who}: threadpoolctl is not installed, so BLAS threads are not "
                              f"capped and {workers} workers may oversubscribe {cores} cores "
                              f"({_blas.EXTRA_HINT}, or pass blas_threads=None)",
                              RuntimeWarning, stacklevel=3)
            return None
        return _blas.cap_blas_threads(max(1, cores // workers), who)
    if isinstance(blas_threads, bool) or not isinstance(blas_threads, int):
        raise TypeError(f"{who}: blas_threads must be 'auto', None or an int, "
                        f"not {type(blas_threads).__name__}")
    if blas_threads < 1:
        raise ValueError(f"{who}: blas_threads must be at least 1, got {blas_threads}")
    return _blas.cap_blas_threads(blas_threads, who)
