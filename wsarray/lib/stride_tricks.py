"""``wsarray.lib.stride_tricks``: strided views (``sliding_window_view``, ``as_strided``) of wsarray
arrays; the views share the array's memory and are checked against its workspace cycle."""

from numpy.lib import stride_tricks as _st

from .._numpy._routing import numpy_function as _F
from .._numpy.fallback import numpy_module_getattr as _numpy_module_getattr

__all__ = ["as_strided", "sliding_window_view"]

as_strided = _F(_st.as_strided, "lib.stride_tricks.as_strided")
sliding_window_view = _F(_st.sliding_window_view, "lib.stride_tricks.sliding_window_view")


# NumPy's names this module does not define are NumPy's own (wsarray/_numpy/fallback.py).

__getattr__ = _numpy_module_getattr(__name__, "numpy.lib.stride_tricks")
