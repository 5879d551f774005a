"""``wsarray.exceptions``: NumPy's exception classes (``AxisError``, ...): wsarray raises NumPy's errors unchanged.

The same objects as ``numpy.exceptions``, importable as ``wsarray.exceptions`` (``import wsarray.exceptions``)."""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from numpy.exceptions import *  # noqa: F403
from numpy.exceptions import __all__  # noqa: F401
from numpy.exceptions import RankWarning  # noqa: F401  (public, though not in NumPy's __all__)


# NumPy's names this module does not define are NumPy's own (wsarray/_numpy/fallback.py).
if not _TYPE_CHECKING:  # a module __getattr__ would make every misspelt name valid to a type checker
    from ._numpy.fallback import numpy_module_getattr as _numpy_module_getattr

    __getattr__ = _numpy_module_getattr(__name__, "numpy.exceptions")
