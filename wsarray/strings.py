"""``wsarray.strings``: NumPy's string operations (``numpy.strings``) with results in the current
workspace."""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from numpy import strings as _strings

from ._numpy._routing import numpy_function as _F

__all__ = ["add", "capitalize", "center", "count", "decode", "encode", "endswith", "equal",
           "expandtabs", "find", "greater", "greater_equal", "index", "isalnum", "isalpha",
           "isdecimal", "isdigit", "islower", "isnumeric", "isspace", "istitle", "isupper", "less",
           "less_equal", "ljust", "lower", "lstrip", "mod", "multiply", "not_equal", "partition",
           "replace", "rfind", "rindex", "rjust", "rpartition", "rstrip", "slice", "startswith",
           "str_len", "strip", "swapcase", "title", "translate", "upper", "zfill"]

add = _F(_strings.add, "strings.add")
capitalize = _F(_strings.capitalize, "strings.capitalize")
center = _F(_strings.center, "strings.center")
count = _F(_strings.count, "strings.count")
decode = _F(_strings.decode, "strings.decode")
encode = _F(_strings.encode, "strings.encode")
endswith = _F(_strings.endswith, "strings.endswith")
equal = _F(_strings.equal, "strings.equal")
expandtabs = _F(_strings.expandtabs, "strings.expandtabs")
find = _F(_strings.find, "strings.find")
greater = _F(_strings.greater, "strings.greater")
greater_equal = _F(_strings.greater_equal, "strings.greater_equal")
index = _F(_strings.index, "strings.index")
isalnum = _F(_strings.isalnum, "strings.isalnum")
isalpha = _F(_strings.isalpha, "strings.isalpha")
isdecimal = _F(_strings.isdecimal, "strings.isdecimal")
isdigit = _F(_strings.isdigit, "strings.isdigit")
islower = _F(_strings.islower, "strings.islower")
isnumeric = _F(_strings.isnumeric, "strings.isnumeric")
isspace = _F(_strings.isspace, "strings.isspace")
istitle = _F(_strings.istitle, "strings.istitle")
isupper = _F(_strings.isupper, "strings.isupper")
less = _F(_strings.less, "strings.less")
less_equal = _F(_strings.less_equal, "strings.less_equal")
ljust = _F(_strings.ljust, "strings.ljust")
lower = _F(_strings.lower, "strings.lower")
lstrip = _F(_strings.lstrip, "strings.lstrip")
mod = _F(_strings.mod, "strings.mod")
multiply = _F(_strings.multiply, "strings.multiply")
not_equal = _F(_strings.not_equal, "strings.not_equal")
partition = _F(_strings.partition, "strings.partition")
replace = _F(_strings.replace, "strings.replace")
rfind = _F(_strings.rfind, "strings.rfind")
rindex = _F(_strings.rindex, "strings.rindex")
rjust = _F(_strings.rjust, "strings.rjust")
rpartition = _F(_strings.rpartition, "strings.rpartition")
rstrip = _F(_strings.rstrip, "strings.rstrip")
slice = _F(_strings.slice, "strings.slice")  # noqa: A001  (NumPy's name)
startswith = _F(_strings.startswith, "strings.startswith")
str_len = _F(_strings.str_len, "strings.str_len")
strip = _F(_strings.strip, "strings.strip")
swapcase = _F(_strings.swapcase, "strings.swapcase")
title = _F(_strings.title, "strings.title")
translate = _F(_strings.translate, "strings.translate")
upper = _F(_strings.upper, "strings.upper")
zfill = _F(_strings.zfill, "strings.zfill")


# NumPy's names this module does not define are NumPy's own (wsarray/_numpy/fallback.py).
if not _TYPE_CHECKING:  # a module __getattr__ would make every misspelt name valid to a type checker
    from ._numpy.fallback import numpy_module_getattr as _numpy_module_getattr

    __getattr__ = _numpy_module_getattr(__name__, "numpy.strings")
    __path__: list = []  # NumPy's submodules import through it: import wsarray.strings._x
