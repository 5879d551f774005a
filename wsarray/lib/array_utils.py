"""``wsarray.lib.array_utils``: NumPy's ``byte_bounds`` (of a wsarray array's memory) and its
axis normalisation helpers."""

from numpy.lib import array_utils as _au

from .._numpy._routing import numpy_function as _F
from .._numpy.fallback import numpy_module_getattr as _numpy_module_getattr

__all__ = ["byte_bounds", "normalize_axis_index", "normalize_axis_tuple"]

byte_bounds = _F(_au.byte_bounds, "lib.array_utils.byte_bounds")
normalize_axis_index = _au.normalize_axis_index
normalize_axis_tuple = _au.normalize_axis_tuple


# NumPy's names this module does not define are NumPy's own (wsarray/_numpy/fallback.py).

__getattr__ = _numpy_module_getattr(__name__, "numpy.lib.array_utils")
