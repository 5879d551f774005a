"""``wsarray.lib.recfunctions``: NumPy's functions on structured arrays (``numpy.lib.recfunctions``),
routed: wsarray arrays in, results allocated in the current workspace. Those that return NumPy's
ndarray subclasses (``usemask=True`` gives a ``numpy.ma.MaskedArray``, ``asrecarray=True`` a
``numpy.recarray``) return NumPy's subclass, as for every routed function (README). Other names
are NumPy's."""

from numpy.lib import recfunctions as _rf

from .._numpy._routing import numpy_function as _F
from .._numpy.fallback import numpy_module_getattr as _numpy_module_getattr

__all__ = list(_rf.__all__)

for _name in __all__:
    globals()[_name] = _F(getattr(_rf, _name), "lib.recfunctions." + _name)
del _name


# NumPy's names this module does not define (its private helpers, the modules it imports) are
# NumPy's own (wsarray/_numpy/fallback.py).
__getattr__ = _numpy_module_getattr(__name__, "numpy.lib.recfunctions")
