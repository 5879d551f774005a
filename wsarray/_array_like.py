"""Objects whose ``__array__`` returns a wsarray array.

A NumPy program's class often implements ``__array__`` with ``np`` functions
(``return self.value * np.eye(self.n)``). With ``import wsarray as np`` that method returns a
``wsarray.Array``, and NumPy refuses it ("object __array__ method not producing an array").
When a wsarray call fails so, the engine calls :func:`shim_arguments` and tries once more with
each such object replaced by a stand-in whose ``__array__`` hands NumPy the ndarray.
"""

import numpy as _np

from ._native import Array as _Array


class _ArrayLikeShim:
    """Calls the object's own ``__array__`` (same arguments, so NumPy's copy= fallbacks still
    apply) and gives NumPy the ndarray behind a wsarray result."""

    __slots__ = ("_obj",)

    def __init__(self, obj):
        self._obj = obj

    def __array__(self, *args, **kwargs):
        result = self._obj.__array__(*args, **kwargs)
        return result.to_numpy() if type(result) is _Array else result


def _shim(obj):
    """``obj`` with every object that has ``__array__`` (in lists and tuples too) shimmed, or the
    very ``obj`` when there is none."""
    kind = type(obj)
    if kind is list or kind is tuple:
        items = [_shim(item) for item in obj]
        if any(new is not old for new, old in zip(items, obj)):
            return kind(items)
        return obj
    if isinstance(obj, (_Array, _np.ndarray, _np.generic)) or not hasattr(kind, "__array__"):
        return obj
    return _ArrayLikeShim(obj)


def shim_arguments(args, kwargs):
    """``(args, kwargs)`` with array-likes shimmed, or None if no argument needs it."""
    new_args = _shim(tuple(args))
    new_kwargs = {key: _shim(value) for key, value in kwargs.items()} if kwargs else {}
    changed = new_args is not args or any(new_kwargs[k] is not v for k, v in (kwargs or {}).items())
    return (new_args, new_kwargs) if changed else None
