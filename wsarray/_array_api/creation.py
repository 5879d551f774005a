"""Creation functions of the array API standard; results are allocated in the current workspace."""

import numpy as _np

from .._typing import array_function as _F
from .._typing import numpy_typed as _N

__all__ = [
    "arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like",
    "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like"
]

arange = _F(_np.arange, "arange")
asarray = _F(_np.asarray, "asarray")
empty = _F(_np.empty, "empty")
empty_like = _F(_np.empty_like, "empty_like")
eye = _F(_np.eye, "eye")
from_dlpack = _F(_np.from_dlpack, "from_dlpack")
full = _F(_np.full, "full")
full_like = _F(_np.full_like, "full_like")
linspace = _F(_np.linspace, "linspace")
meshgrid = _N(_np.meshgrid, "meshgrid")
ones = _F(_np.ones, "ones")
ones_like = _F(_np.ones_like, "ones_like")
tril = _F(_np.tril, "tril")
triu = _F(_np.triu, "triu")
zeros = _F(_np.zeros, "zeros")
zeros_like = _F(_np.zeros_like, "zeros_like")
