"""``fftfreq``/``rfftfreq`` with the standard's ``dtype`` (NumPy's parameters first, as NumPy's)."""
import numpy as _np
import numpy.fft as _fft

__all__ = ["fftfreq", "rfftfreq"]


def fftfreq(n, d=1.0, device=None, *, dtype=None):
    """Sample frequencies of an ``n``-point DFT, in ``dtype`` (default float64)."""
    return _fft.fftfreq(n, d, device=device).astype(dtype or _np.float64, copy=False)


def rfftfreq(n, d=1.0, device=None, *, dtype=None):
    """Sample frequencies of ``rfft`` (non-negative half), in ``dtype`` (default float64)."""
    return _fft.rfftfreq(n, d, device=device).astype(dtype or _np.float64, copy=False)
