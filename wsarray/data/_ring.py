"""The batch ring of wsarray.data.AsyncIterator: N slot workspaces used in strict ring order.

Batch number b (counted from 1 over the iterator's life) is built in slot ``(b - 1) % N``, in that
slot's cycle ``(b - 1) // N + 1``. Because the order is strict, the stale-array message of a slot
(fixed when the slot is made) can say which batch a cycle held. A slot is free once its last batch
was retired; the producer waits for it, which also bounds how far it runs ahead.

Slots are made when first needed. The first slot learns its size from its first batch (the
workspace config's ``learning``); slots made after the first batch was built start with that
batch's bytes times ``1 + overallocation_limit`` mapped (Deeplearning4j sizes its ring from the
first batch the same way), so they do not spill their first batch. A later, larger batch spills
(it stays valid) and its slot learns again when it is retired.
"""

import threading

from .. import WorkspaceConfig
from .._core import _Slot

_CONFIG_FIELDS = ("initial_size", "min_size", "max_size", "overallocation_limit", "allocation",
                  "learning", "cycles_before_initialization", "spill", "reset", "location",
                  "temp_file_path", "trim_after_cycles")


def _config_with(config, **changes):
    fields = {f: getattr(config, f) for f in _CONFIG_FIELDS}
    fields.update(changes)
    return WorkspaceConfig(**fields)


class Ring:
    def __init__(self, label, size, config, hint):
        self.label = label          # e.g. "train#3": unique in the process
        self.size = size
        self.config = config
        self._hint = hint           # hint(k) -> stale-array advice of slot k (1-based)
        self._slots = [None] * size
        self._first_batch_bytes = None
        self._lock = threading.Lock()
        self.destroyed = False

    def slot_name(self, k):
        return f"data:{self.label}:slot{k}/{self.size}"

    def index_of(self, number):
        return (number - 1) % self.size

    def slot(self, number):
        """The slot of batch ``number``, made when first needed (may raise WorkspaceMemoryError)."""
        i = self.index_of(number)
        slot = self._slots[i]
        if slot is None:
            config = self.config
            needs = self._first_batch_bytes
            if needs and config.initial_size == 0 and config.learning != "none":
                size = int(needs * (1 + config.overallocation_limit))
                if config.max_size:
                    size = min(size, config.max_size)
                config = _config_with(config, initial_size=size)
            slot = _Slot(self.slot_name(i + 1), config, self._hint(i + 1))
            with self._lock:
                if self.destroyed:  # closed meanwhile: the caller is stopping
                    slot.destroy()
                    raise RuntimeError("the ring was destroyed")
                self._slots[i] = slot
        return slot

    def note_first_batch(self, slot):
        if self._first_batch_bytes is None:
            self._first_batch_bytes = slot.stats()["used"]

    def is_free(self, number):
        slot = self._slots[self.index_of(number)]
        return slot is None or not slot.is_open

    def holds(self, slot, leaf):
        """True when ``leaf`` (an Array) was made in ``slot``'s open cycle."""
        return leaf.workspace == slot.name and leaf.is_in_scope()

    def stats(self):
        """Per-slot statistics and their totals."""
        with self._lock:
            slots = [s for s in self._slots if s is not None and s.alive]
        per_slot = [s.stats() for s in slots]
        total = {"slots": self.size, "slots_made": len(per_slot)}
        for key in ("capacity", "used", "spilled_bytes", "reused_bytes", "allocated_bytes", "cycles",
                    "live_arrays"):
            total[key] = sum(s[key] for s in per_slot)
        total["peak_cycle_bytes"] = max((s["peak_cycle_bytes"] for s in per_slot), default=0)
        total["per_slot"] = per_slot
        return total

    def destroy(self):
        """Give every slot's memory back (their arrays become stale). Only with no fill running."""
        with self._lock:
            self.destroyed = True
            slots, self._slots = self._slots, [None] * self.size
        for slot in slots:
            if slot is not None and slot.alive:
                slot.destroy()
