"""Objects that wrap arrays (a unit, a box, a lazy array) work with wsarray as with NumPy: they
convert through __array__, NumPy's dispatch (NEP 13/18) reaches their overrides from every
wsarray function, and the functions handed to them compare equal to wsarray's of the same name."""

import numpy as np
import pytest

import wsarray as wnp

HANDLED = {}


class Wrapper:
    """A minimal wrapper as libraries write it: keyed by the function objects it implements."""

    def __init__(self, value):
        self.value = value

    def __array__(self, dtype=None, copy=None):
        return self.value if dtype is None else self.value.astype(dtype)

    def __array_function__(self, func, types, args, kwargs):
        if func in HANDLED:
            return HANDLED[func](*args, **kwargs)
        return ("function", func, types)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return ("ufunc", ufunc, method)


def implements(func):
    def register(impl):
        HANDLED[func] = impl
        return impl

    return register


@pytest.mark.parametrize("xp", [np, wnp], ids=["numpy", "wsarray"])
def test_wrapper_of_a_wsarray_array_converts(xp):
    w = Wrapper(wnp.arange(3.0))
    for convert in (wnp.asarray, np.asarray, wnp.array, np.array):
        got = convert(w)
        assert isinstance(got, np.ndarray) and got.tolist() == [0.0, 1.0, 2.0]
    assert type(wnp.asarray(w)) is wnp.Array
    assert xp.asarray(w, dtype=np.int64).tolist() == [0, 1, 2]


@pytest.mark.parametrize("xp", [np, wnp], ids=["numpy", "wsarray"])
def test_asarray_of_a_wrapper_is_the_array_its_array_method_gives(xp):
    # NumPy returns what __array__ gave, itself, when it is the array asked for (mygrad's tensors
    # rely on `np.asarray(t) is t.data` and on views keeping their base): so does wsarray.
    class Wrapper:
        def __init__(self, value):
            self.value = value

        def __array__(self, dtype=None, copy=None):
            return self.value

    a = xp.arange(4.0)
    view = a[1:]
    for convert in (xp.asarray, xp.asanyarray):
        assert convert(Wrapper(a)) is a and convert(Wrapper(view)) is view
        assert convert(Wrapper(view)).base is a
        assert convert(Wrapper(a), dtype=np.float64) is a and convert(Wrapper(a), dtype=None) is a
        cast = convert(Wrapper(a), dtype=np.float32)
        assert cast.dtype == np.float32 and cast.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert type(xp.asarray(Wrapper(np.arange(2.0)))) is xp.ndarray

    class NotAnArray:
        def __array__(self, dtype=None, copy=None):
            return [1, 2]

    with pytest.raises(ValueError, match="^object __array__ method not producing an array$"):
        xp.asarray(NotAnArray())
    if xp is wnp:
        with wnp.workspace("WRAPPED"):
            inner = wnp.ones(2) + 1
        with pytest.raises(wnp.WorkspaceError, match="WRAPPED"):
            wnp.asarray(Wrapper(inner))


@pytest.mark.parametrize("name", ["sort", "argsort", "clip", "concatenate", "mean", "unique_values", "cumulative_sum",
                                  "matrix_transpose", "vecdot", "linalg.norm", "fft.fft", "astype", "isdtype"])
def test_every_function_hands_the_wrapper_numpys_function(name):
    def lookup(module):
        for part in name.split("."):
            module = getattr(module, part)
        return module

    mine, numpys = lookup(wnp), lookup(np)
    w = Wrapper(wnp.arange(4.0))
    args = {"clip": (w, 0, 1), "concatenate": ([w, w],), "vecdot": (w, w), "astype": (w, "f4"),
            "isdtype": (w, "real floating")}.get(name, (w,))
    if name == "isdtype":  # takes dtypes, not arrays: nothing to dispatch (as NumPy)
        pytest.skip("isdtype takes no arrays")
    got = mine(*args)
    want = numpys(*args)  # ("function", func, types), or ("ufunc", ufunc, method) for vecdot
    assert got[0] == want[0] and got[2] == want[2]
    assert got[1] is numpys  # NumPy's own function, which NumPy's dispatch hands over
    assert got[1] == mine and hash(got[1]) == hash(mine)  # ... equal to wsarray's (dict keys)


def test_functions_keyed_by_wsarray_functions_are_found():
    @implements(wnp.sort)  # a library swapped to wsarray registers wsarray's functions
    def sort(w, axis=-1):
        return "sorted by the wrapper"

    @implements(np.clip)  # an unswapped one NumPy's
    def clip(w, a_min=None, a_max=None):
        return "clipped by the wrapper"

    w = Wrapper(wnp.arange(3.0))
    assert wnp.sort(w) == np.sort(w) == "sorted by the wrapper"
    assert wnp.clip(w, 0, 1) == np.clip(w, 0, 1) == "clipped by the wrapper"
    assert wnp.sin(w) == ("ufunc", np.sin, "__call__") and wnp.sin == np.sin
    assert wnp.add(w, wnp.ones(3)) == ("ufunc", np.add, "__call__")


def test_bound_methods_are_named_as_numpys():
    a = wnp.ones(2)
    for name in ("squeeze", "sum", "reshape", "argsort", "fill", "astype", "tolist"):
        method, numpys = getattr(a, name), getattr(np.ones(2), name)
        assert method.__name__ == numpys.__name__ == name
        assert method.__self__ is a and callable(method)
        assert method.__qualname__ == "ndarray." + name and numpys.__qualname__ == "ndarray." + name


def _functions_of(module, numpy_module):
    for name in dir(numpy_module):
        if name.startswith("_"):
            continue
        ours, numpys = getattr(module, name, None), getattr(numpy_module, name)
        if isinstance(ours, wnp._native.Function):
            yield name, ours, numpys


@pytest.mark.parametrize("module", ["", "linalg", "fft", "random", "char", "strings", "emath"])
def test_functions_bind_as_class_attributes_as_numpys_do(module):
    # `class Ops: concat = np.concatenate`: NumPy's dispatchers and Python functions bind to an
    # instance (Ops().concat is a method), its ufuncs and builtins do not; inspect agrees.
    import inspect
    import types

    ours_mod = wnp if not module else getattr(wnp, module)
    numpy_mod = np if not module else getattr(np, module)
    checked = 0
    for name, ours, numpys in _functions_of(ours_mod, numpy_mod):
        owner = type("Owner", (), {"ours": ours, "numpys": numpys})()
        numpy_binds = isinstance(owner.numpys, types.MethodType) and owner.numpys.__self__ is owner
        ours_bound = owner.ours
        assert (isinstance(ours_bound, types.MethodType) and ours_bound.__self__ is owner) == numpy_binds, name
        if not numpy_binds:
            assert ours_bound is ours, name
        else:
            assert ours_bound.__func__ is ours and inspect.isroutine(ours), name
        assert type(owner).ours is ours, name  # through the class: the function itself
        checked += 1
    assert checked > (300 if not module else 3)


def test_a_bound_function_calls_with_the_instance_first():
    class Ops:
        concatenate = wnp.concatenate
        add = wnp.add

    class Parts(list):
        pass

    ops = Parts([wnp.ones(2), wnp.zeros(1)])
    ops.__class__ = type("PartsOps", (Parts, Ops), {})
    joined = ops.concatenate()  # concatenate(ops): the instance is the sequence
    assert type(joined) is wnp.ndarray and joined.tolist() == [1.0, 1.0, 0.0]
    assert Ops().add(1, 2) == 3  # a ufunc does not bind


def test_attributes_can_be_set_on_functions_as_on_numpys():
    # scikit-rf renames np.max/np.min (`max.__name__ = "max"`) to name properties after them;
    # decorators mark functions; functools.wraps copies their __dict__.
    import functools

    f = wnp.nanmax
    try:
        f.__name__ = "largest"
        f.__doc__ = "The largest element."
        f.marker = ("tag", 1)
        assert (wnp.nanmax.__name__, wnp.nanmax.__doc__, wnp.nanmax.marker) == (
            "largest", "The largest element.", ("tag", 1))
        assert wnp.nanmax.__dict__ == {"__name__": "largest", "__doc__": "The largest element.",
                                       "marker": ("tag", 1)}

        @functools.wraps(wnp.nanmax)
        def wrapper(x):
            return wnp.nanmax(x)

        assert wrapper.__name__ == "largest" and wrapper.marker == ("tag", 1)
        assert wnp.nanmax(wnp.asarray([1.0, np.nan, 3.0])) == 3.0  # still the function
        del f.marker
        with pytest.raises(AttributeError, match="wsarray.nanmax has no attribute 'marker'"):
            f.marker
        with pytest.raises(AttributeError, match="has no attribute 'marker'"):
            del f.marker
        with pytest.raises(TypeError, match="__class__ cannot be set"):
            f.__class__ = type(wnp.sum)
    finally:
        for name in ("__name__", "__doc__", "marker"):
            f.__dict__.pop(name, None)
    assert wnp.nanmax.__name__ == "nanmax" and "Return the maximum" in wnp.nanmax.__doc__
    np_max = np.nanmax
    assert np_max.__name__ == "nanmax"  # NumPy's own function was not touched


@pytest.mark.parametrize("name", ["concatenate", "sum", "asarray_chkfinite", "linspace", "polyfit"])
def test_introspection_attributes_are_numpys(name):
    # typing.get_type_hints(), argument introspection (f.__code__.co_varnames, __defaults__).
    import typing

    ours, numpys = getattr(wnp, name), getattr(np, name)
    for attr in ("__defaults__", "__kwdefaults__", "__code__", "__annotations__"):
        assert hasattr(ours, attr) == hasattr(numpys, attr), attr
        if hasattr(numpys, attr):
            assert getattr(ours, attr) == getattr(numpys, attr), attr

    def hints(f):
        try:
            return typing.get_type_hints(f)
        except TypeError as e:  # NumPy's C dispatchers are neither functions nor classes
            return type(e)

    assert hints(ours) == hints(numpys)


class Duck:
    """An object with methods of NumPy's names and no NumPy protocol: NumPy calls the methods."""

    def clip(self, a_min, a_max, out=None, **kwargs):
        return ("clip", a_min, a_max, out)

    def argsort(self, axis=-1, kind=None, order=None, stable=None):
        return ("argsort", axis, kind, order, stable)


def test_functions_call_an_objects_own_method_as_numpy_does():
    # NumPy's np.clip/np.argsort call x.clip/x.argsort on objects that have them (its _wrapfunc):
    # a pandas Series or DataFrame stays one.
    pd = pytest.importorskip("pandas")
    s, df = pd.Series([3.0, -1.0, 2.0, 2.0]), pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, -4.0]})
    for xp_call in (lambda xp: xp.clip(s, 0, 1), lambda xp: xp.clip(df, 0, 1), lambda xp: xp.argsort(s),
                    lambda xp: xp.clip(s, a_min=0, a_max=1)):
        got, want = xp_call(wnp), xp_call(np)
        assert type(got) is type(want)
        assert got.equals(want)
    assert wnp.clip(Duck(), 0, 1) == np.clip(Duck(), 0, 1) == ("clip", 0, 1, None)
    assert wnp.argsort(Duck(), axis=0) == np.argsort(Duck(), axis=0) == ("argsort", 0, None, None, None)
    # Lists, NumPy scalars and arrays are still wsarray's (the standard's bounds and stability).
    assert type(wnp.clip([3, -1], 0, 1)) is wnp.ndarray and wnp.clip(np.float64(3), 0, 1) == 1
    assert wnp.argsort(wnp.asarray([2, 1, 1]), descending=True).tolist() == [0, 1, 2]
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'a_max'"):
        wnp.clip(s, a_min=0)


def test_ndarray_methods_can_be_wrapped_with_functools():
    # ASE forwards ndarray's methods with functools.update_wrapper(f, np.ndarray.__iadd__): their
    # __name__ and __qualname__ must be strings, NumPy's ("ndarray.__iadd__").
    import functools

    for name in dir(np.ndarray):
        if name == "__new__":
            continue
        ours, numpys = getattr(wnp.ndarray, name), getattr(np.ndarray, name)
        if not callable(numpys) or name == "__class__":
            continue
        f = functools.update_wrapper(lambda *a: None, ours)
        assert (f.__name__, f.__qualname__) == (numpys.__name__, numpys.__qualname__), name
        if numpys.__doc__:
            assert f.__doc__, name
