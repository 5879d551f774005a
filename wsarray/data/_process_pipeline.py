"""The machinery of AsyncIterator(backend="process"): batches built by worker processes.

A dispatcher thread (it only waits on pipes and moves small messages, so it hardly needs the GIL)
hands batch tasks to the workers, at most ``queue_limit`` ahead of the consumer, each with a
region of a shared slot (``_shared_slots``); it collects the answers, turns each skeleton into
the batch's arrays (views of the region) and files them by batch number. The consumer takes
batches strictly in number order, so the order is the plan's (``_plan``) whatever the timing.

Batch numbers count over the iterator's life; ``epoch_first`` is the number of the current
epoch's first batch, so a batch's position in its epoch is ``number - epoch_first``. A map-style
dataset's positions are its plan's batches; an iterable one's position p belongs to worker
``p % workers`` (its ``p // workers``-th batch, DataLoader's round robin), and positions of a worker
whose shard ended are skipped. A worker that dies is restarted and its batches re-run once; a
batch whose worker dies twice raises ``WorkerError`` at its position. ``reset()`` and
``load_state_dict()`` start from a new generation: answers of older tasks only free their slots.
Once a map-style epoch's last batch is handed out, the dispatcher goes on with the next epoch's
batches (``dispatch_epoch`` runs one ahead of the consumer's ``epoch``), so that the workers are
not idle while the loop ends its epoch and starts the next; a restart at the next epoch's first
batch keeps them, any other restart drops them.

``queue_size="auto"`` starts at the worker count and adds one batch ahead each time the consumer
waited for one (at most 4 per worker, never beyond the memory budget); it gives one back when,
over a window of batches, at least two batches were always ready when the consumer asked.
"""

import contextvars
import os
import threading
import time

from .. import _native
from .._interrupts import Gate, shielded, start_thread
from ._child import unpickled_error
from ._collate import Leaf, rebuild
from ._processes import WorkerPool, exit_description, wait
from ._shared_slots import SharedSlots

WAIT_S = 0.1
MAX_ATTEMPTS = 2       # a batch whose worker died this many times raises WorkerError
AUTO_PER_WORKER = 4    # queue_size="auto" stays within 4 batches ahead per worker
GROW_AFTER_S = 0.0005  # a wait for a batch longer than this grows an auto queue
BATCH, END, ERROR, SKIP = "batch", "end", "error", "skip"


class WorkerError(RuntimeError):
    """A worker process died (killed, crashed, ``os._exit``) while it built a batch, twice."""


class Task:
    __slots__ = ("number", "position", "epoch", "generation", "worker", "slot", "region", "segment",
                 "attempts", "indices")

    def __init__(self, number, position, epoch, generation, indices):
        self.number, self.position, self.epoch, self.generation = number, position, epoch, generation
        self.indices = indices
        self.worker = self.slot = self.region = self.segment = None
        self.attempts = 0


class Item:
    __slots__ = ("kind", "number", "batch", "slot", "error", "delivered", "taker")

    def __init__(self, kind, number, batch=None, slot=None, error=None):
        self.kind, self.number, self.batch, self.slot, self.error = kind, number, batch, slot, error
        self.delivered = False
        self.taker = None  # the thread whose next() it is handed to


class ProcessPipeline:
    synchronous = False

    def __init__(self, who, label, dataset, plan, *, spec, workers, queue_size, start_method,
                 workspace_config, budget, hint, timeout=None):
        self.who, self.label, self.source, self.plan = who, label, dataset, plan
        self.workers = workers
        self.timeout = timeout  # seconds a next() waits for its batch before TimeoutError (None: forever)
        self.auto = queue_size == "auto"
        self.queue_limit = workers if self.auto else queue_size
        self.pool = WorkerPool(who, spec, workers, start_method)
        self.slots = SharedSlots(label, workspace_config, budget, hint)
        self.pid = os.getpid()
        self.lock = threading.RLock()
        self.changed = Gate()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._wake_pending = False
        self.ready, self.tasks, self.old_tasks = {}, {}, {}
        self.held = None
        self.epoch, self.epoch_first, self.next_dispatch, self.next_take = 1, 1, 1, 1
        # The epoch the dispatcher hands out and its first batch number: one ahead of the
        # consumer's once a map-style epoch's last batch is out (the next epoch is prefetched).
        self.dispatch_epoch, self.dispatch_first = 1, 1
        self.generation = 0
        self.exhausted = {}      # iterable: worker -> the first of its batches it did not have
        self.finished = self.closed = self.paused = self.dispatch_done = self.freed = False
        self.thread = None
        self.stopping = False
        self.stopper, self.stopped, self.stop_result = None, Gate(), False
        self.crash = None
        self._window = [0, 1 << 30]  # takes in the window, least batches ready at a take
        self.last_number = 0
        self.figures = dict(built=0, consumed=0, dropped=0, errors=0, consumer_wait_s=0.0, last_wait_s=0.0,
                            worker_restarts=0, rerun_batches=0, queue_grows=0, queue_shrinks=0,
                            regions_resized=0, epochs_prefetched=0)

    # -- the consumer ----------------------------------------------------------------------------

    def take(self, key, cancel=None):
        if os.getpid() != self.pid:
            raise RuntimeError(f"{self.who}: this iterator was made in the parent process; after "
                               "os.fork() its workers do not belong to this process: make a new "
                               "AsyncIterator in the child")
        start = time.perf_counter()
        while True:
            entry = shielded(self._next_entry, cancel)
            if entry is not None:
                break
            if self.timeout is not None and time.perf_counter() - start > self.timeout:
                raise TimeoutError(self._late())
            self.changed.wait(WAIT_S)
        waited = time.perf_counter() - start
        self.figures["consumer_wait_s"] += waited
        self.figures["last_wait_s"] = waited
        if self.auto and waited > GROW_AFTER_S:
            shielded(self._grow)
        entry.delivered = True
        if entry.kind == ERROR:
            raise entry.error
        return entry.batch

    def _next_entry(self, cancel):
        held = self.held  # handed again only to the thread whose interrupted next() it was for
        if held is not None and not held.delivered and held.taker == threading.get_ident():
            return held
        self._release_held()
        with self.lock:
            if self.crash is not None:
                raise RuntimeError(f"{self.who}: the dispatcher thread failed") from self.crash
            if self.closed or self.finished or cancel is not None and cancel.is_set():
                raise StopIteration
            self.paused = False
            self._ensure_started()
            self.changed.clear()
            while self.ready.get(self.next_take) is not None and self.ready[self.next_take].kind == SKIP:
                del self.ready[self.next_take]
                self.next_take += 1
            item = self.ready.pop(self.next_take, None)
            if item is None:
                self._wake()
                return None
            if self.auto:
                self._note_ready(len(self.ready))
            self.next_take += 1
            if item.kind == END:
                self.finished = True
                raise StopIteration
            if item.kind == ERROR:
                self.figures["errors"] += 1
            else:
                self.figures["consumed"] += 1
                self.last_number = item.number
            item.taker = threading.get_ident()
            displaced, self.held = self.held, item
            if displaced is not None and displaced.slot is not None:  # another thread's next() came between
                self.slots.release(displaced.slot)
        self._wake()
        return item

    def _late(self):
        """What a next() that waited longer than ``timeout`` says."""
        with self.lock:
            task = self.tasks.get(self.next_take)
            where = (f"{task.worker.describe()} has been building it" if task is not None and task.worker
                     else "no worker has it yet")
        return (f"{self.who}: no batch within timeout={self.timeout} s (batch {self.next_take}: {where}); "
                "the iterator stays usable: the batch is handed out by a later next() when it is ready")

    def _release_held(self):
        with self.lock:  # one thread retires it, once
            held, self.held = self.held, None
        if held is not None and held.slot is not None:
            self.slots.release(held.slot)
            self._wake()

    def release(self, key=None):
        shielded(self._release_held)

    # -- autotuning the queue ----------------------------------------------------------------------

    def _room_for(self, queue):
        capacity = self.slots.capacity()
        return queue <= AUTO_PER_WORKER * self.workers and (capacity is None or queue + 2 <= capacity)

    def _grow(self):
        """The consumer waited for a batch: one more ahead, within the bounds."""
        with self.lock:
            if self._room_for(self.queue_limit + 1):
                self.queue_limit += 1
                self.figures["queue_grows"] += 1
                self._window = [0, 1 << 30]
        self._wake()

    def _note_ready(self, ready):
        takes, least = self._window
        least = min(least, ready)
        takes += 1
        if takes >= 4 * self.queue_limit:
            if least >= 2 and self.queue_limit > 1:
                self.queue_limit -= 1
                self.figures["queue_shrinks"] += 1
                self.slots.shrink()
            takes, least = 0, 1 << 30
        self._window = [takes, least]

    # -- the dispatcher thread -----------------------------------------------------------------

    def _ensure_started(self):
        if self.thread is None:
            self.pool.start_all()
            thread = threading.Thread(target=contextvars.Context().run, args=(_dispatch, self),
                                      name=f"wsarray-data-{self.label}", daemon=True)
            self.thread = thread
            thread.start()

    def _wake(self):
        """Wake the dispatcher (once until it looked: it clears ``_wake_pending`` after draining
        the pipe, then hands out what the change allows). The byte is written with the GIL held:
        os.write() would hand the GIL to the woken dispatcher and wait for its work."""
        if not self._wake_pending:
            self._wake_pending = True
            _native._poke(self._wake_w)

    def dispatch_all(self):
        """Hand out tasks while the queue, the slots and the workers allow (lock held)."""
        while not (self.paused or self.closed or self.dispatch_done or self.stopping):
            number = self.next_dispatch
            if number >= self.next_take + self.queue_limit:
                return
            position = number - self.dispatch_first
            if self.plan.kind == "map" and position >= self.plan.batches:
                self.ready[number] = Item(END, number)
                self.changed.set()
                if not self.plan.batches:
                    self.dispatch_done = True
                    return
                # Go on with the next epoch's batches (its plan is known: (seed, epoch)), so that
                # the workers build them while the consumer ends this epoch; _restart_at keeps
                # them when the next epoch starts at its beginning, as a for loop's does.
                self.dispatch_epoch, self.dispatch_first = self.dispatch_epoch + 1, number + 1
                self.next_dispatch += 1
                continue
            worker = self._worker_for(position)
            if worker is None:
                if len(self.exhausted) == self.workers:
                    self.ready[number] = Item(END, number)
                    self.dispatch_done = True
                    self.changed.set()
                    return
                if self.plan.kind == "iterable" and position % self.workers in self.exhausted:
                    self.ready[number] = Item(SKIP, number)
                    self.next_dispatch += 1
                    continue
                return
            if self.slots.target and not self._slot_available():
                return
            epoch = self.dispatch_epoch
            task = Task(number, position, epoch, self.generation, self.plan.indices(epoch, position))
            if self.slots.target:
                task.slot, task.region, task.segment = self.slots.acquire(self.queue_limit + 2)
            self.tasks[number] = task
            self.next_dispatch += 1
            self._send(task, worker)

    def _slot_available(self):
        capacity = self.slots.capacity()
        return capacity is None or self.slots.in_use() < capacity

    def _worker_for(self, position):
        alive = self.pool.alive()
        if self.plan.kind == "iterable":
            wid = position % self.workers
            if wid in self.exhausted:
                return None
            return self.pool.workers[wid]
        return min(alive, key=lambda w: len(w.tasks), default=None)

    def _send(self, task, worker):
        task.worker = worker
        worker.tasks.add(task.number)
        region, segment = None, ()
        if task.segment is not None:
            region, segment = self._region(task)
        try:
            self.pool.send(worker, ("task", task.number, task.epoch, task.position, task.indices, region,
                                    self.plan.seed), segment)
        except OSError:
            pass  # the worker is dying: its sentinel tells, and the task is re-run

    def _send_region(self, task):
        region, segment = self._region(task)
        try:
            self.pool.send(task.worker, ("region", task.number, region), segment)
        except OSError:
            pass

    def _region(self, task):
        """What the worker is told of the task's region, and the segments to pass with it."""
        key, fd, offset, length = task.segment
        return (key, length, offset, int(task.region.shape[0])), [task.segment]

    # -- answers and deaths --------------------------------------------------------------------

    def on_message(self, worker, message):
        kind, number = message[0], message[1]
        worker.tasks.discard(number)
        task = self.tasks.get(number)
        if task is None or task.generation != self.generation:
            task = self.old_tasks.pop(number, None) or self.tasks.pop(number, None)
            if task is not None and task.slot is not None:
                self.slots.release(task.slot)
            if kind == "need":
                self._tell(worker, ("drop", number))
            return
        if kind == "need":
            self._resize(task, message[2])
            return
        del self.tasks[number]
        if kind == "done":
            self.slots.grow_to(message[3])
            region = task.region
            batch = rebuild(message[2], lambda leaf: _view(region, leaf), (Leaf,))
            item = Item(BATCH, number, batch, task.slot)
            self.figures["built"] += 1
        else:
            if task.slot is not None:
                self.slots.release(task.slot)
            if kind == "end":
                self.exhausted.setdefault(task.position % self.workers, task.position // self.workers)
                item = Item(SKIP, number)
            else:
                item = Item(ERROR, number, error=self._error(message, worker, number))
        self.ready[number] = item
        self.changed.set()

    def _resize(self, task, nbytes):
        worker = task.worker
        worker.tasks.add(task.number)
        self.slots.grow_to(nbytes)
        capacity = self.slots.capacity()
        if capacity is not None and capacity < 3:
            del self.tasks[task.number]
            worker.tasks.discard(task.number)
            if task.slot is not None:
                self.slots.release(task.slot)
            self.ready[task.number] = Item(ERROR, task.number, error=MemoryError(
                f"{self.who}: memory_budget ({self.slots.budget} bytes) holds fewer than 3 batches of "
                f"{nbytes} bytes (batch {task.number} needs that; the ring needs the batch being built, "
                "the one the consumer holds and the one it gave back): raise memory_budget"))
            self.changed.set()
            return
        if task.slot is not None:
            self.slots.release(task.slot)
            self.figures["regions_resized"] += 1
        task.slot, task.region, task.segment = self.slots.acquire(self.queue_limit + 2)
        self._send_region(task)

    def _tell(self, worker, message):
        try:
            self.pool.send(worker, message)
        except OSError:
            pass

    def _error(self, message, worker, number):
        return unpickled_error(message[2], message[3],
                               f"{worker.describe()} of {self.who} while it built batch {number}")

    def on_death(self, worker):
        """``worker``'s process exited: re-run its batches on a new one (once), or fail them."""
        how = exit_description(worker.process)
        self.pool.bury(worker)
        if self.stopping or self.closed:
            return
        rerun = []
        for number in sorted(worker.tasks):
            task = self.tasks.get(number)
            if task is None:
                task = self.old_tasks.pop(number, None)
                if task is not None and task.slot is not None:
                    self.slots.release(task.slot)
                continue
            task.attempts += 1
            if task.attempts >= MAX_ATTEMPTS:
                del self.tasks[number]
                if task.slot is not None:
                    self.slots.release(task.slot)
                self.ready[number] = Item(ERROR, number, error=WorkerError(
                    f"{self.who}: {worker.describe()} {how} while it built batch {number}, and so did the "
                    f"worker that re-ran it: the batch is lost (its samples: {_indices(task)})"))
                self.changed.set()
            else:
                rerun.append(task)
        self.pool.restarts += 1
        self.figures["worker_restarts"] += 1
        if self.pool.restarts > 4 * self.workers + 8:
            raise WorkerError(f"{self.who}: workers keep dying (the last: {worker.describe()} {how}); "
                              "no more are started")
        new = self.pool.start(worker.id)
        for task in rerun:
            self.figures["rerun_batches"] += 1
            self._send(task, new)

    # -- epochs, state, stopping ---------------------------------------------------------------

    def restart_at(self, epoch, position, exhausted=None):
        """Drop what is prefetched and go on from batch ``position`` of epoch ``epoch``
        (``exhausted``: an iterable's workers whose shard ended, and where)."""
        shielded(self._restart_at, epoch, position, exhausted)

    def _restart_at(self, epoch, position, exhausted):
        with self.lock:
            if (self.finished and position == 0 and not exhausted and epoch == self.epoch + 1
                    and self.dispatch_epoch >= epoch):
                # The next epoch from its start, which the dispatcher is handing out already (its
                # batches follow the end of this one; with epochs shorter than the queue, the
                # dispatcher may be epochs ahead).
                self.epoch, self.epoch_first, self.finished = epoch, self.next_take, False
                self.figures["epochs_prefetched"] += 1
            else:
                self._drop_prefetched(epoch, position, exhausted)
        self._wake()

    def _drop_prefetched(self, epoch, position, exhausted):
        """Start over at (``epoch``, ``position``): what was prefetched is dropped (lock held)."""
        self.generation += 1
        for item in list(self.ready.values()):
            if item.slot is not None:
                self.slots.release(item.slot)
            self.figures["dropped"] += item.kind == BATCH
        self.ready.clear()
        self.old_tasks.update(self.tasks)
        self.tasks = {}
        self.epoch = epoch
        self.epoch_first = self.next_dispatch = self.next_take = max(self.next_dispatch, self.next_take) + 1
        self.epoch_first -= position
        self.dispatch_epoch, self.dispatch_first = epoch, self.epoch_first
        self.exhausted = dict(exhausted or {})
        self.finished = self.dispatch_done = False

    def one_shot(self):
        return False

    def reset_epoch(self):
        self.restart_at(self.epoch + 1, 0)

    @property
    def running(self):
        return self.thread is not None and self.thread.is_alive()

    def stats(self):
        with self.lock:
            out = dict(self.figures, ready=sum(i.kind == BATCH for i in self.ready.values()), epoch=self.epoch,
                       closed=self.closed, thread_alive=self.running, backend="process",
                       workers=self.workers, worker_pids=[w.pid for w in self.pool.alive()],
                       queue_size=self.queue_limit, queue_auto=self.auto)
        out["workspace"] = None if self.closed else self.slots.stats()
        return out

    def position(self):
        return self.next_take - self.epoch_first

    def pause(self):
        self.paused = True

    def close(self, timeout):
        """Stop the dispatcher and the workers, free the slots. The work runs on a thread of its
        own, which the caller waits for: an interrupt can stop the waiting, never the stopping
        (a process reaped by an interrupted join would be counted alive forever)."""
        if os.getpid() != self.pid:  # a fork child's copy: no lock, thread or worker here is its own
            self.closed = self.freed = True  # (a lock may have been held at the fork: not taken)
            self.pool.stop(0)  # drops the child's copies of the channels only
            return True
        with self.lock:
            if self.freed:
                return True
            self.closed = self.stopping = True
            stopper = self.stopper
            if stopper is None:
                stopper = self.stopper = threading.Thread(target=self._stop_all, args=(timeout,),
                                                          name=f"wsarray-data-{self.label}-stop", daemon=True)
                shielded(start_thread, stopper)  # a start cut short would leave the thread registered
        self._wake()
        self.stopped.wait()
        if stopper is not threading.current_thread():
            stopper.join(1.0)  # it set `stopped` last: gone a moment later, and once this returns
        return self.stop_result

    def _stop_all(self, timeout):
        try:
            thread = self.thread
            if thread is not None:
                thread.join(max(timeout, 0.5))
            self.stop_result = self.pool.stop(timeout)
            self._free_memory()
        finally:
            self.stopped.set()

    def _free_memory(self):
        with self.lock:
            if self.freed:
                return
            self.freed = True
            self.ready.clear()
            self.held = None
        self.slots.destroy()
        # -1 first: a late wake-up must not write into whatever file reuses the number.
        fds, self._wake_r, self._wake_w = (self._wake_r, self._wake_w), -1, -1
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.changed.set()

def _view(region, leaf):
    n = leaf.nbytes
    flat = region[leaf.offset:leaf.offset + n]
    return flat.view(leaf.dtype).reshape(leaf.shape)


def _indices(task):
    if task.indices is None:
        return f"batch {task.position // 1} of the worker's shard"
    shown = list(task.indices[:8])
    return f"{shown}{' ...' if len(task.indices) > 8 else ''}"


def _dispatch(p):
    try:
        while not p.stopping:
            with p.lock:
                forgotten = p.slots.forgotten()
                if forgotten:
                    p.pool.forget(forgotten)
                p.dispatch_all()
                objects = p.pool.wait_objects()
            for obj in wait(list(objects) + [p._wake_r], WAIT_S):
                if obj == p._wake_r:
                    try:
                        os.read(p._wake_r, 4096)
                    except OSError:
                        pass
                    p._wake_pending = False  # after the drain: a wake-up meanwhile is not lost
                    continue
                worker, what = objects[obj]
                if what == "conn":
                    try:
                        message = worker.conn.recv()
                    except (EOFError, OSError):
                        continue  # it is dying: its sentinel comes next
                    with p.lock:
                        p.on_message(worker, message)
                elif not worker.process.is_alive():
                    with p.lock:
                        _drain(worker, p)
                        p.on_death(worker)
    except BaseException as e:  # noqa: BLE001 - the consumer raises it
        p.crash = e
        p.changed.set()


def _drain(worker, p):
    """Answers a worker sent before it died are still good."""
    try:
        while worker.conn.poll(0):
            p.on_message(worker, worker.conn.recv())
    except (EOFError, OSError):
        pass
