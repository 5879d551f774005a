"""The batch ring of wsarray.data.AsyncIterator: N slot workspaces used in strict ring order.

Batch number b (counted from 1 over the iterator's life) is built in slot ``(b - 1) % N``. A slot
made for batch m holds batches m, m + N, m + 2N, ...: its cycle c is batch ``N*(c-1) + m``, which
the slot's stale-array message states (the message is fixed when the slot is made). A slot is
free once its last batch was retired; the producer waits for it, which also bounds how far it
runs ahead.

Sizing. The ring sizes its slots itself (the slots' own learning is off): the workspace core
learns "peak plus what is still alive at the cycle end", and a slot's batch is always still alive
when it is retired (the consumer's loop variable), although the slot's next cycle comes N batches
later, so the core would map twice the batch. Slots get the bytes of the largest batch seen so
far times ``1 + overallocation_limit`` (Deeplearning4j's x1.3), known before the copy when the
batch is built outside the slot, or measured after the fill (then that batch spilled). When a
batch needs more than its slot has, the ring size grows and each slot is replaced by a larger one
the next time it is free; the old slot is destroyed once no array of it is alive, so a retired
batch the user still refers to keeps its message (and a larger batch never touches live ones). A
spill caused by a retired array the user still holds does not grow the ring: it is counted
(``spilled_bytes``), never corrupt.
"""

import threading

from .._workspaces import WorkspaceConfig
from .._native import _Slot
from ..memory.history import note_fill

_CONFIG_FIELDS = ("initial_size", "min_size", "max_size", "overallocation_limit", "allocation",
                  "learning", "cycles_before_initialization", "spill", "reset", "location",
                  "temp_file_path", "trim_after_cycles")
ARRAY_OVERHEAD = 128  # a block's header and alignment, per array


def config_with(config, **changes):
    fields = {f: getattr(config, f) for f in _CONFIG_FIELDS}
    fields.update(changes)
    return WorkspaceConfig(**fields)


class Ring:
    def __init__(self, label, size, config, hint, etl_hint):
        self.label = label          # e.g. "train#3": unique in the process
        self.size = size
        self.config = config
        self.learns = config.learning != "none"
        self.target = 0             # bytes each slot should have (0: not known yet)
        self.resizes = 0
        self._hint = hint           # hint(k, first_batch) -> stale-array advice of slot k
        self._etl_hint = etl_hint
        self._etl = None
        self._slots = [None] * size
        self._sizes = [0] * size
        self._retired_slots = []    # replaced slots, destroyed once none of their arrays lives
        self._gone = {"spilled_bytes": 0, "allocated_bytes": 0, "cycles": 0}  # of destroyed ones
        self._lock = threading.RLock()
        self.destroyed = False

    def index_of(self, number):
        return (number - 1) % self.size

    def slot(self, number, needs=None):
        """The slot of batch ``number`` (free), made or replaced as the ring's size requires.
        ``needs``: the batch's bytes when known before the fill."""
        if needs is not None:
            self.grow_to(needs)
        i = self.index_of(number)
        self._sweep()
        slot = self._slots[i]
        if slot is not None and not (self.learns and self._sizes[i] < self.target):
            return slot
        size = max(self.target, self.config.initial_size)
        config = config_with(self.config, initial_size=size, learning="none")
        suffix = "" if number <= self.size else f"@{number}"
        new = _Slot(f"data:{self.label}:slot{i + 1}/{self.size}{suffix}", config, self._hint(i + 1, number))
        with self._lock:
            if self.destroyed:  # closed meanwhile: the caller is stopping
                new.destroy()
                raise RuntimeError("the ring was destroyed")
            if slot is not None:
                self._retired_slots.append(slot)
            self._slots[i], self._sizes[i] = new, size
        return new

    def etl_slot(self):
        """The workspace the source's next() runs in (the producer's working memory): one, for
        every producer thread, learning its size as a workspace does."""
        if self._etl is None:
            etl = _Slot(f"data:{self.label}:etl", self.config, self._etl_hint)
            with self._lock:
                if self.destroyed:
                    etl.destroy()
                    raise RuntimeError("the ring was destroyed")
                self._etl = etl
        return self._etl

    def existing(self, number):
        """The slot of batch ``number`` if it was made (None otherwise)."""
        return self._slots[self.index_of(number)]

    def after_fill(self, slot, used_before):
        """Measure the batch just built in ``slot`` (its source ran there); grow the ring if it did
        not fit. A spill while retired arrays the user still holds pinned memory is theirs: it is
        counted, and grows nothing."""
        s = slot.stats()
        note_fill(slot.name, s)
        if s["spilled_cycle_bytes"] and used_before == 0:
            self.grow_to(max(s["used"], s["capacity"] + s["spilled_cycle_bytes"]))

    def grow_to(self, needs):
        if not self.learns:
            return
        config = self.config
        target = needs if config.allocation == "strict" else int(needs * (1 + config.overallocation_limit))
        target = max(target, config.min_size)
        if config.max_size:
            target = min(target, config.max_size)
        if target > self.target:
            if self.target:
                self.resizes += 1
            self.target = target

    def _sweep(self):
        with self._lock:
            done = [s for s in self._retired_slots
                    if not s.is_open and s.stats()["live_arrays"] == 0]
            self._retired_slots = [s for s in self._retired_slots if s not in done]
        for s in done:
            st = s.stats()
            with self._lock:
                for key in self._gone:
                    self._gone[key] += st[key]
            s.destroy()

    def is_free(self, number):
        slot = self._slots[self.index_of(number)]
        return slot is None or not slot.is_open

    @staticmethod
    def holds(slot, leaf):
        """True when ``leaf`` (an Array) was made in ``slot``'s open cycle."""
        return leaf.workspace == slot.name and leaf.is_in_scope()

    def stats(self):
        """Per-slot statistics and their totals (replaced slots not yet destroyed included)."""
        with self._lock:
            slots = [s for s in self._slots + self._retired_slots if s is not None and s.alive]
            per_slot = [s.stats() for s in slots]
        total = {"slots": self.size, "slots_made": len(per_slot), "slot_size": self.target,
                 "resizes": self.resizes}
        for key in ("capacity", "used", "spilled_bytes", "allocated_bytes", "cycles", "live_arrays"):
            total[key] = sum(s[key] for s in per_slot) + self._gone.get(key, 0)
        total["peak_cycle_bytes"] = max((s["peak_cycle_bytes"] for s in per_slot), default=0)
        total["per_slot"] = per_slot
        return total

    def destroy(self):
        """Give every slot's memory back (their arrays become stale). Only with no fill running."""
        with self._lock:
            self.destroyed = True
            slots = [s for s in self._slots + self._retired_slots + [self._etl] if s is not None]
            self._slots, self._retired_slots, self._etl = [None] * self.size, [], None
        for slot in slots:
            if slot.alive:
                slot.destroy()
