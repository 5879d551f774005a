"""``wsarray.lib``: the part of ``numpy.lib`` NumPy programs commonly use: ``stride_tricks``,
``scimath`` (the same module as ``wsarray.emath``), and NumPy's own ``NumpyVersion`` and
``mixins`` (pure Python: ``NDArrayOperatorsMixin`` calls ufuncs, which wsarray arrays route).
Other ``numpy.lib`` names are not provided; ``wsarray.lib.<name>`` says so."""

import sys as _sys

from numpy.lib import NumpyVersion, mixins

from .. import emath as scimath
from . import stride_tricks

__all__ = ["NumpyVersion", "mixins", "scimath", "stride_tricks"]

_sys.modules[__name__ + ".scimath"] = scimath  # import wsarray.lib.scimath, as numpy.lib.scimath


def __getattr__(name):
    """A clear error for the ``numpy.lib`` names wsarray does not provide."""
    import numpy.lib

    if not name.startswith("_") and hasattr(numpy.lib, name):
        raise AttributeError(f"module 'wsarray.lib' has no attribute '{name}': wsarray does not "
                             f"provide numpy.lib.{name}; use numpy.lib.{name} on numpy.asarray(x) "
                             "if a plain NumPy result is acceptable")
    raise AttributeError(f"module 'wsarray.lib' has no attribute '{name}'")
