"""Linear algebra functions of the array API standard in the main namespace (the ``linalg``
extension is ``wsarray.linalg``)."""

import numpy as _np

from .._annotations import array_function as _F

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]

matmul = _F(_np.matmul, "matmul")
matrix_transpose = _F(_np.matrix_transpose, "matrix_transpose")
tensordot = _F(_np.tensordot, "tensordot")
vecdot = _F(_np.vecdot, "vecdot")
