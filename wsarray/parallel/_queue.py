"""The request queue of a worker pool: priorities, deadlines, shedding, and the batching rule.

The requests wait in a ``RequestStore`` (wsarray/parallel/_priority.py), which forms a batch when
a worker takes one: the oldest request of the highest priority level, joined (batched mode) by
requests of the same key, highest level first, up to ``batch_limit`` rows. There is no timer: a
free worker takes a batch at once, so a lone request runs immediately and batches grow only while
every worker is busy. ``max_wait_s > 0`` lets a worker hold back a batch that could still grow
until its oldest request has waited that long (Triton's queue delay). In sequential mode every
request is a batch of its own. ``batch_limit`` and ``max_wait_s`` may change at any time
(``configure``): they apply to the batches formed after.

``queue_limit`` bounds the requests waiting: ``put`` waits for room, except that a request whose
priority is higher than the lowest level waiting sheds the newest request of that level instead.
A request whose deadline passes is taken out and failed (by ``on_dropped``, outside the lock) by
the worker that meets it while forming a batch, or by the deadline reaper (``expire_due``), which
sleeps on the ``timer`` gate until the soonest deadline. Every blocking wait is a Gate's
(wsarray/_interrupts.py: a Ctrl-C cannot break it) and wakes at least every ``POLL_S`` seconds,
so a closed queue is seen promptly.
"""

import queue
import threading
import time

from .._interrupts import Gate, shielded
from ._priority import RequestStore

POLL_S = 0.1  # longest sleep of any blocking wait before it looks at the stop flag again


class BatchQueue:
    """The waiting requests; its state changes under ``_lock`` (a submitter on the main thread
    makes its change on the interrupt shield: wsarray/_interrupts.py), and every wait is a Gate's.
    ``on_dropped(requests, why, by)`` fails requests taken out for ``why`` ("expired", or "shed"
    to make room for request ``by``); it is called outside the lock."""

    def __init__(self, *, batched, batch_limit, queue_limit, max_wait_s, on_dropped):
        self.batched = batched
        self.batch_limit = batch_limit
        self.queue_limit = queue_limit
        self.max_wait_s = max_wait_s
        self._on_dropped = on_dropped
        # Reentrant, as every lock of wsarray's: the collector may run a finalizer (a pool dropped
        # without shutdown() closes its queue) on a thread inside the locked code.
        self._lock = threading.RLock()
        self._work = Gate()                            # opened when workers should look again
        self._room = Gate()                            # opened when submitters should look again
        self.timer = Gate()                            # opened when the reaper should look again
        self._store = RequestStore()
        self.closed = False
        self.closed_reason = "the pool is shut down"

    @property
    def waiting(self):
        """Requests no worker has taken yet."""
        return self._store.count

    # -- submitters -------------------------------------------------------------------------

    def put(self, request, *, block, timeout, who):
        """Queue ``request``; ``queue.Full`` when there is no room (now, or within ``timeout``);
        ``RuntimeError`` once the queue is closed. A request whose deadline passes while it waits
        for room is failed as expired (its future says so; no exception here)."""
        until = None if timeout is None else time.monotonic() + timeout
        while True:
            outcome = shielded(self._try_put, request, who)
            if outcome == "queued":
                return
            if outcome == "expired":
                shielded(self._on_dropped, [request], "expired", None)
                return
            if not block:
                raise queue.Full
            wait = POLL_S
            if until is not None:
                wait = min(wait, until - time.monotonic())
                if wait <= 0:
                    raise queue.Full
            if request.deadline is not None:
                wait = max(0.0, min(wait, request.deadline - time.perf_counter()))
            self._room.wait(wait)

    def _try_put(self, request, who):
        victim = None
        with self._lock:
            if self.closed:
                raise RuntimeError(f"{who}: {self.closed_reason}")
            now = time.perf_counter()
            if request.deadline is not None and request.deadline <= now:
                return "expired"
            if self._store.count >= self.queue_limit:
                victim = self._store.shed_victim(request.priority)
                if victim is None:
                    self._room.clear()  # under the lock: a worker taking a batch after this opens it
                    return "full"
            request.enqueued = now
            soonest = self._store.add(request)
        if soonest:
            self.timer.set()
        self._work.set()
        if victim is not None:
            self._on_dropped([victim], "shed", request)
        return "queued"

    def discard(self, request):
        """Take ``request`` out if it is still waiting (its future was cancelled); True if it was."""
        with self._lock:
            dropped = self._store.drop(request)
        if dropped:
            self._room.set()
        return dropped

    # -- workers ----------------------------------------------------------------------------

    def take(self):
        """The requests of the next batch for a worker (waiting as needed); None once the queue is
        closed and empty."""
        while True:
            expired = []
            with self._lock:
                self._work.clear()  # under the lock: a put or close after this opens it again
                hold = 0 if self.closed else self.max_wait_s
                batch, wait = self._store.next_batch(
                    time.perf_counter(), batched=self.batched, batch_limit=self.batch_limit,
                    hold_s=hold, expired=expired)
                more = self._store.count > 0
                stop = batch is None and self.closed and not more
            if expired:
                self._room.set()
                self._on_dropped(expired, "expired", None)
            if batch is not None:
                if more:
                    self._work.set()  # another worker takes the next one
                self._room.set()
                return batch
            if stop:
                self._work.set()  # the other workers stop too
                self.timer.set()  # and so does the reaper
                return None
            self._work.wait(POLL_S if wait is None else min(wait, POLL_S))

    def configure(self, *, batch_limit=None, max_wait_s=None):
        with self._lock:
            if batch_limit is not None:
                self.batch_limit = batch_limit
            if max_wait_s is not None:
                self.max_wait_s = max_wait_s
        self._work.set()  # a batch held back may be ready under the new rule

    # -- the deadline reaper ----------------------------------------------------------------

    def expire_due(self):
        """Fail the requests whose deadline has passed; returns how long to sleep before looking
        again, or None once the queue is closed and empty (the reaper stops)."""
        with self._lock:
            self.timer.clear()  # under the lock: a put of a sooner deadline after this opens it
            now = time.perf_counter()
            expired, soonest = self._store.expire_due(now)
            stop = self.closed and self._store.count == 0
        if expired:
            self._room.set()
            self._on_dropped(expired, "expired", None)
        if stop:
            return None
        return POLL_S if soonest is None else min(POLL_S, max(0.0, soonest - now))

    # -- closing ----------------------------------------------------------------------------

    def reset_in_forked_child(self):
        """Closed, empty and with fresh locks: a thread of the parent may have held the old ones
        at the fork, and no worker exists here to take a request."""
        self._lock = threading.RLock()
        self._work = Gate()
        self._room = Gate()
        self.timer = Gate()
        self._store = RequestStore()
        self.closed = True
        self.closed_reason = ("the pool was started in the parent process, and its workers do not "
                              "exist in this forked child; start a new pool here")

    def close(self, drop_waiting):
        """Refuse new requests and wake everyone; with ``drop_waiting``, return the requests no
        worker has taken (removed from the queue) for the caller to fail."""
        with self._lock:
            self.closed = True
            dropped = self._store.drain() if drop_waiting else []
        self._work.set()
        self._room.set()
        self.timer.set()
        return dropped
