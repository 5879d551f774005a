"""``wsarray.polynomial``: NumPy's polynomial package (``numpy.polynomial``) with array results in
the current workspace.

The functions of each kind's module (``polynomial.polyval``, ``chebyshev.chebfit``, ...) are
routed like every wsarray function. The convenience classes (``Polynomial``, ``Chebyshev``, ...)
are NumPy's, subclassed so that what returns arrays is routed too: ``p(x)``, ``p.roots()``,
``p.linspace()``, ``p.trim()``-style results stay polynomial objects as in NumPy. A polynomial
object keeps its coefficients (``p.coef``, ``p.domain``, ``p.window``) as NumPy arrays of its own,
so it may outlive the workspace cycle it was made in."""

from typing import TYPE_CHECKING as _TYPE_CHECKING

import sys as _sys
import types as _types

import numpy.polynomial as _P
from numpy.polynomial import _polybase

from ._native import Function as _F
from ._numpy.fallback import numpy_module_getattr as _numpy_module_getattr

__all__ = list(_P.__all__)

set_default_printstyle = _P.set_default_printstyle

# Methods of the convenience classes whose results are arrays (or tuples of arrays).
_ARRAY_METHODS = ("__call__", "roots", "linspace")


def _routed_method(cls, name):
    method = getattr(cls, name)
    routed = _F(method, f"polynomial.{cls.__name__}.{name}")

    def call(self, *args, **kwargs):
        return routed(self, *args, **kwargs)

    call.__name__ = name
    call.__qualname__ = f"{cls.__name__}.{name}"
    call.__doc__ = method.__doc__
    return call


def _routed_class(cls, module_name):
    namespace = {name: _routed_method(cls, name) for name in _ARRAY_METHODS}
    namespace.update(__module__=module_name, __doc__=cls.__doc__, __qualname__=cls.__name__)
    return type(cls)(cls.__name__, (cls,), namespace)


def _kind_module(short):
    """wsarray.polynomial.<short> (polynomial, chebyshev, ...) mirroring numpy.polynomial.<short>."""
    source = getattr(_P, short)
    name = f"{__name__}.{short}"
    module = _types.ModuleType(name, source.__doc__)
    module.__all__ = list(source.__all__)
    for attr in source.__all__:
        value = getattr(source, attr)
        if isinstance(value, type) and issubclass(value, _polybase.ABCPolyBase):
            value = _routed_class(value, __name__)
        elif callable(value):
            value = _F(value, f"polynomial.{short}.{attr}")
        setattr(module, attr, value)  # constants (polyzero, polydomain, ...) are NumPy's arrays
    module.__getattr__ = _numpy_module_getattr(name, source.__name__)  # NumPy's other names
    _sys.modules[name] = module
    return module


polynomial = _kind_module("polynomial")
chebyshev = _kind_module("chebyshev")
legendre = _kind_module("legendre")
hermite = _kind_module("hermite")
hermite_e = _kind_module("hermite_e")
laguerre = _kind_module("laguerre")

Polynomial = polynomial.Polynomial
Chebyshev = chebyshev.Chebyshev
Legendre = legendre.Legendre
Hermite = hermite.Hermite
HermiteE = hermite_e.HermiteE
Laguerre = laguerre.Laguerre


# NumPy's names this module does not define are NumPy's own (wsarray/_numpy/fallback.py).
if not _TYPE_CHECKING:  # a module __getattr__ would make every misspelt name valid to a type checker
    from ._numpy.fallback import numpy_module_getattr as _numpy_module_getattr

    __getattr__ = _numpy_module_getattr(__name__, "numpy.polynomial")
    __path__: list = []  # NumPy's submodules import through it: import wsarray.polynomial._x
