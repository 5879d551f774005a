"""``with wsarray.memory.measure() as m:``: what a block of code did to memory on the calling thread
(RMM's statistics adaptor, PyTorch's ``max_memory_allocated``): allocations and bytes served by
workspaces, spills, OS maps, the largest cycle peak, cycles ended, NumPy buffers made outside
workspaces, and the process's page faults."""

import resource
import threading
import weakref

from .. import _native

__all__ = ["measure", "Measurement"]

_COUNTERS = ("allocations", "allocated_bytes", "spills", "spilled_bytes", "os_maps", "cycles", "frees")


def _totals():
    stats = _native._statistics()
    return {k: sum(s[k] for s in stats.values()) for k in _COUNTERS}, stats


def _faults():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_minflt + usage.ru_majflt


def _drop(listener):
    if listener in _native._cycle_listeners():
        _native._remove_cycle_listener(listener)


class _Watch:
    """The cycle listener of one measured block. It holds the Measurement weakly and removes itself
    once the Measurement is gone: a Ctrl-C that lands where ``__exit__`` could not remove it (at
    the start of ``__exit__``, say) leaves no listener behind for every later cycle to call."""

    __slots__ = ("measurement", "__weakref__")

    def __init__(self, measurement):
        self.measurement = weakref.ref(measurement)

    def __call__(self, event):
        m = self.measurement()
        if m is None:
            _drop(self)
        else:
            m._on_cycle(event)


class Measurement:
    """Figures of one measured block (zero until it ends; read them after the ``with``):
    ``allocations``, ``allocated_bytes``, ``spills``, ``spilled_bytes``, ``os_maps``, ``cycles``
    and ``frees`` of the thread's workspaces; ``peak_cycle_bytes`` (the largest peak of a cycle that
    ended in the block, or the bytes in use at its end if larger); ``numpy_outside`` (NumPy buffers
    made outside workspaces); ``page_faults`` (the whole process's, minor and major)."""

    def __init__(self):
        self.allocations = self.allocated_bytes = self.spills = self.spilled_bytes = 0
        self.os_maps = self.cycles = self.frees = 0
        self.peak_cycle_bytes = self.numpy_outside = self.page_faults = 0
        self._thread = threading.get_ident()
        self._start = None
        self._listener = _Watch(self)  # removed by identity

    def as_dict(self):
        return {k: getattr(self, k) for k in (*_COUNTERS, "peak_cycle_bytes", "numpy_outside", "page_faults")}

    def __repr__(self):
        return "Measurement(" + ", ".join(f"{k}={v}" for k, v in self.as_dict().items()) + ")"

    def _on_cycle(self, event):
        if event["thread"] == self._thread:
            self.peak_cycle_bytes = max(self.peak_cycle_bytes, event["peak_cycle_bytes"])

    def __enter__(self):
        totals, _ = _totals()
        self._start = (totals, _native._numpy_allocation_counts()[1], _faults())
        try:
            _native._add_cycle_listener(self._listener)
            return self
        except BaseException:  # a Ctrl-C after the listener went in: the block never starts
            _drop(self._listener)
            raise

    def __exit__(self, *exc):
        _drop(self._listener)
        totals, stats = _totals()
        start, outside, faults = self._start
        for k in _COUNTERS:  # a workspace destroyed in the block takes its counts with it
            setattr(self, k, max(0, totals[k] - start[k]))
        self.peak_cycle_bytes = max(self.peak_cycle_bytes, sum(s["used"] for s in stats.values()))
        self.numpy_outside = _native._numpy_allocation_counts()[1] - outside
        self.page_faults = _faults() - faults
        return False


def measure():
    """A context manager measuring the block it wraps (see Measurement)."""
    return Measurement()
