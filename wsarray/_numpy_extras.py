"""NumPy's namespace beyond the array API: the long tail of functions, scalar types, constants and
settings, so that NumPy programs run unchanged with ``import wsarray as np``.

Every name here is listed explicitly, in one of these groups:

* routed functions: ``wsarray._core.Function`` objects (arguments unwrapped, NumPy's allocations
  routed into the current workspace, arrays returned as ``wsarray.Array``), including functions
  that write into an argument in place (``copyto``, ``put``, ``fill_diagonal``, ...), the text and
  binary writers, and queries that merely look at arrays (``ndim``, ``shares_memory``, ...);
* NumPy's own objects that hold no array memory: scalar types, ``finfo``/``iinfo``, ``errstate``,
  print options and error settings (they act on NumPy, which does wsarray's printing and math),
  constants, ``s_``/``index_exp``, ``ndindex``, ``poly1d`` (its arithmetic calls dispatched NumPy
  functions, which return wsarray arrays for wsarray inputs);
* NumPy's ndarray subclasses and their modules (``ma``, ``matrix``, ``memmap``, ``recarray``,
  ``rec``, ...): NumPy's own classes. Their arrays live in NumPy's memory, and a wsarray function
  given one calls NumPy without routing into a workspace, so it returns NumPy's subclass as NumPy
  does (such arrays are never checked for staleness: they never hold workspace memory).

A NumPy name that is in none of these groups is not silently forwarded: ``wsarray.<name>`` raises
an ``AttributeError`` saying that wsarray does not provide it and why (see ``__getattr__``).
"""

import numpy as _np

from ._core import Array as _Array
from ._core import Function as _F
from ._elementwise_functions import invert as _invert

__all__ = [
    "einsum_path", "frompyfunc", "ix_", "append", "apply_along_axis", "apply_over_axes", "argpartition",
    "argwhere", "around", "array2string", "array_equiv", "array_repr", "array_split", "array_str",
    "asanyarray", "asarray_chkfinite", "ascontiguousarray", "asfortranarray", "bartlett", "base_repr",
    "binary_repr", "bincount", "bitwise_count", "bitwise_not", "blackman", "block", "broadcast",
    "busday_count", "busday_offset", "busdaycalendar", "byte", "bytes_", "cdouble", "character",
    "choose", "clongdouble", "common_type", "complexfloating", "compress", "convolve", "copyto",
    "corrcoef", "correlate", "cov", "csingle", "datetime64", "datetime_as_string", "datetime_data",
    "delete", "diag_indices", "diag_indices_from", "diagflat", "digitize", "divmod", "double", "dsplit",
    "ediff1d", "errstate", "euler_gamma", "extract", "False_", "fill_diagonal", "fix", "flatiter",
    "flatnonzero", "flexible", "fliplr", "flipud", "floating", "format_float_positional",
    "format_float_scientific", "frombuffer", "fromfile", "fromfunction", "fromiter", "fromregex",
    "fromstring", "generic", "genfromtxt", "geomspace", "get_include", "get_printoptions", "getbufsize",
    "geterr", "geterrcall", "gradient", "half", "hamming", "hanning", "histogram", "histogram2d",
    "histogram_bin_edges", "histogramdd", "hsplit", "index_exp", "indices", "inexact", "info", "insert",
    "int_", "intc", "integer", "interp", "intersect1d", "intp", "is_busday", "iscomplex", "iscomplexobj",
    "isfortran", "isnat", "isneginf", "isposinf", "isreal", "isrealobj", "isscalar", "issubdtype",
    "iterable", "kaiser", "lexsort", "little_endian", "loadtxt", "logspace", "long", "longdouble",
    "longlong", "mask_indices", "matvec", "may_share_memory", "min_scalar_type", "mintypecode",
    "nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmedian", "nanpercentile", "nanprod",
    "nanquantile", "ndenumerate", "ndim", "ndindex", "nditer", "nested_iters", "number", "object_",
    "packbits", "partition", "piecewise", "place", "poly", "poly1d", "polyadd", "polyder", "polydiv", "polyfit",
    "polyint", "polymul", "polysub", "polyval", "printoptions", "promote_types", "put", "put_along_axis",
    "putmask", "ravel_multi_index", "real_if_close", "require", "resize", "rollaxis", "roots",
    "row_stack", "s_", "save", "savetxt", "savez", "savez_compressed", "ScalarType", "sctypeDict",
    "select", "set_printoptions", "setbufsize", "setdiff1d", "seterr", "seterrcall", "setxor1d", "shape",
    "shares_memory", "short", "show_runtime", "signedinteger", "single", "size",
    "sort_complex", "str_", "timedelta64", "trapezoid", "tri", "tril_indices", "tril_indices_from",
    "trim_zeros", "triu_indices", "triu_indices_from", "True_", "typecodes", "typename", "ubyte",
    "ufunc", "uint", "uintc", "uintp", "ulong", "ulonglong", "union1d", "unpackbits", "unravel_index",
    "unsignedinteger", "unwrap", "ushort", "vander", "vecmat", "vectorize", "void", "vsplit",
]

# Routed functions: results are wsarray arrays allocated in the current workspace.
append = _F(_np.append, "append")
apply_along_axis = _F(_np.apply_along_axis, "apply_along_axis")
apply_over_axes = _F(_np.apply_over_axes, "apply_over_axes")
argpartition = _F(_np.argpartition, "argpartition")
argwhere = _F(_np.argwhere, "argwhere")
around = _F(_np.around, "around")
array_equiv = _F(_np.array_equiv, "array_equiv")
array_split = _F(_np.array_split, "array_split")
asanyarray = _F(_np.asanyarray, "asanyarray")
asarray_chkfinite = _F(_np.asarray_chkfinite, "asarray_chkfinite")
ascontiguousarray = _F(_np.ascontiguousarray, "ascontiguousarray")
asfortranarray = _F(_np.asfortranarray, "asfortranarray")
astype = _F(_np.astype, "astype")
bartlett = _F(_np.bartlett, "bartlett")
bincount = _F(_np.bincount, "bincount")
bitwise_count = _F(_np.bitwise_count, "bitwise_count")
blackman = _F(_np.blackman, "blackman")
block = _F(_np.block, "block")
choose = _F(_np.choose, "choose")
compress = _F(_np.compress, "compress")
convolve = _F(_np.convolve, "convolve")
corrcoef = _F(_np.corrcoef, "corrcoef")
correlate = _F(_np.correlate, "correlate")
cov = _F(_np.cov, "cov")
cross = _F(_np.cross, "cross")
delete = _F(_np.delete, "delete")
diag_indices = _F(_np.diag_indices, "diag_indices")
diag_indices_from = _F(_np.diag_indices_from, "diag_indices_from")
diagflat = _F(_np.diagflat, "diagflat")
digitize = _F(_np.digitize, "digitize")
divmod = _F(_np.divmod, "divmod")
dsplit = _F(_np.dsplit, "dsplit")
ediff1d = _F(_np.ediff1d, "ediff1d")
extract = _F(_np.extract, "extract")
fix = _F(_np.fix, "fix")
flatnonzero = _F(_np.flatnonzero, "flatnonzero")
fliplr = _F(_np.fliplr, "fliplr")
flipud = _F(_np.flipud, "flipud")
frombuffer = _F(_np.frombuffer, "frombuffer")
fromfile = _F(_np.fromfile, "fromfile")
fromfunction = _F(_np.fromfunction, "fromfunction")
fromiter = _F(_np.fromiter, "fromiter")
fromregex = _F(_np.fromregex, "fromregex")
fromstring = _F(_np.fromstring, "fromstring")
genfromtxt = _F(_np.genfromtxt, "genfromtxt")
geomspace = _F(_np.geomspace, "geomspace")
gradient = _F(_np.gradient, "gradient")
hamming = _F(_np.hamming, "hamming")
hanning = _F(_np.hanning, "hanning")
histogram = _F(_np.histogram, "histogram")
histogram2d = _F(_np.histogram2d, "histogram2d")
histogram_bin_edges = _F(_np.histogram_bin_edges, "histogram_bin_edges")
histogramdd = _F(_np.histogramdd, "histogramdd")
hsplit = _F(_np.hsplit, "hsplit")
indices = _F(_np.indices, "indices")
insert = _F(_np.insert, "insert")
interp = _F(_np.interp, "interp")
ix_ = _F(_np.ix_, "ix_")
intersect1d = _F(_np.intersect1d, "intersect1d")
iscomplex = _F(_np.iscomplex, "iscomplex")
isin = _F(_np.isin, "isin")
isnat = _F(_np.isnat, "isnat")
isneginf = _F(_np.isneginf, "isneginf")
isposinf = _F(_np.isposinf, "isposinf")
isreal = _F(_np.isreal, "isreal")
kaiser = _F(_np.kaiser, "kaiser")
lexsort = _F(_np.lexsort, "lexsort")
loadtxt = _F(_np.loadtxt, "loadtxt")
logspace = _F(_np.logspace, "logspace")
mask_indices = _F(_np.mask_indices, "mask_indices")
matvec = _F(_np.matvec, "matvec")
nanargmax = _F(_np.nanargmax, "nanargmax")
nanargmin = _F(_np.nanargmin, "nanargmin")
nancumprod = _F(_np.nancumprod, "nancumprod")
nancumsum = _F(_np.nancumsum, "nancumsum")
nanmedian = _F(_np.nanmedian, "nanmedian")
nanpercentile = _F(_np.nanpercentile, "nanpercentile")
nanprod = _F(_np.nanprod, "nanprod")
nanquantile = _F(_np.nanquantile, "nanquantile")
packbits = _F(_np.packbits, "packbits")
partition = _F(_np.partition, "partition")
piecewise = _F(_np.piecewise, "piecewise")
poly = _F(_np.poly, "poly")
polyadd = _F(_np.polyadd, "polyadd")
polyder = _F(_np.polyder, "polyder")
polydiv = _F(_np.polydiv, "polydiv")
polyfit = _F(_np.polyfit, "polyfit")
polyint = _F(_np.polyint, "polyint")
polymul = _F(_np.polymul, "polymul")
polysub = _F(_np.polysub, "polysub")
polyval = _F(_np.polyval, "polyval")
ravel_multi_index = _F(_np.ravel_multi_index, "ravel_multi_index")
real_if_close = _F(_np.real_if_close, "real_if_close")
require = _F(_np.require, "require")
resize = _F(_np.resize, "resize")
rollaxis = _F(_np.rollaxis, "rollaxis")
roots = _F(_np.roots, "roots")
row_stack = _F(_np.row_stack, "row_stack")
select = _F(_np.select, "select")
setdiff1d = _F(_np.setdiff1d, "setdiff1d")
setxor1d = _F(_np.setxor1d, "setxor1d")
sort_complex = _F(_np.sort_complex, "sort_complex")
take = _F(_np.take, "take")
take_along_axis = _F(_np.take_along_axis, "take_along_axis")
trapezoid = _F(_np.trapezoid, "trapezoid")
tri = _F(_np.tri, "tri")
tril_indices = _F(_np.tril_indices, "tril_indices")
tril_indices_from = _F(_np.tril_indices_from, "tril_indices_from")
trim_zeros = _F(_np.trim_zeros, "trim_zeros")
triu_indices = _F(_np.triu_indices, "triu_indices")
triu_indices_from = _F(_np.triu_indices_from, "triu_indices_from")
union1d = _F(_np.union1d, "union1d")
unpackbits = _F(_np.unpackbits, "unpackbits")
unravel_index = _F(_np.unravel_index, "unravel_index")
unwrap = _F(_np.unwrap, "unwrap")
vander = _F(_np.vander, "vander")
vecmat = _F(_np.vecmat, "vecmat")
vsplit = _F(_np.vsplit, "vsplit")

# NumPy's alias of invert is the same object (np.bitwise_not is np.invert).
bitwise_not = _invert

# Routed functions that write into an argument (the wsarray array's own memory).
copyto = _F(_np.copyto, "copyto")
fill_diagonal = _F(_np.fill_diagonal, "fill_diagonal")
place = _F(_np.place, "place")
put = _F(_np.put, "put")
put_along_axis = _F(_np.put_along_axis, "put_along_axis")
putmask = _F(_np.putmask, "putmask")

# Writers: arguments unwrapped (the file gets NumPy's bytes). Readers: see _io.py.
save = _F(_np.save, "save")
savetxt = _F(_np.savetxt, "savetxt")
savez = _F(_np.savez, "savez")
savez_compressed = _F(_np.savez_compressed, "savez_compressed")

# Queries that take arrays and return Python values or dtypes.
array2string = _F(_np.array2string, "array2string")
array_repr = _F(_np.array_repr, "array_repr")
array_str = _F(_np.array_str, "array_str")
busday_count = _F(_np.busday_count, "busday_count")
busday_offset = _F(_np.busday_offset, "busday_offset")
can_cast = _F(_np.can_cast, "can_cast")
common_type = _F(_np.common_type, "common_type")
datetime_as_string = _F(_np.datetime_as_string, "datetime_as_string")
einsum_path = _F(_np.einsum_path, "einsum_path")
is_busday = _F(_np.is_busday, "is_busday")
iscomplexobj = _F(_np.iscomplexobj, "iscomplexobj")
isfortran = _F(_np.isfortran, "isfortran")
isrealobj = _F(_np.isrealobj, "isrealobj")
may_share_memory = _F(_np.may_share_memory, "may_share_memory")
min_scalar_type = _F(_np.min_scalar_type, "min_scalar_type")
mintypecode = _F(_np.mintypecode, "mintypecode")
ndim = _F(_np.ndim, "ndim")
result_type = _F(_np.result_type, "result_type")
shape = _F(_np.shape, "shape")
shares_memory = _F(_np.shares_memory, "shares_memory")
size = _F(_np.size, "size")

# NumPy's own functions that hold no arrays: settings, dtype logic, formatting of numbers.
base_repr = _np.base_repr
binary_repr = _np.binary_repr
broadcast_shapes = _np.broadcast_shapes
datetime_data = _np.datetime_data
get_include = _np.get_include
get_printoptions = _np.get_printoptions
getbufsize = _np.getbufsize
geterr = _np.geterr
geterrcall = _np.geterrcall
isdtype = _np.isdtype
issubdtype = _np.issubdtype
iterable = _np.iterable
printoptions = _np.printoptions
promote_types = _np.promote_types
set_printoptions = _np.set_printoptions
setbufsize = _np.setbufsize
seterr = _np.seterr
seterrcall = _np.seterrcall
show_runtime = _np.show_runtime
typename = _np.typename

# Scalar types, abstract types and NumPy classes that hold no workspace memory.
broadcast = _np.broadcast
busdaycalendar = _np.busdaycalendar
byte = _np.byte
bytes_ = _np.bytes_
cdouble = _np.cdouble
character = _np.character
clongdouble = _np.clongdouble
complexfloating = _np.complexfloating
csingle = _np.csingle
datetime64 = _np.datetime64
double = _np.double
errstate = _np.errstate
finfo = _np.finfo
flatiter = _np.flatiter
flexible = _np.flexible
floating = _np.floating
generic = _np.generic
half = _np.half
iinfo = _np.iinfo
inexact = _np.inexact
int_ = _np.int_
intc = _np.intc
integer = _np.integer
intp = _np.intp
long = _np.long
longdouble = _np.longdouble
# Long double's sized aliases exist where the platform has them (float128 on x86-64 Linux).
for _name in ("float96", "float128", "complex192", "complex256"):
    if hasattr(_np, _name):
        globals()[_name] = getattr(_np, _name)
        __all__.append(_name)
longlong = _np.longlong
ndenumerate = _np.ndenumerate
ndindex = _np.ndindex
nditer = _np.nditer
nested_iters = _np.nested_iters
number = _np.number
object_ = _np.object_
poly1d = _np.poly1d
# ndarray subclasses and their modules: NumPy's own (see the module docstring).
ma = _np.ma
rec = _np.rec
matrix = _np.matrix
asmatrix = _np.asmatrix
bmat = _np.bmat
memmap = _np.memmap
recarray = _np.recarray
record = _np.record
__all__ += ["ma", "rec", "matrix", "asmatrix", "bmat", "memmap", "recarray", "record"]
short = _np.short
signedinteger = _np.signedinteger
single = _np.single
str_ = _np.str_
timedelta64 = _np.timedelta64
ubyte = _np.ubyte
ufunc = _np.ufunc
uint = _np.uint
uintc = _np.uintc
uintp = _np.uintp
ulong = _np.ulong
ulonglong = _np.ulonglong
unsignedinteger = _np.unsignedinteger
ushort = _np.ushort
void = _np.void

# Constants and index helpers.
euler_gamma = _np.euler_gamma
False_ = _np.False_
index_exp = _np.index_exp
little_endian = _np.little_endian
s_ = _np.s_
ScalarType = _np.ScalarType
sctypeDict = _np.sctypeDict
True_ = _np.True_
typecodes = _np.typecodes

_format_float_positional = _np.format_float_positional
_format_float_scientific = _np.format_float_scientific


def _numpy_scalar(x):
    """A 0-d wsarray array stands for the NumPy scalar NumPy would have returned: give that back."""
    if isinstance(x, _Array) and x.ndim == 0:
        return _np.asarray(x)[()]
    return x


def _rebuild_scalar(value):
    """Unpickle a scalar result (a 0-d array standing for a NumPy scalar) as a scalar result."""
    return _F(_np.asarray, "asarray")(value)[()]


def isscalar(element):
    """``numpy.isscalar``; a scalar result (the 0-d wsarray array returned where NumPy returns a
    scalar, e.g. ``a.sum()`` or ``a[0]``) counts as a scalar, a 0-d array (``np.array(3.1)``) does not."""
    if isinstance(element, _Array):
        return element.__class__ is not _Array
    return _np.isscalar(element)


def info(object=None, maxwidth=76, output=None, toplevel="numpy"):  # noqa: A002  (NumPy's name)
    """``numpy.info``; a wsarray array is described as the NumPy array it holds (class, shape,
    strides, ...), a scalar result as the NumPy scalar it stands for."""
    if isinstance(object, _Array):
        nd = _np.asarray(object)
        object = nd if object.__class__ is _Array else nd[()]
    return _np.info(object, maxwidth=maxwidth, output=output, toplevel=toplevel)


def format_float_positional(x, *args, **kwargs):
    """``numpy.format_float_positional``, also for 0-d wsarray arrays (the scalar they hold)."""
    return _format_float_positional(_numpy_scalar(x), *args, **kwargs)


def format_float_scientific(x, *args, **kwargs):
    """``numpy.format_float_scientific``, also for 0-d wsarray arrays (the scalar they hold)."""
    return _format_float_scientific(_numpy_scalar(x), *args, **kwargs)


class _RoutedPyUfunc:
    """The ufunc ``frompyfunc`` made, with calls and methods (``reduce``, ...) routed.

    A Python object rather than a ``Function``: it holds the user's function, whose globals may
    hold this object again, and only Python objects let the cyclic collector free such a cycle."""

    __slots__ = ("ufunc", "__weakref__")

    def __init__(self, ufunc):
        self.ufunc = ufunc

    def __call__(self, *args, **kwargs):
        return _F(self.ufunc, self.ufunc.__name__)(*args, **kwargs)

    def __getattr__(self, name):
        value = getattr(self.ufunc, name)
        if callable(value) and not name.startswith("_"):
            return _F(value, f"{self.ufunc.__name__}.{name}")
        return value

    def __repr__(self):
        return repr(self.ufunc)


def frompyfunc(func, /, nin, nout, **kwargs):
    """``numpy.frompyfunc``; the ufunc it makes is routed (calls and methods such as ``reduce``)."""
    return _RoutedPyUfunc(_np.frompyfunc(func, nin, nout, **kwargs))


class vectorize(_np.vectorize):
    """``numpy.vectorize`` whose calls run through the engine: the Python function sees NumPy
    scalars as in NumPy, the result is a wsarray array allocated in the current workspace."""

    def __call__(self, *args, **kwargs):
        return _F(_np.vectorize.__call__, "vectorize")(self, *args, **kwargs)


_LAZY_SUBMODULES = ("polynomial", "random", "testing", "typing")

# Why some NumPy names are not provided (module __getattr__ below says so).
_MODULE = ("wsarray does not wrap this NumPy module; call numpy's functions on numpy.asarray(x) "
           "(their results are plain NumPy arrays outside every workspace)")
_NOT_PROVIDED = {
    "core": _MODULE, "ctypeslib": _MODULE, "f2py": _MODULE,
    "test": "run numpy.test() for NumPy's own test suite",
}


# Names the array API standard also defines: the array-API modules of wsarray (imported before this
# one) own them. These NumPy versions are served by __getattr__ only where those modules do not
# define the name, so they never replace a standard-conforming function.
_ARRAY_API_FALLBACKS = {
    "astype": astype, "broadcast_shapes": broadcast_shapes, "can_cast": can_cast, "cross": cross,
    "finfo": finfo, "iinfo": iinfo, "isdtype": isdtype, "isin": isin, "result_type": result_type,
    "take": take, "take_along_axis": take_along_axis,
}


def __getattr__(name):
    """Module ``__getattr__`` of wsarray: NumPy's version of an array API name no other module
    defines (see ``_ARRAY_API_FALLBACKS``), else a clear error for NumPy names wsarray does not
    provide. Names NumPy itself lacks get NumPy's own message (e.g. ``float_``, removed in NumPy 2)."""
    if name in _ARRAY_API_FALLBACKS:
        return _ARRAY_API_FALLBACKS[name]
    if name in _LAZY_SUBMODULES:  # imported on first use, as NumPy does (numpy.testing is heavy)
        import importlib

        return importlib.import_module(f"wsarray.{name}")
    if name.startswith("_"):
        raise AttributeError(f"module 'wsarray' has no attribute '{name}'")
    try:
        getattr(_np, name)
    except AttributeError as e:
        raise AttributeError(str(e).replace("module 'numpy'", "module 'wsarray'")) from None
    reason = _NOT_PROVIDED.get(name, "it is not wrapped by wsarray; call numpy." + name +
                               " on numpy.asarray(x) if a plain NumPy result is acceptable")
    raise AttributeError(f"module 'wsarray' has no attribute '{name}': wsarray does not provide "
                         f"numpy.{name} ({reason})")
