"""Array creation routines beyond the standard (NumPy's reference: Array creation)."""

import numpy as _np

from ._routing import numpy_function as _F

__all__ = [
    "array", "asanyarray", "ascontiguousarray", "asfortranarray", "asarray_chkfinite",
    "require", "copy", "identity", "logspace", "geomspace", "frombuffer", "fromfile",
    "fromfunction", "fromiter", "fromstring", "diag", "diagflat", "tri", "vander"
]

# Routed: NumPy runs with its allocations in the current workspace; NumPy's scalars come back.
array = _F(_np.array, "array")
asanyarray = _F(_np.asanyarray, "asanyarray")
ascontiguousarray = _F(_np.ascontiguousarray, "ascontiguousarray")
asfortranarray = _F(_np.asfortranarray, "asfortranarray")
asarray_chkfinite = _F(_np.asarray_chkfinite, "asarray_chkfinite")
require = _F(_np.require, "require")
copy = _F(_np.copy, "copy")
identity = _F(_np.identity, "identity")
logspace = _F(_np.logspace, "logspace")
geomspace = _F(_np.geomspace, "geomspace")
frombuffer = _F(_np.frombuffer, "frombuffer")
fromfile = _F(_np.fromfile, "fromfile")
fromfunction = _F(_np.fromfunction, "fromfunction")
fromiter = _F(_np.fromiter, "fromiter")
fromstring = _F(_np.fromstring, "fromstring")
diag = _F(_np.diag, "diag")
diagflat = _F(_np.diagflat, "diagflat")
tri = _F(_np.tri, "tri")
vander = _F(_np.vander, "vander")
