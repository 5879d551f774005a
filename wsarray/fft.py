"""``wsarray.fft``: NumPy's FFTs with results in the current workspace."""

from typing import TYPE_CHECKING as _TYPE_CHECKING

import numpy.fft as _fft

from ._annotations import array_function as _F
from ._numpy._routing import numpy_function as _numpy_function
from ._array_api._impl import fft as _impl

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn",
           "ifftshift", "ihfft", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn"]

fft = _F(_fft.fft, "fft.fft")
fft2 = _numpy_function(_fft.fft2, "fft.fft2")
fftfreq = _F(_impl.fftfreq, "fft.fftfreq")
fftn = _F(_fft.fftn, "fft.fftn")
fftshift = _F(_fft.fftshift, "fft.fftshift")
hfft = _F(_fft.hfft, "fft.hfft")
ifft = _F(_fft.ifft, "fft.ifft")
ifft2 = _numpy_function(_fft.ifft2, "fft.ifft2")
ifftn = _F(_fft.ifftn, "fft.ifftn")
ifftshift = _F(_fft.ifftshift, "fft.ifftshift")
ihfft = _F(_fft.ihfft, "fft.ihfft")
irfft = _F(_fft.irfft, "fft.irfft")
irfft2 = _numpy_function(_fft.irfft2, "fft.irfft2")
irfftn = _F(_fft.irfftn, "fft.irfftn")
rfft = _F(_fft.rfft, "fft.rfft")
rfft2 = _numpy_function(_fft.rfft2, "fft.rfft2")
rfftfreq = _F(_impl.rfftfreq, "fft.rfftfreq")
rfftn = _F(_fft.rfftn, "fft.rfftn")


# NumPy's names this module does not define are NumPy's own (wsarray/_numpy/fallback.py).
if not _TYPE_CHECKING:  # a module __getattr__ would make every misspelt name valid to a type checker
    from ._numpy.fallback import numpy_module_getattr as _numpy_module_getattr

    __getattr__ = _numpy_module_getattr(__name__, "numpy.fft")
    __path__: list = []  # NumPy's submodules import through it: import wsarray.fft._x
