"""``wsarray.testing``: NumPy's testing helpers (``assert_allclose``, ...); they read wsarray arrays through
``__array__``, so they compare wsarray and NumPy arrays alike.

The same objects as ``numpy.testing``, importable as ``wsarray.testing`` (``import wsarray.testing``)."""

from numpy.testing import *  # noqa: F401,F403
from numpy.testing import __all__  # noqa: F401
