"""``wsarray.testing``: NumPy's testing helpers (``assert_allclose``, ...), importable as
``wsarray.testing`` (``import wsarray.testing``).

The comparing assertions see wsarray arrays as NumPy sees its own: an array as a NumPy array (a
zero-copy view), also inside lists, tuples and dicts. (``numpy.testing`` itself works on wsarray arrays too, since
``isinstance(x, numpy.ndarray)`` holds for them, README; these wrappers hand NumPy the very objects
it would hold.) Failure messages are NumPy's. Everything else is NumPy's object.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

import functools as _functools

import numpy as _np
from numpy.testing import *  # noqa: F403
from numpy.testing import __all__  # noqa: F401

from ._native import Array as _Array


def _as_numpy(x):
    """``x`` with wsarray arrays replaced by what NumPy would hold there (also inside containers)."""
    if type(x) is _Array:
        return _np.asarray(x)
    if type(x) in (list, tuple):
        return type(x)(_as_numpy(v) for v in x)
    if type(x) is dict:
        return {k: _as_numpy(v) for k, v in x.items()}
    return x


def _comparing(assertion):
    @_functools.wraps(assertion)
    def compare(*args, **kwargs):
        args = tuple(_as_numpy(a) for a in args)
        kwargs = {k: _as_numpy(v) for k, v in kwargs.items()}
        return assertion(*args, **kwargs)
    return compare


# The assertions that compare values (the rest take callables, strings or nothing array-like).
assert_allclose = _comparing(assert_allclose)  # noqa: F405
assert_almost_equal = _comparing(assert_almost_equal)  # noqa: F405
assert_approx_equal = _comparing(assert_approx_equal)  # noqa: F405
assert_array_almost_equal = _comparing(assert_array_almost_equal)  # noqa: F405
assert_array_almost_equal_nulp = _comparing(assert_array_almost_equal_nulp)  # noqa: F405
assert_array_compare = _comparing(assert_array_compare)  # noqa: F405
assert_array_equal = _comparing(assert_array_equal)  # noqa: F405
assert_array_less = _comparing(assert_array_less)  # noqa: F405
assert_array_max_ulp = _comparing(assert_array_max_ulp)  # noqa: F405
assert_equal = _comparing(assert_equal)  # noqa: F405
print_assert_equal = _comparing(print_assert_equal)  # noqa: F405


# NumPy's names this module does not define are NumPy's own (wsarray/_numpy/fallback.py).
if not _TYPE_CHECKING:  # a module __getattr__ would make every misspelt name valid to a type checker
    from ._numpy.fallback import numpy_module_getattr as _numpy_module_getattr

    __getattr__ = _numpy_module_getattr(__name__, "numpy.testing")
    __path__: list = []  # NumPy's submodules import through it: import wsarray.testing._x
