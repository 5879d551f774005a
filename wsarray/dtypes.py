"""``wsarray.dtypes``: NumPy's dtype classes: wsarray arrays use NumPy's dtypes.

The same objects as ``numpy.dtypes``, importable as ``wsarray.dtypes`` (``import wsarray.dtypes``)."""

from numpy.dtypes import *  # noqa: F403
from numpy.dtypes import __all__  # noqa: F401
