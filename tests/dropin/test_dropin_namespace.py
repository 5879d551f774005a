"""NumPy's namespace beyond the array API: random numbers (same numbers as NumPy for a seed),
index builders, file I/O, the routed long tail, NumPy's settings and types, and the clear error
for NumPy names wsarray does not provide. Results are wsarray arrays in the current workspace."""

import gc
import importlib
import os
import typing
import weakref

import numpy as np
import pytest

import wsarray as wnp
import wsarray._array_api as array_api
import wsarray._numpy as numpy_names
from error_helpers import raises_numpys

ARRAY_API_CHAPTERS = ["constants", "creation", "data_types", "elementwise", "indexing", "info",
                      "linear_algebra", "manipulation", "searching", "set_functions", "sorting",
                      "statistical", "utility"]
NUMPY_CHAPTERS = ["bitwise", "constants", "creation", "data_types", "datetime", "errors", "functional",
                  "indexing", "io", "linear_algebra", "logic", "manipulation", "math", "misc", "ndarray",
                  "polynomials", "scalars", "sets", "sorting", "statistics", "subclasses", "window"]
MODULES = {"char", "ctypeslib", "dtypes", "emath", "exceptions", "fft", "lib", "linalg", "memory", "polynomial",
           "random", "strings", "testing", "typing"}


# The workspace of the `scope` fixture (conftest.py).
SCOPE_WORKSPACE = "DROPIN_NS"


def same(got, want, scope=None):
    """``got`` is a wsarray array equal to ``want`` in dtype, shape and bytes (and in the scope);
    where NumPy gives a scalar, NumPy's functions beyond the array API give the same scalar."""
    if type(got) is not wnp.Array:
        assert type(got) is type(want), (type(got), type(want))
    g = np.asarray(got)
    assert g.dtype == want.dtype and g.shape == want.shape
    assert g.tobytes() == np.asarray(want).tobytes()
    if scope is not None and g.size and isinstance(got, wnp.ndarray):  # not a scalar result
        assert got.workspace == "DROPIN_NS"


def test_legacy_random_matches_numpy(scope):
    calls = [("rand", (2, 3), {}), ("randn", (4,), {}), ("randint", (0, 10), {"size": 5}),
             ("normal", (1.0, 2.0, (2, 2)), {}), ("uniform", (-1, 1, 3), {}),
             ("choice", ([10, 20, 30], 2), {"replace": False}), ("permutation", (6,), {}),
             ("random", (3,), {}), ("binomial", (10, 0.5, 4), {}), ("poisson", (3.0, 4), {})]
    for name, args, kwargs in calls:
        np.random.seed(7)
        want = getattr(np.random, name)(*args, **kwargs)
        wnp.random.seed(7)
        same(getattr(wnp.random, name)(*args, **kwargs), want, scope)
    wnp.random.seed(3)
    assert type(wnp.random.rand()) is float and type(wnp.random.randint(5)) is int


def test_legacy_shuffle_in_place(scope):
    np.random.seed(1)
    n = np.arange(10)
    np.random.shuffle(n)
    wnp.random.seed(1)
    w = wnp.arange(10)
    assert wnp.random.shuffle(w) is None
    same(w, n, scope)
    # A list holding wsarray arrays is shuffled itself, not an unwrapped copy.
    items = [wnp.asarray([i]) for i in range(8)]
    ids = sorted(map(id, items))
    np.random.seed(2)
    order = list(range(8))
    np.random.shuffle(order)
    wnp.random.seed(2)
    wnp.random.shuffle(items)
    assert [int(x[0]) for x in items] == order and sorted(map(id, items)) == ids


def test_generator_matches_numpy(scope):
    g, h = wnp.random.default_rng(12345), np.random.default_rng(12345)
    same(g.normal(0, 1, 5), h.normal(0, 1, 5), scope)
    same(g.integers(0, 10, size=(2, 3)), h.integers(0, 10, size=(2, 3)), scope)
    same(g.random(4), h.random(4), scope)
    same(g.choice(10, 3, replace=False), h.choice(10, 3, replace=False), scope)
    w, n = wnp.arange(8), np.arange(8)
    g.shuffle(w)
    h.shuffle(n)
    same(w, n, scope)
    assert isinstance(g, wnp.random.Generator) and "PCG64" in repr(g)
    gg = wnp.random.Generator(wnp.random.PCG64(5))
    same(gg.standard_normal(3), np.random.Generator(np.random.PCG64(5)).standard_normal(3), scope)
    kids, numpy_kids = g.spawn(2), h.spawn(2)
    same(kids[1].random(2), numpy_kids[1].random(2), scope)
    rs, nrs = wnp.random.RandomState(42), np.random.RandomState(42)
    same(rs.rand(3), nrs.rand(3), scope)
    same(rs.randint(0, 100, 4), nrs.randint(0, 100, 4), scope)


def test_index_builders(scope):
    a = wnp.asarray([7, 8])
    same(wnp.r_[1:4, 0, a], np.r_[1:4, 0, np.array([7, 8])], scope)
    same(wnp.r_["0,2", [1, 2], [3, 4]], np.r_["0,2", [1, 2], [3, 4]], scope)
    same(wnp.c_[a, a], np.c_[np.array([7, 8]), np.array([7, 8])], scope)
    same(wnp.mgrid[0:3, 0:2], np.mgrid[0:3, 0:2], scope)
    same(wnp.mgrid[0:1:5j], np.mgrid[0:1:5j], scope)
    for got, want in zip(wnp.ogrid[0:3, 0:4], np.ogrid[0:3, 0:4]):
        same(got, want, scope)
    for got, want in zip(wnp.ix_([0, 2], [1]), np.ix_([0, 2], [1])):
        same(got, want, scope)
    assert wnp.s_[1:3] == np.s_[1:3]


def test_file_io_round_trip(tmp_path, scope):
    n = np.arange(12.0).reshape(4, 3) / 7
    w = wnp.asarray(n)
    wnp.savetxt(tmp_path / "a.txt", w, fmt="%.6f")
    np.savetxt(tmp_path / "b.txt", n, fmt="%.6f")
    assert (tmp_path / "a.txt").read_bytes() == (tmp_path / "b.txt").read_bytes()
    same(wnp.loadtxt(tmp_path / "a.txt"), np.loadtxt(tmp_path / "b.txt"), scope)
    wnp.save(tmp_path / "a.npy", w)
    same(wnp.load(tmp_path / "a.npy"), n, scope)
    wnp.savez(tmp_path / "z.npz", first=w, second=wnp.arange(3))
    with wnp.load(tmp_path / "z.npz") as z:
        assert sorted(z.files) == ["first", "second"] and "first" in z and len(z) == 2
        same(z["first"], n, scope)
        same(z["second"], np.arange(3), scope)
        assert sorted(z.keys()) == ["first", "second"]
    np.savez(tmp_path / "n.npz", first=n, second=np.arange(3))
    with wnp.load(tmp_path / "z.npz") as z, np.load(tmp_path / "n.npz") as zn:
        assert repr(z).replace("z.npz", "n.npz") == repr(zn)  # printed as NumPy prints it
    m = wnp.load(tmp_path / "a.npy", mmap_mode="r")  # NumPy's memmap, in no workspace (README)
    assert type(m) is np.memmap and m.tolist() == n.tolist() and m.mode == "r"
    with wnp.load(tmp_path / "z.npz") as z, np.load(tmp_path / "n.npz") as zn:
        same(z.f.first, n, scope)  # NumPy's NpzFile attributes: f, zip, fid, ...
        assert z.zip.namelist() == zn.zip.namelist() and z.fid is not None and sorted(dir(z.f)) == z.files
        assert isinstance(z, np.lib.npyio.NpzFile) and isinstance(z, wnp.lib.npyio.NpzFile)
        with pytest.raises(AttributeError):
            z.f.missing
    with pytest.raises(FileNotFoundError):
        wnp.load(tmp_path / "missing.npy")


def test_long_tail_functions_route(scope):
    n = np.array([3, 1, 2, 3, 1, 3])
    w = wnp.asarray(n)
    same(wnp.bincount(w), np.bincount(n), scope)
    for got, want in zip(wnp.histogram(w, bins=3), np.histogram(n, bins=3)):
        same(got, want, scope)
    same(wnp.convolve(w, [1, 1]), np.convolve(n, [1, 1]), scope)
    same(wnp.interp([1.5], [1, 2], [10, 20]), np.interp([1.5], [1, 2], [10, 20]), scope)
    same(wnp.polyfit([0, 1, 2], [1, 3, 5], 1), np.polyfit([0, 1, 2], [1, 3, 5], 1), scope)
    same(wnp.isin(w, [1, 2]), np.isin(n, [1, 2]), scope)
    same(wnp.argwhere(w > 2), np.argwhere(n > 2), scope)
    same(wnp.add.reduce(w), np.add.reduce(n), scope)
    same(wnp.multiply.outer(w, w), np.multiply.outer(n, n), scope)
    counts = wnp.zeros(4, dtype=int)
    wnp.add.at(counts, [0, 1, 1], 1)
    assert counts.tolist() == [1, 2, 0, 0]
    m = wnp.zeros((2, 2))
    wnp.fill_diagonal(m, 5)
    assert m.tolist() == [[5, 0], [0, 5]]
    same(wnp.vectorize(lambda x: x * 2)(w), np.vectorize(lambda x: x * 2)(n), scope)
    uf = wnp.frompyfunc(lambda x, y: x + y, 2, 1)
    same(uf(w, 1), np.frompyfunc(lambda x, y: x + y, 2, 1)(n, 1), scope)
    assert uf.reduce(w) == 13 and uf.nin == 2
    assert wnp.ndim(w) == 1 and wnp.shape(w) == (6,) and wnp.result_type(w, 1.0) == np.float64


def test_frompyfunc_cycle_is_collected():
    """The routed ufunc of frompyfunc must not keep an uncollectable cycle (user code often stores
    it in the globals its function refers to)."""
    namespace = {"wnp": wnp}
    exec("uf = wnp.frompyfunc(lambda x: uf, 1, 1)", namespace)
    ref = weakref.ref(namespace["uf"])
    del namespace
    gc.collect()
    assert ref() is None


def test_scalar_stand_ins():
    s = wnp.asarray([1.5, 2.0]).sum()
    assert wnp.isscalar(s) and not wnp.isscalar(wnp.arange(2)) and wnp.isscalar(3.0)
    assert wnp.format_float_positional(s, precision=2) == np.format_float_positional(np.float64(3.5), precision=2)
    assert wnp.format_float_scientific(wnp.asarray([1.0], dtype=np.float32)[0]) == \
        np.format_float_scientific(np.float32(1.0))


def test_numpy_settings_types_and_constants_are_numpys():
    assert wnp.errstate is np.errstate
    assert wnp.finfo(np.float64).eps == np.finfo(np.float64).eps and wnp.iinfo(np.int8).max == 127
    assert wnp.set_printoptions is np.set_printoptions and wnp.printoptions is np.printoptions
    assert wnp.int_ is np.int_ and wnp.intp is np.intp and wnp.floating is np.floating
    assert wnp.euler_gamma == np.euler_gamma
    import wsarray.testing as wt
    from wsarray.exceptions import AxisError
    from wsarray.typing import NDArray
    assert wt.assert_raises is np.testing.assert_raises and wnp.testing is wt
    assert wt.assert_allclose.__wrapped__ is np.testing.assert_allclose
    assert AxisError is np.exceptions.AxisError
    # wsarray's NDArray is its Array of a scalar type (a numpy.ndarray subclass to type checkers).
    assert typing.get_origin(NDArray[np.float64]) is wnp.Array
    assert typing.get_args(NDArray[np.float64])[1] == np.dtype[np.float64]
    assert wnp.dtypes.Float64DType is np.dtypes.Float64DType
    wt.assert_array_equal(wnp.arange(3), np.arange(3))
    with wnp.printoptions(precision=2):
        assert repr(wnp.asarray([1.23456])) == "array([1.23])"
    with wnp.errstate(divide="raise"), pytest.raises(FloatingPointError):
        wnp.asarray([1.0]) / 0


def test_testing_assertions_compare_wsarray_arrays_as_numpy_arrays():
    # numpy.testing.assert_equal picks its array path with isinstance(x, numpy.ndarray).
    w, n = wnp.asarray([[1, 2], [3, 4]]), np.asarray([[1, 2], [3, 4]])
    for eq in (wnp.testing.assert_equal, wnp.testing.assert_almost_equal, wnp.testing.assert_array_equal):
        eq(w, n.copy())
        eq(w, wnp.asarray(n))
    wnp.testing.assert_equal([w, {"k": (w.sum(), 1)}], [n, {"k": (n.sum(), 1)}])
    wnp.testing.assert_equal(wnp.lexsort((w[0], w[1])), np.lexsort((n[0], n[1])))
    wnp.testing.assert_approx_equal(wnp.asarray([1.0]).sum(), 1.0)
    with pytest.raises(AssertionError) as got:
        wnp.testing.assert_equal(w + 1, w)
    with pytest.raises(AssertionError) as want:
        np.testing.assert_equal(n + 1, n)
    assert str(got.value) == str(want.value)
    # Scalar results compare as NumPy scalars (a 0-d array would be compared as an array).
    with pytest.raises(AssertionError) as got:
        wnp.testing.assert_equal(w.sum(), 11)
    with pytest.raises(AssertionError) as want:
        np.testing.assert_equal(n.sum(), 11)
    assert str(got.value) == str(want.value)


def test_missing_names_explain_themselves():
    assert wnp.f2py is np.f2py  # NumPy's names wsarray does not define are NumPy's objects
    with pytest.raises(AttributeError, match=r"np.float_. was removed in the NumPy 2.0 release. Use .np.float64"):
        wnp.float_
    with pytest.raises(AttributeError, match="module 'wsarray' has no attribute 'no_such_name'"):
        wnp.no_such_name
    assert not hasattr(wnp, "__wrapped__")


def test_ndarray_subclasses_are_numpys_and_never_in_a_workspace(tmp_path):
    """np.ma, np.matrix, np.memmap, np.recarray: NumPy's classes with NumPy's results; a wsarray
    function given one returns NumPy's subclass in NumPy's memory, never in a workspace."""
    def run(m, path):
        x = m.ma.array([1.0, 2.0, 3.0, 4.0], mask=[0, 1, 0, 0])
        mt = m.matrix([[1, 2], [3, 4]])
        mm = m.memmap(path, dtype="float64", mode="w+", shape=(3,))
        mm[:] = m.arange(3.0)
        mm.flush()
        r = m.rec.fromarrays([m.arange(3), m.arange(3.0) * 2], names="a,b")
        return [repr(x), repr(x.mean()), repr(m.sqrt(x)), repr(m.sum(x)), repr(x * m.arange(4.0)),
                repr(mt * mt), repr(mt.I), repr(m.linalg.inv(mt)), repr(m.asmatrix(m.eye(2))),
                repr(m.bmat([[mt, mt]])), repr(m.fromfile(path)), repr(r.b), type(r).__name__,
                type(m.sqrt(x)).__name__, type(mt * m.arange(2.0).reshape(2, 1)).__name__]

    want = run(np, str(tmp_path / "n.dat"))
    assert run(wnp, str(tmp_path / "w.dat")) == want
    ws = wnp.workspace("SUBCLASS")
    with ws:
        assert run(wnp, str(tmp_path / "ws.dat")) == want
        x = wnp.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0])
        used = ws.stats()["used"]
        e = wnp.exp(x)
        assert type(e) is np.ma.MaskedArray and ws.stats()["used"] == used  # NumPy's memory
        # np.ma's own code adds the wsarray array's data (a wsarray array, checked and routed), and
        # holds the result: NumPy's class, whose memory stays allocated as long as it lives.
        y = e + wnp.arange(3.0)
        assert type(y) is np.ma.MaskedArray
    assert repr(y) == repr(np.exp(np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0])) + np.arange(3.0))


def test_import_wsarray_ma_is_numpys_module():
    import wsarray.ma as ma
    from wsarray.ma import masked_array

    assert ma is np.ma and wnp.ma is np.ma and masked_array is np.ma.masked_array
    assert repr(ma.array([1, 2, 3], mask=[0, 1, 0]).sum()) == repr(np.ma.array([1, 2, 3], mask=[0, 1, 0]).sum())


def test_numpy_names_are_all_bound():
    for name in numpy_names.__all__:
        assert getattr(wnp, name) is getattr(numpy_names, name), name
        assert name in wnp.__all__
    assert len(set(numpy_names.__all__)) == len(numpy_names.__all__)


def test_the_standard_names_are_the_standards_objects():
    """A standard name is the chapter module's object; NumPy's names for the same function
    (``arccos``, ``concatenate``) are that object too, and never replace it."""
    for name in array_api.__all__:
        assert getattr(wnp, name) is getattr(array_api, name), name
    assert wnp.arccos is wnp.acos and wnp.concatenate is wnp.concat and wnp.bitwise_not is wnp.invert
    assert wnp.finfo(np.float32).eps == np.finfo(np.float32).eps
    assert wnp.take(wnp.arange(5), [1, 3]).tolist() == [1, 3]


def test_no_public_name_is_defined_in_two_modules():
    modules = [importlib.import_module(f"wsarray._array_api.{m}") for m in ARRAY_API_CHAPTERS]
    modules += [importlib.import_module(f"wsarray._numpy.{m}") for m in NUMPY_CHAPTERS]
    modules.append(importlib.import_module("wsarray._workspaces"))
    home = {}
    for module in modules:
        for name in module.__all__:
            assert name not in home, f"{name} is defined in {home.get(name)} and {module.__name__}"
            home[name] = module.__name__
    top_level = {"__version__", "Array", "Device", "DeviceArray", "DeviceMismatchError", "FuseWarning",
                 "WorkspaceManager", "WorkspaceMode", "fuse", "show_config"}
    assert set(home) | top_level | MODULES == set(wnp.__all__)


NUMPY_MODULES = ["", "linalg", "fft", "random", "testing", "lib", "ma", "char", "strings", "polynomial",
                 "ctypeslib", "typing", "dtypes", "exceptions", "rec", "lib.stride_tricks", "lib.format",
                 "lib.recfunctions", "lib.array_utils", "lib.scimath", "lib.npyio", "lib.mixins", "lib.introspect",
                 "polynomial.polynomial", "polynomial.chebyshev", "random.mtrand", "linalg._linalg",
                 "lib._function_base_impl", "testing._private.utils", "_core.multiarray", "_core.umath"]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("name", NUMPY_MODULES, ids=[m or "numpy" for m in NUMPY_MODULES])
def test_every_name_of_numpys_modules_resolves(name):
    # Rule (wsarray/_numpy/fallback.py): what wsarray does not define is NumPy's own object,
    # private and deprecated names included; `import wsarray.<module>` works where NumPy's does.
    import importlib

    numpys = importlib.import_module("numpy" + ("." + name if name else ""))
    mine = importlib.import_module("wsarray" + ("." + name if name else ""))
    dunder = {"__builtins__", "__cached__", "__file__", "__loader__", "__path__", "__spec__", "__name__",
              "__doc__", "__package__", "__all__", "__getattr__", "__dir__", "__NUMPY_SETUP__",
              "__expired_attributes__", "__former_attrs__", "__future_scalars__", "__numpy_submodules__",
              "__warningregistry__"}
    for attr in dir(numpys):
        if attr in dunder:
            continue
        value = getattr(mine, attr)  # never an AttributeError
        own = attr in vars(mine) or getattr(mine, "__all__", None) and attr in mine.__all__
        if not own and not (attr.startswith("__") and attr.endswith("__")):
            assert value is getattr(numpys, attr), (name, attr)


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::PendingDeprecationWarning")
def test_every_module_of_numpys_package_is_numpys_or_stands_for_it():
    # `from numpy._typing import _SupportsDType` (xarray) swapped: a private module of wsarray's own
    # under one of NumPy's module names would shadow NumPy's and take the library down.
    import importlib
    import pkgutil

    for info in pkgutil.iter_modules(np.__path__):
        if info.name in ("conftest", "tests", "_pyinstaller", "f2py", "distutils"):
            continue
        numpys = importlib.import_module("numpy." + info.name)
        mine = importlib.import_module("wsarray." + info.name)
        assert mine is numpys or info.name in MODULES, info.name
    from wsarray._typing import _SupportsDType  # noqa: F401

    assert wnp._typing is np._typing


def test_numpys_private_and_deprecated_names_that_libraries_use():
    assert wnp._NoValue is np._NoValue and wnp._CopyMode is np._CopyMode
    assert wnp.linalg._linalg.EigResult is np.linalg._linalg.EigResult
    from wsarray.linalg._linalg import SVDResult

    assert SVDResult is np.linalg._linalg.SVDResult
    with pytest.warns(DeprecationWarning, match="numpy.core is deprecated"):
        from wsarray.core import numeric  # noqa: F401  (NumPy's own deprecation warning)
    assert wnp._core.multiarray is np._core.multiarray and not hasattr(wnp._core, "Array")
    with pytest.raises(AttributeError, match="module 'wsarray.linalg' has no attribute 'nothing_here'"):
        wnp.linalg.nothing_here
    with pytest.raises(ModuleNotFoundError):
        import wsarray.linalg.nothing_here  # noqa: F401


def test_star_import_gives_numpys_main_names():
    scope = {}
    exec("from wsarray import *", scope)
    assert callable(scope["cross"]) and scope["cross"] is wnp.cross
    assert float(scope["cross"](wnp.asarray([1.0, 0, 0]), wnp.asarray([0, 1.0, 0]))[2]) == 1.0


def test_routed_names_are_numpy_functions():
    """Each routed name wraps NumPy's function of the same name, and returns NumPy's scalars (its
    names of the standard's functions, such as ``arccos``, are the standard's objects)."""
    standard = {id(getattr(array_api, n)) for n in array_api.__all__}
    for name in numpy_names.__all__:
        value = getattr(numpy_names, name)
        if isinstance(value, wnp._native.Function) and id(value) not in standard:
            assert value.__wsarray_runs__ is getattr(np, name), name


def test_savetxt_stale_array_raises(tmp_path):
    with wnp.workspace("DROPIN_NS"):
        w = wnp.ones(3)
    with pytest.raises(wnp.WorkspaceError, match="savetxt"):
        wnp.savetxt(os.fspath(tmp_path / "x.txt"), w)


def test_string_and_emath_modules(scope):
    n = np.array(["ab", "Cd"])
    w = wnp.asarray(n)
    same(wnp.char.upper(w), np.char.upper(n), scope)
    same(wnp.strings.str_len(w), np.strings.str_len(n), scope)
    same(wnp.char.add(w, "x"), np.char.add(n, "x"), scope)
    same(wnp.emath.sqrt(wnp.asarray([-4.0, 4.0])), np.emath.sqrt(np.array([-4.0, 4.0])), scope)
    assert wnp.char.upper.__wsarray_runs__ is np.char.upper
    for module in (wnp.char, wnp.strings, wnp.emath):
        numpys = getattr(np, module.__name__.split(".")[1])
        for name in module.__all__:
            if name in ("array", "asarray", "chararray"):  # NumPy's ndarray subclass: NumPy's objects
                assert getattr(module, name) is getattr(numpys, name)
            else:
                assert getattr(module, name).__wsarray_runs__ is getattr(numpys, name)


def test_ndarray_isinstance_subclass_and_constructor(scope):
    a = wnp.arange(3)
    # A plain class, as numpy.ndarray: libraries wrap every name whose type is not `type`.
    assert type(wnp.ndarray) is type and wnp.ndarray is wnp.Array and type(a) is wnp.ndarray
    # ... and NumPy's arrays are instances (numpy.ndarray's MRO names it), NumPy's subclasses' too.
    assert isinstance(a, wnp.ndarray) and isinstance(a, np.ndarray) and isinstance(np.arange(2), wnp.ndarray)
    assert issubclass(np.ndarray, wnp.ndarray) and isinstance(np.ma.masked_array([1]), wnp.ndarray)
    assert isinstance(wnp.asarray(3.0), wnp.ndarray) and not isinstance(a.sum(), wnp.ndarray)
    assert not isinstance(np.float64(1), wnp.ndarray) and not isinstance(np.arange(2), wnp.Device)
    assert not isinstance([1, 2], wnp.ndarray) and issubclass(wnp.Array, np.ndarray)
    # NumPy's arrays keep NumPy's attributes: wsarray's own are not theirs.
    assert not hasattr(np.ones(2), "detach") and not hasattr(np.ones(2), "workspace")
    assert np.ones(2).sum() == 2.0 and np.ndarray.sum(np.ones(2)) == 2.0
    assert isinstance(a.sum(), np.generic) == isinstance(np.arange(3).sum(), np.generic)
    b = wnp.ndarray((2, 3), dtype=np.int32)
    assert type(b) is wnp.Array and b.shape == (2, 3) and b.dtype == np.int32
    if scope is not None:
        assert b.workspace == "DROPIN_NS"

    class Named(wnp.ndarray):
        def __new__(cls, array, name="none"):
            obj = wnp.asarray(array).view(cls)
            obj.name = name
            return obj

        def __array_finalize__(self, obj):
            self.name = getattr(obj, "name", "none")

        def __getitem__(self, key):
            return super().__getitem__(key)  # ndarray's, as in NumPy

    z = Named(wnp.arange(4), "four")
    assert isinstance(z, Named) and isinstance(z, np.ndarray) and z.name == "four"
    assert repr(z) == "Named([0, 1, 2, 3])" and z[1:].name == "four" and type(z[1:]) is Named
    assert not isinstance(wnp.arange(2), Named)
    # Everything a subclass inherits is NumPy's ndarray's: results keep the subclass (NumPy's
    # __array_wrap__), NumPy's own defaults of the protocols, no wsarray-only methods.
    assert type(z + 1) is Named and type(wnp.sin(z)) is Named
    assert type(wnp.concatenate([z, z])) is wnp.ndarray  # NumPy's concatenate: a plain array too
    assert (z + 1).name == "four" and type(z.sum()) is type(np.arange(4).view(Named).sum())
    assert Named.__array_ufunc__ is np.ndarray.__array_ufunc__
    assert Named.__array_function__ is np.ndarray.__array_function__
    assert not hasattr(z, "detach") and hasattr(a, "detach")
    assert z.shape == (4,) and z.T.shape == (4,) and memoryview(z).shape == (4,)
    class Plain(wnp.ndarray):
        pass

    c = Plain((2, 2))  # NumPy's constructor, NumPy's memory
    assert type(c) is Plain and c.shape == (2, 2) and c.flags.owndata
    # Unbound calls of wsarray.ndarray's methods take NumPy's arrays too, as NumPy's.
    assert wnp.ndarray.sum(np.ones(3)) == 3.0 and type(wnp.ndarray.reshape(np.ones(4), 2, 2)) is np.ndarray
    with pytest.raises(TypeError):
        wnp.ndarray.sum([1, 2])


def test_stride_tricks_views():
    from wsarray.lib.stride_tricks import sliding_window_view
    n = np.arange(6.0)
    with wnp.workspace("DROPIN_NS"):
        w = wnp.arange(6.0)
        v = sliding_window_view(w, 3)
        same(v, sliding_window_view(n, 3))
        assert v.workspace == "DROPIN_NS"
        s = wnp.lib.stride_tricks.as_strided(w, shape=(2, 2), strides=(16, 8))
        same(s, np.lib.stride_tricks.as_strided(n, shape=(2, 2), strides=(16, 8)))
    with pytest.raises(wnp.WorkspaceError):
        v.sum()


def test_functions_carry_numpys_documentation():
    import contextlib
    import io
    import inspect
    assert wnp.sum.__doc__ == np.sum.__doc__ and wnp.add.reduce.__doc__ == np.add.reduce.__doc__
    assert wnp.random.normal.__doc__ == np.random.normal.__doc__
    assert inspect.signature(wnp.linspace) == inspect.signature(np.linspace)
    got, want = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(got):
        wnp.info(wnp.dot)
    with contextlib.redirect_stdout(want):
        np.info(np.dot)
    assert got.getvalue() == want.getvalue() and "Dot product" in got.getvalue()


def test_version_is_numpys_for_feature_gates():
    assert wnp.__version__ == np.__version__
    assert wnp.__wsarray_version__ == "0.1.0"


def test_numpys_aliases_are_the_same_objects():
    # NumPy code compares functions by identity (np.conj is np.conjugate, dispatch tables of ufuncs).
    for nmod, wmod in ((np, wnp), (np.linalg, wnp.linalg), (np.fft, wnp.fft)):
        groups = {}
        for name in dir(nmod):
            obj = getattr(nmod, name)
            if not name.startswith("_") and callable(obj) and hasattr(wmod, name):
                groups.setdefault(id(obj), []).append(name)
        for names in groups.values():
            assert len({id(getattr(wmod, n)) for n in names}) == 1, names
    assert wnp.abs.__name__ == np.abs.__name__ == "absolute"
    with raises_numpys(ValueError, "operands could not be broadcast", "absolute"):
        wnp.abs(wnp.ones(3), out=wnp.ones(2))


def test_public_names_numpy_keeps_out_of_all():
    import warnings
    assert wnp.exceptions.RankWarning is np.exceptions.RankWarning
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", wnp.exceptions.RankWarning)
        wnp.polyfit(wnp.arange(3.0), wnp.arange(3.0), 5)
    a = np.eye(4 * 6).reshape((4, 6, 8, 3))
    got = wnp.linalg.tensorinv(wnp.asarray(a), ind=2)
    assert type(got) is wnp.Array and np.array_equal(np.asarray(got), np.linalg.tensorinv(a, ind=2))
    m, b = np.eye(2 * 3 * 4).reshape((2 * 3, 4, 2, 3, 4)), np.arange(24.0).reshape(6, 4)
    got = wnp.linalg.tensorsolve(wnp.asarray(m), wnp.asarray(b))
    assert type(got) is wnp.Array and np.array_equal(np.asarray(got), np.linalg.tensorsolve(m, b))
    assert wnp.random.get_bit_generator() is np.random.get_bit_generator()
    assert str(wnp.random.default_rng(1)) == str(np.random.default_rng(1)) == "Generator(PCG64)"
    assert str(wnp.random.RandomState(1)) == str(np.random.RandomState(1))


def test_isscalar_tells_scalar_results_from_zero_d_arrays():
    w = wnp.asarray([1.5, 2.5])
    assert wnp.isscalar(w.sum()) and wnp.isscalar(w[0]) and wnp.isscalar(3.1)
    assert not wnp.isscalar(wnp.array(3.1)) and not wnp.isscalar(wnp.asarray(w.sum())) and not wnp.isscalar(w)


def test_info_describes_arrays_as_numpy_does():
    import io
    n = np.zeros((2, 3), dtype=np.complex64)
    got, want = io.StringIO(), io.StringIO()
    wnp.info(wnp.asarray(n), output=got)
    np.info(n, output=want)
    strip = lambda text: [line for line in text.splitlines() if not line.startswith("data pointer")]
    assert strip(got.getvalue()) == strip(want.getvalue()) and "shape:  (2, 3)" in got.getvalue()


def test_lib_names_and_clear_errors_for_the_rest():
    import importlib
    assert wnp.lib.scimath is wnp.emath and importlib.import_module("wsarray.lib.scimath") is wnp.emath
    assert repr(wnp.lib.scimath.sqrt(-1)) == repr(np.lib.scimath.sqrt(-1))
    assert wnp.lib.NumpyVersion is np.lib.NumpyVersion and wnp.lib.mixins is np.lib.mixins
    assert wnp.lib.test is np.lib.test  # NumPy's names wsarray does not define are NumPy's objects
    with pytest.raises(AttributeError, match=r"^module 'wsarray.lib' has no attribute 'nothing'$"):
        wnp.lib.nothing
    # nested_iters: NumPy's iterator class over the arrays' memory, as nditer.
    a = wnp.arange(6).reshape(2, 3)
    i, j = wnp.nested_iters(a, [[0], [1]], flags=["multi_index"])
    assert [[int(y) for y in j] for _ in i] == [[0, 1, 2], [3, 4, 5]]
def test_polynomial_package(scope):
    # numpy.polynomial as the tutorials use it (scipy-lectures, numpy-tutorials' fractals):
    # NumPy's classes and printing, array results routed into the workspace.
    import pickle

    n = np.linspace(-1, 1, 50)
    w = wnp.asarray(n)
    p, pn = wnp.polynomial.Polynomial([-1, 2, 3]), np.polynomial.Polynomial([-1, 2, 3])
    assert isinstance(p, np.polynomial.Polynomial) and repr(p) == repr(pn) and str(p) == str(pn)
    assert repr(p(0)) == repr(pn(0)) and p.degree() == 2
    same(p(w), pn(n), scope)
    same(p.roots(), pn.roots(), scope)
    for got, want in zip(p.linspace(5), pn.linspace(5)):
        same(got, want, scope)
    assert repr(p.deriv()) == repr(pn.deriv()) and repr(p + p * 2) == repr(pn + pn * 2)
    fit, fitn = wnp.polynomial.Polynomial.fit(w, wnp.cos(w), 3), np.polynomial.Polynomial.fit(n, np.cos(n), 3)
    assert repr(fit) == repr(fitn) and type(fit) is wnp.polynomial.Polynomial
    same(wnp.polynomial.polynomial.polyfit(w, w ** 2, 2), np.polynomial.polynomial.polyfit(n, n ** 2, 2), scope)
    same(wnp.polynomial.chebyshev.chebval(w, [1, 2]), np.polynomial.chebyshev.chebval(n, [1, 2]), scope)
    assert repr(wnp.polynomial.Chebyshev([1, 2])) == repr(np.polynomial.Chebyshev([1, 2]))
    assert pickle.loads(pickle.dumps(p)) == p
    from wsarray.polynomial import polynomial as P

    assert P.polyval is wnp.polynomial.polynomial.polyval


def test_lib_format_array_utils_and_numpys_lib_helpers(scope):
    import io
    n = np.arange(12.0).reshape(3, 4)
    w = wnp.asarray(n)
    assert wnp.lib.format.MAGIC_PREFIX == np.lib.format.MAGIC_PREFIX
    buf_w, buf_n = io.BytesIO(), io.BytesIO()
    wnp.lib.format.write_array(buf_w, w)
    np.lib.format.write_array(buf_n, n)
    assert buf_w.getvalue() == buf_n.getvalue()
    buf_w.seek(0)
    same(wnp.lib.format.read_array(buf_w), n, scope)
    assert wnp.lib.format.header_data_from_array_1_0(w) == np.lib.format.header_data_from_array_1_0(n)
    lo, hi = wnp.lib.array_utils.byte_bounds(w)
    assert hi - lo == n.nbytes and lo == np.asarray(w).ctypes.data
    assert wnp.lib.array_utils.normalize_axis_index(-1, 3) == 2
    blocks = list(wnp.lib.Arrayterator(w, 5))
    assert all(type(b) is wnp.Array for b in blocks)
    assert np.concatenate([np.asarray(b).ravel() for b in blocks]).tolist() == n.ravel().tolist()
    assert wnp.lib.npyio.NpzFile is np.lib.npyio.NpzFile
    import importlib
    assert importlib.import_module("wsarray.lib.format") is wnp.lib.format


def test_reversed_iterates_like_numpy(scope):
    # reversed() takes the sequence protocol, as for ndarray (ML-From-Scratch's RNN layer uses it).
    w, n = wnp.arange(6).reshape(3, 2), np.arange(6).reshape(3, 2)
    assert [r.tolist() for r in reversed(w)] == [r.tolist() for r in reversed(n)]
    assert repr(list(reversed(wnp.arange(3)))) == repr(list(reversed(np.arange(3))))
    with raises_numpys(TypeError, r"len\(\) of unsized object", "ndarray.__len__"):
        reversed(wnp.asarray(1.0))


def test_functions_pickle_and_copy_as_numpys(scope):
    import copy
    import pickle
    # By name: the same object comes back (sklearn's clone checks `is` after deepcopy).
    for f in (wnp.sum, wnp.add, wnp.tanh, wnp.floor_divide, wnp.linalg.inv, wnp.fft.fft, wnp.random.normal):
        for back in (pickle.loads(pickle.dumps(f)), copy.deepcopy(f), copy.copy(f)):
            assert back is f
    # By value: a ufunc method, and a Generator's bound method with the generator's state.
    reduce_back = pickle.loads(pickle.dumps(wnp.add.reduce))
    assert type(reduce_back(wnp.arange(4))) is np.int64 and reduce_back(wnp.arange(4)) == 6
    rng, want = wnp.random.default_rng(3), np.random.default_rng(3)
    normal_back = pickle.loads(pickle.dumps(rng.normal))
    same(normal_back(size=3), want.normal(size=3), scope)
    same(rng.normal(size=3), np.random.default_rng(3).normal(size=3), scope)


def test_function_reprs_are_numpys():
    assert repr(wnp.add) == repr(np.add) == "<ufunc 'add'>"
    assert repr(wnp.floor_divide) == "<ufunc 'floor_divide'>"  # wsarray's own, NumPy's ufunc API
    assert repr(wnp.sum).startswith("<function sum at 0x") and repr(wnp.linalg.inv).startswith("<function inv at")
    assert repr({"act": wnp.tanh}) == repr({"act": np.tanh})
    assert repr(wnp.add.reduce).startswith("<built-in method reduce of numpy.ufunc object")


def test_function_objects_compare_as_numpys():
    import pickle
    assert wnp.add.reduce == wnp.add.reduce and hash(wnp.add.reduce) == hash(wnp.add.reduce)
    assert pickle.loads(pickle.dumps(wnp.add.reduce)) == wnp.add.reduce
    assert wnp.add.reduce != wnp.add.accumulate and wnp.sum != wnp.mean
    assert {wnp.sum: 1}[wnp.sum] == 1 and len({wnp.add, wnp.add, wnp.multiply}) == 2


@pytest.mark.parametrize("module", ["", "linalg", "fft"], ids=["numpy", "linalg", "fft"])
def test_signatures_bind_as_numpys(module):
    # Libraries bind arguments by the function's signature (inspect.signature(np.clip).bind(...)
    # then look up "a_min"): every parameter of NumPy's is wsarray's too, of the same kind, in the
    # same order, with NumPy's default; wsarray may add keyword-only ones (sort's `descending`).
    import inspect

    mine = wnp if not module else getattr(wnp, module)
    numpys = np if not module else getattr(np, module)
    checked = 0
    for name in dir(numpys):
        theirs = getattr(numpys, name)
        ours = getattr(mine, name, None)
        if name.startswith("_") or ours is theirs or not callable(theirs) or isinstance(theirs, type):
            continue
        try:
            want = inspect.signature(theirs)
        except (ValueError, TypeError):
            continue
        got = inspect.signature(ours)
        kept = [p for p in got.parameters.values() if p.kind is not p.KEYWORD_ONLY or p.name in want.parameters]
        assert [(p.name, p.kind) for p in kept] == [(p.name, p.kind) for p in want.parameters.values()], name
        for p in want.parameters.values():
            default = got.parameters[p.name].default
            same = default is p.default or default == p.default or (name, p.name) == ("pinv", "rtol")
            assert same or name == "show_config", (name, p.name, default, p.default)
        checked += 1
    assert checked > (150 if not module else 5)


@pytest.mark.parametrize("base", ["numpy", "wsarray"])
def test_a_subclass_gets_numpys_result_types_and_finalize_calls(base):
    # class Named(np.ndarray) with __array_finalize__ (python-control's NamedSignal): NumPy picks
    # result types by __array_priority__, so a subclass of wsarray.ndarray has NumPy's 0.0 unless
    # it sets one: np.concatenate of two gives a plain array, never a Named without its labels.
    parent = np.ndarray if base == "numpy" else wnp.ndarray
    finalized = []

    class Named(parent):
        def __array_finalize__(self, obj):
            finalized.append(obj is None)
            self.labels = getattr(obj, "labels", None)

    class Ranked(Named):
        __array_priority__ = 15.0

    class Inherits(Ranked):
        pass

    s = np.arange(3.0).view(Named)
    s.labels = "L"
    for xp in (np, wnp):
        r = xp.concatenate([s, s])
        assert type(r) is not Named and not hasattr(r, "labels")
        assert type(s * 2) is Named and (s * 2).labels == "L"
        assert type(xp.sin(s)) is Named and xp.sin(s).labels == "L"
    assert True not in finalized  # never made without a source
    assert s.__array_priority__ == 0.0
    assert (Ranked.__array_priority__, Inherits.__array_priority__) == (15.0, 15.0)
    assert type(np.concatenate([np.arange(2.0).view(Ranked)] * 2)) is Ranked


@pytest.mark.parametrize("module", ["", "linalg", "fft"], ids=["numpy", "linalg", "fft"])
def test_wrapped_and_source_as_numpys(module):
    # Libraries list NumPy's dispatched functions as "those with __wrapped__" and read their
    # source (unyt's and astropy's completeness tests): wsarray's answer as NumPy's do.
    import inspect

    mine, numpys = (wnp, np) if not module else (getattr(wnp, module), getattr(np, module))
    checked = 0
    for name in dir(numpys):
        ours, theirs = getattr(mine, name, None), getattr(numpys, name)
        if not isinstance(ours, wnp._native.Function):
            continue
        assert hasattr(ours, "__wrapped__") == hasattr(theirs, "__wrapped__"), name
        if hasattr(theirs, "__wrapped__"):
            assert ours.__wrapped__ is theirs.__wrapped__ and inspect.unwrap(ours) is inspect.unwrap(theirs)
            try:
                source = inspect.getsource(theirs)
            except (OSError, TypeError):
                continue
            assert inspect.getsource(ours) == source, name
            checked += 1
    assert checked > (100 if not module else 5)
    assert wnp.sort.__wsarray_runs__ is not np.sort  # the standard's sort, wsarray's own
    assert "descending" in inspect.signature(wnp.sort).parameters


def test_functions_are_instances_of_numpys_callable_classes():
    # isinstance(np.array, types.BuiltinFunctionType) (lmfit), inspect.isbuiltin(np.arange),
    # isinstance(np.add, np.ufunc): as NumPy's, while type() stays wsarray.Function.
    import inspect
    import types

    kinds = set()
    for name in dir(np):
        ours, theirs = getattr(wnp, name, None), getattr(np, name)
        if not isinstance(ours, wnp._native.Function):
            continue
        assert type(ours) is (wnp.ufunc if isinstance(theirs, np.ufunc) else wnp._native.Function), name
        assert inspect.isbuiltin(ours) == inspect.isbuiltin(theirs), name
        if isinstance(theirs, (np.ufunc, types.BuiltinFunctionType, type(np.concatenate))):
            assert isinstance(ours, type(theirs)), name
            kinds.add(type(theirs).__name__)
        else:  # NumPy's Python functions: a Function is no types.FunctionType (inspect would read it so)
            assert isinstance(theirs, types.FunctionType) and not isinstance(ours, types.FunctionType), name
    assert kinds == {"ufunc", "builtin_function_or_method", "_ArrayFunctionDispatcher"}
    # The class of wsarray's ufuncs is the swapped name np.ufunc (type(np.add) is np.ufunc, as
    # mygrad checks), a Function; NumPy's ufuncs, SciPy's special functions among them, are its
    # instances too, and nothing else is.
    import scipy.special

    assert issubclass(wnp.ufunc, wnp._native.Function) and wnp.ufunc.__module__ == "wsarray"
    assert isinstance(np.add, wnp.ufunc) and isinstance(scipy.special.gamma, wnp.ufunc)
    assert issubclass(np.ufunc, wnp.ufunc) and not isinstance(wnp.sum, wnp.ufunc) and not isinstance(len, wnp.ufunc)
    assert wnp.exp.__doc__ == np.exp.__doc__ and np.add.__module__ == "numpy" and not hasattr(np.add, "__slots__")
    assert np.asarray(wnp.add(wnp.ones(2), 1)).tolist() == [2.0, 2.0] and wnp.add.reduce(wnp.arange(4)) == 6
    # Read off the class, NumPy's names are numpy.ufunc's (NumPy's tests and inspect read them so);
    # NumPy's own ufuncs keep what they had: no __module__ of their own, pickled by reference.
    import pickle

    from numpy._core import _rational_tests

    assert wnp.ufunc.reduce is np.ufunc.reduce and wnp.ufunc.nin is np.ufunc.nin
    assert wnp.ufunc.__module__ == wnp.add.__module__ == "wsarray" and repr(wnp.ufunc) == "<class 'wsarray.ufunc'>"
    with pytest.raises(AttributeError, match="'numpy.ufunc' object has no attribute '__module__'"):
        _rational_tests.test_add.__module__
    for f in (_rational_tests.test_add, np.sin, wnp.sin, wnp.ufunc):
        assert pickle.loads(pickle.dumps(f)) is f
    assert isinstance(wnp.add.reduce, types.BuiltinMethodType) and inspect.isbuiltin(wnp.add.reduce)
    assert isinstance(wnp.linalg.norm, type(np.linalg.norm)) and not isinstance(wnp.sum, np.ufunc)
    # NumPy's functions that dispatch nothing, which wsarray implements itself: equal to NumPy's too.
    for ours, theirs in ((wnp.from_dlpack, np.from_dlpack), (wnp.fft.fftfreq, np.fft.fftfreq)):
        assert ours == theirs and hash(ours) == hash(theirs) and {theirs: 1}[ours] == 1
    assert isinstance(wnp.from_dlpack, types.BuiltinFunctionType)
    assert list(inspect.signature(wnp.from_dlpack).parameters) == ["x", "device", "copy"]


def test_functions_answer_numpys_private_and_builtin_attributes():
    # What NumPy's function has and wsarray's Function does not define (ufunc private methods,
    # a builtin's __self__) is NumPy's; names NumPy's lacks stay an AttributeError naming wsarray's.
    x = wnp.arange(3.0)
    assert wnp.array.__self__ is np.array.__self__ and not hasattr(wnp.sum, "__self__")
    dtypes = (np.dtype("f8"), np.dtype("i4"), None)
    assert wnp.add._resolve_dtypes_and_context(dtypes)[0] == np.add._resolve_dtypes_and_context(dtypes)[0]
    assert callable(wnp.multiply._get_strided_loop)
    assert np.asarray(wnp.add.reduce(x)) == 3.0
    for name in ("_no_such", "__no_such__"):
        with pytest.raises(AttributeError, match=f"wsarray.sum has no attribute '{name}'"):
            getattr(wnp.sum, name)
    assert all(hasattr(wnp.add, n) == hasattr(np.add, n) for n in dir(np.add))


def test_setting_a_functions_attribute_follows_numpys_function():
    # Read-only where NumPy's is (ufunc.nin, a builtin's __name__, no __dict__ on a builtin);
    # anything else, None included, is stored on wsarray's function, never on NumPy's.
    for ours, theirs, attr in ((wnp.add, np.add, "nin"), (wnp.add, np.add, "__name__"),
                               (wnp.array, np.array, "__doc__"), (wnp.array, np.array, "anything")):
        with pytest.raises(AttributeError) as want:
            setattr(theirs, attr, None)
        with pytest.raises(AttributeError) as got:
            setattr(ours, attr, None)
        assert str(got.value) == str(want.value)
    doc = wnp.sum.__doc__
    try:
        wnp.sum.__doc__ = None
        wnp.add.tag = None
        assert wnp.sum.__doc__ is None and wnp.add.tag is None and np.sum.__doc__ == doc
        assert not hasattr(np.add, "tag")
    finally:
        wnp.sum.__doc__ = doc
        del wnp.add.tag
    assert wnp.sum.__doc__ == doc
