"""Linear algebra in the main namespace beyond the standard (NumPy's reference: Linear algebra)."""

import numpy as _np

from ._routing import numpy_function as _F

__all__ = [
    "dot", "einsum", "einsum_path", "inner", "kron", "matvec", "outer", "trace", "vdot",
    "vecmat"
]

# Routed: NumPy runs with its allocations in the current workspace; NumPy's scalars come back.
dot = _F(_np.dot, "dot")
einsum = _F(_np.einsum, "einsum")
einsum_path = _F(_np.einsum_path, "einsum_path")
inner = _F(_np.inner, "inner")
kron = _F(_np.kron, "kron")
matvec = _F(_np.matvec, "matvec")
outer = _F(_np.outer, "outer")
trace = _F(_np.trace, "trace")
vdot = _F(_np.vdot, "vdot")
vecmat = _F(_np.vecmat, "vecmat")
