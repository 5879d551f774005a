"""``import wsarray.ma``: NumPy's masked arrays (``numpy.ma``), NumPy's own module. Masked arrays are
an ndarray subclass NumPy manages in its own memory (wsarray functions given one call NumPy without
routing into a workspace), so this module simply stands for ``numpy.ma``: ``wsarray.ma is
numpy.ma``, as ``wsarray.ma`` is when reached as an attribute."""

import sys

import numpy.ma as _ma

sys.modules[__name__] = _ma
