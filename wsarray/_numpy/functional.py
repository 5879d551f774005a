"""Functional programming (NumPy's reference: Functional programming): ``apply_along_axis``,
``apply_over_axes``, ``piecewise``, and ``frompyfunc`` / ``vectorize``, whose calls are routed."""

import numpy as _np

from .._native import Function as _Function
from ._routing import numpy_function as _F

__all__ = ["apply_along_axis", "apply_over_axes", "frompyfunc", "piecewise", "vectorize"]

apply_along_axis = _F(_np.apply_along_axis, "apply_along_axis")
apply_over_axes = _F(_np.apply_over_axes, "apply_over_axes")
piecewise = _F(_np.piecewise, "piecewise")


class _RoutedPyUfunc:
    """The ufunc ``frompyfunc`` made, with calls and methods (``reduce``, ...) routed.

    A Python object rather than a ``Function``: it holds the user's function, whose globals may
    hold this object again, and only Python objects let the cyclic collector free such a cycle."""

    __slots__ = ("ufunc", "__weakref__")

    def __init__(self, ufunc):
        self.ufunc = ufunc

    def __call__(self, *args, **kwargs):
        return _Function(self.ufunc, self.ufunc.__name__)(*args, **kwargs)

    def __getattr__(self, name):
        value = getattr(self.ufunc, name)
        if callable(value) and not name.startswith("_"):
            return _Function(value, f"{self.ufunc.__name__}.{name}")
        return value

    def __repr__(self):
        return repr(self.ufunc)


def frompyfunc(func, /, nin, nout, **kwargs):
    """``numpy.frompyfunc``; the ufunc it makes is routed (calls and methods such as ``reduce``)."""
    return _RoutedPyUfunc(_np.frompyfunc(func, nin, nout, **kwargs))


class vectorize(_np.vectorize):  # noqa: N801  (NumPy's name)
    """``numpy.vectorize`` whose calls run through the engine: the Python function sees NumPy
    scalars as in NumPy, the result is a wsarray array allocated in the current workspace."""

    def __call__(self, *args, **kwargs):
        return _Function(_np.vectorize.__call__, "vectorize")(self, *args, **kwargs)
