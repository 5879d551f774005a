"""The array API standard's namespace (2025.12), one module per chapter of the standard.

Everything defined here is the standard's: its functions return 0-d arrays where the standard
says so. NumPy's names beyond the standard live in wsarray/_numpy/ and return NumPy's scalars where
NumPy does. The ``linalg`` and ``fft`` extensions are the public modules wsarray.linalg and
wsarray.fft; their implementation helpers, and those of the chapters below, are in ``_impl``.
"""

from typing import TYPE_CHECKING

# The chapter modules, bound before the star imports (which may rebind a chapter's name, such as
# `ndarray`, to the object it exports); their lists make __all__ below.
from . import constants as _constants
from . import creation as _creation
from . import data_types as _data_types
from . import elementwise as _elementwise
from . import indexing as _indexing
from . import info as _info
from . import linear_algebra as _linear_algebra
from . import manipulation as _manipulation
from . import searching as _searching
from . import set_functions as _set_functions
from . import sorting as _sorting
from . import statistical as _statistical
from . import utility as _utility

from .constants import *
from .creation import *
from .data_types import *
from .elementwise import *
from .indexing import *
from .info import *
from .linear_algebra import *
from .manipulation import *
from .searching import *
from .set_functions import *
from .sorting import *
from .statistical import *
from .utility import *

# Hidden from type checkers, which cannot follow this sum inside wsarray's import cycle: to them
# the star imports above export each chapter's names.
if not TYPE_CHECKING:
    __all__ = (_constants.__all__ + _creation.__all__ + _data_types.__all__ + _elementwise.__all__ + _indexing.__all__ +
               _info.__all__ + _linear_algebra.__all__ + _manipulation.__all__ + _searching.__all__ +
               _set_functions.__all__ + _sorting.__all__ + _statistical.__all__ + _utility.__all__)
