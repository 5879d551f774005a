"""``register()``: what ``dask.array`` must know to hold wsarray arrays as chunks.

The chunk type (so that Dask arrays take wsarray operands instead of deferring to them), the
dispatch functions Dask looks up by chunk type (``percentile_lookup``, which has no generic
fallback; ``empty_lookup``, ``numel_lookup`` and ``nannumel_lookup``, so that reductions keep
wsarray chunks; ``concatenate``/``take``/``tensordot``/``einsum``; ``to_numpy_dispatch`` for
``x.to_backend("numpy")``), ``sizeof`` (NumPy's rule: a broadcast view counts its distinct
elements), ``normalize_token`` (hash of the data, as for ndarrays, but never equal to an
ndarray's token, so a wsarray and a NumPy array with the same values never share graph keys), and
the ``"wsarray"`` creation backend. Idempotent and thread-safe; run by Dask's entry points.

``_register_serialization()`` (run once ``distributed.protocol`` is imported) sends wsarray arrays
between processes as distributed sends NumPy's (their buffers out of band, no pickle) and makes
them wsarray arrays again on arrival: a wsarray array is a NumPy ndarray subclass, which
distributed would otherwise serialize as its NumPy base class.
"""
import threading

import numpy

from .._numpy.manipulation import concatenate
from .._numpy.linear_algebra import einsum
from .._array_api.creation import empty
from .._array_api.indexing import take
from .._array_api.linear_algebra import tensordot
from .._native import Array

# Reentrant: registering imports dask.array when it is not imported yet, and wsarray's import hook
# (hooks.py) then calls register() again on the same thread, which must return, not deadlock.
_lock = threading.RLock()
_registered = False
_registering = False


def register():
    """Register wsarray with Dask (see the module docstring). Safe to call any number of times."""
    global _registered, _registering
    if _registered:
        return
    with _lock:
        if _registered or _registering:
            return
        _registering = True
        try:
            _register_sizeof()
            _register_token()
            _register_array()
            _registered = True
        finally:
            _registering = False


def _sizeof(x):
    from dask.sizeof import sizeof

    return sizeof(numpy.asarray(x))  # a view; raises WorkspaceError for an ended cycle's array


def _normalize(x):
    from dask.tokenize import normalize_token

    return ("wsarray.Array", normalize_token(numpy.asarray(x)))


def _register_sizeof():
    from dask.sizeof import sizeof

    sizeof.register(Array, _sizeof)


def _register_token():
    from dask.tokenize import normalize_token

    normalize_token.register(Array, _normalize)


def _serialize(x):
    from distributed.protocol.numpy import serialize_numpy_ndarray

    return serialize_numpy_ndarray(x.__array__())  # __array__() checks the array's cycle


def _deserialize(header, frames):
    from distributed.protocol.numpy import deserialize_numpy_ndarray

    from .._array_api.creation import asarray
    from .._workspaces import scope_out

    with scope_out():  # a received array belongs to no workspace
        return asarray(deserialize_numpy_ndarray(header, frames))


def _register_serialization():
    from distributed.protocol import dask_deserialize, dask_serialize

    dask_serialize.register(Array, _serialize)
    dask_deserialize.register(Array, _deserialize)


def _to_numpy(data, **kwargs):
    return numpy.asarray(data, **kwargs)


def _register_array():
    from dask.array import backends, chunk_types, dispatch

    if not chunk_types.is_valid_chunk_type(Array):
        chunk_types.register_chunk_type(Array)
    dispatch.percentile_lookup.register(Array, backends.percentile)
    dispatch.empty_lookup.register(Array, empty)
    dispatch.numel_lookup.register(Array, backends._numel_arraylike)
    dispatch.nannumel_lookup.register(Array, backends._nannumel)
    dispatch.concatenate_lookup.register(Array, concatenate)
    dispatch.take_lookup.register(Array, take)
    dispatch.tensordot_lookup.register(Array, tensordot)
    dispatch.einsum_lookup.register(Array, einsum)
    dispatch.to_numpy_dispatch.register(Array, _to_numpy)

    from .backend import WsarrayBackendEntrypoint  # imports dask.array: only once it is imported

    backends.array_creation_dispatch.register_backend("wsarray", WsarrayBackendEntrypoint())
    _teach_numpy_backend(backends.NumpyBackendEntrypoint)


def _teach_numpy_backend(entrypoint):
    """``x.to_backend("numpy")`` of wsarray chunks converts them.

    Dask's NumPy backend returns a collection unchanged when ``isinstance(x._meta, numpy.ndarray)``,
    which holds for wsarray arrays (a numpy.ndarray subclass); the chunks would stay wsarray arrays.
    """
    original = entrypoint.to_backend.__func__
    if getattr(original, "_wsarray", False):
        return

    def to_backend(cls, data, **kwargs):
        if type(data._meta) is Array:
            return data.map_blocks(cls.to_backend_dispatch(), **kwargs)
        return original(cls, data, **kwargs)

    to_backend._wsarray = True
    entrypoint.to_backend = classmethod(to_backend)


def is_registered():
    return _registered
