"""``from_array``: a Dask array whose chunks are views of a wsarray array, sliced eagerly.

``dask.array.from_array`` keeps an array it does not know as one graph node holding the whole
array, which every chunk's task reads (on a cluster the whole array travels to each worker that
runs one, doubling worker memory at least). Here every chunk is its own node: a view of ``x``
(zero-copy; on a cluster a contiguous chunk pickles out of band, as protocol 5 allows) with
wsarray meta. An ``x`` attached to a workspace is detached once first (the graph outlives the
cycle); NumPy arrays are wrapped without a copy; anything else goes through ``wsarray.asarray``.
"""
import itertools
import uuid

import dask.array as da
from dask.array.core import normalize_chunks, slices_from_chunks
from dask.highlevelgraph import HighLevelGraph
from dask.tokenize import tokenize

from .._array_api.creation import asarray, empty
from .._workspaces import scope_out
from .._native import Array
from .registry import register

WHO = "wsarray.dask.from_array()"


def from_array(x, chunks="auto", name=None):
    """A Dask array of ``x`` cut into ``chunks`` (as ``dask.array.from_array``: a block shape,
    explicit sizes, a byte size such as "64 MiB", or "auto"), each chunk a view of ``x``.

    ``name``: the graph key prefix; None hashes ``x`` (equal data gives equal keys, as Dask
    does), False takes a random name (no hashing), a str is used as it is.
    """
    register()
    if isinstance(x, da.Array):
        raise TypeError(f"{WHO}: x is already a Dask array; use x.to_backend('wsarray') to "
                        "convert its chunks")
    if type(x) is Array:
        if x.is_attached():
            x = x.detach()  # raises WorkspaceError when x's cycle has ended
    else:
        with scope_out():  # a conversion that copies must not land in a workspace
            x = asarray(x)
    try:
        chunks = normalize_chunks(chunks, x.shape, dtype=x.dtype)
    except (TypeError, ValueError, ZeroDivisionError) as e:  # Dask divides by a block size of 0
        why = "a block size of 0 along an axis of nonzero length" if isinstance(e, ZeroDivisionError) else e
        raise (ValueError if isinstance(e, ZeroDivisionError) else type(e))(
            f"{WHO}: bad chunks {chunks!r} for shape {x.shape}: {why}") from e
    if name is None:
        name = "wsarray-from-array-" + tokenize(x, chunks)
    elif name is False:
        name = "wsarray-from-array-" + uuid.uuid4().hex
    elif not isinstance(name, str):
        raise TypeError(f"{WHO}: name must be a str, None or False, not {type(name).__name__}")
    indices = itertools.product(*(range(len(c)) for c in chunks))
    dsk = {(name, *index): x[view] for index, view in zip(indices, slices_from_chunks(chunks))}
    meta = empty((0,) * x.ndim, dtype=x.dtype)
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=())
    return da.Array(graph, name, chunks, meta=meta)
