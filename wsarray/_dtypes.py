"""Data types: NumPy's own scalar types, so ``wsarray.float64(1)`` and ``x.dtype == wsarray.float64``
work exactly as in NumPy."""

from numpy import (
    bool_,
    complex64,
    complex128,
    dtype,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)

bool = bool_  # the array API's name for the boolean dtype  # noqa: A001

__all__ = [
    "bool",
    "bool_",
    "complex64",
    "complex128",
    "dtype",
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
]
