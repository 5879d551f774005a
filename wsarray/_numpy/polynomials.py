"""The legacy polynomial API of the main namespace (``poly1d``, ``polyfit``, ...); the
polynomial package is wsarray.polynomial."""

import numpy as _np

from ._routing import numpy_function as _F

__all__ = [
    "poly", "poly1d", "polyadd", "polyder", "polydiv", "polyfit", "polyint", "polymul",
    "polysub", "polyval", "roots"
]

# Routed: NumPy runs with its allocations in the current workspace; NumPy's scalars come back.
poly = _F(_np.poly, "poly")
polyadd = _F(_np.polyadd, "polyadd")
polyder = _F(_np.polyder, "polyder")
polydiv = _F(_np.polydiv, "polydiv")
polyfit = _F(_np.polyfit, "polyfit")
polyint = _F(_np.polyint, "polyint")
polymul = _F(_np.polymul, "polymul")
polysub = _F(_np.polysub, "polysub")
polyval = _F(_np.polyval, "polyval")
roots = _F(_np.roots, "roots")

# NumPy's own objects: they hold no workspace memory.
poly1d = _np.poly1d
