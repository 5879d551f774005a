"""Gradient sharing (ParallelWrapper's "shared_gradients" mode): threshold encoding after Strom (2015).

Each worker adds its update (what a plain step would subtract from the parameters) to its residual,
sends the elements whose magnitude reaches the threshold tau as +tau or -tau (an index and a sign;
a 2-bit-per-element bitmap when more than 1/16 of the elements go, as Deeplearning4j switches to
its bitmap encoding), subtracts what it sent from its residual and keeps the rest for later steps.
Every replica applies the sum of every worker's message, in worker order, so replicas stay equal.
A threshold of 0 sends the residual exactly (dense values): one worker is then plain SGD, bit for
bit.

The threshold adapts as Deeplearning4j's ``AdaptiveThresholdAlgorithm`` with its defaults: start at
1e-4; after a step whose encoded fraction fell below 1e-4 multiply it by 0.5 ** (1/20) (halves in
20 steps), above 1e-2 divide by it, else keep it (a bitmap step counts as a fraction of 1/16).
"""

import numpy

DENSE_FRACTION = 1 / 16
HEADER_BYTES = 16  # kind, element count, threshold


class AdaptiveThreshold:
    """Deeplearning4j's AdaptiveThresholdAlgorithm (see the module docstring)."""

    def __init__(self, initial=1e-4, min_sparsity=1e-4, max_sparsity=1e-2, decay=0.5 ** (1 / 20)):
        if not initial > 0 or not 0 < min_sparsity <= max_sparsity or not 0.5 <= decay < 1:
            raise ValueError("AdaptiveThreshold: initial > 0, 0 < min_sparsity <= max_sparsity and "
                             f"0.5 <= decay < 1 are required, got {initial}, {min_sparsity}, {max_sparsity}, {decay}")
        self.value, self.min_sparsity, self.max_sparsity, self.decay = initial, min_sparsity, max_sparsity, decay

    def update(self, sparsity):
        if sparsity < self.min_sparsity:
            self.value *= self.decay
        elif sparsity > self.max_sparsity:
            self.value /= self.decay
        return self.value

    def __repr__(self):
        return f"AdaptiveThreshold(value={self.value:.3g})"


class FixedThreshold:
    def __init__(self, value):
        self.value = value

    def update(self, sparsity):
        return self.value

    def __repr__(self):
        return f"FixedThreshold({self.value})"


def threshold_algorithm(threshold, who):
    """``threshold``: "adaptive" (the default), a number (fixed; 0: exact), or an object with
    ``value`` and ``update(sparsity)``."""
    if threshold == "adaptive":
        return AdaptiveThreshold()
    if isinstance(threshold, (int, float)) and not isinstance(threshold, bool):
        if not threshold >= 0:
            raise ValueError(f"{who}: threshold must be >= 0 (0 sends updates exactly), got {threshold!r}")
        return FixedThreshold(float(threshold))
    if hasattr(threshold, "value") and callable(getattr(threshold, "update", None)):
        return threshold
    raise TypeError(f"{who}: threshold must be 'adaptive', a number >= 0, or an object with value and "
                    f"update(sparsity), not {type(threshold).__name__}")


class Layout:
    """Where each parameter's update lies in one flat vector."""

    def __init__(self, params):
        self.names = list(params)
        self.shapes = [tuple(numpy.shape(params[n])) for n in self.names]
        sizes = [int(numpy.prod(s, dtype=numpy.int64)) for s in self.shapes]
        self.offsets = numpy.concatenate([[0], numpy.cumsum(sizes)]).astype(int).tolist()
        self.dtype = numpy.result_type(*[numpy.asarray(params[n]).dtype for n in self.names])
        self.size = self.offsets[-1]

    def flatten(self, update, out):
        for k, name in enumerate(self.names):
            if name not in update:
                raise KeyError(f"the update has no {name!r} (it must have every parameter's)")
            out[self.offsets[k]:self.offsets[k + 1]] = numpy.asarray(update[name]).reshape(-1)
        return out

    def unflatten_into(self, flat, params):
        """Write the flat vector into ``params`` (in place where the array allows it)."""
        for name, value in self.unflatten(flat).items():
            current = params.get(name)
            flags = getattr(current, "flags", None)
            if flags is not None and flags.writeable and tuple(current.shape) == value.shape:
                current[...] = value
            else:
                params[name] = value.copy()

    def unflatten(self, flat):
        return {name: flat[self.offsets[k]:self.offsets[k + 1]].reshape(self.shapes[k])
                for k, name in enumerate(self.names)}


class Message:
    """One worker's encoded update: ``kind`` ("sparse", "bitmap", "exact"), its payload, how many
    elements it carries, the threshold, and its size in bytes as it would travel."""

    __slots__ = ("kind", "payload", "count", "tau", "nbytes")

    def __init__(self, kind, payload, count, tau):
        self.kind, self.payload, self.count, self.tau = kind, payload, count, tau
        self.nbytes = HEADER_BYTES + int(payload.nbytes)


def encode(residual, tau):
    """Encode ``residual`` (flat, changed in place: what is sent leaves it) at threshold ``tau``."""
    if tau == 0:
        message = Message("exact", residual.copy(), residual.size, 0.0)
        residual[...] = 0
        return message
    positive = residual >= tau
    negative = residual <= -tau
    count = int(numpy.count_nonzero(positive)) + int(numpy.count_nonzero(negative))
    if count > residual.size * DENSE_FRACTION:
        # Dense: two bit planes, and the residual updated by arithmetic (whole-array passes, no
        # index lists): r - tau * (+1, -1 or 0) is exactly r -/+ tau where sent, r elsewhere.
        step = positive.astype(residual.dtype)
        step -= negative
        step *= residual.dtype.type(tau)
        residual -= step
        return Message("bitmap", numpy.stack([numpy.packbits(positive), numpy.packbits(negative)]), count, tau)
    index = numpy.flatnonzero(positive | negative)
    sent_positive = positive[index]
    residual[index] -= numpy.where(sent_positive, tau, -tau).astype(residual.dtype)
    signed = (index.astype(numpy.int64) + 1) * numpy.where(sent_positive, 1, -1)
    kind = numpy.int32 if residual.size < (1 << 31) - 1 else numpy.int64
    return Message("sparse", signed.astype(kind), count, tau)


def add_decoded(message, out):
    """``out += `` the update ``message`` carries (flat)."""
    if message.kind == "exact":
        out += message.payload
    elif message.kind == "sparse":
        signed = message.payload.astype(numpy.int64)
        index = numpy.abs(signed) - 1
        numpy.add.at(out, index, numpy.where(signed > 0, message.tau, -message.tau).astype(out.dtype))
    else:
        step = numpy.unpackbits(message.payload[0], count=out.size).astype(out.dtype)
        step -= numpy.unpackbits(message.payload[1], count=out.size)
        step *= out.dtype.type(message.tau)
        out += step
    return out


class Sharer:
    """A worker's side: its residual and the encoding of each step's update."""

    def __init__(self, layout):
        self.layout = layout
        self.residual = numpy.zeros(layout.size, dtype=layout.dtype)
        self._flat = numpy.empty(layout.size, dtype=layout.dtype)

    def take(self, update):
        """Copy a step's update (a dict of arrays, possibly in the step's workspace) out, flat."""
        self.layout.flatten(update, self._flat)

    def encode_flat(self, tau):
        """Add the update taken last to the residual and encode it at ``tau``."""
        flat = self._flat
        if tau == 0 and not self.residual.any():  # exact, and nothing kept: the update as it is
            return Message("exact", flat.copy(), flat.size, 0.0)
        self.residual += flat
        return encode(self.residual, tau)


def total_update(messages, layout):
    """The flat sum of every message's update, in worker order (one exact message: itself)."""
    if len(messages) == 1 and messages[0].kind == "exact":
        return messages[0].payload
    total = numpy.zeros(layout.size, dtype=layout.dtype)
    for message in messages:
        add_decoded(message, total)
    return total


def apply_update(model, update):
    """``model.apply(update)`` if the model has it, else ``params[name] -= update[name]``."""
    apply = getattr(model, "apply", None)
    if callable(apply):
        apply(update)
        return
    params = model.params
    for name, value in update.items():
        params[name] -= value
