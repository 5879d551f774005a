"""Pad buckets: variable-length requests padded to a few lengths, so that they batch together.

``ParallelInference(model, pad_buckets=[16, 32, 64, 128], pad_axis=1, pad_value=0)``: at submit, a
request gets the smallest bucket at least as long as it is along ``pad_axis`` (longer than the
largest: ValueError) and its batching key becomes its padded shape, so only requests of one bucket
(and of one dtype and other trailing shape) are batched together. The worker builds the batch in
its workspace: an array of the padded shape filled with ``pad_value`` with each request copied in
at its rows, and the mask, a boolean array of shape (rows, bucket), True on each row's real
positions. The model is called as ``model(x, mask)``. With ``pad_trim=True`` (default), each
request's part of every output array is trimmed back to the request's length along ``pad_axis``
when that axis exists and has exactly the bucket's length; other outputs (a pooled vector, a
different length) are returned as they are. The rule goes by shape alone, so an output whose axis
merely happens to be as long as the bucket (a pooled vector of 64 features in bucket 64) is cut
too: ``pad_trim=False`` returns every output as the model gave it, padded.
"""

import inspect
import numbers

import numpy

from .._array_api.creation import full, zeros


class PadBuckets:
    def __init__(self, buckets, axis, value, trim):
        self.buckets = buckets  # sorted, distinct
        self.axis = axis
        self.value = value
        self.trim = trim
        self._fits = set()  # request dtypes pad_value was checked to fit

    def place(self, request, who):
        """Give ``request`` its bucket: its key becomes the padded shape, its length is kept."""
        data = request.data
        if data.ndim <= self.axis:
            raise ValueError(f"{who}: with pad_axis={self.axis} a request needs at least "
                             f"{self.axis + 1} dimensions, got shape {tuple(data.shape)}")
        length = data.shape[self.axis]
        bucket = next((b for b in self.buckets if b >= length), None)
        if bucket is None:
            raise ValueError(f"{who}: the request has length {length} along pad_axis {self.axis}, "
                             f"more than the largest of pad_buckets {list(self.buckets)}")
        self._check_value(data.dtype, who)
        padded = list(data.shape[1:])
        padded[self.axis - 1] = bucket
        request.key = (tuple(padded), data.dtype)
        request.length = length

    def _check_value(self, dtype, who):
        """pad_value must be stored exactly in a request's dtype (-1 in uint8, NaN or 0.5 in ints
        failed the request later, or padded with another number)."""
        if dtype in self._fits:
            return
        try:
            with numpy.errstate(all="raise"):
                stored = numpy.array(self.value).astype(dtype)
            same = stored.item() == self.value or (stored.dtype.kind in "fc" and numpy.isnan(stored) and
                                                    numpy.isnan(self.value))
        except (OverflowError, ValueError, TypeError, FloatingPointError):
            same = False
        if not same:
            raise ValueError(f"{who}: pad_value={self.value!r} cannot be stored exactly in the request's "
                             f"dtype {dtype}; pass a pad_value that fits it")
        self._fits.add(dtype)

    def assemble(self, requests):
        """The padded batch and its mask (arrays of the current workspace)."""
        shape, dtype = requests[0].key
        rows = sum(r.rows for r in requests)
        bucket = shape[self.axis - 1]
        batch = full((rows, *shape), self.value, dtype=dtype)
        mask = zeros((rows, bucket), dtype=bool)
        start = 0
        lead = (slice(None),) * (self.axis - 1)
        for r in requests:
            stop = start + r.rows
            batch[(slice(start, stop), *lead, slice(0, r.length))] = r.data
            mask[start:stop, :r.length] = True
            start = stop
        return batch, mask

    def trimmer(self, requests):
        """``trim(part, i)`` for ``split_detached``: request ``i``'s part of an output array, cut
        back to its length along the padded axis (see the module docstring); None without
        ``pad_trim``."""
        if not self.trim:
            return None
        bucket = requests[0].key[0][self.axis - 1]
        lengths = [r.length for r in requests]
        axis = self.axis

        def trim(part, i):
            if part.ndim > axis and part.shape[axis] == bucket and lengths[i] < bucket:
                return part[(slice(None),) * axis + (slice(0, lengths[i]),)]
            return part
        return trim


def parse_pad_buckets(pad_buckets, pad_axis, pad_value, pad_trim, batched, who):
    """The PadBuckets of the constructor's arguments (None without pad_buckets)."""
    if pad_buckets is None:
        return None
    if isinstance(pad_buckets, (str, bytes)) or not hasattr(pad_buckets, "__iter__"):
        raise TypeError(f"{who}: pad_buckets must be a sequence of ints such as [16, 32, 64], "
                        f"not {type(pad_buckets).__name__}")
    buckets = list(pad_buckets)
    if not buckets:
        raise ValueError(f"{who}: pad_buckets must name at least one length")
    for b in buckets:
        if isinstance(b, bool) or not isinstance(b, int):
            raise TypeError(f"{who}: pad_buckets must hold ints, not {type(b).__name__}")
        if b < 1:
            raise ValueError(f"{who}: pad_buckets must hold lengths of at least 1, got {b}")
    if len(set(buckets)) != len(buckets):
        raise ValueError(f"{who}: pad_buckets has a length twice: {buckets}")
    if isinstance(pad_axis, bool) or not isinstance(pad_axis, int):
        raise TypeError(f"{who}: pad_axis must be an int, not {type(pad_axis).__name__}")
    if pad_axis < 1:
        raise ValueError(f"{who}: pad_axis must be at least 1 (axis 0 holds the rows), got {pad_axis}")
    if not isinstance(pad_value, (numbers.Number, numpy.generic)):
        raise TypeError(f"{who}: pad_value must be a number, not {type(pad_value).__name__}")
    if not isinstance(pad_trim, bool):
        raise TypeError(f"{who}: pad_trim must be a bool, not {type(pad_trim).__name__}")
    if not batched:
        raise ValueError(f"{who}: pad_buckets needs mode='batched' (in mode='sequential' every "
                         "request runs alone, unpadded)")
    return PadBuckets(tuple(sorted(buckets)), pad_axis, pad_value, pad_trim)


def check_takes_mask(entry, who):
    """With pad buckets the model is called as model(x, mask): refuse one that cannot be."""
    try:
        signature = inspect.signature(entry)
    except (TypeError, ValueError):
        return  # no signature to read (a builtin): the first batch will tell
    try:
        signature.bind(None, None)
    except TypeError:
        raise TypeError(f"{who}: with pad_buckets the model is called as model(x, mask) (mask: "
                        f"True on each row's real positions); {_name(entry)} does not take two "
                        f"positional arguments {signature}") from None


def _name(entry):
    return getattr(entry, "__qualname__", None) or type(entry).__name__
