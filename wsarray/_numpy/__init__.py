"""NumPy's namespace beyond the array API standard, grouped as NumPy's reference is (routines by
chapter, scalars, constants, NumPy's subclasses), so that NumPy programs run unchanged with
``import wsarray as np``. Every name is listed explicitly in one module:

* routed functions (``_routing.numpy_function``): arguments unwrapped, NumPy's allocations routed
  into the current workspace, arrays returned as ``wsarray.Array``, scalars as NumPy's scalars;
* NumPy's own objects that hold no array memory: scalar types, ``errstate``, print options, index
  helpers, ``poly1d``, NumPy's ndarray subclasses and their modules;
* NumPy's names of the standard's functions (``arccos``, ``concatenate``): the standard's objects.

A NumPy name in none of these modules raises an ``AttributeError`` that says so (missing.py).
"""

from .bitwise import *
from .bitwise import __all__ as _bitwise
from .constants import *
from .constants import __all__ as _constants
from .creation import *
from .creation import __all__ as _creation
from .data_types import *
from .data_types import __all__ as _data_types
from .datetime import *
from .datetime import __all__ as _datetime
from .errors import *
from .errors import __all__ as _errors
from .functional import *
from .functional import __all__ as _functional
from .indexing import *
from .indexing import __all__ as _indexing
from .io import *
from .io import __all__ as _io
from .linear_algebra import *
from .linear_algebra import __all__ as _linear_algebra
from .logic import *
from .logic import __all__ as _logic
from .manipulation import *
from .manipulation import __all__ as _manipulation
from .math import *
from .math import __all__ as _math
from .misc import *
from .misc import __all__ as _misc
from .ndarray import *
from .ndarray import __all__ as _ndarray
from .polynomials import *
from .polynomials import __all__ as _polynomials
from .scalars import *
from .scalars import __all__ as _scalars
from .sets import *
from .sets import __all__ as _sets
from .sorting import *
from .sorting import __all__ as _sorting
from .statistics import *
from .statistics import __all__ as _statistics
from .subclasses import *
from .subclasses import __all__ as _subclasses
from .window import *
from .window import __all__ as _window
from .missing import NOT_PROVIDED_BY_DESIGN, __getattr__  # noqa: F401

__all__ = (_bitwise + _constants + _creation + _data_types + _datetime + _errors + _functional +
           _indexing + _io + _linear_algebra + _logic + _manipulation + _math + _misc + _ndarray +
           _polynomials + _scalars + _sets + _sorting + _statistics + _subclasses + _window)
