"""Floating point error handling and buffer settings (NumPy's own: they act on NumPy, which does
wsarray's math)."""

import numpy as _np


__all__ = [
    "errstate", "geterr", "geterrcall", "getbufsize", "seterr", "seterrcall", "setbufsize"
]


# NumPy's own objects: they hold no workspace memory.
errstate = _np.errstate
geterr = _np.geterr
geterrcall = _np.geterrcall
getbufsize = _np.getbufsize
seterr = _np.seterr
seterrcall = _np.seterrcall
setbufsize = _np.setbufsize
