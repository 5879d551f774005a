"""The machinery of wsarray.data.AsyncIterator: the source, the ready queue, the producer thread.

``Pipeline`` holds everything the producer thread touches, and nothing refers back to the
``AsyncIterator`` object: the iterator can be garbage-collected while its thread runs, and its
finalizer stops the thread. Every blocking wait is a loop of short waits on Gates that checks a
stop flag. Builds (the source's ``next()`` plus the copy into the batch's slot) run on the
producer thread, or in the consumer's thread for a synchronous (shielded) source. Slots are
destroyed only when no build is running; whoever finishes last after ``close()`` frees them.

A Ctrl-C on the consumer (the main thread, where signal handlers run) never splits a change of
the shared state: the consumer's changes run on the interrupt shield (wsarray/_interrupts.py) and
its waits are Gates'. A batch handed to a consumer that was interrupted before it got it stays
that consumer's and is handed to it again at its next ``next()``: nothing is skipped or reordered.
"""

import contextvars
import os
import threading
import time
from collections import deque

from ..memory.history import note_fill
from .. import memory
from .._native import Array
from .._workspaces import WorkspaceError, scope_out
from .._interrupts import Gate, GateEvent, shielded
from ._batches import array_leaves, copy_into_current_scope, map_arrays
from ._ring import ARRAY_OVERHEAD

WAIT_S = 0.1  # longest single wait of any loop: how soon a stop flag is seen

BATCH, END, ERROR = "batch", "end", "error"


class Item:
    __slots__ = ("kind", "number", "batch", "slot", "error")

    def __init__(self, kind, number, batch=None, slot=None, error=None):
        self.kind, self.number, self.batch, self.slot, self.error = kind, number, batch, slot, error


class Held:
    """What a consumer was handed: a batch (or a source's error, raised at its position), and
    whether the consumer got it (an interrupted ``next()`` did not: the next one hands it again)."""

    __slots__ = ("number", "slot", "thread", "kind", "batch", "error", "delivered", "taker")

    def __init__(self, item, thread):
        self.number, self.slot, self.thread = item.number, item.slot, thread
        self.kind, self.batch, self.error = item.kind, item.batch, item.error
        self.delivered = False
        self.taker = threading.get_ident()  # the thread whose next() it is handed to


def is_one_shot(source, iterator):
    """Is ``source``, whose iterator is ``iterator``, one that cannot start again (a generator: its
    own iterator, without a reset() method)?"""
    return iterator is source and not callable(getattr(source, "reset", None))


def retire(slot):
    if slot is not None and slot.alive:
        slot.retire()


class Pipeline:
    def __init__(self, who, label, source, *, queue_size, ring, consumers, synchronous):
        self.who = who                    # "wsarray.data.AsyncIterator 'train'"
        self.label = label
        self.source = source
        self.source_iter = None           # the current epoch's iterator (made by the first build)
        self.queue_size = queue_size
        self.ring = ring                  # None: plain allocations (use_workspace=False)
        self.consumers = consumers
        self.synchronous = synchronous
        # A source whose next() allocates nothing but the batch (BatchDirectory) runs in the slot
        self.fills_slot = getattr(source, "allocates_batch_only", False) is True
        self.pid = os.getpid()
        self.lock = threading.RLock()      # an RLock: finalizers may run inside a locked section
        self.changed = Gate()              # opened when consumers should look again (a batch, a stop)
        self.room = Gate()                 # opened when the producer should look again (room, a stop)
        self.build_lock = threading.RLock()  # one build at a time (sources are not thread-safe)
        self.ready = deque()
        self.held = {}                    # consumer key -> Held
        self.next_number = 1              # batch numbers count every build of the iterator's life
        self.thread = None
        self.stop = None                  # the running producer's stop flag
        self.running = False              # a producer thread runs
        self.building = 0                 # builds running now (producer or synchronous)
        self.source_done = False          # the source ended: END is queued or was handed out
        self.finished = False             # END was handed out: the epoch is over
        self.closed = False
        self.freed = False
        self.crash = None                 # an internal failure of the producer thread
        self.epoch = 1
        self.last_number = 0
        self.figures = dict(built=0, queued=0, consumed=0, dropped=0, errors=0,
                            consumer_wait_s=0.0, last_wait_s=0.0, producer_wait_s=0.0,
                            producer_busy_s=0.0)

    # -- building one batch ------------------------------------------------------------------

    def build(self, number):
        """Run the source's next() into batch ``number``'s slot: an Item (BATCH, END or ERROR)."""
        start = time.perf_counter()
        slot = None
        try:
            if self.source_iter is None:
                self.source_iter = iter(self.source)
            if self.ring is None:
                with scope_out():
                    batch = map_arrays(next(self.source_iter), copy_into_current_scope)
            elif self.synchronous or self.fills_slot:
                # next() runs in the slot: what it makes with wsarray is the batch already
                slot = self.ring.slot(number)
                used_before = slot.stats()["used"]
                slot.begin()
                with slot.fill():
                    batch = map_arrays(next(self.source_iter), self._adopter(slot))
                self.ring.after_fill(slot, used_before)
            else:
                # next() runs in the ring's ETL workspace (its temporaries reuse one arena batch
                # after batch, whichever producer thread runs it); only the batch is copied into
                # the slot, so slots hold batches, not the source's working memory, and their
                # size is known in advance.
                etl = self.ring.etl_slot()
                etl.begin()
                try:
                    with etl.fill():
                        raw = next(self.source_iter)
                        slot = self.ring.slot(number, needs=_bytes_needed(raw))
                        slot.begin()
                        with slot.fill():
                            batch = map_arrays(raw, copy_into_current_scope)
                        del raw
                    note_fill(slot.name, slot.stats())
                finally:
                    etl.retire()
                note_fill(etl.name, etl.stats())
        except StopIteration:
            self._no_batch(slot, number)
            return Item(END, number)
        except BaseException as error:  # noqa: BLE001 - everything goes to the consumer, in order
            self._no_batch(slot, number)
            self._explain(error, number)
            return Item(ERROR, number, error=error)
        finally:
            self.figures["producer_busy_s"] += time.perf_counter() - start
            self.figures["built"] += 1
        return Item(BATCH, number, batch, slot)

    def _no_batch(self, slot, number):
        """Batch ``number`` ended without a batch: its slot still runs (an empty) cycle ``number``,
        so that every slot's cycles stay in step with the batch numbers its message states."""
        if slot is None and self.ring is not None:
            slot = self.ring.existing(number)
            if slot is not None and not slot.is_open:
                slot.begin()
        retire(slot)

    def _adopter(self, slot):
        ring = self.ring

        def adopt(leaf):
            # Arrays the source made in this slot (in wsarray calls inside next()) are the batch's
            # already; anything else is copied in.
            if type(leaf) is Array and ring.holds(slot, leaf):
                return leaf
            return copy_into_current_scope(leaf)

        return adopt

    def _explain(self, error, number):
        if not hasattr(error, "add_note"):
            return
        error.add_note(f"(raised by the source of {self.who} while it built batch {number})")
        if isinstance(error, WorkspaceError) and f"data:{self.label}:" in str(error):
            error.add_note(
                f"The source used an array it made during an earlier next() call. {self.who} "
                "runs each next() of the source in a workspace cycle of its own (the batch's slot, "
                "or the producer's ETL workspace), so whatever next() makes with wsarray is "
                "retired with that batch. Build large, long-lived things "
                "(datasets, buffers, lookup tables) in the source's constructor, not in next(), "
                "or keep them with .detach().")

    # -- the producer thread -----------------------------------------------------------------

    def start_producer(self):
        """Start a producer thread (caller holds ``lock``, where no Ctrl-C lands: a consumer
        thread or a shielded call; none is running)."""
        stop = GateEvent()
        thread = threading.Thread(target=contextvars.Context().run, args=(_produce, self, stop),
                                  name=f"wsarray-data-{self.label}", daemon=True)
        self.stop, self.thread, self.running = stop, thread, True
        try:
            thread.start()
        except BaseException:
            self.running = False
            raise

    def on_producer_thread(self):
        """Is the caller the producer thread (the source's own code, calling back)?"""
        thread = self.thread
        return thread is not None and thread is threading.current_thread()

    def ensure_producer(self):
        """Keep prefetching (caller holds ``lock``)."""
        if not (self.running or self.synchronous or self.source_done or self.finished or self.closed
                or self.crash is not None):
            self.start_producer()

    def wait_for_room(self, stop):
        """The number of the next batch to build once the queue and its slot have room; None if
        stopped. Retires batches held by consumer threads that have exited."""
        while True:
            with self.lock:
                self.room.clear()  # under the lock: a change after this opens it again
                if stop.is_set() or self.closed:
                    return None
                number = self.next_number
                # Fewer than queue_size ready: with the one being built, queue_size ahead. The
                # slot it needs was retired a step earlier than the consumer's last one, so the
                # consumer's loop variable, which still refers to the batch it retires while it
                # waits for the next, no longer refers to that slot's arrays (no spill).
                room = len(self.ready) < self.queue_size
                if room and (self.ring is None or self.ring.is_free(number)):
                    self.next_number += 1
                    self.building += 1
                    return number
                dead = self._pop_dead_holders()
            if dead:
                self._retire_all(dead)
            else:
                self.room.wait(WAIT_S)

    def _pop_dead_holders(self):
        dead = [k for k, h in self.held.items() if h.thread is not None and not h.thread.is_alive()]
        return [self.held.pop(k) for k in dead]

    def _retire_all(self, entries):
        try:
            for entry in entries:
                retire(entry.slot)
        finally:
            self.room.set()

    def build_done(self):
        with self.lock:
            self.building -= 1
            free = self._should_free()
        self.changed.set()
        if free:
            self.free_memory()

    # -- the consumer ------------------------------------------------------------------------

    def take(self, key, cancel=None):
        """The next batch for consumer ``key``; retires that consumer's previous batch first.

        ``cancel``: an Event; once set, a consumer waiting for a batch stops waiting
        (StopIteration), so a worker pool can stop without closing an iterator it does not own."""
        if os.getpid() != self.pid:
            raise RuntimeError(f"{self.who}: this iterator was made in the parent process; after "
                               "os.fork() its producer thread does not exist here: make a new "
                               "AsyncIterator in the child")
        start = time.perf_counter()
        owner = threading.current_thread() if self.consumers > 1 else None  # retired when it exits
        if self.synchronous:
            entry = self._take_synchronous(key, owner)
        else:
            while True:
                entry = shielded(self._next_entry, key, owner, cancel)
                if entry is not None:
                    break
                self.changed.wait(WAIT_S)
        waited = time.perf_counter() - start
        f = self.figures
        f["consumer_wait_s"] += waited
        f["last_wait_s"] = waited
        entry.delivered = True  # from here the consumer has it (no call can be interrupted between)
        if entry.kind == ERROR:
            raise entry.error
        return entry.batch

    def _next_entry(self, key, owner, cancel=None):
        """One step of ``take()`` that cannot wait: the batch (or error) consumer ``key`` is to get
        now, None if none is ready yet (wait for ``changed``), StopIteration at the end."""
        again = self._again_or_release(key)
        if again is not None:
            return again
        with self.lock:
            if self.closed or self.finished or (cancel is not None and cancel.is_set()):
                raise StopIteration
            self.ensure_producer()
            self.changed.clear()  # under the lock, before looking: a batch queued after opens it
            if not self.ready:
                if self.crash is not None:
                    raise RuntimeError(f"{self.who}: the producer thread failed") from self.crash
                return None
            item = self.ready.popleft()
            entry = self._handed(key, item, owner)
        self.room.set()
        return entry

    def _handed(self, key, item, owner):
        """Record ``item`` as consumer ``key``'s (caller holds ``lock``); StopIteration at the end."""
        if item.kind == END:
            self.finished = self.source_done = True
            raise StopIteration
        if self.closed:  # closed by another thread while this one waited
            retire(item.slot)
            raise StopIteration
        entry = Held(item, owner)
        displaced = self.held.get(key)
        if displaced is not None:  # another thread's next() for the same consumer came between
            retire(displaced.slot)
            self.room.set()
        self.held[key] = entry
        if item.kind == ERROR:
            self.figures["errors"] += 1
        else:
            self.last_number = item.number
            self.figures["consumed"] += 1
        return entry

    def _again_or_release(self, key):
        """The batch consumer ``key`` was handed by this thread's interrupted next() (it never got
        it: handed again); else that consumer's previous batch is retired and None returned. Under
        the lock: threads sharing one consumer (consumers=1) never get the same batch twice, and
        one never retires the batch another was just handed in its place."""
        with self.lock:
            held = self.held.get(key)
            if held is None:
                return None
            if not held.delivered and held.taker == threading.get_ident():
                return held
            del self.held[key]
        self._retire_all([held])
        return None

    def _take_synchronous(self, key, owner):
        again = self._again_or_release(key)
        if again is not None:
            return again
        with self.build_lock:
            with self.lock:
                if self.closed or self.finished:
                    raise StopIteration
            number = self.wait_for_room(_NEVER)
            if number is None:  # closed meanwhile
                raise StopIteration
            try:
                item = self.build(number)
            finally:
                self.build_done()
            with self.lock:
                return self._handed(key, item, owner)

    def release(self, key):
        """Retire the batch consumer ``key`` holds (if any)."""
        shielded(self._release_now, key)

    def _release_now(self, key):
        with self.lock:
            entry = self.held.pop(key, None)
        if entry is not None:
            self._retire_all([entry])

    # -- epochs, stopping, freeing ------------------------------------------------------------

    def pause(self):
        """Stop the producer after the batch it is building (kept); nothing is dropped."""
        stop = self.stop
        if stop is not None:
            stop.set()
        self.room.set()

    def wait_stopped(self, timeout=None):
        """Stop the producer and wait until it exited; False if still running after ``timeout``."""
        self.pause()
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self.lock:
                self.changed.clear()
                if not self.running:
                    thread = self.thread
                    break
            if deadline is not None and time.monotonic() >= deadline:
                return False
            self.changed.wait(WAIT_S)
        # Its work is done; the thread itself ends a moment later: gone once this returns.
        if thread is not None and thread is not threading.current_thread():
            thread.join(1.0)
        return True

    def _drop_ready_now(self):
        with self.lock:
            items, self.ready = list(self.ready), deque()
            dropped = [i for i in items if i.kind == BATCH]
            self.figures["dropped"] += len(dropped)
        self._retire_all(dropped)

    def reset_epoch(self):
        """Drop the prefetched batches and begin a new epoch once the producer has stopped.

        One step no Ctrl-C can split at a time (the interrupt shield): a producer still running
        (or started meanwhile by a step of an interrupted call) is asked to stop and waited for
        first, so a new epoch never begins under a producer of the old one."""
        while not shielded(self._try_reset_epoch):
            self.changed.wait(WAIT_S)

    def _try_reset_epoch(self):
        with self.lock:
            if self.running:
                self.changed.clear()  # under the lock: the producer's exit opens it after this
                self.pause()
                return False
        self._drop_ready_now()
        self._restart_now()
        return True

    def _restart_now(self):
        it = self.source_iter
        if it is not None and it is self.source:
            self.source.reset()  # a one-shot iterator with reset() (checked by the caller)
        self.source_iter = None
        with self.lock:
            self.finished = self.source_done = False
            self.crash = None
            self.epoch += 1
            self.ensure_producer()

    def one_shot(self):
        it = self.source_iter
        return it is not None and is_one_shot(self.source, it)

    def close(self, timeout):
        """Stop for good: retire every batch, free the slots once no build runs. A Ctrl-C
        meanwhile stops the wait, never the closing: the producer frees the slots when it ends."""
        if os.getpid() != self.pid:  # a fork child's copy: its producer thread does not exist here
            self.closed = self.freed = True  # (a lock may have been held at the fork: not taken)
            return True
        shielded(self._begin_close)
        if self.on_producer_thread():  # the source closing its own iterator: nothing to wait for
            return False  # (the producer stops when the source's next() returns; it frees then)
        stopped = self.wait_stopped(timeout)
        shielded(self._end_close)
        return stopped

    def _begin_close(self):
        with self.lock:
            if self.closed:
                return
            self.closed = True
            held, self.held = list(self.held.values()), {}
        self.pause()
        self.changed.set()
        self._drop_ready_now()
        self._retire_all(held)

    def _end_close(self):
        with self.lock:
            free = self._should_free()
        if free:
            self.free_memory()
            close_source = getattr(self.source_iter, "close", None)
            if close_source is not None and self.source_iter is not self.source:
                close_source()  # a generator made by iter(source): its finally blocks run now

    def _should_free(self):
        """Caller holds ``lock``: true once, when closed and no build or producer remains."""
        if self.closed and not self.freed and not self.running and self.building == 0:
            self.freed = True
            return True
        return False

    def free_memory(self):
        if self.ring is not None:
            self.ring.destroy()

    def producer_exited(self, crash):
        with self.lock:
            self.running = False
            if crash is not None:
                self.crash = crash
            free = self._should_free()
        self.changed.set()
        if free:
            self.free_memory()


def _bytes_needed(batch):
    return sum(int(a.nbytes) + ARRAY_OVERHEAD for a in array_leaves(batch))


class _Never:
    """A stop flag that is never set (synchronous builds stop through ``closed``)."""

    @staticmethod
    def is_set():
        return False


_NEVER = _Never()


def _produce(p, stop):
    crash = None
    try:
        while True:
            start = time.perf_counter()
            number = p.wait_for_room(stop)
            p.figures["producer_wait_s"] += time.perf_counter() - start
            if number is None:
                return
            try:
                item = p.build(number)
                with p.lock:
                    p.ready.append(item)
                    if item.kind == BATCH:
                        p.figures["queued"] += 1
                    elif item.kind == END:
                        p.source_done = True
                p.changed.set()
            finally:
                p.build_done()
            if item.kind != BATCH:
                return  # the source ended or failed: this thread stops (a later next() resumes)
    except BaseException as error:  # noqa: BLE001 - reported to the consumer, never lost
        crash = error
    finally:
        try:
            memory.destroy_all_workspaces_for_current_thread()
        except WorkspaceError:  # a source's generator is suspended inside its own 'with' block
            pass
        p.producer_exited(crash)
