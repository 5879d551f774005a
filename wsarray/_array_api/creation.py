"""Creation functions of the array API standard; results are allocated in the current workspace."""

import numpy as _np

from .._devices import kinds as _kinds
from .._annotations import array_function as _F
from .._annotations import numpy_typed as _N

__all__ = [
    "arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like",
    "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like"
]

arange = _F(_np.arange, "arange")
asarray = _F(_np.asarray, "asarray")
empty = _F(_np.empty, "empty")
empty_like = _F(_np.empty_like, "empty_like")
eye = _F(_np.eye, "eye")


def _from_dlpack(x, /, *, device=None, copy=None):
    """NumPy's from_dlpack; an object in a device's memory (a CuPy array, a torch CUDA tensor)
    becomes a wsarray array on that device, made by the device's kind (CUDA: CuPy's from_dlpack, no
    copy, no trip through the host)."""
    if device is None and hasattr(x, "__dlpack_device__") and not isinstance(x, _np.ndarray):
        try:
            where = x.__dlpack_device__()
        except Exception:  # noqa: BLE001 - NumPy asks again below and raises its own error
            where = None
        kind = _kinds.for_dlpack(where[0]) if isinstance(where, tuple) and len(where) == 2 else None
        if kind is not None:
            return kind.from_dlpack(x, int(where[1]), copy)
    kwargs = {k: v for k, v in (("device", device), ("copy", copy)) if v is not None}
    return _np.from_dlpack(x, **kwargs)


# NumPy's C function carries its signature as text (inspect and NumPy's own tests read it there).
_from_dlpack.__text_signature__ = _np.from_dlpack.__text_signature__
from_dlpack = _F(_from_dlpack, "from_dlpack")
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
