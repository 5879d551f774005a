"""wsarray: NumPy-compatible arrays whose memory comes from ND4J-style scoped workspaces.

``import wsarray as np``; wrap a loop body in ``with np.workspace("LOOP"):`` and every array made
inside is allocated from a reused per-thread arena. See README.md for the tour.
"""

try:
    from . import _core
except ImportError:  # the source folder, not the installed (compiled) package?
    import importlib.util as _util
    import os as _os

    if _util.find_spec("wsarray._core") is not None:
        raise

    raise ImportError(
        "wsarray's compiled core (wsarray._core) is not in " + _os.path.dirname(__file__) + ". "
        "This is the source folder of the repository, which Python finds first when you run it from "
        "the repository's root. Install wsarray (python -m pip install .) and run Python with -P "
        "(python -P script.py) or from another directory, so that the installed package is imported."
    ) from None
from numpy import __version__ as _numpy_version
from numpy import e, inf, nan, newaxis, pi

from . import fft, linalg, memory
from ._core import Array
from ._core import Function as _Function

# Shown as wsarray.Array / wsarray.Function (type(x), help(), error messages), where users meet them.
Array.__module__ = _Function.__module__ = "wsarray"
from ._creation_functions import *  # noqa: F401,F403
from ._creation_functions import __all__ as _creation_functions_all
from ._data_type_functions import *  # noqa: F401,F403
from ._data_type_functions import __all__ as _data_type_functions_all
from ._dtypes import *  # noqa: F401,F403
from ._dtypes import __all__ as _dtypes_all
from ._elementwise_functions import *  # noqa: F401,F403
from ._elementwise_functions import __all__ as _elementwise_functions_all
from ._indexing_functions import *  # noqa: F401,F403
from ._indexing_functions import __all__ as _indexing_functions_all
from ._linear_algebra_functions import *  # noqa: F401,F403
from ._linear_algebra_functions import __all__ as _linear_algebra_functions_all
from ._manipulation_functions import *  # noqa: F401,F403
from ._manipulation_functions import __all__ as _manipulation_functions_all
from ._searching_functions import *  # noqa: F401,F403
from ._searching_functions import __all__ as _searching_functions_all
from ._set_functions import *  # noqa: F401,F403
from ._set_functions import __all__ as _set_functions_all
from ._sorting_functions import *  # noqa: F401,F403
from ._sorting_functions import __all__ as _sorting_functions_all
from ._statistical_functions import *  # noqa: F401,F403
from ._statistical_functions import __all__ as _statistical_functions_all
from ._utility_functions import *  # noqa: F401,F403
from ._utility_functions import __all__ as _utility_functions_all
from ._workspaces import *  # noqa: F401,F403
from ._workspaces import __all__ as _workspaces_all
from ._info import __array_namespace_info__
from ._config import show_config

# Drop-in: code that gates features on np.__version__ must see the NumPy doing the math.
# wsarray's own version is __wsarray_version__ (and the package metadata).
__version__ = _numpy_version
# Likewise NumPy's version module and build configuration (np.version.version, np.__config__.show()).
from numpy import __config__, version  # noqa: E402,F401
from importlib.metadata import version as _dist_version  # noqa: E402

__wsarray_version__ = _dist_version("wsarray")  # one source: pyproject.toml
__array_api_version__ = "2025.12"
_SUPPORTED_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")

ndarray = Array


def _rebuild_array(data):
    """Unpickle an Array (pickles hold a NumPy copy; the result is allocated like asarray())."""
    return asarray(data)  # noqa: F405


def _function_by_name(name):
    """Unpickle a namespace function (``"sum"``, ``"linalg.inv"``): the same object, as NumPy's."""
    import functools
    import sys

    return functools.reduce(getattr, name.split("."), sys.modules[__name__])


def _rebuild_function(func, name, numpy_scalars):
    """Unpickle a function held by value (a bound method of a Generator, ``add.reduce``)."""
    f = _Function(func, name)
    f._numpy_scalars = numpy_scalars
    return f


__all__ = (
    ["Array", "ndarray", "e", "inf", "nan", "newaxis", "pi", "fft", "linalg", "memory",
     "__array_namespace_info__", "show_config"]
    + _creation_functions_all
    + _data_type_functions_all
    + _dtypes_all
    + _elementwise_functions_all
    + _indexing_functions_all
    + _linear_algebra_functions_all
    + _manipulation_functions_all
    + _searching_functions_all
    + _set_functions_all
    + _sorting_functions_all
    + _statistical_functions_all
    + _utility_functions_all
    + _workspaces_all
)

# NumPy's namespace beyond the array API (issue 4): random numbers, index builders, file reading,
# the long tail of functions, scalar types, settings, and the module __getattr__ that explains
# which NumPy names wsarray does not provide.
from . import char, dtypes, emath, exceptions, lib, strings  # noqa: E402  (polynomial, random, testing, typing: lazy)
from ._index_tricks import *  # noqa: E402,F401,F403
from ._index_tricks import __all__ as _index_tricks_all  # noqa: E402
from ._io import *  # noqa: E402,F401,F403
from ._io import __all__ as _io_all  # noqa: E402
from ._numpy_extras import *  # noqa: E402,F401,F403
from ._numpy_extras import __all__ as _numpy_extras_all  # noqa: E402
from ._numpy_extras import __getattr__  # noqa: E402,F401

__all__ = __all__ + ["char", "dtypes", "emath", "exceptions", "lib", "polynomial", "random", "strings",
                     "testing", "typing"] + _index_tricks_all + _io_all + _numpy_extras_all
from ._ndarray import ndarray  # noqa: E402,F401,F811  (isinstance/subclass/constructor like NumPy's)


def _mark_numpy_api():
    """Functions beyond the array API standard return NumPy scalars as NumPy does (see
    _standard_names). A function object bound under a standard name anywhere stays standard."""
    import sys

    from ._core import Function
    from ._standard_names import FFT, LINALG, MAIN

    here = sys.modules[__name__]
    standard = {id(getattr(module, name)) for module, names in ((here, MAIN), (linalg, LINALG), (fft, FFT))
                for name in names if hasattr(module, name)}
    seen = set()
    modules = [here, linalg, fft, char, emath, lib, strings, lib.format, lib.array_utils, lib.stride_tricks]
    for module in modules:
        for value in list(vars(module).values()):
            if isinstance(value, Function) and id(value) not in standard and id(value) not in seen:
                seen.add(id(value))
                value._numpy_scalars = True


_mark_numpy_api()
