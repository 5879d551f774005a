"""The ``"wsarray"`` array creation backend of Dask: ``dask.config.set({"array.backend": "wsarray"})``.

With it, ``da.ones``, ``zeros``, ``empty``, ``full``, ``arange`` and ``da.random`` (``RandomState``
and ``default_rng``) make arrays whose chunks are wsarray arrays, and ``x.to_backend("wsarray")``
converts a NumPy-backed array chunk by chunk (zero-copy). Found by Dask through the
``dask.array.backends`` entry point, and registered by ``wsarray.dask.register()``.
"""
import numpy

import dask.array as da
from dask import config
from dask.array.backends import ArrayBackendEntrypoint
from dask.utils import Dispatch

from .._array_api.creation import asarray, empty
from .. import random as wsarray_random
from .._native import Array

to_wsarray_dispatch = Dispatch("to_wsarray_dispatch")


@to_wsarray_dispatch.register((object, numpy.ndarray))
def _to_wsarray(data, **kwargs):
    return asarray(data, **kwargs)  # an ndarray is wrapped, not copied


@to_wsarray_dispatch.register(Array)
def _already_wsarray(data, **kwargs):
    return data


def _meta():
    # One-dimensional: Dask derives a zero-size meta by slicing, and slicing a 0-d array gives a
    # NumPy scalar (as in NumPy), which Dask would turn into an ndarray meta.
    return empty((0,))


class PCG64(numpy.random.PCG64):
    """NumPy's PCG64 under a wsarray module name: ``da.random.default_rng()`` picks the library
    that makes each chunk from the bit generator's module, so these draw wsarray chunks (the same
    numbers as NumPy's PCG64 with the same seed)."""


def _with_wsarray_meta(name, *args, meta=None, **kwargs):
    with config.set({"array.backend": "numpy"}):  # the NumPy code path, wsarray meta
        return getattr(da, name)(*args, meta=_meta() if meta is None else meta, **kwargs)


class WsarrayBackendEntrypoint(ArrayBackendEntrypoint):
    """Dask's creation functions, random generators and ``to_backend`` for wsarray chunks. Only
    that: the rest of what Dask must know (chunk type, dispatch functions) is registered when
    ``dask.array`` is imported (hooks.py, registry.py), before Dask can load this class."""

    @classmethod
    def to_backend_dispatch(cls):
        return to_wsarray_dispatch

    @classmethod
    def to_backend(cls, data, **kwargs):
        if type(data._meta) is Array:
            return data
        return data.map_blocks(to_wsarray_dispatch, **kwargs)

    @property
    def RandomState(self):  # noqa: N802 - Dask's name
        return wsarray_random.RandomState

    @property
    def default_bit_generator(self):
        return PCG64

    @staticmethod
    def ones(*args, **kwargs):
        return _with_wsarray_meta("ones", *args, **kwargs)

    @staticmethod
    def zeros(*args, **kwargs):
        return _with_wsarray_meta("zeros", *args, **kwargs)

    @staticmethod
    def empty(*args, **kwargs):
        return _with_wsarray_meta("empty", *args, **kwargs)

    @staticmethod
    def full(*args, **kwargs):
        return _with_wsarray_meta("full", *args, **kwargs)

    @staticmethod
    def arange(*args, like=None, **kwargs):
        with config.set({"array.backend": "numpy"}):
            return da.arange(*args, like=_meta() if like is None else like, **kwargs)
