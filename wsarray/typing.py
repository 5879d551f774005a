"""``wsarray.typing``: type annotations for code using wsarray, as ``numpy.typing`` is for NumPy.

``NDArray[np.float64]`` is a ``wsarray.Array`` of that scalar type (``Array[shape, dtype]``, which
type checkers see as a subclass of ``numpy.ndarray`` with ``detach()`` and the workspace methods:
wsarray/_typing.py); ``ArrayLike`` and ``DTypeLike`` are NumPy's (what the namespace functions
accept). Code annotated with ``numpy.typing.NDArray`` keeps working: a wsarray array is one.
"""

from typing import Any, TypeVar

import numpy as _np
from numpy.typing import ArrayLike, DTypeLike

from ._typing import Array

__all__ = ["Array", "ArrayLike", "DTypeLike", "NDArray"]

_ScalarT = TypeVar("_ScalarT", bound=_np.generic)

NDArray = Array[tuple[Any, ...], _np.dtype[_ScalarT]]
