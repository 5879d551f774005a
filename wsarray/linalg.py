"""``wsarray.linalg``: the array API standard's linalg extension and NumPy's other linear algebra
(``norm``, ``lstsq``, ``cond``, ...: NumPy's scalars), results in the current workspace."""

from typing import TYPE_CHECKING as _TYPE_CHECKING

import numpy.linalg as _la

from ._annotations import array_function as _F
from ._annotations import numpy_typed as _N
from ._numpy._routing import numpy_function as _numpy_function
from ._array_api._impl import linalg as _impl

__all__ = ["cholesky", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh",
           "inv", "lstsq", "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose",
           "multi_dot", "norm", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals",
           "tensordot", "tensorinv", "tensorsolve", "trace", "vecdot", "vector_norm", "LinAlgError"]

LinAlgError = _la.LinAlgError
cholesky = _F(_la.cholesky, "linalg.cholesky")
cond = _numpy_function(_la.cond, "linalg.cond")
cross = _F(_la.cross, "linalg.cross")
det = _F(_la.det, "linalg.det")
diagonal = _F(_la.diagonal, "linalg.diagonal")
eig = _N(_la.eig, "linalg.eig")  # NumPy's dtype rule wins over the standard's (README)
eigh = _N(_la.eigh, "linalg.eigh")
eigvals = _F(_la.eigvals, "linalg.eigvals")
eigvalsh = _F(_la.eigvalsh, "linalg.eigvalsh")
inv = _F(_la.inv, "linalg.inv")
lstsq = _numpy_function(_la.lstsq, "linalg.lstsq")
matmul = _F(_la.matmul, "linalg.matmul")
matrix_norm = _F(_la.matrix_norm, "linalg.matrix_norm")
matrix_power = _F(_la.matrix_power, "linalg.matrix_power")
matrix_rank = _F(_la.matrix_rank, "linalg.matrix_rank")
matrix_transpose = _F(_la.matrix_transpose, "linalg.matrix_transpose")
multi_dot = _numpy_function(_la.multi_dot, "linalg.multi_dot")
norm = _numpy_function(_la.norm, "linalg.norm")
outer = _F(_la.outer, "linalg.outer")
pinv = _F(_impl.pinv, "linalg.pinv")
qr = _N(_la.qr, "linalg.qr")
slogdet = _N(_la.slogdet, "linalg.slogdet")
solve = _F(_la.solve, "linalg.solve")
svd = _N(_la.svd, "linalg.svd")
svdvals = _F(_la.svdvals, "linalg.svdvals")
tensordot = _F(_la.tensordot, "linalg.tensordot")
tensorinv = _numpy_function(_la.tensorinv, "linalg.tensorinv")
tensorsolve = _numpy_function(_la.tensorsolve, "linalg.tensorsolve")
trace = _F(_la.trace, "linalg.trace")
vecdot = _F(_la.vecdot, "linalg.vecdot")
vector_norm = _F(_la.vector_norm, "linalg.vector_norm")


# NumPy's names this module does not define are NumPy's own (wsarray/_numpy/fallback.py).
if not _TYPE_CHECKING:  # a module __getattr__ would make every misspelt name valid to a type checker
    from ._numpy.fallback import numpy_module_getattr as _numpy_module_getattr

    __getattr__ = _numpy_module_getattr(__name__, "numpy.linalg")
    __path__: list = []  # NumPy's submodules import through it: import wsarray.linalg._x
