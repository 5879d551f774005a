"""What every metric shares: ``update`` run with NumPy's temporaries in the current workspace, state in
buffers of its own, ``merge``, ``reset``, pickling.

``update`` runs the metric's ``_accumulate`` through a wsarray Function: inside a workspace cycle
(``evaluate`` opens one per batch) every array NumPy makes for the batch comes from the workspace
and is gone when the cycle ends; the state is changed in place only. State is (re)allocated by
``_allocate``, which runs outside every workspace (``scope_out`` and a routed call of its own), so
nothing a metric keeps points into a workspace.

An update, a merge or a reset is whole or not done: a Ctrl-C that lands in one waits for its end.
A metric may be shared by threads: each public method holds the metric's lock, so updates from
several threads add up as if made one after another, and a reader never sees half a batch (NumPy's
boolean indexing of a buffer another thread writes can overrun its result: heap corruption).
"""

import copy
import functools
import inspect
import threading

from .._devices.array import DeviceArray
from .._interrupts import shielded
from .._native import Function
from .._workspaces import scope_out
from ._inputs import EvaluationError

__all__ = ["Metric", "unrouted"]


def _call(fn, *args):
    return fn(*args)


_OUTSIDE = Function(_call, "evaluation.state")


def unrouted(fn, *args):
    """``fn(*args)`` with NumPy's allocations outside every workspace (for state that outlives a
    cycle), also when called from inside an update."""
    with scope_out():
        return _OUTSIDE(fn, *args)


def _update(metric, labels, predictions, mask, where):
    metric._accumulate(labels, predictions, mask, where)
    metric._updates += 1


_ROUTED_UPDATE = Function(_update, "evaluation.update")


def _locked(method):
    @functools.wraps(method)
    def holding_the_lock(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)
    return holding_the_lock


class Metric:
    """Base of the metrics: subclasses define ``_accumulate(labels, predictions, mask, where)`` (check
    everything first, then change state in place), ``_settings()`` (what two metrics must share to be
    merged), ``_merge_state(other)`` and ``_clear()``. ``_size_setting``: the key of ``_settings()``
    that a metric sized from its first batch leaves None until then (it merges any size)."""

    _updates = 0
    _size_setting = None

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        self._lock = threading.RLock()  # also for copies and unpickled metrics (pickle calls __new__)
        return self

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name, value in list(vars(cls).items()):  # every public method holds the lock ...
            if not name.startswith("_") and name != "merge" and inspect.isfunction(value):
                setattr(cls, name, _locked(value))  # ... but merge, which takes both in one order

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_lock", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.RLock()

    @_locked
    def update(self, labels, predictions, mask=None):
        """Add one batch: ``labels`` (class ids, one-hot rows or targets), ``predictions`` (scores or
        probabilities, any float dtype), ``mask`` (optional: drops rows, or time steps of a
        ``(batch, classes, time)`` output). Bad input raises EvaluationError naming the metric and the
        batch, with the state unchanged. Returns the metric."""
        where = f"{type(self).__name__}.update (batch {self._updates + 1})"
        # Arrays on a device are read on the host (a copy); the rest are read where they are.
        labels, predictions, mask = (x.get() if type(x) is DeviceArray else x for x in (labels, predictions, mask))
        # Whole or not at all: a Ctrl-C waits for the batch (a half-counted one would skew every score).
        shielded(_ROUTED_UPDATE, self, labels, predictions, mask, where)
        return self

    def merge(self, other):
        """Add ``other``'s data (a metric of the same class and settings, e.g. from another worker or
        process): the result equals one metric updated with both streams. Returns this metric."""
        if type(other) is not type(self):
            raise EvaluationError(f"{type(self).__name__}.merge: cannot merge a {type(other).__name__}")
        first, second = sorted((self, other), key=id)  # one order: a.merge(b) and b.merge(a) at once
        with first._lock, second._lock:  # (merge is the one public method not wrapped by _locked)
            return shielded(self._merge_locked, other)

    def _merge_locked(self, other):
        mine, theirs = self._settings(), other._settings()
        size = self._size_setting
        if size in mine:  # a metric still waiting for its first batch takes the other's size
            if mine[size] is None:
                mine[size] = theirs[size]
            elif theirs[size] is None:
                theirs[size] = mine[size]
        if mine != theirs:
            diff = {k: (mine[k], theirs.get(k)) for k in mine if mine[k] != theirs.get(k)}
            raise EvaluationError(f"{type(self).__name__}.merge: the settings differ ({diff})")
        self._merge_state(other)
        self._updates += other._updates
        return self

    @_locked
    def reset(self):
        """Forget every batch (the settings stay). Returns the metric."""
        shielded(self._forget)
        return self

    def _forget(self):
        self._clear()
        self._updates = 0

    @_locked
    def summary(self):
        """The headline scores as a dict (what listeners log), with EvaluationWarnings silenced."""
        import warnings

        from ._inputs import EvaluationWarning
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EvaluationWarning)
            return {name: fn() for name, fn in self._headline().items()}

    @_locked
    def copy(self):
        """An independent copy (state included)."""
        return copy.deepcopy(self)

    @_locked
    def empty_like(self):
        """A metric with this one's settings and no data (what a worker fills, to be merged)."""
        return self.copy().reset()

    @property
    def batches(self):
        """How many updates were made (merged metrics add theirs)."""
        return self._updates

    def __repr__(self):
        settings = ", ".join(f"{k}={v!r}" for k, v in self._settings().items())
        return f"{type(self).__name__}({settings})"
