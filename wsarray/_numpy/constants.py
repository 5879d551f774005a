"""NumPy's constants beyond the standard's (``e``, ``inf``, ``nan``, ``newaxis``, ``pi``)."""

import numpy as _np


__all__ = [
    "euler_gamma", "False_", "little_endian", "True_"
]


# NumPy's own objects: they hold no workspace memory.
euler_gamma = _np.euler_gamma
False_ = _np.False_
little_endian = _np.little_endian
True_ = _np.True_
