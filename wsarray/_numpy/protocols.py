"""The array protocols as a class derived from ``wsarray.ndarray`` sees them: in wsarray's names.

A class written as ``class Quantity(np.ndarray)`` under ``import wsarray as np`` compares what
its ``__array_ufunc__`` and ``__array_function__`` receive with its own ``np``: ``ufunc is
np.power``, ``func is np.concatenate``, ``t is np.ndarray for t in types`` (unit and
automatic-differentiation libraries do). NumPy hands those overrides its own objects
(``numpy.power``, ``numpy.ndarray``), which wsarray's only equal. So the overrides such a class
defines, or inherits from a mixin that is no array, are wrapped once, when the class is made: a
NumPy ufunc or function that wsarray has under the same name arrives as wsarray's (equal to
NumPy's, hashing as it, a ``numpy.ufunc`` to
isinstance, with the same attributes and methods), and ``numpy.ndarray`` in ``types`` as
``wsarray.ndarray`` (NumPy's arrays are instances of it). Anything else (SciPy's ufuncs, other
libraries' types) arrives as it is. Classes derived from ``numpy.ndarray`` are not touched.

What such a class inherits as ``__array_ufunc__`` (``super().__array_ufunc__(...)`` in its own,
the pattern NumPy documents) is NumPy's default with wsarray's arrays counted as plain ndarrays:
the call goes on when no operand overrides the protocol but wsarray's arrays, NumPy's default
(``numpy.ndarray``'s, which sees wsarray's arrays as overriding) answering NotImplemented instead.
"""

import functools
import sys
import types

import numpy

from .._native import Array, Function, _set_subclass_side

# The submodules whose functions wsarray has under NumPy's names ("": the main namespace, first:
# numpy.strings.add is numpy.add).
_MODULES = ("", "linalg", "fft", "emath", "char", "strings")
_ours_by_id = None  # id(NumPy's object) -> wsarray's Function, made on first use


def _table():
    global _ours_by_id
    if _ours_by_id is None:
        table, named = {}, set()
        for module in _MODULES:
            theirs, ours = numpy, sys.modules["wsarray"]
            if module:
                theirs, ours = getattr(theirs, module), getattr(ours, module)
            for name in dir(ours):
                f, g = getattr(ours, name, None), getattr(theirs, name, None)
                if not isinstance(f, Function) or g is None or isinstance(g, type) or f != g:
                    continue
                # Two names of one NumPy object (abs, absolute): the one NumPy gives it wins.
                own_name = name == getattr(g, "__name__", None)
                if id(g) not in table or own_name and id(g) not in named:
                    table[id(g)] = f
                    if own_name:
                        named.add(id(g))
        _ours_by_id = table
    return _ours_by_id


def ours(obj):
    """wsarray's function for NumPy's ``obj`` (a ufunc or an array function), else ``obj``."""
    return _table().get(id(obj), obj)


def _our_types(types_):
    if numpy.ndarray not in types_:
        return types_
    return tuple(Array if t is numpy.ndarray else t for t in types_)


def _wrap_ufunc(override):
    @functools.wraps(override)
    def translated(self, ufunc, method, *inputs, **kwargs):
        return override(self, ours(ufunc), method, *inputs, **kwargs)
    translated._wsarray_translated = True
    return translated


def _wrap_function(override):
    @functools.wraps(override)
    def translated(self, func, types, args, kwargs):
        return override(self, ours(func), _our_types(types), args, kwargs)
    translated._wsarray_translated = True
    return translated


_WRAPPERS = {"__array_ufunc__": _wrap_ufunc, "__array_function__": _wrap_function}


def translate_overrides(cls):
    """Wrap the protocol overrides ``cls`` itself defines (plain functions; None opts out), when
    ``cls`` derives from wsarray.ndarray (numpy.ndarray's subclasses find this hook too: wsarray's
    class follows NumPy's in their MRO)."""
    mro = cls.__mro__
    if Array not in mro or mro.index(Array) > mro.index(numpy.ndarray):
        return
    for name, wrap in _WRAPPERS.items():
        owner = next((base for base in mro if name in vars(base)), None)
        if owner is None or owner is Array or owner is numpy.ndarray:
            continue
        if owner is not cls and Array in owner.__mro__:
            continue  # a wsarray.ndarray subclass above defines it: translated when it was made
        # This class's own override, or one it inherits from a mixin that is no array (class
        # Vector(Mixin, np.ndarray)): the mixin stays as it is, this class gets the translation.
        override = vars(owner)[name]
        if isinstance(override, types.FunctionType) and not getattr(override, "_wsarray_translated", False):
            setattr(cls, name, wrap(override))


_NUMPY_UFUNC_DEFAULT = vars(numpy.ndarray)["__array_ufunc__"]
_ABSENT = object()


def _overrides(x):
    cls = type(x)
    if cls is Array or cls is numpy.ndarray:
        return False
    found = getattr(cls, "__array_ufunc__", _ABSENT)
    return found is not _ABSENT and found is not _NUMPY_UFUNC_DEFAULT  # None (opted out) overrides


def ndarray_array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """NumPy's ndarray.__array_ufunc__, wsarray's arrays counted as ndarrays (see the banner)."""
    out = kwargs.get("out")
    outs = out if isinstance(out, tuple) else () if out is None else (out,)
    if any(_overrides(x) for x in (*inputs, *outs)):
        return NotImplemented
    return getattr(ufunc, method)(*inputs, **kwargs)


# inspect.signature(np.ndarray.__array_ufunc__) reads NumPy's (the class's dispatcher forwards it).
ndarray_array_ufunc.__text_signature__ = _NUMPY_UFUNC_DEFAULT.__text_signature__
_set_subclass_side("__array_ufunc__", ndarray_array_ufunc)
