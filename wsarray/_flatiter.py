"""``a.flat`` of a wsarray Array: NumPy's flat iterator, with wsarray indices and results.

NumPy's ``flatiter`` is C code that accepts only NumPy indices (``a.flat[mask]`` with a wsarray
boolean Array raises IndexError) and returns NumPy arrays outside every workspace. ``FlatIter``
holds the Array and NumPy's iterator over its ndarray: indexing, assignment, comparisons and
``copy()`` go through the engine (indices unwrapped, each use checked against the Array's cycle,
results wsarray arrays, scalars NumPy's as NumPy gives them); iteration, ``index``, ``coords`` and
``len`` are the iterator's own, whose state they share as NumPy's do. ``base`` is the Array, and
``isinstance(a.flat, numpy.flatiter)`` holds (``__class__``, as for the Array itself).
"""

import operator

import numpy as _np

from ._core import Function

__all__ = ["FlatIter"]


def _numpy_function(func, name):
    return Function(func, name)


# Each takes the Array second: the engine unwraps it, which checks it is still in its cycle.
_getitem = _numpy_function(lambda flat, array, index: flat[index], "Array.flat.__getitem__")
_setitem = _numpy_function(lambda flat, array, index, value: flat.__setitem__(index, value),
                           "Array.flat.__setitem__")
_copy = _numpy_function(lambda flat, array: flat.copy(), "Array.flat.copy")
_check = _numpy_function(lambda array: None, "Array.flat")
_PLAIN_VALUES = (int, float, bool, complex)  # values NumPy's flatiter takes as they are
_compare = {
    name: _numpy_function(lambda flat, array, other, op=op: op(flat, other), f"Array.flat.__{name}__")
    for name, op in (("eq", operator.eq), ("ne", operator.ne), ("lt", operator.lt),
                     ("le", operator.le), ("gt", operator.gt), ("ge", operator.ge))
}


class FlatIter:
    """``a.flat``: a flat iterator over the Array ``a`` (NumPy's ``numpy.flatiter`` semantics)."""

    __slots__ = ("_flat", "_array", "__weakref__")
    __hash__ = None  # as NumPy's flatiter: it compares elementwise

    def __init__(self, flat, array):
        self._flat = flat  # NumPy's iterator over the Array's ndarray (its state: index, coords)
        self._array = array

    @property
    def __class__(self):
        return _np.flatiter

    def _checked(self):
        _check(self._array)  # WorkspaceError once the Array's cycle has ended
        return self._flat

    @property
    def base(self):
        return self._array

    @property
    def index(self):
        return self._checked().index

    @property
    def coords(self):
        return self._checked().coords

    def __len__(self):
        return len(self._flat)

    def __iter__(self):
        # NumPy's iterator itself (checked now, sharing index/coords with this object): a loop over
        # a.flat runs at NumPy's speed. Like memoryview(a), it is not checked again once made.
        return self._checked()

    def __next__(self):
        return next(self._checked())

    def __getitem__(self, index):
        if type(index) is int:  # a.flat[i] in element loops: NumPy's scalar, no engine call
            return self._checked()[index]
        return _getitem(self._flat, self._array, index)

    def __setitem__(self, index, value):
        if type(index) is int and type(value) in _PLAIN_VALUES:
            self._checked()[index] = value
        else:
            _setitem(self._flat, self._array, index, value)

    def __delitem__(self, index):
        del self._checked()[index]  # NumPy's error

    def copy(self):
        return _copy(self._flat, self._array)

    def __array__(self, dtype=None, copy=None):
        # NumPy converts it (np.asarray(a.flat)): the iterator's own copy, as NumPy makes it.
        return self._checked().__array__(dtype, copy=copy)

    def __eq__(self, other):
        return _compare["eq"](self._flat, self._array, other)

    def __ne__(self, other):
        return _compare["ne"](self._flat, self._array, other)

    def __lt__(self, other):
        return _compare["lt"](self._flat, self._array, other)

    def __le__(self, other):
        return _compare["le"](self._flat, self._array, other)

    def __gt__(self, other):
        return _compare["gt"](self._flat, self._array, other)

    def __ge__(self, other):
        return _compare["ge"](self._flat, self._array, other)

    def __reduce__(self):
        return self._checked().__reduce__()  # NumPy's (it refuses to pickle a flatiter)

    def __repr__(self):
        return repr(self._checked())
