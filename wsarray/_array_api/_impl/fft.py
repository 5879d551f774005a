"""``fftfreq``/``rfftfreq`` with the standard's ``dtype`` (NumPy's parameters first, as NumPy's)."""
import numpy.fft as _fft

__all__ = ["fftfreq", "rfftfreq"]


def fftfreq(n, d=1.0, device=None, *, dtype=None):
    """Sample frequencies of an ``n``-point DFT, in ``dtype`` (default: NumPy's, float64 unless
    ``d`` is of a wider or complex type)."""
    r = _fft.fftfreq(n, d, device=device)
    return r if dtype is None else r.astype(dtype, copy=False)


def rfftfreq(n, d=1.0, device=None, *, dtype=None):
    """Sample frequencies of ``rfft`` (non-negative half), in ``dtype`` (default: NumPy's, float64
    unless ``d`` is of a wider or complex type)."""
    r = _fft.rfftfreq(n, d, device=device)
    return r if dtype is None else r.astype(dtype, copy=False)
