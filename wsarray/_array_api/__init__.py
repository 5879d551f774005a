"""The array API standard's namespace (2025.12), one module per chapter of the standard.

Everything defined here is the standard's: its functions return 0-d arrays where the standard
says so. NumPy's names beyond the standard live in wsarray/_numpy/ and return NumPy's scalars where
NumPy does. The ``linalg`` and ``fft`` extensions are the public modules wsarray.linalg and
wsarray.fft; their implementation helpers, and those of the chapters below, are in ``_impl``.
"""

from .constants import *
from .constants import __all__ as _constants
from .creation import *
from .creation import __all__ as _creation
from .data_types import *
from .data_types import __all__ as _data_types
from .elementwise import *
from .elementwise import __all__ as _elementwise
from .indexing import *
from .indexing import __all__ as _indexing
from .info import *
from .info import __all__ as _info
from .linear_algebra import *
from .linear_algebra import __all__ as _linear_algebra
from .manipulation import *
from .manipulation import __all__ as _manipulation
from .searching import *
from .searching import __all__ as _searching
from .set_functions import *
from .set_functions import __all__ as _set_functions
from .sorting import *
from .sorting import __all__ as _sorting
from .statistical import *
from .statistical import __all__ as _statistical
from .utility import *
from .utility import __all__ as _utility

__all__ = (_constants + _creation + _data_types + _elementwise + _indexing + _info + _linear_algebra
           + _manipulation + _searching + _set_functions + _sorting + _statistical + _utility)
