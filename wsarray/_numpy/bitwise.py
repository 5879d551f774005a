"""Bit-wise operations beyond the standard (NumPy's reference: Bit-wise operations)."""

import numpy as _np

from .._array_api.elementwise import bitwise_invert, bitwise_left_shift, bitwise_right_shift
from ._routing import numpy_function as _F

__all__ = [
    "bitwise_count", "bitwise_not", "invert", "left_shift", "packbits", "right_shift",
    "unpackbits"
]

# Routed: NumPy runs with its allocations in the current workspace; NumPy's scalars come back.
bitwise_count = _F(_np.bitwise_count, "bitwise_count")
packbits = _F(_np.packbits, "packbits")
unpackbits = _F(_np.unpackbits, "unpackbits")

# NumPy's names of the standard's functions: the same objects, as in NumPy (np.arccos is np.acos).
bitwise_not = bitwise_invert
invert = bitwise_invert
left_shift = bitwise_left_shift
right_shift = bitwise_right_shift
