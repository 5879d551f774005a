"""wsarray: NumPy-compatible arrays whose memory comes from ND4J-style scoped workspaces.

``import wsarray as np``; wrap a loop body in ``with np.workspace("LOOP"):`` and every array made
inside is allocated from a reused per-thread arena. See README.md for the tour.

The namespace, in layers: the array API standard (wsarray/_array_api, one module per chapter),
NumPy's names beyond it (wsarray/_numpy, grouped as NumPy's reference), the workspaces
(_workspaces.py, memory.py), and one package per capability (wsarray.parallel, wsarray.data, ...).
"""

try:
    from . import _native  # first: a missing compiled core is explained below
except ImportError:  # the source folder, not the installed (compiled) package?
    import importlib.util as _util
    import os as _os

    if _util.find_spec("wsarray._native") is not None:
        raise
    raise ImportError(
        "wsarray's compiled core (wsarray._native) is not in " + _os.path.dirname(__file__) + ". "
        "This is the source folder of the repository, which Python finds first when you run it from "
        "the repository's root. Install wsarray (python -m pip install .) and run Python with -P "
        "(python -P script.py) or from another directory, so that the installed package is imported."
    ) from None

from importlib.metadata import version as _dist_version
from typing import TYPE_CHECKING

# Drop-in: code that gates features on np.__version__ must see the NumPy doing the math, and
# NumPy's version module and build configuration (np.version.version, np.__config__.show()).
from numpy import __config__ as __config__
from numpy import __version__ as __version__
from numpy import version as version

import sys as _sys

from . import _array_api, _numpy, _workspaces  # their __all__, below
from . import char, dtypes, emath, exceptions, fft, lib, linalg, memory, strings
from ._array_api import *
from ._config import show_config as show_config
from ._native import Function as _Function
from ._device import Device as Device
from ._devices import dispatch as _device_dispatch
from ._devices import workspace as _device_workspaces
from ._devices.array import DeviceArray as DeviceArray
from ._devices.array import DeviceMismatchError as DeviceMismatchError
from ._numpy import *
from ._numpy import fallback as _numpy_fallback
from ._annotations import Array as Array  # the core's class; a numpy.ndarray subclass to type checkers
from ._workspaces import *

if not TYPE_CHECKING:  # a module __getattr__ would make every misspelt name valid to a type checker
    from ._numpy import __getattr__  # noqa: F401  (NumPy names not provided; lazy submodules)
else:  # the submodules that __getattr__ imports on first use (np.random, np.testing, ...), declared
    from . import ctypeslib, polynomial, random, testing, typing
from .fusion import FuseWarning as FuseWarning
from .fusion import fuse as fuse

# The workspace modes of a training step are part of the workspace API (Deeplearning4j's
# WorkspaceMode); the pipeline stays in wsarray.data.
from .data import WorkspaceManager as WorkspaceManager
from .data import WorkspaceMode as WorkspaceMode
from . import cuda as _cuda_kind  # noqa: F401  (registers the CUDA device kind; CuPy stays unimported)

_device_dispatch.install()  # device arrays and device= reach the device layer (wsarray/_devices)
# The compiled core's questions, answered (src/python/common/hooks.h): it imports no wsarray module.
for _hook, _answer in (("namespace", _sys.modules[__name__]), ("cpu", _device_dispatch.CPU),
                       ("config_device", _device_dispatch.config_device),
                       ("host_to_device", _device_dispatch.host_to_device),
                       ("device_error", _device_dispatch.numpy_device_error),
                       ("device_workspace", _device_workspaces.for_core)):
    _native._set_hook(_hook, _answer)
del _hook, _answer
_numpy_fallback.install_import_fallback()  # import wsarray.<NumPy module wsarray has not> is NumPy's
# wsarray's ufuncs become instances of wsarray.ufunc (type(np.add) is np.ufunc), NumPy's are too.
_native._set_ufunc_class(ufunc, list(globals().values()))

# Shown as wsarray.ndarray (the class is named as NumPy's) / wsarray.Function (type(x), help(), error
# messages), where users meet them.
Array.__module__ = _Function.__module__ = DeviceArray.__module__ = DeviceMismatchError.__module__ = "wsarray"

__wsarray_version__ = _dist_version("wsarray")  # one source: pyproject.toml
__array_api_version__ = "2025.12"
_SUPPORTED_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")

if not TYPE_CHECKING:  # to type checkers the star imports export their modules' names themselves
    __all__ = (
        ["__version__", "Array", "Device", "DeviceArray", "DeviceMismatchError", "FuseWarning", "WorkspaceManager",
         "WorkspaceMode", "fuse", "show_config", "char", "ctypeslib", "dtypes", "emath", "exceptions", "fft",
         "lib", "linalg", "memory", "polynomial", "random", "strings", "testing", "typing"]
        + _array_api.__all__ + _numpy.__all__ + _workspaces.__all__
    )


# ---- pickling (the compiled core names these) -------------------------------------------------

def _rebuild_array(data):
    """Unpickle an Array (pickles hold a NumPy copy; the result is allocated like asarray())."""
    return asarray(data)


def _function_by_name(name):
    """Unpickle a namespace function (``"sum"``, ``"linalg.inv"``): the same object, as NumPy's."""
    import functools
    import sys

    return functools.reduce(getattr, name.split("."), sys.modules[__name__])


def _rebuild_function(func, name, numpy_scalars=None):
    """Unpickle a function held by value (a bound method of a Generator, ``add.reduce``);
    ``numpy_scalars`` is read from pickles of earlier versions and ignored."""
    return _Function(func, name)
