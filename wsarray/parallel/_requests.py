"""Requests in, results out: what a worker may hold and what a caller may keep.

A request is one array with a leading batch axis (one row per sample, at least that axis). It is
taken as it is when it is a NumPy ndarray or a wsarray Array outside every workspace (so it must
not be modified until its future is done), copied out of its workspace when it is attached to one
(its cycle may end before a worker runs it), and converted with ``numpy.asarray`` otherwise. Its
batching key is its trailing shape and dtype: requests with different keys are never concatenated.
Results leave the worker's workspace as copies: wsarray Arrays through ``.detach()``, NumPy
ndarrays (possibly raw views of workspace memory) through ``.copy()``, inside tuples, lists and
dicts (namedtuples keep their type); in batched mode every array is split along axis 0 (and, with
pad buckets, trimmed back to the request's length: wsarray/parallel/_buckets.py).
"""

import queue
from concurrent.futures import Future, _base

import numpy

from .._native import Array, _open_gates as open_gates
from .._interrupts import Gate, shielded


class RequestShed(queue.Full):
    """The error of a request that a request of higher priority pushed out of a full queue
    (``wsarray.parallel.ParallelInference``: ``queue_limit`` requests were waiting, and this one
    was the newest of the lowest priority level). A subclass of ``queue.Full``."""


class RequestFuture(Future):
    """A ``concurrent.futures.Future`` whose waits (``result``, ``exception``) are a Gate's: a
    Ctrl-C on the waiting thread ends the wait and cannot break the future's lock, which the
    worker completing it needs (wsarray/_interrupts.py). A successful ``cancel()`` calls
    ``on_cancel`` (the pool takes the request out of its queue). Everything else is Future's.

    Future's methods take its lock in a ``with`` block entered through Python code
    (threading.Condition.__enter__): a signal handler that raises right after the lock is taken
    leaves it held for good, and the worker that runs or completes the request waits for it
    forever. The methods a caller's thread uses (the main thread: where handlers run) therefore
    run shielded: a Ctrl-C lands after them."""

    def __init__(self):
        super().__init__()
        self._gate = Gate()  # opened once the future is done (finished or cancelled)
        self.on_cancel = None
        # A list while a worker completes a batch: the gate goes there, and the worker opens the
        # gates of the whole batch at once (wsarray._native._open_gates) right after.
        self.gate_sink = None

    def _invoke_callbacks(self):
        # Future calls this once it is done (result, exception, cancel), before the callbacks,
        # which may ask for the result themselves (they need no gate: see _wait).
        sink = self.gate_sink
        if sink is None:
            self._gate.set()
        else:
            self.gate_sink = None
            sink.append(self._gate)
        self.on_cancel = None  # it refers to the request, which refers to this future
        super()._invoke_callbacks()

    def cancel(self):
        hook = self.on_cancel
        cancelled = shielded(Future.cancel, self)
        if cancelled and hook is not None:
            hook()
        return cancelled

    def cancelled(self):
        return shielded(Future.cancelled, self)

    def running(self):
        return shielded(Future.running, self)

    def done(self):
        return shielded(Future.done, self)

    def add_done_callback(self, fn):
        shielded(Future.add_done_callback, self, fn)

    def __repr__(self):
        return shielded(Future.__repr__, self)

    def set_running_or_notify_cancel(self):
        running = super().set_running_or_notify_cancel()
        if not running:
            self._gate.set()  # cancelled (also when a cancel() was interrupted before it opened it)
        return running

    def _wait(self, timeout):
        # A done future needs no wait (its gate may still be in a worker's batch of gates to open).
        return self._state in _DONE or self._gate.wait(timeout)

    def wait_done(self, timeout=None):
        """True once done; False after ``timeout`` seconds (None: no limit)."""
        return self._wait(timeout)

    def result(self, timeout=None):
        if not self._wait(timeout):
            raise TimeoutError()
        return shielded(Future.result, self, 0)

    def exception(self, timeout=None):
        if not self._wait(timeout):
            raise TimeoutError()
        return shielded(Future.exception, self, 0)


_DONE = (_base.FINISHED, _base.CANCELLED_AND_NOTIFIED)


def complete_all(finish, requests, results):
    """Call ``finish(request, result=result)`` for each request and its result, then wake all their
    waiting callers at once (one release of the GIL instead of one per request); the gates open even
    if a ``finish`` raises."""
    gates = []
    try:
        for request, result in zip(requests, results):
            request.future.gate_sink = gates
            try:
                finish(request, result=result)
            finally:
                request.future.gate_sink = None
    finally:
        open_gates(gates)


class Request:
    """One caller's input and future, with the times the statistics need, its priority and
    deadline (a ``time.perf_counter()`` time, or None), and its place in the queue (``seq``,
    ``state``: wsarray/parallel/_priority.py). With pad buckets, ``key`` holds the padded shape and
    ``length`` the request's own length along the padded axis."""

    __slots__ = ("data", "rows", "key", "future", "submitted", "enqueued", "priority", "deadline",
                 "budget", "seq", "state", "length")

    def __init__(self, data, future, submitted, priority=0, budget=None):
        self.data = data
        self.rows = data.shape[0]
        self.key = (data.shape[1:], data.dtype)
        self.future = future
        self.submitted = submitted
        self.enqueued = None
        self.priority = priority
        self.budget = budget  # the deadline, in seconds after submitted
        self.deadline = None if budget is None else submitted + budget
        self.seq = self.state = self.length = None


def request_data(x, who):
    """The array a worker will read for request ``x`` (see the module docstring)."""
    if type(x) is Array:
        if x.is_attached():
            x = x.detach()  # raises WorkspaceError when x's cycle has already ended
    elif not isinstance(x, numpy.ndarray):
        try:
            x = numpy.asarray(x)
        except (TypeError, ValueError) as e:
            raise TypeError(f"{who}: a request must be an array or convertible to one "
                            f"({type(x).__name__} is not: {e})") from e
    if x.ndim == 0:
        raise ValueError(f"{who}: a request needs a leading batch axis (one row per sample), "
                         "got a 0-d array; pass x[None] for a single sample")
    return x


def _copy_out(a):
    return a.detach() if type(a) is Array else a.copy()


def _rebuild(like, items):
    if isinstance(like, tuple) and hasattr(like, "_fields"):  # namedtuple
        return type(like)(*items)
    return tuple(items) if isinstance(like, tuple) else list(items)


def detached(output):
    """``output`` with every array copied out of the workspace (sequential mode)."""
    if isinstance(output, (Array, numpy.ndarray)):
        return _copy_out(output)
    if isinstance(output, dict):
        return {k: detached(v) for k, v in output.items()}
    if isinstance(output, (tuple, list)):
        return _rebuild(output, [detached(v) for v in output])
    return output


def split_detached(output, rows, who, trim=None):
    """One detached result per request: every array of ``output`` split along axis 0 into
    consecutive parts of ``rows[i]`` rows (batched mode); ``trim(part, i)``, when given, cuts
    request ``i``'s part of an array before it is copied out (pad buckets)."""
    total = sum(rows)
    bounds = []
    start = 0
    for n in rows:
        bounds.append((start, start + n))
        start += n
    return _split(output, bounds, total, who, trim)


def _split(output, bounds, total, who, trim):
    if isinstance(output, (Array, numpy.ndarray)):
        if output.ndim == 0 or output.shape[0] != total:
            raise ValueError(f"{who}: in mode='batched' every array the model returns needs one "
                             f"row per input row along axis 0: the batch has {total} rows, the "
                             f"model returned shape {tuple(output.shape)}")
        if trim is None:
            return [_copy_out(output[a:b]) for a, b in bounds]
        return [_copy_out(trim(output[a:b], i)) for i, (a, b) in enumerate(bounds)]
    if isinstance(output, dict):
        parts = {k: _split(v, bounds, total, who, trim) for k, v in output.items()}
        return [{k: p[i] for k, p in parts.items()} for i in range(len(bounds))]
    if isinstance(output, (tuple, list)):
        parts = [_split(v, bounds, total, who, trim) for v in output]
        return [_rebuild(output, [p[i] for p in parts]) for i in range(len(bounds))]
    raise TypeError(f"{who}: in mode='batched' the model must return arrays (or a tuple, list "
                    f"or dict of them) to split per request, got {type(output).__name__}")
