"""Batch structures: walking the arrays of a batch, copying them in, detaching them out.

A batch is an array (a wsarray Array or a NumPy ndarray) or a tuple, named tuple, list or dict of
batches (features, labels, masks; nested structures too). Other values in it (None for an absent
mask, ints, strings, ...) are passed through as they are: they are neither copied nor retired.
An array of a NumPy ndarray subclass (``numpy.ma`` masked arrays, ``numpy.matrix``, ...) keeps its
class and what it carries (the mask): it is copied as NumPy copies it, into NumPy's memory.
"""

from typing import TypeVar

import numpy

from .._native import Array
from .._numpy.creation import array as _wsarray_array

__all__ = ["detach", "map_arrays", "array_leaves", "sample_count", "batch_nbytes"]

_BatchT = TypeVar("_BatchT")


def map_arrays(batch, fn):
    """The same structure as ``batch`` with every array leaf replaced by ``fn(leaf)``.

    An array appearing twice (an autoencoder's features used as labels) is mapped once, and the
    result keeps the sharing.
    """
    return _map(batch, fn, {})


# Module-level recursion, not a nested function: a nested function that calls itself is a
# reference cycle, which would keep its memo (the batch's arrays) alive until the cyclic GC runs,
# and a retired batch still referenced makes the next batch of its slot spill.
def _map(node, fn, memo):
    if isinstance(node, (Array, numpy.ndarray)):
        key = id(node)
        if key not in memo:
            memo[key] = (node, fn(node))  # keep node alive so its id stays unique
        return memo[key][1]
    if isinstance(node, tuple):
        items = [_map(v, fn, memo) for v in node]
        return type(node)(*items) if hasattr(node, "_fields") else type(node)(items)
    if isinstance(node, list):
        return [_map(v, fn, memo) for v in node]
    if isinstance(node, dict):
        out = {k: _map(v, fn, memo) for k, v in node.items()}
        return out if type(node) is dict else _same_mapping(node, out)
    return node


def _same_mapping(original, items):
    try:
        return type(original)(items)
    except TypeError:  # a dict subclass whose constructor wants more (defaultdict): a plain dict
        return items


def array_leaves(batch):
    """The array leaves of ``batch`` in structure order (each object once)."""
    leaves = []
    _collect(batch, leaves, set())
    return leaves


def _collect(node, leaves, seen):
    if isinstance(node, (Array, numpy.ndarray)):
        if id(node) not in seen:
            seen.add(id(node))
            leaves.append(node)
    elif isinstance(node, (tuple, list)):
        for v in node:
            _collect(v, leaves, seen)
    elif isinstance(node, dict):
        for v in node.values():
            _collect(v, leaves, seen)


def detach(batch: _BatchT) -> _BatchT:
    """An independent copy of a whole batch, outside every workspace.

    ``kept = wsarray.data.detach(batch)`` keeps a batch of ``wsarray.data.AsyncIterator`` past the
    next call to ``next()`` (when the iterator retires the batch's arrays). The structure (tuple,
    named tuple, list, dict) is kept; wsarray Arrays are detached (``Array.detach()``), NumPy
    arrays copied, other values passed through. A batch already retired raises ``WorkspaceError``.
    """
    return map_arrays(batch, _detach_leaf)  # type: ignore[no-any-return]


def _detach_leaf(leaf):
    if type(leaf) is Array:
        return leaf.detach()
    return leaf.copy()


def copy_into_current_scope(leaf):
    """A wsarray copy of ``leaf`` made in the current scope (a slot's fill, or plain memory); a
    NumPy subclass's own copy (mask and class kept, NumPy's memory: valid beyond the batch)."""
    if type(leaf) is not Array and type(leaf) is not numpy.ndarray:
        return leaf.copy()
    return _wsarray_array(leaf, copy=True)


def sample_count(batch):
    """Rows of the batch's first array (its leading axis), 1 for a 0-d array, None without arrays."""
    for leaf in array_leaves(batch):
        shape = leaf.shape
        return shape[0] if shape else 1
    return None


def batch_nbytes(batch):
    """Bytes of the batch's arrays."""
    return sum(int(leaf.nbytes) for leaf in array_leaves(batch))
