"""The waiting requests of a worker pool, by batching key and priority level, with their deadlines.

No locking here: the queue (wsarray/parallel/_queue.py) calls every method under its lock. Each
batching key (trailing shape and dtype: the padded shape with pad buckets) has one FIFO deque per
priority level. Batches are formed when a worker takes one, not when requests arrive:

* the batch starts with the oldest request of the highest level waiting (of any key);
* it is filled with requests of the same key, highest level first and oldest first within a level,
  up to ``batch_limit`` rows, stopping at the first request that does not fit (no request
  overtakes another of its key and level; a request over ``batch_limit`` runs alone). So a batch
  may hold several levels, always the highest ones waiting for its key.

A request leaves when a worker takes it (``TAKEN``), or when it is cancelled, expired or shed
(``GONE``): those are marked, counted out, and removed from their deque lazily (at its head, or all
at once when stale entries outnumber the waiting ones). Requests with a deadline are also in a heap,
so that the soonest deadline is known at once; a request whose deadline has passed is never taken
(workers skip it while forming a batch, the deadline reaper fails it: _deadlines.py).
"""

import collections
import heapq
import itertools

QUEUED, TAKEN, GONE = "queued", "taken", "gone"  # Request.state
COMPACT_SLACK = 64  # stale entries tolerated beyond the waiting count before a clean-up


class RequestStore:
    def __init__(self):
        self._keys = {}           # key -> {priority: deque of requests, oldest first}
        self._deadlines = []      # heap of (deadline, seq, request)
        self._seq = itertools.count()
        self.count = 0            # requests waiting (QUEUED)
        self._stale = 0           # GONE entries still in the deques

    # -- in and out -------------------------------------------------------------------------

    def add(self, request):
        """Queue ``request``; True when its deadline is now the soonest one."""
        if self._stale > self.count + COMPACT_SLACK:  # adding is what grows the deques
            self._compact()
        request.seq = next(self._seq)
        request.state = QUEUED
        levels = self._keys.setdefault(request.key, {})
        levels.setdefault(request.priority, collections.deque()).append(request)
        self.count += 1
        if request.deadline is None:
            return False
        if len(self._deadlines) > 2 * self.count + COMPACT_SLACK:  # entries of requests gone
            self._deadlines = [e for e in self._deadlines if e[2].state == QUEUED]
            heapq.heapify(self._deadlines)
        heapq.heappush(self._deadlines, (request.deadline, request.seq, request))
        return self._deadlines[0][2] is request

    def drop(self, request):
        """Take ``request`` out (cancelled, expired or shed); True if it was waiting."""
        if request.state != QUEUED:
            return False
        request.state = GONE
        self.count -= 1
        self._stale += 1
        return True

    def drain(self):
        """Every waiting request, oldest first, all taken out."""
        waiting = sorted((r for levels in self._keys.values() for q in levels.values()
                          for r in q if r.state == QUEUED), key=lambda r: r.seq)
        for r in waiting:
            r.state = GONE
        self._keys.clear()
        self._deadlines.clear()
        self.count = self._stale = 0
        return waiting

    def expire_due(self, now):
        """The waiting requests whose deadline is ``now`` or earlier, taken out; and the soonest
        deadline left (None: none)."""
        expired = []
        while self._deadlines and self._deadlines[0][0] <= now:
            request = heapq.heappop(self._deadlines)[2]
            if self.drop(request):
                expired.append(request)
        return expired, (self._deadlines[0][0] if self._deadlines else None)

    def shed_victim(self, priority):
        """The newest request of the lowest level waiting, taken out, if that level is below
        ``priority``; else None."""
        self._clean()
        lowest = min((p for levels in self._keys.values() for p in levels), default=None)
        if lowest is None or lowest >= priority:
            return None
        newest = None
        for levels in self._keys.values():
            for r in reversed(levels.get(lowest, ())):
                if r.state == QUEUED:
                    if newest is None or r.seq > newest.seq:
                        newest = r
                    break
        self.drop(newest)
        return newest

    # -- forming batches --------------------------------------------------------------------

    def next_batch(self, now, *, batched, batch_limit, hold_s, expired):
        """The requests of the batch a worker may take now, taken out, or (None, seconds until a
        batch may be ready). ``hold_s``: how long a batch that could still grow may wait for more
        requests after its oldest one arrived (0: not at all). Expired requests met on the way are
        taken out and appended to ``expired``."""
        ranked = self._ranked_keys()
        if not hold_s:  # the first key whose batch is not all expired
            while ranked:
                best = max(ranked)
                chosen, _ = self._candidate(best[1], now, batched, batch_limit, expired)
                if chosen:
                    return self._take(best[1], chosen), 0
                ranked.remove(best)
            return None, None
        soonest, first = None, None
        for _, key in sorted(ranked, reverse=True):
            chosen, full = self._candidate(key, now, batched, batch_limit, expired)
            if not chosen:
                continue
            due = 0 if full else min(r.enqueued for r in chosen) + hold_s - now
            if due <= 0:
                # A batch of a higher rank that could still grow goes first: holding it only pays
                # while the worker would otherwise wait; it must not let a lower one overtake it.
                return (self._take(*first) if first is not None else self._take(key, chosen)), 0
            if first is None:
                first = (key, chosen)
            soonest = due if soonest is None else min(soonest, due)
        return None, soonest

    def _ranked_keys(self):
        """``((top level, -seq of its oldest), key)`` for every key: the highest ranked batch
        starts first (stale heads are popped on the way; seqs are unique, so no two ranks tie)."""
        ranked = []
        for key in list(self._keys):
            self._clean_key(key)
            levels = self._keys.get(key)
            if levels:
                top = max(levels)
                ranked.append(((top, -levels[top][0].seq), key))
        return ranked

    def _candidate(self, key, now, batched, batch_limit, expired):
        """The batch of ``key`` a worker would take (requests still in place), and whether it is
        full (cannot grow any more)."""
        levels = self._keys[key]
        chosen, rows = [], 0
        for priority in (levels if len(levels) == 1 else sorted(levels, reverse=True)):
            for r in levels[priority]:
                if r.state != QUEUED:
                    continue
                if r.deadline is not None and r.deadline <= now:
                    self.drop(r)
                    expired.append(r)
                    continue
                if chosen and (not batched or rows + r.rows > batch_limit):
                    return chosen, True
                chosen.append(r)
                rows += r.rows
                if not batched or rows >= batch_limit:
                    return chosen, True
        return chosen, False

    def _take(self, key, chosen):
        for r in chosen:
            r.state = TAKEN
        self.count -= len(chosen)
        self._clean_key(key)  # the chosen ones lead their deques: they go now
        return chosen

    # -- stale entries ----------------------------------------------------------------------

    def _clean(self):
        for key in list(self._keys):
            self._clean_key(key)

    def _clean_key(self, key):
        """Pop the entries no longer waiting from the head of each deque of ``key``; drop the
        deques (and the key) left empty."""
        levels = self._keys.get(key)
        if levels is None:
            return
        for priority in list(levels):
            q = levels[priority]
            while q and q[0].state != QUEUED:
                if q.popleft().state == GONE:
                    self._stale -= 1
            if not q:
                del levels[priority]
        if not levels:
            del self._keys[key]

    def _compact(self):
        for key, levels in list(self._keys.items()):
            for priority, q in list(levels.items()):
                live = collections.deque(r for r in q if r.state == QUEUED)
                if live:
                    levels[priority] = live
                else:
                    del levels[priority]
            if not levels:
                del self._keys[key]
        self._stale = 0
