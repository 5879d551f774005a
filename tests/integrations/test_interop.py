"""What other array libraries (Dask, CuPy, sparse, xarray) and distributed engines need of an
array type: NEP 13/18 deferral to their overrides, pickles that copy only workspace memory (and
hand a detached array's buffer out of band), empty arrays never attached, sys.getsizeof as
NumPy's, weak references."""
import gc
import pickle
import sys
import weakref

import numpy as np
import pytest

import wsarray as wnp


class Foreign:
    """Another library's array: it overrides ufuncs and functions and records what it was given."""

    seen = []

    def __init__(self, value=1.0):
        self.value = value

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        Foreign.seen.append(("ufunc", ufunc.__name__, tuple(type(x) for x in inputs)))
        return "foreign ufunc"

    def __array_function__(self, func, types, args, kwargs):
        Foreign.seen.append(("function", func.__name__, tuple(types)))
        return "foreign function"

    def __radd__(self, other):
        Foreign.seen.append(("radd", type(other)))
        return "foreign radd"

    __add__ = __radd__


@pytest.fixture(autouse=True)
def _clear_seen():
    Foreign.seen.clear()
    yield


@pytest.mark.parametrize("inside", [False, True])
def test_operators_defer_to_another_librarys_array(inside):
    with wnp.workspace("INTEROP") if inside else wnp.scope_out():
        # NumPy's rule (NEP 13): an operand that defines __array_ufunc__ gets the ufunc call, with
        # the operands in their order, the Array itself among them.
        w = wnp.arange(3.0)
        assert w + Foreign() == np.arange(3.0) + Foreign() == "foreign ufunc"
        assert Foreign.seen == [("ufunc", "add", (wnp.Array, Foreign)), ("ufunc", "add", (np.ndarray, Foreign))]


def test_numpy_ufuncs_and_functions_let_the_other_library_handle_both():
    w = wnp.arange(3.0)
    assert np.add(w, Foreign()) == "foreign ufunc"
    assert Foreign.seen[-1] == ("ufunc", "add", (wnp.Array, Foreign))
    assert np.concatenate([Foreign(), w]) == "foreign function"
    assert Foreign.seen[-1][0] == "function" and wnp.Array in Foreign.seen[-1][2]


def test_wsarray_functions_defer_too():
    w = wnp.arange(3.0)
    assert wnp.add(w, Foreign()) == "foreign ufunc"
    assert Foreign.seen[-1] == ("ufunc", "add", (wnp.Array, Foreign))
    assert wnp.concatenate([w, Foreign()]) == "foreign function"


def test_numpys_own_subclasses_still_take_numpys_path():
    m = np.ma.array([1.0, 2.0], mask=[0, 1])
    r = wnp.add(wnp.asarray([1.0, 1.0]), m)
    assert type(r) is np.ma.MaskedArray and r.mask.tolist() == [False, True]


def test_a_detached_array_pickles_its_buffer_out_of_band_without_a_copy():
    x = wnp.arange(100_000.0)
    buffers = []
    data = pickle.dumps(x, protocol=5, buffer_callback=buffers.append)
    assert len(data) < 1000 and len(buffers) == 1
    assert np.shares_memory(np.asarray(buffers[0]), np.asarray(x))
    back = pickle.loads(data, buffers=buffers)
    assert type(back) is wnp.Array and float(back.sum()) == float(x.sum())
    assert float(pickle.loads(pickle.dumps(x)).sum()) == float(x.sum())  # protocol 4: in band


def test_a_workspace_array_pickles_a_copy():
    with wnp.workspace("PICKLE5"):
        x = wnp.arange(1000.0)
        buffers = []
        data = pickle.dumps(x, protocol=5, buffer_callback=buffers.append)
        assert not np.shares_memory(np.asarray(buffers[0]), np.asarray(x))
    back = pickle.loads(data, buffers=buffers)
    assert float(back.sum()) == 499500.0 and not back.is_attached()


def test_empty_arrays_are_never_attached():
    with wnp.workspace("EMPTY"):
        meta = wnp.ones((0, 3))
        view = wnp.arange(5.0)[5:]
        full = wnp.ones(2)
        assert not meta.is_attached() and not view.is_attached() and full.is_attached()
    assert meta.shape == (0, 3) and float(meta.sum()) == 0.0  # usable after the cycle
    assert view.size == 0 and repr(view) == repr(np.arange(5.0)[5:])


@pytest.mark.parametrize("make", [lambda m: m.ones((3, 4)), lambda m: m.arange(10.0)[::2],
                                  lambda m: m.zeros(0), lambda m: m.ones(10).sum()])
def test_getsizeof_counts_the_buffer_as_numpy_does(make):
    with wnp.workspace("SIZEOF"):
        w = make(wnp)
        assert sys.getsizeof(w) == sys.getsizeof(make(np))


def test_arrays_can_be_weakly_referenced():
    a = wnp.ones(3)
    dead = []
    ref = weakref.ref(a, lambda r: dead.append(1))
    assert ref() is a
    cache = weakref.WeakValueDictionary({"a": a})
    assert cache["a"] is a
    del a
    gc.collect()
    assert ref() is None and dead == [1] and "a" not in cache
    for _ in range(100):  # instances are pooled: a reused one starts without weak references
        b = wnp.arange(4.0)
        assert weakref.getweakrefcount(b) == 0
        weakref.ref(b)
