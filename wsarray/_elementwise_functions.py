"""Elementwise functions (NumPy ufuncs and friends); results come from the current workspace."""

import numpy as _np

from ._core import Function as _F
from ._core import _set_operator
from ._impl import elementwise as _impl


__all__ = [
    "abs",
    "absolute",
    "acos",
    "acosh",
    "add",
    "angle",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "bitwise_and",
    "bitwise_invert",
    "bitwise_left_shift",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "cbrt",
    "ceil",
    "clip",
    "conj",
    "conjugate",
    "copysign",
    "cos",
    "cosh",
    "deg2rad",
    "degrees",
    "divide",
    "equal",
    "exp",
    "exp2",
    "expm1",
    "fabs",
    "float_power",
    "floor",
    "floor_divide",
    "fmax",
    "fmin",
    "fmod",
    "frexp",
    "gcd",
    "greater",
    "greater_equal",
    "heaviside",
    "hypot",
    "i0",
    "imag",
    "invert",
    "isfinite",
    "isinf",
    "isnan",
    "lcm",
    "ldexp",
    "left_shift",
    "less",
    "less_equal",
    "log",
    "log10",
    "log1p",
    "log2",
    "logaddexp",
    "logaddexp2",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "mod",
    "modf",
    "multiply",
    "nan_to_num",
    "negative",
    "nextafter",
    "not_equal",
    "positive",
    "pow",
    "power",
    "rad2deg",
    "radians",
    "real",
    "reciprocal",
    "remainder",
    "right_shift",
    "rint",
    "round",
    "sign",
    "signbit",
    "sin",
    "sinc",
    "sinh",
    "spacing",
    "sqrt",
    "square",
    "subtract",
    "tan",
    "tanh",
    "true_divide",
    "trunc",
]

absolute = _F(_np.absolute, "absolute")
add = _F(_np.add, "add")
angle = _F(_np.angle, "angle")
arccos = _F(_np.arccos, "arccos")
arccosh = _F(_np.arccosh, "arccosh")
arcsin = _F(_np.arcsin, "arcsin")
arcsinh = _F(_np.arcsinh, "arcsinh")
arctan = _F(_np.arctan, "arctan")
arctan2 = _F(_np.arctan2, "arctan2")
arctanh = _F(_np.arctanh, "arctanh")
bitwise_and = _F(_np.bitwise_and, "bitwise_and")
bitwise_or = _F(_np.bitwise_or, "bitwise_or")
bitwise_xor = _F(_np.bitwise_xor, "bitwise_xor")
cbrt = _F(_np.cbrt, "cbrt")
ceil = _F(_np.ceil, "ceil")
clip = _F(_impl.clip, "clip")
conjugate = _F(_np.conjugate, "conjugate")
copysign = _F(_np.copysign, "copysign")
cos = _F(_np.cos, "cos")
cosh = _F(_np.cosh, "cosh")
deg2rad = _F(_np.deg2rad, "deg2rad")
degrees = _F(_np.degrees, "degrees")
divide = _F(_np.divide, "divide")
equal = _F(_np.equal, "equal")
exp = _F(_np.exp, "exp")
exp2 = _F(_np.exp2, "exp2")
expm1 = _F(_impl.expm1, "expm1", _np.expm1)  # same as NumPy for real inputs
fabs = _F(_np.fabs, "fabs")
float_power = _F(_np.float_power, "float_power")
floor = _F(_np.floor, "floor")
floor_divide = _F(_impl.floor_divide, "floor_divide")
fmax = _F(_np.fmax, "fmax")
fmin = _F(_np.fmin, "fmin")
fmod = _F(_np.fmod, "fmod")
frexp = _F(_np.frexp, "frexp")
gcd = _F(_np.gcd, "gcd")
greater = _F(_np.greater, "greater")
greater_equal = _F(_np.greater_equal, "greater_equal")
heaviside = _F(_np.heaviside, "heaviside")
hypot = _F(_np.hypot, "hypot")
i0 = _F(_np.i0, "i0")
imag = _F(_np.imag, "imag")
invert = _F(_np.invert, "invert")
isfinite = _F(_np.isfinite, "isfinite")
isinf = _F(_np.isinf, "isinf")
isnan = _F(_np.isnan, "isnan")
lcm = _F(_np.lcm, "lcm")
ldexp = _F(_np.ldexp, "ldexp")
left_shift = _F(_np.left_shift, "left_shift")
less = _F(_np.less, "less")
less_equal = _F(_np.less_equal, "less_equal")
log = _F(_np.log, "log")
log10 = _F(_np.log10, "log10")
log1p = _F(_np.log1p, "log1p")
log2 = _F(_np.log2, "log2")
logaddexp = _F(_np.logaddexp, "logaddexp")
logaddexp2 = _F(_np.logaddexp2, "logaddexp2")
logical_and = _F(_np.logical_and, "logical_and")
logical_not = _F(_np.logical_not, "logical_not")
logical_or = _F(_np.logical_or, "logical_or")
logical_xor = _F(_np.logical_xor, "logical_xor")
maximum = _F(_np.maximum, "maximum")
minimum = _F(_np.minimum, "minimum")
modf = _F(_np.modf, "modf")
multiply = _F(_np.multiply, "multiply")
nan_to_num = _F(_np.nan_to_num, "nan_to_num")
negative = _F(_np.negative, "negative")
nextafter = _F(_np.nextafter, "nextafter")
not_equal = _F(_np.not_equal, "not_equal")
positive = _F(_np.positive, "positive")
power = _F(_np.power, "power")
rad2deg = _F(_np.rad2deg, "rad2deg")
radians = _F(_np.radians, "radians")
real = _F(_np.real, "real")
reciprocal = _F(_np.reciprocal, "reciprocal")
remainder = _F(_np.remainder, "remainder")
right_shift = _F(_np.right_shift, "right_shift")
rint = _F(_np.rint, "rint")
round = _F(_np.round, "round")
sign = _F(_np.sign, "sign")
signbit = _F(_np.signbit, "signbit")
sin = _F(_np.sin, "sin")
sinc = _F(_np.sinc, "sinc")
sinh = _F(_np.sinh, "sinh")
spacing = _F(_np.spacing, "spacing")
sqrt = _F(_np.sqrt, "sqrt")
square = _F(_np.square, "square")
subtract = _F(_np.subtract, "subtract")
tan = _F(_np.tan, "tan")
tanh = _F(_impl.tanh, "tanh", _np.tanh)  # same as NumPy for real inputs
trunc = _F(_np.trunc, "trunc")

# NumPy's aliases are the same objects as in NumPy (np.abs is np.absolute, np.conj is np.conjugate):
# code compares ufuncs by identity, and the errors name NumPy's function (its __name__).
abs = absolute
acos = arccos
acosh = arccosh
asin = arcsin
asinh = arcsinh
atan = arctan
atan2 = arctan2
atanh = arctanh
bitwise_invert = invert
bitwise_left_shift = left_shift
bitwise_right_shift = right_shift
conj = conjugate
true_divide = divide
mod = remainder
pow = power

# ``x // y`` and ``x //= y`` on Arrays use the same standard-conforming floor division.
_set_operator("floor_divide", _impl.floor_divide)
