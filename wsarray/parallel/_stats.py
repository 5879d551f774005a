"""Counters and latency percentiles of a worker pool, safe to update from any thread.

Every request submitted ends in one of completed, failed, cancelled, expired (its deadline passed
before a worker took it) or shed (a request of higher priority took its place in a full queue).
Latency runs from the ``submit()`` call (waits for queue room included) to the moment the result
or the error is set; queue wait runs from entering the queue to a worker taking the batch. The
last ``WINDOW`` values of each are kept for the percentiles.
"""

import collections
import threading

import numpy

WINDOW = 100_000


def _summary_ms(values):
    if not values:
        return {"mean": None, "p50": None, "p99": None, "max": None}
    ms = numpy.fromiter(values, dtype=numpy.float64, count=len(values)) * 1e3
    p50, p99 = numpy.percentile(ms, [50, 99])
    return {"mean": float(ms.mean()), "p50": float(p50), "p99": float(p99), "max": float(ms.max())}


class PoolStats:
    def __init__(self):
        self._lock = threading.RLock()
        self.reset()

    def reset_lock_in_forked_child(self):
        self._lock = threading.RLock()  # a thread of the parent may have held it at the fork

    def reset(self):
        with self._lock:
            self.submitted = self.completed = self.failed = self.cancelled = self.rejected = 0
            self.expired = self.shed = 0
            self.batches = self.batch_requests = self.batch_rows = self.retried_batches = 0
            self.latencies = collections.deque(maxlen=WINDOW)
            self.queue_waits = collections.deque(maxlen=WINDOW)

    def count(self, name, n=1):
        with self._lock:
            setattr(self, name, getattr(self, name) + n)

    def batch_taken(self, requests, now):
        with self._lock:
            self.queue_waits.extend(now - r.enqueued for r in requests)

    def batch_run(self, requests, rows):
        with self._lock:
            self.batches += 1
            self.batch_requests += requests
            self.batch_rows += rows

    def finished(self, request, ok, now):
        with self._lock:
            if ok:
                self.completed += 1
            else:
                self.failed += 1
            self.latencies.append(now - request.submitted)

    def snapshot(self):
        with self._lock:
            latencies = list(self.latencies)
            queue_waits = list(self.queue_waits)
            batches = self.batches
            snap = {
                "requests": self.submitted, "completed": self.completed, "failed": self.failed,
                "cancelled": self.cancelled, "rejected": self.rejected, "expired": self.expired,
                "shed": self.shed, "batches": batches,
                "retried_batches": self.retried_batches,
                "mean_batch_requests": self.batch_requests / batches if batches else None,
                "mean_batch_rows": self.batch_rows / batches if batches else None,
            }
        snap["queue_wait_ms"] = _summary_ms(queue_waits)
        snap["latency_ms"] = _summary_ms(latencies)
        return snap
