"""``wsarray.lib``: ``numpy.lib`` as NumPy programs use it. ``stride_tricks``, ``format`` and
``array_utils`` take and give wsarray arrays; ``scimath`` is ``wsarray.emath``. NumPy's own
``NumpyVersion``, ``mixins`` (pure Python: ``NDArrayOperatorsMixin`` calls ufuncs, which wsarray
arrays route), ``Arrayterator`` (it slices the array it is given, so a wsarray array gives wsarray
blocks), ``npyio`` (``DataSource``, ``NpzFile``), ``introspect``, ``add_docstring``,
``add_newdoc`` and ``tracemalloc_domain``. ``recfunctions`` routes NumPy's structured-array
functions. Any other name of ``numpy.lib`` is NumPy's own object."""

import sys as _sys

from numpy.lib import (Arrayterator, NumpyVersion, add_docstring, add_newdoc, introspect, mixins, npyio,
                       tracemalloc_domain)

from .. import emath as scimath
from .._numpy.fallback import numpy_module_getattr as _numpy_module_getattr
from . import array_utils, format, recfunctions, stride_tricks  # noqa: A004  (NumPy's module name)

__all__ = ["Arrayterator", "NumpyVersion", "add_docstring", "add_newdoc", "array_utils", "format",
           "introspect", "mixins", "npyio", "recfunctions", "scimath", "stride_tricks", "tracemalloc_domain"]

_sys.modules[__name__ + ".scimath"] = scimath  # import wsarray.lib.scimath, as numpy.lib.scimath
_sys.modules[__name__ + ".npyio"] = npyio  # import wsarray.lib.npyio gives NumPy's module
_sys.modules[__name__ + ".introspect"] = introspect


# NumPy's names this package does not define are NumPy's own (wsarray/_numpy/fallback.py):
# numpy.lib's private modules, its deprecated aliases with NumPy's warnings.
__getattr__ = _numpy_module_getattr(__name__, "numpy.lib")
