"""The request queue of a worker pool, with Deeplearning4j's batching rule.

Requests wait in batches that no worker has taken yet. In batched mode a new request joins the
open batch of its key (trailing shape and dtype) while that has room for its rows up to
``batch_limit``; otherwise it starts a new batch (and the old one takes no more). There is no
timer: a free worker takes the oldest batch at once, so a lone request runs immediately and
batches grow only while every worker is busy. ``max_wait_s > 0`` lets a worker hold back a batch
that could still grow until its oldest request has waited that long (Triton's queue delay). In
sequential mode every request is a batch of its own. ``queue_limit`` bounds the requests waiting
(back-pressure for ``put``). Every blocking wait is a Gate's (wsarray/_interrupts.py: a Ctrl-C
cannot break it) and wakes at least every ``POLL_S`` seconds, so a closed queue is seen promptly.
"""

import collections
import queue
import threading
import time

from .._interrupts import Gate, shielded

POLL_S = 0.1  # longest sleep of any blocking wait before it looks at the stop flag again


class Batch:
    __slots__ = ("key", "requests", "rows", "first_enqueued")

    def __init__(self, request):
        self.key = request.key
        self.requests = [request]
        self.rows = request.rows
        self.first_enqueued = request.enqueued


class BatchQueue:
    """The batches; its state changes under ``_lock`` (a submitter on the main thread makes its
    change on the interrupt shield: wsarray/_interrupts.py), and every wait is a Gate's."""

    def __init__(self, *, batched, batch_limit, queue_limit, max_wait_s):
        self.batched = batched
        self.batch_limit = batch_limit
        self.queue_limit = queue_limit
        self.max_wait_s = max_wait_s
        self._lock = threading.Lock()
        self._work = Gate()                            # opened when workers should look again
        self._room = Gate()                            # opened when submitters should look again
        self._batches = collections.deque()            # not yet taken, oldest first
        self._open = {}                                # key -> the batch new requests join
        self.closed = False
        self.closed_reason = "the pool is shut down"

    @property
    def waiting(self):
        """Requests no worker has taken yet (counted from the batches, so never out of step)."""
        return sum(len(b.requests) for b in list(self._batches))

    def put(self, request, *, block, timeout, who):
        """Queue ``request``; ``queue.Full`` when there is no room (now, or within ``timeout``);
        ``RuntimeError`` once the queue is closed."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not shielded(self._try_put, request, who):
            if not block:
                raise queue.Full
            wait = POLL_S
            if deadline is not None:
                wait = min(wait, deadline - time.monotonic())
                if wait <= 0:
                    raise queue.Full
            self._room.wait(wait)

    def _try_put(self, request, who):
        with self._lock:
            if self.closed:
                raise RuntimeError(f"{who}: {self.closed_reason}")
            if self.waiting >= self.queue_limit:
                self._room.clear()  # under the lock: a worker taking a batch after this opens it
                return False
            request.enqueued = time.perf_counter()
            self._add(request)
        self._work.set()
        return True
    def _add(self, request):
        batch = self._open.get(request.key) if self.batched else None
        if batch is not None and batch.rows + request.rows <= self.batch_limit:
            batch.requests.append(request)
            batch.rows += request.rows
        else:
            batch = Batch(request)
            self._batches.append(batch)
            if self.batched:
                self._open[request.key] = batch
        if self.batched and batch.rows >= self.batch_limit:
            del self._open[request.key]  # full: the next request of this key starts a new batch

    def _ready(self, now):
        """The oldest batch a worker may take now, or (None, seconds until one may be ready)."""
        if not self.max_wait_s or self.closed:
            return (self._batches[0], 0) if self._batches else (None, POLL_S)
        soonest = POLL_S
        for batch in self._batches:
            if self._open.get(batch.key) is not batch:
                return batch, 0  # full, or closed by a request that did not fit
            due = batch.first_enqueued + self.max_wait_s - now
            if due <= 0:
                return batch, 0
            soonest = min(soonest, due)
        return None, soonest

    def take(self):
        """The next batch for a worker (waiting as needed); None once closed and empty."""
        while True:
            with self._lock:
                self._work.clear()  # under the lock: a put or close after this opens it again
                batch, wait = self._ready(time.perf_counter())
                if batch is not None:
                    self._remove(batch)
                    more = bool(self._batches)
                elif self.closed and not self._batches:
                    self._work.set()  # the other workers stop too
                    return None
            if batch is not None:
                if more:
                    self._work.set()  # another worker takes the next one
                self._room.set()
                return batch
            self._work.wait(wait)

    def _remove(self, batch):
        if self._batches[0] is batch:
            self._batches.popleft()
        else:
            self._batches.remove(batch)
        if self._open.get(batch.key) is batch:
            del self._open[batch.key]

    def reset_in_forked_child(self):
        """Closed, empty and with fresh locks: a thread of the parent may have held the old ones
        at the fork, and no worker exists here to take a request."""
        self._lock = threading.Lock()
        self._work = Gate()
        self._room = Gate()
        self._batches.clear()
        self._open.clear()
        self.closed = True
        self.closed_reason = ("the pool was started in the parent process, and its workers do not "
                              "exist in this forked child; start a new pool here")

    def close(self, drop_waiting):
        """Refuse new requests and wake everyone; with ``drop_waiting``, return the batches no
        worker has taken (removed from the queue) for the caller to fail."""
        with self._lock:
            self.closed = True
            dropped = []
            if drop_waiting:
                dropped = list(self._batches)
                self._batches.clear()
                self._open.clear()
        self._work.set()
        self._room.set()
        return dropped
