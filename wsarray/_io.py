"""Reading arrays from ``.npy``/``.npz`` files: ``wsarray.load``.

Text readers (``loadtxt``, ``genfromtxt``) and all writers are routed functions in
_numpy_extras.py. ``load`` needs its own code because an ``.npz`` archive is a lazy mapping whose
arrays NumPy reads on access: each access is routed, so arrays come from the current workspace.
"""

from collections.abc import Mapping as _Mapping

import numpy as _np

from ._core import Function as _F

__all__ = ["NpzFile", "load"]

_load = _F(_np.load, "load")


class NpzFile(_Mapping):
    """An open ``.npz`` archive (like ``numpy.lib.npyio.NpzFile``); ``f["x"]`` is a wsarray array."""

    def __init__(self, npz):
        self._npz = npz
        self._getitem = _F(npz.__getitem__, "load")
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


def load(file, mmap_mode=None, *args, **kwargs):
    """``numpy.load`` with arrays allocated in the current workspace (``.npz``: on access)."""
    if mmap_mode is not None:
        raise NotImplementedError("wsarray.load(): mmap_mode gives a numpy.memmap (an ndarray "
                                  "subclass over the file) that wsarray cannot manage; use "
                                  "numpy.load(file, mmap_mode=...) directly")
    result = _load(file, None, *args, **kwargs)
    if isinstance(result, _np.lib.npyio.NpzFile):
        return NpzFile(result)
    return result
