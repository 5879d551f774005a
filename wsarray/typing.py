"""``wsarray.typing``: type annotations for code using wsarray, as ``numpy.typing`` is for NumPy.

``NDArray[np.float64]`` is a ``wsarray.Array`` of that scalar type (``Array[shape, dtype]``, which
type checkers see as a subclass of ``numpy.ndarray`` with ``detach()`` and the workspace methods:
wsarray/_annotations.py); ``ArrayLike`` and ``DTypeLike`` are NumPy's (what the namespace functions
accept). Code annotated with ``numpy.typing.NDArray`` keeps working: a wsarray array is one.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from typing import Any, TypeVar

import numpy as _np
from numpy.typing import ArrayLike, DTypeLike

from ._annotations import Array

__all__ = ["Array", "ArrayLike", "DTypeLike", "NDArray"]

_ScalarT = TypeVar("_ScalarT", bound=_np.generic)

NDArray = Array[tuple[Any, ...], _np.dtype[_ScalarT]]


# NumPy's names this module does not define are NumPy's own (wsarray/_numpy/fallback.py).
if not _TYPE_CHECKING:  # a module __getattr__ would make every misspelt name valid to a type checker
    from ._numpy.fallback import numpy_module_getattr as _numpy_module_getattr

    __getattr__ = _numpy_module_getattr(__name__, "numpy.typing")
    __path__: list = []  # NumPy's submodules import through it: import wsarray.typing._x
