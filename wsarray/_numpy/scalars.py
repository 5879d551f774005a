"""NumPy's scalar types and abstract type hierarchy beyond the standard's dtypes (NumPy's
reference: Scalars), NumPy's own classes: ``wsarray.float16(1)``, ``isinstance(x, wsarray.floating)``.
"""

import numpy as _np

__all__ = [
    "bool_", "byte", "bytes_", "cdouble", "character", "clongdouble", "complexfloating",
    "csingle", "datetime64", "double", "dtype", "flexible", "float16", "floating", "generic",
    "half", "inexact", "int_", "intc", "integer", "intp", "long", "longdouble", "longlong",
    "number", "object_", "short", "signedinteger", "single", "str_", "timedelta64", "ubyte",
    "uint", "uintc", "uintp", "ulong", "ulonglong", "unsignedinteger", "ushort", "void"
]

bool_ = _np.bool_
byte = _np.byte
bytes_ = _np.bytes_
cdouble = _np.cdouble
character = _np.character
clongdouble = _np.clongdouble
complexfloating = _np.complexfloating
csingle = _np.csingle
datetime64 = _np.datetime64
double = _np.double
dtype = _np.dtype
flexible = _np.flexible
float16 = _np.float16
floating = _np.floating
generic = _np.generic
half = _np.half
inexact = _np.inexact
int_ = _np.int_
intc = _np.intc
integer = _np.integer
intp = _np.intp
long = _np.long
longdouble = _np.longdouble
longlong = _np.longlong
number = _np.number
object_ = _np.object_
short = _np.short
signedinteger = _np.signedinteger
single = _np.single
str_ = _np.str_
timedelta64 = _np.timedelta64
ubyte = _np.ubyte
uint = _np.uint
uintc = _np.uintc
uintp = _np.uintp
ulong = _np.ulong
ulonglong = _np.ulonglong
unsignedinteger = _np.unsignedinteger
ushort = _np.ushort
void = _np.void

# Long double's sized aliases exist where the platform has them (float128 on x86-64 Linux).
if hasattr(_np, "float128"):
    float128 = _np.float128
    complex256 = _np.complex256
    __all__ += ["float128", "complex256"]
if hasattr(_np, "float96"):
    float96 = _np.float96
    complex192 = _np.complex192
    __all__ += ["float96", "complex192"]
