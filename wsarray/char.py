"""``wsarray.char``: NumPy's legacy string operations (``numpy.char``) with results in the current
workspace. ``char.array``/``char.asarray``/``chararray`` are NumPy's own: they make
``numpy.char.chararray``, an ndarray subclass served as NumPy's object, as ``matrix`` and
``recarray`` are (README: its arrays live in NumPy's memory, outside workspaces)."""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from numpy import char as _char

from ._numpy._routing import numpy_function as _F

__all__ = ["add", "array", "asarray", "chararray", "capitalize", "center", "compare_chararrays", "count",
           "decode", "encode",
           "endswith", "equal", "expandtabs", "find", "greater", "greater_equal", "index",
           "isalnum", "isalpha", "isdecimal", "isdigit", "islower", "isnumeric", "isspace",
           "istitle", "isupper", "join", "less", "less_equal", "ljust", "lower", "lstrip", "mod",
           "multiply", "not_equal", "partition", "replace", "rfind", "rindex", "rjust",
           "rpartition", "rsplit", "rstrip", "split", "splitlines", "startswith", "str_len",
           "strip", "swapcase", "title", "translate", "upper", "zfill"]

# NumPy's ndarray subclass and its constructors: NumPy's objects (no workspace memory).
array = _char.array
asarray = _char.asarray
chararray = _char.chararray

add = _F(_char.add, "char.add")
capitalize = _F(_char.capitalize, "char.capitalize")
center = _F(_char.center, "char.center")
compare_chararrays = _F(_char.compare_chararrays, "char.compare_chararrays")
count = _F(_char.count, "char.count")
decode = _F(_char.decode, "char.decode")
encode = _F(_char.encode, "char.encode")
endswith = _F(_char.endswith, "char.endswith")
equal = _F(_char.equal, "char.equal")
expandtabs = _F(_char.expandtabs, "char.expandtabs")
find = _F(_char.find, "char.find")
greater = _F(_char.greater, "char.greater")
greater_equal = _F(_char.greater_equal, "char.greater_equal")
index = _F(_char.index, "char.index")
isalnum = _F(_char.isalnum, "char.isalnum")
isalpha = _F(_char.isalpha, "char.isalpha")
isdecimal = _F(_char.isdecimal, "char.isdecimal")
isdigit = _F(_char.isdigit, "char.isdigit")
islower = _F(_char.islower, "char.islower")
isnumeric = _F(_char.isnumeric, "char.isnumeric")
isspace = _F(_char.isspace, "char.isspace")
istitle = _F(_char.istitle, "char.istitle")
isupper = _F(_char.isupper, "char.isupper")
join = _F(_char.join, "char.join")
less = _F(_char.less, "char.less")
less_equal = _F(_char.less_equal, "char.less_equal")
ljust = _F(_char.ljust, "char.ljust")
lower = _F(_char.lower, "char.lower")
lstrip = _F(_char.lstrip, "char.lstrip")
mod = _F(_char.mod, "char.mod")
multiply = _F(_char.multiply, "char.multiply")
not_equal = _F(_char.not_equal, "char.not_equal")
partition = _F(_char.partition, "char.partition")
replace = _F(_char.replace, "char.replace")
rfind = _F(_char.rfind, "char.rfind")
rindex = _F(_char.rindex, "char.rindex")
rjust = _F(_char.rjust, "char.rjust")
rpartition = _F(_char.rpartition, "char.rpartition")
rsplit = _F(_char.rsplit, "char.rsplit")
rstrip = _F(_char.rstrip, "char.rstrip")
split = _F(_char.split, "char.split")
splitlines = _F(_char.splitlines, "char.splitlines")
startswith = _F(_char.startswith, "char.startswith")
str_len = _F(_char.str_len, "char.str_len")
strip = _F(_char.strip, "char.strip")
swapcase = _F(_char.swapcase, "char.swapcase")
title = _F(_char.title, "char.title")
translate = _F(_char.translate, "char.translate")
upper = _F(_char.upper, "char.upper")
zfill = _F(_char.zfill, "char.zfill")


# NumPy's names this module does not define are NumPy's own (wsarray/_numpy/fallback.py).
if not _TYPE_CHECKING:  # a module __getattr__ would make every misspelt name valid to a type checker
    from ._numpy.fallback import numpy_module_getattr as _numpy_module_getattr

    __getattr__ = _numpy_module_getattr(__name__, "numpy.char")
    __path__: list = []  # NumPy's submodules import through it: import wsarray.char._x
