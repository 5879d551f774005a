"""The shared-memory slots of AsyncIterator(backend="process"): workspaces other processes write.

Each slot is a workspace of location "shared" (its chunks are memfd memory, mappable by a worker
process that was handed its file descriptor). A batch takes a free slot, opens its cycle and
allocates one *region* (a uint8 array) there; a worker builds the batch inside the region, and the
batch's arrays are views of it, retired with the slot's cycle. Slots are reused oldest-freed
first: the slot the consumer just gave back, which its loop variable still refers to while it
asks for the next batch, is the last one reused.

Sizing: slots are made with room for the largest batch seen times ``1 + overallocation_limit``;
a smaller slot is replaced when it is next free, and destroyed once none of its arrays is alive
(a retired batch the user still refers to keeps its stale-array message). The slots' total size
never exceeds ``budget`` (bytes; None: no limit): ``capacity()`` says how many fit.
"""

import collections
import itertools
import os
import threading

from .. import _native
from .._native import _Slot
from .._array_api.creation import empty
from ..memory.history import history_enabled, note_fill
from ._ring import config_with

HEADROOM = 4096  # a region's block header and alignment inside its slot


class SharedSlots:
    def __init__(self, label, config, budget, hint):
        self.label = label
        self.config = config_with(config, location="shared", learning="none", spill="external")
        self.growth = 1.0 if config.allocation == "strict" else 1.0 + config.overallocation_limit
        self.budget = budget
        self.hint = hint
        self.target = 0                 # bytes of a region (0: no batch seen yet)
        self.resizes = 0
        self._mapped = 0                # bytes a slot of the current size maps
        self._free = collections.deque()
        self._all = set()               # slots alive and current (free or in use)
        self._old = []                  # replaced slots, destroyed once none of their arrays lives
        self._serial = itertools.count(1)
        self._sizes = {}                # slot -> bytes it was made with
        self._keys = {}                 # slot -> keys of its shared segments (its chunk first)
        self._forget = []
        self._gone = {"spilled_bytes": 0, "allocated_bytes": 0, "cycles": 0}
        self._lock = threading.RLock()
        self.destroyed = False

    def slot_bytes(self):
        return self.target + HEADROOM

    def capacity(self):
        """How many slots of the current size fit in the budget (None: unlimited). A slot's
        memory is what its workspace mapped (whole pages), not only what it was asked for."""
        if self.budget is None or not self.target:
            return None
        return self.budget // max(self.slot_bytes(), self._mapped)

    def grow_to(self, needs):
        """A batch of ``needs`` bytes was seen: regions get at least that (times the growth)."""
        target = max(int(needs * self.growth), needs, self.config.min_size)
        if target > self.target:
            self.resizes += bool(self.target)
            self.target = target
            self._mapped = 0

    def in_use(self):
        return len(self._all) - len(self._free)

    def acquire(self, limit):
        """A free slot of the current size with its cycle open and a region allocated there:
        (slot, region, segment), ``segment`` = (key, fd, offset, length) of the shared mapping
        that holds the region. The slot given back last is reused only when ``limit`` slots
        exist (the consumer's loop variable may still refer to its batch)."""
        self._sweep()
        slot = None
        if len(self._free) > 1 or self._free and len(self._all) >= limit:
            slot = self._free.popleft()
            if self._sizes.get(slot, 0) < self.slot_bytes():
                self._replace(slot)
                slot = None
        if slot is None:
            slot = self._make()
        slot.begin()
        with slot.fill():
            region = empty(self.target, dtype="uint8")
        fd, offset, length = _native._shared_segment(region)
        key = os.fstat(fd).st_ino
        keys = self._keys.setdefault(slot, [])
        if key not in keys:
            keys.append(key)
        return slot, region, (key, fd, offset, length)

    def forgotten(self):
        """Keys of segments gone (or going) since the last call: workers unmap them."""
        with self._lock:
            out, self._forget = self._forget, []
        return out

    def release(self, slot):
        """End the slot's cycle (its batch is retired) and make it free again."""
        if slot.alive and slot.is_open:
            slot.retire()
            if history_enabled():  # the batch's cycle, for wsarray.memory's history and viewer
                note_fill(slot.name, slot.stats())
        with self._lock:
            keys = self._keys.get(slot, [])
            if len(keys) > 1:  # regions that spilled: their memory goes with the stale arrays
                self._forget += keys[1:]
                del keys[1:]
            if slot in self._all and not self.destroyed:
                self._free.append(slot)

    def shrink(self):
        """Destroy one free slot (the queue got shorter)."""
        with self._lock:
            slot = self._free.pop() if self._free else None
        if slot is not None:
            self._replace(slot)

    def _make(self):
        name = f"data:{self.label}:shared{next(self._serial)}"
        size = self.slot_bytes()
        slot = _Slot(name, config_with(self.config, initial_size=size), self.hint)
        with self._lock:
            self._sizes[slot] = size
            if self.destroyed:
                slot.destroy()
                raise RuntimeError("the slots were destroyed")
            self._all.add(slot)
        return slot

    def _replace(self, slot):
        with self._lock:
            self._all.discard(slot)
            self._sizes.pop(slot, None)
            self._forget += self._keys.pop(slot, [])
            self._old.append(slot)
        self._sweep()

    def _sweep(self):
        with self._lock:
            done = [s for s in self._old if not s.is_open and s.stats()["live_arrays"] == 0]
            self._old = [s for s in self._old if s not in done]
        for s in done:
            st = s.stats()
            for key in self._gone:
                self._gone[key] += st[key]
            s.destroy()

    def stats(self):
        with self._lock:
            slots = [s for s in itertools.chain(self._all, self._old) if s.alive]
            per_slot = [s.stats() for s in slots]
        total = {"slots_made": next(self._serial) - 1, "slots_alive": len(per_slot), "in_use": self.in_use(),
                 "slot_size": self.slot_bytes() if self.target else 0, "resizes": self.resizes,
                 "memory_budget": self.budget}
        for key in ("capacity", "used", "spilled_bytes", "allocated_bytes", "cycles", "live_arrays"):
            total[key] = sum(s[key] for s in per_slot) + self._gone.get(key, 0)
        return total

    def destroy(self):
        """Give every slot's memory back (their arrays become stale)."""
        with self._lock:
            self.destroyed = True
            slots = list(self._all) + self._old
            self._all, self._old, self._free = set(), [], collections.deque()
            self._keys.clear()
        for slot in slots:
            if slot.alive:
                slot.destroy()

