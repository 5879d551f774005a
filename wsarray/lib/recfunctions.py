"""``wsarray.lib.recfunctions``: NumPy's functions on structured arrays (``numpy.lib.recfunctions``),
routed: wsarray arrays in, results allocated in the current workspace. Those that return NumPy's
ndarray subclasses (``usemask=True`` gives a ``numpy.ma.MaskedArray``, ``asrecarray=True`` a
``numpy.recarray``) return NumPy's subclass, as for every routed function (README). Private helpers
are NumPy's."""

from numpy.lib import recfunctions as _rf

from .._numpy._routing import numpy_function as _F

__all__ = list(_rf.__all__)

for _name in __all__:
    globals()[_name] = _F(getattr(_rf, _name), "lib.recfunctions." + _name)
del _name


def __getattr__(name):
    """NumPy's private helpers (``_get_fieldspec``, ``_izip_fields``, ...) as NumPy has them."""
    if name.startswith("_") and not name.startswith("__") and hasattr(_rf, name):
        return getattr(_rf, name)
    raise AttributeError(f"module 'wsarray.lib.recfunctions' has no attribute '{name}'")
