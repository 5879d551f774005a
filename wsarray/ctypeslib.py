"""``wsarray.ctypeslib`` is ``numpy.ctypeslib`` itself: its functions convert between ctypes objects
and NumPy arrays and hold no array memory of their own. Give them ``numpy.asarray(x)`` where they
require a NumPy ndarray (``as_ctypes``, ``ndpointer`` arguments check the type)."""

import sys as _sys

import numpy.ctypeslib as _ctypeslib

_sys.modules[__name__] = _ctypeslib  # import wsarray.ctypeslib gives NumPy's module
