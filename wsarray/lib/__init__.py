"""``wsarray.lib``: the part of ``numpy.lib`` NumPy programs commonly use (``stride_tricks``).
Other ``numpy.lib`` names are not provided."""

from . import stride_tricks

__all__ = ["stride_tricks"]
