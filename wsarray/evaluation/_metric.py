"""What every metric shares: ``update`` run with NumPy's temporaries in the current workspace, state in
buffers of its own, ``merge``, ``reset``, pickling.

``update`` runs the metric's ``_accumulate`` through a wsarray Function: inside a workspace cycle
(``evaluate`` opens one per batch) every array NumPy makes for the batch comes from the workspace
and is gone when the cycle ends; the state is changed in place only. State is (re)allocated by
``_allocate``, which runs outside every workspace (``scope_out`` and a routed call of its own), so
nothing a metric keeps points into a workspace.
"""

import copy

from .._devices.array import DeviceArray
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


_ROUTED_UPDATE = Function(_update, "evaluation.update")


class Metric:
    """Base of the metrics: subclasses define ``_accumulate(labels, predictions, mask, where)`` (check
    everything first, then change state in place), ``_settings()`` (what two metrics must share to be
    merged), ``_merge_state(other)`` and ``_clear()``."""

    _updates = 0

    def update(self, labels, predictions, mask=None):
        """Add one batch: ``labels`` (class ids, one-hot rows or targets), ``predictions`` (scores or
        probabilities, any float dtype), ``mask`` (optional: drops rows, or time steps of a
        ``(batch, classes, time)`` output). Bad input raises EvaluationError naming the metric and the
        batch, with the state unchanged. Returns the metric."""
        where = f"{type(self).__name__}.update (batch {self._updates + 1})"
        # Arrays on a device are read on the host (a copy); the rest are read where they are.
        labels, predictions, mask = (x.get() if type(x) is DeviceArray else x for x in (labels, predictions, mask))
        _ROUTED_UPDATE(self, labels, predictions, mask, where)
        self._updates += 1
        return self

    def merge(self, other):
        """Add ``other``'s data (a metric of the same class and settings, e.g. from another worker or
        process): the result equals one metric updated with both streams. Returns this metric."""
        if type(other) is not type(self):
            raise EvaluationError(f"{type(self).__name__}.merge: cannot merge a {type(other).__name__}")
        mine, theirs = self._settings(), other._settings()
        if mine != theirs:
            diff = {k: (mine[k], theirs.get(k)) for k in mine if mine[k] != theirs.get(k)}
            raise EvaluationError(f"{type(self).__name__}.merge: the settings differ ({diff})")
        self._merge_state(other)
        self._updates += other._updates
        return self

    def reset(self):
        """Forget every batch (the settings stay). Returns the metric."""
        self._clear()
        self._updates = 0
        return self

    def summary(self):
        """The headline scores as a dict (what listeners log), with EvaluationWarnings silenced."""
        import warnings

        from ._inputs import EvaluationWarning
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EvaluationWarning)
            return {name: fn() for name, fn in self._headline().items()}

    def copy(self):
        """An independent copy (state included)."""
        return copy.deepcopy(self)

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
