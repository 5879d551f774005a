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

from typing import TYPE_CHECKING

from .bitwise import *
from . import bitwise as _bitwise
from .constants import *
from . import constants as _constants
from .creation import *
from . import creation as _creation
from .data_types import *
from . import data_types as _data_types
from .datetime import *
from . import datetime as _datetime
from .errors import *
from . import errors as _errors
from .functional import *
from . import functional as _functional
from .indexing import *
from . import indexing as _indexing
from .io import *
from . import io as _io
from .linear_algebra import *
from . import linear_algebra as _linear_algebra
from .logic import *
from . import logic as _logic
from .manipulation import *
from . import manipulation as _manipulation
from .math import *
from . import math as _math
from .misc import *
from . import misc as _misc
from .ndarray import *
from . import ndarray as _ndarray
from .polynomials import *
from . import polynomials as _polynomials
from .scalars import *
from . import scalars as _scalars
from .sets import *
from . import sets as _sets
from .sorting import *
from . import sorting as _sorting
from .statistics import *
from . import statistics as _statistics
from .subclasses import *
from . import subclasses as _subclasses
from .window import *
from . import window as _window
from .missing import NOT_PROVIDED_BY_DESIGN, __getattr__  # noqa: F401

# Hidden from type checkers, which cannot follow this sum inside wsarray's import cycle: to them
# the star imports above export each chapter's names.
if not TYPE_CHECKING:
    __all__ = (_bitwise.__all__ + _constants.__all__ + _creation.__all__ + _data_types.__all__ + _datetime.__all__ +
               _errors.__all__ + _functional.__all__ + _indexing.__all__ + _io.__all__ + _linear_algebra.__all__ +
               _logic.__all__ + _manipulation.__all__ + _math.__all__ + _misc.__all__ + _ndarray.__all__ +
               _polynomials.__all__ + _scalars.__all__ + _sets.__all__ + _sorting.__all__ + _statistics.__all__ +
               _subclasses.__all__ + _window.__all__)
