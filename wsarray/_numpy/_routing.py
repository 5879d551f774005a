"""How NumPy's functions beyond the standard become wsarray functions.

``numpy_function(func, name)`` is a ``wsarray._native.Function``: arguments unwrapped (each Array
checked against its cycle), NumPy's allocations routed into the current workspace, arrays returned
as ``wsarray.Array``, scalar results returned as NumPy's scalars, as NumPy returns them
(``np.dot(v, v)``, ``np.median(x)``).
"""

from typing import TypeVar, cast

from .._native import Function

__all__ = ["numpy_function"]

_FuncT = TypeVar("_FuncT")


def numpy_function(func: _FuncT, name: str) -> _FuncT:
    """A wsarray function running NumPy's ``func`` under ``name`` ("median", "linalg.norm").

    Typed as ``func`` itself: type checkers see NumPy's signature and result types (wsarray's arrays
    are NumPy arrays to them; see wsarray/_annotations.py)."""
    return cast(_FuncT, Function(func, name))
