"""``wsarray.exceptions``: NumPy's exception classes (``AxisError``, ...): wsarray raises NumPy's errors unchanged.

The same objects as ``numpy.exceptions``, importable as ``wsarray.exceptions`` (``import wsarray.exceptions``)."""

from numpy.exceptions import *  # noqa: F403
from numpy.exceptions import __all__  # noqa: F401
from numpy.exceptions import RankWarning  # noqa: F401  (public, though not in NumPy's __all__)
