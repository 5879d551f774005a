"""Input and output (NumPy's reference: Input and output): ``load`` of ``.npy``/``.npz`` files,
text and binary writers and readers, string formatting of arrays and numbers, print options.

``load`` needs its own code because an ``.npz`` archive is a lazy mapping whose arrays NumPy reads on
access: each access is routed, so arrays come from the current workspace.
"""

from collections.abc import Mapping as _Mapping

import inspect as _inspect

import numpy as _np

from .._native import Array as _Array
from .._native import Function as _Function
from ._routing import numpy_function as _F

__all__ = [
    "array2string", "array_repr", "array_str", "base_repr", "binary_repr", "genfromtxt",
    "fromregex", "get_printoptions", "loadtxt", "printoptions", "save", "savetxt", "savez",
    "savez_compressed", "set_printoptions", "NpzFile", "format_float_positional", "format_float_scientific", "load"
]

# Routed: NumPy runs with its allocations in the current workspace; NumPy's scalars come back.
array2string = _F(_np.array2string, "array2string")
array_repr = _F(_np.array_repr, "array_repr")
array_str = _F(_np.array_str, "array_str")
genfromtxt = _F(_np.genfromtxt, "genfromtxt")
fromregex = _F(_np.fromregex, "fromregex")
loadtxt = _F(_np.loadtxt, "loadtxt")
save = _F(_np.save, "save")
savetxt = _F(_np.savetxt, "savetxt")
savez = _F(_np.savez, "savez")
savez_compressed = _F(_np.savez_compressed, "savez_compressed")

# NumPy's own objects: they hold no workspace memory.
base_repr = _np.base_repr
binary_repr = _np.binary_repr
get_printoptions = _np.get_printoptions
printoptions = _np.printoptions
set_printoptions = _np.set_printoptions

_load = _Function(_np.load, "load")


class NpzFile(_Mapping):
    """An open ``.npz`` archive (like ``numpy.lib.npyio.NpzFile``); ``f["x"]`` is a wsarray array."""

    def __init__(self, npz):
        self._npz = npz
        self._getitem = _Function(npz.__getitem__, "load")
        self.files = npz.files

    def __getitem__(self, key):
        return self._getitem(key)

    def __iter__(self):
        return iter(self.files)

    def __len__(self):
        return len(self.files)

    def __contains__(self, key):
        return key in self.files

    def close(self):
        self._npz.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return repr(self._npz)  # NumPy's text: printed output stays the same after the swap

    @property
    def __class__(self):
        # isinstance(z, numpy.lib.npyio.NpzFile) holds (NumPy code checks it before it closes or
        # removes the file behind an archive); type(z) is still this class.
        return _np.lib.npyio.NpzFile

    @property
    def f(self):
        """``npz.f.x`` is ``npz["x"]``, as NumPy's ``NpzFile.f``."""
        return _Fields(self)

    def __getattr__(self, name):
        # NumPy's other attributes of the archive (zip, fid, allow_pickle, max_header_size, ...).
        if name.startswith("_"):
            raise AttributeError(f"'NpzFile' object has no attribute '{name}'")
        return getattr(self._npz, name)


class _Fields:
    """Attribute access to the arrays of an archive (NumPy's ``BagObj``)."""

    def __init__(self, npz):
        object.__setattr__(self, "_npz", npz)

    def __getattribute__(self, key):
        try:
            return object.__getattribute__(self, "_npz")[key]
        except KeyError:
            raise AttributeError(key) from None

    def __dir__(self):
        return list(object.__getattribute__(self, "_npz").keys())


def load(file, mmap_mode=None, *args, **kwargs):
    """``numpy.load`` with arrays allocated in the current workspace (``.npz``: on access). With
    ``mmap_mode`` a ``.npy`` file gives NumPy's ``memmap`` (an ndarray subclass over the file, in no
    workspace, as wsarray serves NumPy's subclasses: README)."""
    result = _load(file, mmap_mode, *args, **kwargs)
    if isinstance(result, _np.lib.npyio.NpzFile):
        return NpzFile(result)
    return result


def _numpy_scalar(x):
    """A 0-d wsarray array stands for the NumPy scalar NumPy would have returned: give that back."""
    if type(x) is _Array and x.ndim == 0:
        return _np.asarray(x)[()]
    return x


def format_float_positional(x, *args, **kwargs):
    """``numpy.format_float_positional``, also for 0-d wsarray arrays (the scalar they hold)."""
    return _np.format_float_positional(_numpy_scalar(x), *args, **kwargs)


def format_float_scientific(x, *args, **kwargs):
    """``numpy.format_float_scientific``, also for 0-d wsarray arrays (the scalar they hold)."""
    return _np.format_float_scientific(_numpy_scalar(x), *args, **kwargs)


# Libraries bind arguments by NumPy's signatures (inspect.signature(np.load).bind(...)).
for _mine, _numpys in ((load, _np.load), (format_float_positional, _np.format_float_positional),
                       (format_float_scientific, _np.format_float_scientific)):
    _mine.__signature__ = _inspect.signature(_numpys)
del _mine, _numpys
