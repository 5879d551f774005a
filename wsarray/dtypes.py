"""``wsarray.dtypes``: NumPy's dtype classes: wsarray arrays use NumPy's dtypes.

The same objects as ``numpy.dtypes``, importable as ``wsarray.dtypes`` (``import wsarray.dtypes``)."""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from numpy.dtypes import *  # noqa: F403
from numpy.dtypes import __all__  # noqa: F401


# NumPy's names this module does not define are NumPy's own (wsarray/_numpy/fallback.py).
if not _TYPE_CHECKING:  # a module __getattr__ would make every misspelt name valid to a type checker
    from ._numpy.fallback import numpy_module_getattr as _numpy_module_getattr

    __getattr__ = _numpy_module_getattr(__name__, "numpy.dtypes")
