"""The request queue of a worker pool, with Deeplearning4j's batching rule.

Requests wait in batches that no worker has taken yet. In batched mode a new request joins the
open batch of its key (trailing shape and dtype) while that has room for its rows up to
``batch_limit``; otherwise it starts a new batch (and the old one takes no more). There is no
timer: a free worker takes the oldest batch at once, so a lone request runs immediately and
batches grow only while every worker is busy. ``max_wait_s > 0`` lets a worker hold back a batch
that could still grow until its oldest request has waited that long (Triton's queue delay). In
sequential mode every request is a batch of its own. ``queue_limit`` bounds the requests waiting
(back-pressure for ``put``). Every blocking wait wakes at least every ``POLL_S`` seconds, so a
closed queue or a KeyboardInterrupt is seen promptly.
"""

import collections
import queue
import threading
import time

POLL_S = 0.1  # longest sleep of any blocking wait before it looks at the stop flag again


class Batch:
    __slots__ = ("key", "requests", "rows", "first_enqueued")

    def __init__(self, request):
        self.key = request.key
        self.requests = [request]
        self.rows = request.rows
        self.first_enqueued = request.enqueued


class BatchQueue:
    def __init__(self, *, batched, batch_limit, queue_limit, max_wait_s):
        self.batched = batched
        self.batch_limit = batch_limit
        self.queue_limit = queue_limit
        self.max_wait_s = max_wait_s
        self._lock = threading.Lock()
        self._work = threading.Condition(self._lock)   # workers wait here for a batch
        self._room = threading.Condition(self._lock)   # submitters wait here for room
        self._batches = collections.deque()            # not yet taken, oldest first
        self._open = {}                                # key -> the batch new requests join
        self.waiting = 0                               # requests in self._batches
        self.closed = False
        self.closed_reason = "the pool is shut down"

    def put(self, request, *, block, timeout, who):
        """Queue ``request``; ``queue.Full`` when there is no room (now, or within ``timeout``);
        ``RuntimeError`` once the queue is closed."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while not self.closed and self.waiting >= self.queue_limit:
                if not block:
                    raise queue.Full
                wait = POLL_S
                if deadline is not None:
                    wait = min(wait, deadline - time.monotonic())
                    if wait <= 0:
                        raise queue.Full
                self._room.wait(wait)
            if self.closed:
                raise RuntimeError(f"{who}: {self.closed_reason}")
            request.enqueued = time.perf_counter()
            self._add(request)
            self.waiting += 1
            self._work.notify()

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
        with self._lock:
            while True:
                batch, wait = self._ready(time.perf_counter())
                if batch is not None:
                    self._remove(batch)
                    return batch
                if self.closed and not self._batches:
                    return None
                self._work.wait(wait)

    def _remove(self, batch):
        if self._batches[0] is batch:
            self._batches.popleft()
        else:
            self._batches.remove(batch)
        if self._open.get(batch.key) is batch:
            del self._open[batch.key]
        self.waiting -= len(batch.requests)
        self._room.notify_all()

    def reset_in_forked_child(self):
        """Closed, empty and with fresh locks: a thread of the parent may have held the old ones
        at the fork, and no worker exists here to take a request."""
        self._lock = threading.Lock()
        self._work = threading.Condition(self._lock)
        self._room = threading.Condition(self._lock)
        self._batches.clear()
        self._open.clear()
        self.waiting = 0
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
                self.waiting = 0
            self._work.notify_all()
            self._room.notify_all()
            return dropped
