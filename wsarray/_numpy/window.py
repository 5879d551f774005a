"""Window functions (NumPy's reference: Window functions)."""

import numpy as _np

from ._routing import numpy_function as _F

__all__ = [
    "bartlett", "blackman", "hamming", "hanning", "kaiser"
]

# Routed: NumPy runs with its allocations in the current workspace; NumPy's scalars come back.
bartlett = _F(_np.bartlett, "bartlett")
blackman = _F(_np.blackman, "blackman")
hamming = _F(_np.hamming, "hamming")
hanning = _F(_np.hanning, "hanning")
kaiser = _F(_np.kaiser, "kaiser")
