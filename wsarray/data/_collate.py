"""Batches built straight into shared memory (the process backend of wsarray.data.AsyncIterator).

A worker process turns samples into a batch and writes its arrays into a region of a shared slot
it was handed; only the batch's *skeleton* crosses the pipe back: the structure (tuple, named
tuple, list, dict) with each array replaced by a ``Leaf`` (offset in the region, dtype, shape)
and every other value (strings, None, object arrays) as it is. The owner turns the skeleton into
views of the region, which live in the slot's workspace and are retired with it.

``default_collate`` stacks the samples' arrays (and numbers) position by position, as PyTorch's
DataLoader does, computing the layout first and stacking into the shared memory directly
(``numpy.stack(..., out=)``): no intermediate batch, no copy. A ``collate=`` function's result is
copied in once.
"""

import math
import numbers

import numpy

ALIGN = 64  # every array of a batch starts on a cache line


class Leaf:
    """An array of a batch, in its region: ``offset`` bytes in, ``dtype``, ``shape``."""

    __slots__ = ("offset", "dtype", "shape")

    def __init__(self, offset, dtype, shape):
        self.offset, self.dtype, self.shape = offset, dtype, shape

    def __reduce__(self):
        return Leaf, (self.offset, self.dtype, self.shape)

    @property
    def nbytes(self):
        return math.prod(self.shape) * self.dtype.itemsize


class Stack:
    """A position of the samples to stack: the values, the batch's dtype and shape."""

    __slots__ = ("values", "dtype", "shape")

    def __init__(self, values, dtype, shape):
        self.values, self.dtype, self.shape = values, dtype, shape


def _is_array(value):
    return isinstance(value, numpy.ndarray) or hasattr(value, "__array__") and hasattr(value, "dtype")


def _is_number(value):
    return isinstance(value, (numbers.Number, numpy.generic)) and not isinstance(value, (str, bytes))


def plan_stack(samples, where="batch"):
    """The structure of the batch ``default_collate`` makes of ``samples``, with ``Stack`` at
    every position to stack (arrays, numbers) and lists of the other values."""
    first = samples[0]
    if isinstance(first, tuple) and not isinstance(first, str):
        _same_length(samples, where)
        parts = [plan_stack([s[i] for s in samples], f"{where}[{i}]") for i in range(len(first))]
        return type(first)(*parts) if hasattr(first, "_fields") else tuple(parts)
    if isinstance(first, list):
        _same_length(samples, where)
        return [plan_stack([s[i] for s in samples], f"{where}[{i}]") for i in range(len(first))]
    if isinstance(first, dict):
        for s in samples:
            if not isinstance(s, dict) or s.keys() != first.keys():
                raise ValueError(f"wsarray.data.default_collate: samples with different keys at {where}: "
                                 f"{sorted(map(str, first))} and "
                                 f"{sorted(map(str, s)) if isinstance(s, dict) else type(s).__name__}")
        return {k: plan_stack([s[k] for s in samples], f"{where}[{k!r}]") for k in first}
    if _is_array(first) or _is_number(first):
        arrays = [numpy.asarray(s) for s in samples]
        shape = arrays[0].shape
        for a in arrays:
            if a.shape != shape:
                raise ValueError(f"wsarray.data.default_collate: samples of different shapes at {where}: "
                                 f"{shape} and {a.shape}; pass collate= (padding, for example)")
        dtypes = {a.dtype for a in arrays}
        dtype = dtypes.pop() if len(dtypes) == 1 else numpy.result_type(*dtypes)
        if dtype.hasobject:
            return numpy.stack(arrays)  # object arrays cross the pipe as they are
        return Stack(arrays, dtype, (len(arrays),) + shape)
    return list(samples)


def _same_length(samples, where):
    n = len(samples[0])
    if any(len(s) != n for s in samples):
        raise ValueError(f"wsarray.data.default_collate: samples of different lengths at {where}")


def layout(plan):
    """Assign each array of ``plan`` (Stack positions and arrays of a collated batch) its offset:
    (skeleton, writes, total bytes); ``writes`` pairs each Leaf with its source."""
    writes = []
    total = [0]

    def place(node):
        if isinstance(node, Stack):
            dtype, shape = node.dtype, node.shape
        elif _is_array(node):
            node = numpy.asarray(node)
            if node.dtype.hasobject:
                return node
            dtype, shape = node.dtype, node.shape
        else:
            return node
        leaf = Leaf(total[0], dtype, shape)
        total[0] += -(-leaf.nbytes // ALIGN) * ALIGN
        writes.append((leaf, node))
        return leaf

    skeleton = rebuild(plan, place, (Stack, numpy.ndarray), arrays=True)
    return skeleton, writes, total[0]


def write(writes, buffer, base):
    """Write each array of ``writes`` into ``buffer`` (a shared mapping) at ``base`` + its offset."""
    for leaf, source in writes:
        out = numpy.ndarray(leaf.shape, leaf.dtype, buffer=buffer, offset=base + leaf.offset)
        if isinstance(source, Stack):
            if source.values:
                numpy.stack(source.values, out=out)
        else:
            numpy.copyto(out, source, casting="no")


def default_collate(samples):
    """Stack a list of samples into a batch (arrays and numbers stacked position by position,
    tuples, named tuples, lists and dicts kept, other values gathered into lists), as PyTorch's
    default_collate does. Used in place of ``collate=`` by ``AsyncIterator(backend="process")``,
    which stacks straight into shared memory; called directly, it returns NumPy arrays."""
    if not samples:
        raise ValueError("wsarray.data.default_collate: no samples")
    plan = plan_stack(list(samples))
    return rebuild(plan, lambda s: numpy.stack(s.values).astype(s.dtype, copy=False)
                   if isinstance(s, Stack) else s, (Stack,))


def rebuild(node, fn, leaf_types, arrays=False):
    """``node``'s structure with every leaf of ``leaf_types`` (and, with ``arrays``, every
    array-like) replaced by ``fn(leaf)``."""
    if isinstance(node, leaf_types) or arrays and _is_array(node):
        return fn(node)
    if isinstance(node, tuple):
        items = [rebuild(v, fn, leaf_types, arrays) for v in node]
        return type(node)(*items) if hasattr(node, "_fields") else type(node)(items)
    if isinstance(node, list):
        return [rebuild(v, fn, leaf_types, arrays) for v in node]
    if isinstance(node, dict):
        out = {k: rebuild(v, fn, leaf_types, arrays) for k, v in node.items()}
        return out if type(node) is dict else type(node)(out)
    return node
