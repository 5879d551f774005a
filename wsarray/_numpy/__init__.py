"""NumPy's namespace beyond the array API standard, grouped as NumPy's reference is (routines by
chapter, scalars, constants, NumPy's subclasses), so that NumPy programs run unchanged with
``import wsarray as np``. Every name is listed explicitly in one module:

* routed functions (``_routing.numpy_function``): arguments unwrapped, NumPy's allocations routed
  into the current workspace, arrays returned as ``wsarray.Array``, scalars as NumPy's scalars;
* NumPy's own objects that hold no array memory: scalar types, ``errstate``, print options, index
  helpers, ``poly1d``, NumPy's ndarray subclasses and their modules;
* NumPy's names of the standard's functions (``arccos``, ``concatenate``): the standard's objects.

A NumPy name in none of these modules is NumPy's own object (missing.py, fallback.py).
"""

from typing import TYPE_CHECKING

# The chapter modules, bound before the star imports (which may rebind a chapter's name, such as
# `ndarray`, to the object it exports); their lists make __all__ below.
from . import bitwise as _bitwise
from . import constants as _constants
from . import creation as _creation
from . import data_types as _data_types
from . import datetime as _datetime
from . import errors as _errors
from . import functional as _functional
from . import indexing as _indexing
from . import io as _io
from . import linear_algebra as _linear_algebra
from . import logic as _logic
from . import manipulation as _manipulation
from . import math as _math
from . import misc as _misc
from . import ndarray as _ndarray
from . import polynomials as _polynomials
from . import scalars as _scalars
from . import sets as _sets
from . import sorting as _sorting
from . import statistics as _statistics
from . import subclasses as _subclasses
from . import window as _window

from .bitwise import *
from .constants import *
from .creation import *
from .data_types import *
from .datetime import *
from .errors import *
from .functional import *
from .indexing import *
from .io import *
from .linear_algebra import *
from .logic import *
from .manipulation import *
from .math import *
from .misc import *
from .ndarray import *
from .polynomials import *
from .scalars import *
from .sets import *
from .sorting import *
from .statistics import *
from .subclasses import *
from .window import *
from .missing import __getattr__  # noqa: F401

# Hidden from type checkers, which cannot follow this sum inside wsarray's import cycle: to them
# the star imports above export each chapter's names.
if not TYPE_CHECKING:
    __all__ = (_bitwise.__all__ + _constants.__all__ + _creation.__all__ + _data_types.__all__ + _datetime.__all__ +
               _errors.__all__ + _functional.__all__ + _indexing.__all__ + _io.__all__ + _linear_algebra.__all__ +
               _logic.__all__ + _manipulation.__all__ + _math.__all__ + _misc.__all__ + _ndarray.__all__ +
               _polynomials.__all__ + _scalars.__all__ + _sets.__all__ + _sorting.__all__ + _statistics.__all__ +
               _subclasses.__all__ + _window.__all__)
