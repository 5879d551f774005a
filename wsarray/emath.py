"""``wsarray.emath``: NumPy's math with automatic domain (``numpy.emath``: ``sqrt(-1)`` is ``1j``),
results in the current workspace."""

from numpy import emath as _emath

from ._numpy._routing import numpy_function as _F

__all__ = ["arccos", "arcsin", "arctanh", "log", "log10", "log2", "logn", "power", "sqrt"]

arccos = _F(_emath.arccos, "emath.arccos")
arcsin = _F(_emath.arcsin, "emath.arcsin")
arctanh = _F(_emath.arctanh, "emath.arctanh")
log = _F(_emath.log, "emath.log")
log10 = _F(_emath.log10, "emath.log10")
log2 = _F(_emath.log2, "emath.log2")
logn = _F(_emath.logn, "emath.logn")
power = _F(_emath.power, "emath.power")
sqrt = _F(_emath.sqrt, "emath.sqrt")
