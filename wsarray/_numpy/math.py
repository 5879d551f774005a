"""Mathematical functions beyond the standard (NumPy's reference: Mathematical functions), and
NumPy's own names of the standard's functions (``arccos`` is ``acos``, the same object)."""

import numpy as _np

from .._array_api.elementwise import abs, acos, acosh, asin, asinh, atan, atan2, atanh, conj, divide, pow, remainder  # noqa: A004
from ._routing import numpy_function as _F

__all__ = [
    "absolute", "angle", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2",
    "arctanh", "around", "cbrt", "conjugate", "convolve", "cross", "cumprod", "cumsum",
    "deg2rad", "degrees", "divmod", "ediff1d", "exp2", "fabs", "fix", "float_power", "fmax",
    "fmin", "fmod", "frexp", "gcd", "gradient", "heaviside", "i0", "interp", "lcm", "ldexp",
    "logaddexp2", "mod", "modf", "nan_to_num", "nancumprod", "nancumsum", "nanprod", "nansum",
    "power", "rad2deg", "radians", "real_if_close", "rint", "sinc", "spacing", "trapezoid",
    "true_divide", "unwrap"
]

# Routed: NumPy runs with its allocations in the current workspace; NumPy's scalars come back.
angle = _F(_np.angle, "angle")
around = _F(_np.around, "around")
cbrt = _F(_np.cbrt, "cbrt")
convolve = _F(_np.convolve, "convolve")
cross = _F(_np.cross, "cross")
cumprod = _F(_np.cumprod, "cumprod")
cumsum = _F(_np.cumsum, "cumsum")
deg2rad = _F(_np.deg2rad, "deg2rad")
degrees = _F(_np.degrees, "degrees")
divmod = _F(_np.divmod, "divmod")  # noqa: A001  (NumPy's name)
ediff1d = _F(_np.ediff1d, "ediff1d")
exp2 = _F(_np.exp2, "exp2")
fabs = _F(_np.fabs, "fabs")
fix = _F(_np.fix, "fix")
float_power = _F(_np.float_power, "float_power")
fmax = _F(_np.fmax, "fmax")
fmin = _F(_np.fmin, "fmin")
fmod = _F(_np.fmod, "fmod")
frexp = _F(_np.frexp, "frexp")
gcd = _F(_np.gcd, "gcd")
gradient = _F(_np.gradient, "gradient")
heaviside = _F(_np.heaviside, "heaviside")
i0 = _F(_np.i0, "i0")
interp = _F(_np.interp, "interp")
lcm = _F(_np.lcm, "lcm")
ldexp = _F(_np.ldexp, "ldexp")
logaddexp2 = _F(_np.logaddexp2, "logaddexp2")
modf = _F(_np.modf, "modf")
nan_to_num = _F(_np.nan_to_num, "nan_to_num")
nancumprod = _F(_np.nancumprod, "nancumprod")
nancumsum = _F(_np.nancumsum, "nancumsum")
nanprod = _F(_np.nanprod, "nanprod")
nansum = _F(_np.nansum, "nansum")
rad2deg = _F(_np.rad2deg, "rad2deg")
radians = _F(_np.radians, "radians")
real_if_close = _F(_np.real_if_close, "real_if_close")
rint = _F(_np.rint, "rint")
sinc = _F(_np.sinc, "sinc")
spacing = _F(_np.spacing, "spacing")
trapezoid = _F(_np.trapezoid, "trapezoid")
unwrap = _F(_np.unwrap, "unwrap")

# NumPy's names of the standard's functions: the same objects, as in NumPy (np.arccos is np.acos).
absolute = abs
arccos = acos
arccosh = acosh
arcsin = asin
arcsinh = asinh
arctan = atan
arctan2 = atan2
arctanh = atanh
conjugate = conj
mod = remainder
power = pow
true_divide = divide
