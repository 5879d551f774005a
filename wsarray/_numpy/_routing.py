"""How NumPy's functions beyond the standard become wsarray functions.

``numpy_function(func, name)`` is a ``wsarray._core.Function``: arguments unwrapped (each Array
checked against its cycle), NumPy's allocations routed into the current workspace, arrays returned
as ``wsarray.Array``, and, since the function is NumPy's API rather than the standard's, scalar
results returned as NumPy's scalars, as NumPy returns them (``np.dot(v, v)``, ``np.median(x)``).
The standard's functions (wsarray/_array_api) return the standard's 0-d arrays instead.
"""

from .._core import Function

__all__ = ["numpy_function"]


def numpy_function(func, name):
    """A wsarray function running NumPy's ``func`` under ``name`` ("median", "linalg.norm")."""
    f = Function(func, name)
    f._numpy_scalars = True
    return f
