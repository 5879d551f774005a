"""Data type routines beyond the standard (NumPy's reference: Data type routines)."""

import numpy as _np

from ._routing import numpy_function as _F

__all__ = [
    "common_type", "min_scalar_type", "mintypecode", "promote_types", "issubdtype", "typename",
    "sctypeDict", "ScalarType", "typecodes"
]

# Routed: NumPy runs with its allocations in the current workspace; NumPy's scalars come back.
common_type = _F(_np.common_type, "common_type")
min_scalar_type = _F(_np.min_scalar_type, "min_scalar_type")
mintypecode = _F(_np.mintypecode, "mintypecode")

# NumPy's own objects: they hold no workspace memory.
promote_types = _np.promote_types
issubdtype = _np.issubdtype
typename = _np.typename
sctypeDict = _np.sctypeDict  # noqa: N816  (NumPy's name)
ScalarType = _np.ScalarType
typecodes = _np.typecodes
