"""``wsarray.typing``: NumPy's type annotations (``NDArray``, ``ArrayLike``, ...), for code annotated against NumPy.

The same objects as ``numpy.typing``, importable as ``wsarray.typing`` (``import wsarray.typing``)."""

from numpy.typing import *  # noqa: F403
from numpy.typing import __all__  # noqa: F401
