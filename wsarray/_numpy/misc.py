"""Miscellaneous routines (NumPy's reference: Miscellaneous routines and Universal functions)."""

import numpy as _np

from .._native import Array as _Array
from .._native import Function as _Function

from ._routing import numpy_function as _F

__all__ = [
    "get_include", "iterable", "may_share_memory", "shares_memory", "show_runtime", "ufunc", "info"
]

# Routed: NumPy runs with its allocations in the current workspace; NumPy's scalars come back.
may_share_memory = _F(_np.may_share_memory, "may_share_memory")
shares_memory = _F(_np.shares_memory, "shares_memory")

# NumPy's own objects: they hold no workspace memory.
get_include = _np.get_include
iterable = _np.iterable
show_runtime = _np.show_runtime


# The class of wsarray's universal functions (``type(np.add) is np.ufunc``, as with NumPy), a
# ``wsarray.Function``; NumPy's ufuncs (SciPy's special functions, ``numpy.add``) are instances of
# it too (``isinstance(f, np.ufunc)``: numpy.ufunc's MRO gets it), and wsarray's are instances of
# ``numpy.ufunc``. Its dict holds nothing an instance (or a NumPy ufunc, through that MRO) would
# find instead of Function's or NumPy's own attributes: no __doc__, no __slots__ left in it.
class ufunc(_Function):  # noqa: N801  (NumPy's name)
    __slots__ = ()


del ufunc.__doc__, ufunc.__slots__
ufunc.__module__ = "wsarray"


def info(object=None, maxwidth=76, output=None, toplevel="numpy"):  # noqa: A002  (NumPy's name)
    """``numpy.info``; a wsarray array is described as the NumPy array it holds (class, shape,
    strides, ...)."""
    if type(object) is _Array:
        object = _np.asarray(object)  # noqa: A001  (NumPy's parameter name)
    return _np.info(object, maxwidth=maxwidth, output=output, toplevel=toplevel)
