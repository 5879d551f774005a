"""Sorting functions of the array API standard: ``sort`` and ``argsort`` with the standard's
``descending``/``stable`` and NumPy's ``kind``/``order`` (see _impl/sorting.py)."""

from .._annotations import array_function as _F
from ._impl import sorting as _impl

__all__ = ["argsort", "sort"]

argsort = _F(_impl.argsort, "argsort")
sort = _F(_impl.sort, "sort")
