"""Data types and data type functions of the array API standard.

``finfo``/``iinfo`` follow the standard (Python ``float``/``int`` fields, arrays accepted) and still
answer every other attribute of NumPy's finfo/iinfo (``tiny``, ``resolution``, ``precision``, ...);
``finfo``'s fields are also NumPy's scalars of the type (isinstance, arithmetic, printing).
The dtypes are NumPy's own scalar types, so ``wsarray.float64(1)`` and ``x.dtype ==
wsarray.float64`` work exactly as in NumPy; NumPy's other types are in wsarray/_numpy/scalars.py.
"""

import numpy as _np
from numpy import (
    complex64,
    complex128,
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

from .._annotations import array_function as _F
from .._annotations import numpy_typed as _N
from ._impl import data_types as _impl

__all__ = [
    "astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type", "bool", "int8", "int16",
    "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64", "complex64",
    "complex128"
]

astype = _F(_impl.astype, "astype")
can_cast = _N(_impl.can_cast, "can_cast")
# Classes, as NumPy's (isinstance(np.finfo(x), np.finfo), np.finfo[np.float64]); they hold no arrays.
finfo = _impl.finfo
iinfo = _impl.iinfo
isdtype = _N(_np.isdtype, "isdtype")
result_type = _N(_impl.result_type, "result_type")

bool = _np.bool_  # the array API's name for the boolean dtype  # noqa: A001
