"""Logic functions beyond the standard (NumPy's reference: Logic functions)."""

import numpy as _np

from ._routing import numpy_function as _F

__all__ = [
    "allclose", "array_equal", "array_equiv", "isclose", "iscomplex", "iscomplexobj",
    "isfortran", "isnat", "isneginf", "isposinf", "isreal", "isrealobj", "isscalar"
]

# Routed: NumPy runs with its allocations in the current workspace; NumPy's scalars come back.
allclose = _F(_np.allclose, "allclose")
array_equal = _F(_np.array_equal, "array_equal")
array_equiv = _F(_np.array_equiv, "array_equiv")
isclose = _F(_np.isclose, "isclose")
iscomplex = _F(_np.iscomplex, "iscomplex")
iscomplexobj = _F(_np.iscomplexobj, "iscomplexobj")
isfortran = _F(_np.isfortran, "isfortran")
isnat = _F(_np.isnat, "isnat")
isneginf = _F(_np.isneginf, "isneginf")
isposinf = _F(_np.isposinf, "isposinf")
isreal = _F(_np.isreal, "isreal")
isrealobj = _F(_np.isrealobj, "isrealobj")
isscalar = _np.isscalar  # scalar results are NumPy's scalars; a 0-d array is not one
