"""Linear algebra in the main namespace."""

import numpy as _np

from ._core import Function as _F

__all__ = ["dot", "einsum", "inner", "kron", "matmul", "matrix_transpose", "outer", "tensordot",
           "trace", "vdot", "vecdot"]

dot = _F(_np.dot, "dot")
einsum = _F(_np.einsum, "einsum")
inner = _F(_np.inner, "inner")
kron = _F(_np.kron, "kron")
matmul = _F(_np.matmul, "matmul")
matrix_transpose = _F(_np.matrix_transpose, "matrix_transpose")
outer = _F(_np.outer, "outer")
tensordot = _F(_np.tensordot, "tensordot")
trace = _F(_np.trace, "trace")
vdot = _F(_np.vdot, "vdot")
vecdot = _F(_np.vecdot, "vecdot")
