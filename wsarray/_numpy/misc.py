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
# find instead of Function's or NumPy's own attributes: no __doc__ nor __slots__ left in it, and
# its __module__ and NumPy's method names answer NumPy's ufuncs as numpy.ufunc alone did.
class ufunc(_Function):  # noqa: N801  (NumPy's name)
    __slots__ = ()


class _ModuleName(str):
    """wsarray.ufunc's ``__module__``: "wsarray" for the class and wsarray's ufuncs; a NumPy ufunc
    without one of its own (SciPy's, NumPy's test ufuncs) still has none (pickle then finds its
    module by searching, as it did before wsarray.ufunc was in numpy.ufunc's MRO)."""

    def __get__(self, obj, cls=None):
        if obj is None or isinstance(obj, _Function):
            return str(self)
        kind = type(obj)
        raise AttributeError(f"'{kind.__module__}.{kind.__qualname__}' object has no attribute '__module__'")


class _UfuncMember:
    """One of numpy.ufunc's names on wsarray.ufunc: NumPy's descriptor read off the class
    (``np.ufunc.reduce``, as inspect and NumPy's tests read it), wsarray's routed attribute read
    off a wsarray ufunc (``np.add.reduce``). NumPy's ufuncs find NumPy's own first."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __get__(self, obj, cls=None):
        if obj is None:
            return getattr(_np.ufunc, self.name)
        return _Function.__getattr__(obj, self.name)


del ufunc.__doc__, ufunc.__slots__
ufunc.__module__ = _ModuleName("wsarray")
for _name in vars(_np.ufunc):
    if not _name.startswith("__"):
        setattr(ufunc, _name, _UfuncMember(_name))
del _name


def info(object=None, maxwidth=76, output=None, toplevel="numpy"):  # noqa: A002  (NumPy's name)
    """``numpy.info``; a wsarray array is described as the NumPy array it holds (class, shape,
    strides, ...)."""
    if type(object) is _Array:
        object = _np.asarray(object)  # noqa: A001  (NumPy's parameter name)
    return _np.info(object, maxwidth=maxwidth, output=output, toplevel=toplevel)
