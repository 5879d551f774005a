"""ParallelInference.evaluate: the pool's workers run the batches, and each worker thread updates a
copy of every metric of its own (in the callback of the batch's future, on that thread); the copies
are merged into the caller's metrics at the end, in worker order (merging is exact, so the order
does not change a result)."""

import collections
import copy
import threading

from .._interrupts import GateEvent, shielded
from .._native import Array
from ..evaluation._evaluate import check_metrics, unpack


def _kept(x):
    """Labels and masks outlive the batch's slot (an AsyncIterator reuses it): copy those in one."""
    return x.detach() if type(x) is Array and x.is_attached() else x


def evaluate_on_pool(pool, data, metrics, max_in_flight, who):
    check_metrics(metrics, who)
    if isinstance(max_in_flight, bool) or not isinstance(max_in_flight, int) or max_in_flight < 1:
        raise ValueError(f"{who}: max_in_flight must be a positive int, not {max_in_flight!r}")
    try:
        iterator = iter(data)
    except TypeError:
        raise TypeError(f"{who}: data must be iterable (batches), not {type(data).__name__}") from None
    templates = [m.empty_like() for m in metrics]
    per_thread = {}  # thread id -> that thread's metric copies (only that thread updates them)
    failures = []
    # A future's waiters wake before its callbacks run: the caller waits for every callback too.
    # Counted in a deque (one append per callback, one step under the GIL) and waited for on a
    # Gate: a Ctrl-C on the caller's thread cannot leave a lock held that a worker then needs.
    finished = collections.deque()
    progress = GateEvent()

    def on_done(future, labels, mask):
        try:
            update(future, labels, mask)
        finally:
            finished.append(None)
            progress.set()

    def update(future, labels, mask):
        if future.cancelled() or future.exception() is not None:
            return  # the caller raises the model's error when it waits for this future
        try:
            mine = per_thread.get(threading.get_ident())
            if mine is None:
                mine = per_thread.setdefault(threading.get_ident(), copy.deepcopy(templates))
            for metric in mine:
                metric.update(labels, future.result(), mask)
        except BaseException as e:  # noqa: BLE001 -- raised again in the caller
            failures.append(e)

    pending = collections.deque()
    submitted = 0
    try:
        for number, batch in enumerate(iterator, 1):
            features, labels, mask = unpack(batch, number, who)
            future = pool.submit(features)
            submitted += 1
            labels, mask = _kept(labels), _kept(mask)
            future.add_done_callback(lambda f, y=labels, m=mask: on_done(f, y, m))
            pending.append(future)
            while len(pending) > max_in_flight or (pending and pending[0].done()):
                pending.popleft().result()  # the model's exception, if any, stops the evaluation
            if failures:
                raise failures[0]
        while pending:
            pending.popleft().result()
        while len(finished) < submitted:
            progress.wait(0.05)
            progress.clear()  # a set missed here is seen by the count, or within 0.05 s
        if failures:
            raise failures[0]
    except BaseException:
        shielded(_cancel_all, pending)
        raise
    for copies in per_thread.values():
        for metric, part in zip(metrics, copies):
            metric.merge(part)
    return metrics[0] if len(metrics) == 1 else metrics


def _cancel_all(futures):
    for f in futures:
        f.cancel()
