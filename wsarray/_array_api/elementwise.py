"""Elementwise functions of the array API standard (NumPy's ufuncs, a few with the standard's
special cases: see _impl/elementwise.py); results come from the current workspace.

Each is NumPy's function under the standard's name (``acos`` wraps ``numpy.arccos`` and its errors
name ``arccos``); NumPy's own names for them (``arccos``, ``absolute``, ``power``, ...) are the same
objects, bound in wsarray/_numpy/math.py.
"""

import numpy as _np

from .._annotations import array_function as _F
from .._native import _set_operator
from ._impl import elementwise as _impl

__all__ = [
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and",
    "bitwise_invert", "bitwise_left_shift", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
    "ceil", "clip", "conj", "copysign", "cos", "cosh", "divide", "equal", "exp", "expm1",
    "floor", "floor_divide", "greater", "greater_equal", "hypot", "imag", "isfinite", "isinf",
    "isnan", "less", "less_equal", "log", "log10", "log1p", "log2", "logaddexp", "logical_and",
    "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "multiply", "negative",
    "nextafter", "not_equal", "positive", "pow", "real", "reciprocal", "remainder", "round",
    "sign", "signbit", "sin", "sinh", "sqrt", "square", "subtract", "tan", "tanh", "trunc"
]

abs = _F(_np.absolute, "absolute")  # noqa: A001
acos = _F(_np.arccos, "arccos")
acosh = _F(_np.arccosh, "arccosh")
add = _F(_np.add, "add")
asin = _F(_np.arcsin, "arcsin")
asinh = _F(_np.arcsinh, "arcsinh")
atan = _F(_np.arctan, "arctan")
atan2 = _F(_np.arctan2, "arctan2")
atanh = _F(_np.arctanh, "arctanh")
bitwise_and = _F(_np.bitwise_and, "bitwise_and")
bitwise_invert = _F(_np.invert, "invert")
bitwise_left_shift = _F(_np.left_shift, "left_shift")
bitwise_or = _F(_np.bitwise_or, "bitwise_or")
bitwise_right_shift = _F(_np.right_shift, "right_shift")
bitwise_xor = _F(_np.bitwise_xor, "bitwise_xor")
ceil = _F(_np.ceil, "ceil")
clip = _F(_impl.clip, "clip")
conj = _F(_np.conjugate, "conjugate")
copysign = _F(_np.copysign, "copysign")
cos = _F(_np.cos, "cos")
cosh = _F(_np.cosh, "cosh")
divide = _F(_np.divide, "divide")
equal = _F(_np.equal, "equal")
exp = _F(_np.exp, "exp")
expm1 = _F(_impl.expm1, "expm1", _np.expm1)  # same as NumPy for real inputs
floor = _F(_np.floor, "floor")
floor_divide = _F(_impl.floor_divide, "floor_divide")
greater = _F(_np.greater, "greater")
greater_equal = _F(_np.greater_equal, "greater_equal")
hypot = _F(_np.hypot, "hypot")
imag = _F(_np.imag, "imag")
isfinite = _F(_np.isfinite, "isfinite")
isinf = _F(_np.isinf, "isinf")
isnan = _F(_np.isnan, "isnan")
less = _F(_np.less, "less")
less_equal = _F(_np.less_equal, "less_equal")
log = _F(_np.log, "log")
log10 = _F(_np.log10, "log10")
log1p = _F(_np.log1p, "log1p")
log2 = _F(_np.log2, "log2")
logaddexp = _F(_np.logaddexp, "logaddexp")
logical_and = _F(_np.logical_and, "logical_and")
logical_not = _F(_np.logical_not, "logical_not")
logical_or = _F(_np.logical_or, "logical_or")
logical_xor = _F(_np.logical_xor, "logical_xor")
maximum = _F(_np.maximum, "maximum")
minimum = _F(_np.minimum, "minimum")
multiply = _F(_np.multiply, "multiply")
negative = _F(_np.negative, "negative")
nextafter = _F(_np.nextafter, "nextafter")
not_equal = _F(_np.not_equal, "not_equal")
positive = _F(_np.positive, "positive")
pow = _F(_np.power, "power")  # noqa: A001
real = _F(_np.real, "real")
reciprocal = _F(_np.reciprocal, "reciprocal")
remainder = _F(_np.remainder, "remainder")
round = _F(_np.round, "round")  # noqa: A001
sign = _F(_np.sign, "sign")
signbit = _F(_np.signbit, "signbit")
sin = _F(_np.sin, "sin")
sinh = _F(_np.sinh, "sinh")
sqrt = _F(_np.sqrt, "sqrt")
square = _F(_np.square, "square")
subtract = _F(_np.subtract, "subtract")
tan = _F(_np.tan, "tan")
tanh = _F(_impl.tanh, "tanh", _np.tanh)  # same as NumPy for real inputs
trunc = _F(_np.trunc, "trunc")

# ``x // y`` and ``x //= y`` on Arrays use the same standard-conforming floor division.
_set_operator("floor_divide", _impl.floor_divide)
