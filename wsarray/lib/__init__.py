"""``wsarray.lib``: ``numpy.lib`` as NumPy programs use it. ``stride_tricks``, ``format`` and
``array_utils`` take and give wsarray arrays; ``scimath`` is ``wsarray.emath``. NumPy's own
``NumpyVersion``, ``mixins`` (pure Python: ``NDArrayOperatorsMixin`` calls ufuncs, which wsarray
arrays route), ``Arrayterator`` (it slices the array it is given, so a wsarray array gives wsarray
blocks), ``npyio`` (``DataSource``, ``NpzFile``), ``introspect``, ``add_docstring``,
``add_newdoc`` and ``tracemalloc_domain``. ``recfunctions`` routes NumPy's structured-array
functions. Anything else ``wsarray.lib.<name>`` says is missing."""

import sys as _sys

from numpy.lib import (Arrayterator, NumpyVersion, add_docstring, add_newdoc, introspect, mixins, npyio,
                       tracemalloc_domain)

from .. import emath as scimath
from . import array_utils, format, recfunctions, stride_tricks  # noqa: A004  (NumPy's module name)

__all__ = ["Arrayterator", "NumpyVersion", "add_docstring", "add_newdoc", "array_utils", "format",
           "introspect", "mixins", "npyio", "recfunctions", "scimath", "stride_tricks", "tracemalloc_domain"]

_sys.modules[__name__ + ".scimath"] = scimath  # import wsarray.lib.scimath, as numpy.lib.scimath
_sys.modules[__name__ + ".npyio"] = npyio  # import wsarray.lib.npyio gives NumPy's module
_sys.modules[__name__ + ".introspect"] = introspect


def __getattr__(name):
    """A clear error for the ``numpy.lib`` names wsarray does not provide (NumPy's deprecated alias
    ``math`` given with NumPy's warning)."""
    import numpy.lib

    if name == "math":
        import math
        import warnings

        warnings.warn("`np.lib.math` is a deprecated alias for the standard library `math` module "
                      "(Deprecated Numpy 1.25). Replace usages of `numpy.lib.math` with `math`",
                      DeprecationWarning, stacklevel=2)
        return math

    if not name.startswith("_") and hasattr(numpy.lib, name):
        raise AttributeError(f"module 'wsarray.lib' has no attribute '{name}': wsarray does not "
                             f"provide numpy.lib.{name}; use numpy.lib.{name} on numpy.asarray(x) "
                             "if a plain NumPy result is acceptable")
    raise AttributeError(f"module 'wsarray.lib' has no attribute '{name}'")
