"""Regressions of the long tail NumPy's own test suite found (issue 23, bench/numpy_suite_findings.md,
"What is left"): a.flat with wsarray indices, memoryviews of structured arrays, numpy.ma with wsarray
outputs, wsarray.random's leftovers, NumPy's scalar constructors given results. Each compares with
NumPy's result, or NumPy's error class and message."""

import pickle
import warnings

import numpy as np
import pytest

import wsarray as wnp


# The workspace of the `scope` fixture (conftest.py).
SCOPE_WORKSPACE = "DROPIN_TAIL"


# ---- a.flat (C22) ------------------------------------------------------------------------------

FLAT_INDICES = [
    lambda xp: xp.arange(9) % 2 == 0,            # boolean mask
    lambda xp: xp.asarray([1, 0, 7]),            # integer array
    lambda xp: xp.asarray([[1, 2], [3, 8]]),     # 2-d integer array
    lambda xp: [True, 1],                        # list, mixed
    lambda xp: 4, lambda xp: -1, lambda xp: slice(1, None, 3), lambda xp: Ellipsis, lambda xp: (),
]


@pytest.mark.parametrize("make_index", FLAT_INDICES)
def test_flat_indexing_with_wsarray_indices_as_numpy(make_index, scope):
    ref = np.arange(9.0).reshape(3, 3)
    w = wnp.asarray(ref)
    want = ref.flat[make_index(np)]
    got = w.flat[make_index(wnp)]
    assert type(got) is type(want) if np.isscalar(want) else type(got) is wnp.Array
    np.testing.assert_array_equal(np.asarray(got), want)
    try:
        ref.flat[make_index(np)] = -1
    except IndexError as e:  # NumPy refuses some (a 0-d index): the same error
        with pytest.raises(IndexError, match=str(e)):
            w.flat[make_index(wnp)] = wnp.asarray(-1.0)
    else:
        w.flat[make_index(wnp)] = wnp.asarray(-1.0)
    np.testing.assert_array_equal(np.asarray(w), ref)


def test_flat_errors_as_numpy():
    for xp in (np, wnp):
        a = xp.arange(9)
        with pytest.raises(IndexError, match="boolean index did not match indexed flat iterator"):
            a.flat[xp.zeros(10, dtype=bool)]
        with pytest.raises(IndexError, match="boolean indices for iterators are not supported"):
            a.flat[[True, True]]
        with pytest.raises(IndexError):
            a.flat[9]


def test_flat_iterates_and_keeps_numpys_attributes(scope):
    ref = np.arange(6).reshape(2, 3)
    w = wnp.asarray(ref)
    f, g = w.flat, ref.flat
    assert isinstance(f, np.flatiter) and f.base is w and len(f) == len(g) == 6
    assert [next(f), next(f)] == [next(g), next(g)]
    assert (f.index, f.coords) == (g.index, g.coords) == (2, (0, 2))
    assert f[4] == g[4] and f.index == g.index == 0  # indexing resets the iterator, as NumPy's
    assert list(w.flat) == list(ref.flat)
    copied = f.copy()
    assert type(copied) is wnp.Array
    np.testing.assert_array_equal(np.asarray(copied), g.copy())
    np.testing.assert_array_equal(np.asarray(w.flat), np.asarray(ref.flat))
    np.testing.assert_array_equal(np.asarray(w.flat == 3), ref.flat == 3)
    np.testing.assert_array_equal(np.asarray(w.flat < wnp.asarray(3)), ref.flat < 3)
    w.flat = 7
    assert (np.asarray(w) == 7).all()


def test_flat_is_numpys_iterator_over_the_array_and_checked_when_taken():
    with wnp.workspace("DROPIN_TAIL_FLAT"):
        a = wnp.arange(6.0).reshape(2, 3)
        f = a.flat
        assert type(f) is np.flatiter and f.base is a and f[wnp.asarray([1, 4])].tolist() == [1.0, 4.0]
        f[(a > 3).ravel()] = 0.0
        assert a.tolist() == [[0.0, 1.0, 2.0], [3.0, 0.0, 0.0]]
    with pytest.raises(wnp.WorkspaceError, match="ndarray.flat"):
        a.flat
    # An iterator taken during the cycle is NumPy's C object: like a raw view, it reads the
    # array's own memory (never reused while the Array lives), unchecked.
    assert f[1] == 1.0


# ---- buffers of structured arrays (C15) --------------------------------------------------------

ROUND_TRIP_DTYPES = [
    np.dtype([("a", "i4"), ("s", "U3")]), np.dtype([("a", ("i", (2, 2)))]),
    np.dtype([("a", "b"), ("b", "i"), ("sub", np.dtype("b,i")), ("c", "i")], align=True),
    np.dtype({"f0": (int, 3)}), np.dtype([("x", [("y", "i2")])]),
]


@pytest.mark.parametrize("dtype", ROUND_TRIP_DTYPES, ids=str)
def test_structured_buffer_exported_as_numpy_where_it_round_trips(dtype, scope):
    ref = np.arange(2 * dtype.itemsize, dtype=np.int8).view(dtype)
    w = wnp.asarray(ref.copy())
    got, want = memoryview(w), memoryview(ref)
    assert (got.format, got.itemsize, got.shape, got.strides) == (want.format, want.itemsize, want.shape,
                                                                  want.strides)
    back = np.asarray(got)
    # (padding bytes are not copied into the workspace: compare the fields)
    assert back.dtype == dtype
    np.testing.assert_array_equal(back, ref)
    assert np.shares_memory(back, w.__array__())


def test_structured_buffer_refused_as_numpy_refuses():
    dt = np.dtype({"formats": ["<i4", "<i4"], "names": ["one", "two"], "offsets": [4, 0], "itemsize": 8})
    with pytest.raises(ValueError) as want:
        memoryview(np.empty(1, dt))
    with pytest.raises(ValueError, match=str(want.value)):
        memoryview(wnp.empty(1, dt))
    assert np.asarray(wnp.empty(1, dt)).dtype == dt  # converts through __array__ all the same


# ---- wsarray.random's leftovers ----------------------------------------------------------------

@pytest.mark.parametrize("kind", ["Generator", "RandomState"])
def test_random_pickles_as_numpy(kind, scope):
    make = {"Generator": lambda m: m.Generator(m.PCG64DXSM(3)), "RandomState": lambda m: m.RandomState(3)}[kind]
    w, ref = make(wnp.random), make(np.random)
    w.random(4), ref.random(4)
    want_next = pickle.loads(pickle.dumps(ref)).random(3)
    back = pickle.loads(pickle.dumps(w))
    assert type(back) is type(w)
    got = back.random(3)
    assert type(got) is wnp.Array
    np.testing.assert_array_equal(np.asarray(got), want_next)
    # NumPy's reduce: (constructor, (bit generator,), state); an old-style pickle names the generator
    ctor, args, state = w.__reduce__()
    want_ctor, want_args, want_state = ref.__reduce__()
    assert type(args[0]).__name__ == type(want_args[0]).__name__ and type(state) is type(want_state)
    old = ctor(type(args[0]).__name__)
    assert type(old) is type(w)
    if kind == "Generator":
        old.bit_generator.state = args[0].state
    else:
        old.set_state(state)
    np.testing.assert_array_equal(np.asarray(old.random(3)), want_next)
    # Pickles of earlier wsarray versions: the state was NumPy's object itself.
    older = make(wnp.random)
    older.__setstate__(pickle.loads(pickle.dumps(ref)))
    np.testing.assert_array_equal(np.asarray(older.random(3)), want_next)


def test_random_state_getstate_is_numpys():
    w, ref = wnp.random.RandomState(7), np.random.RandomState(7)
    got, want = w.__getstate__(), ref.__getstate__()
    assert got["bit_generator"] == want["bit_generator"] == "MT19937"
    np.testing.assert_array_equal(got["state"]["key"], want["state"]["key"])
    first = w.standard_normal()
    w.__setstate__(got)
    assert w.standard_normal() == first


def test_random_isinstance_accepts_numpys_own():
    assert isinstance(np.random.default_rng(), wnp.random.Generator)
    assert isinstance(np.random.RandomState(), wnp.random.RandomState)
    assert not isinstance(np.random.RandomState(), wnp.random.Generator)
    wrapped = wnp.random.default_rng(np.random.default_rng(1))
    assert type(wrapped) is wnp.random.Generator and type(wrapped.random(2)) is wnp.Array


@pytest.mark.parametrize("make", [lambda m: m, lambda m: m.RandomState(5), lambda m: m.default_rng(5)],
                         ids=["global", "RandomState", "Generator"])
def test_shuffle_warning_names_the_callers_line(make):
    values, want_values = ({i: i for i in range(9)} for _ in range(2))
    np.random.seed(5)
    with pytest.warns(UserWarning, match="you are shuffling a 'dict' object") as want:
        make(np.random).shuffle(want_values)
    np.random.seed(5)
    with pytest.warns(UserWarning) as got:
        make(wnp.random).shuffle(values)
    assert len(got) == 1 and str(got[0].message) == str(want[0].message)
    assert got[0].filename == __file__
    assert values == want_values  # the same swaps
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy asks for the length first: its error, no warning
        with pytest.raises(TypeError, match="object of type 'int' has no len"):
            make(wnp.random).shuffle(3)


# ---- a.strides = ..., sort's argument checks -----------------------------------------------------

def test_strides_settable_as_numpy(scope):
    for xp in (np, wnp):
        a = xp.arange(6, dtype="i8").reshape(2, 3)
        with pytest.warns(DeprecationWarning, match="Setting the strides on a NumPy array") as rec:
            a.strides = (8, 16)
        assert rec[0].filename == __file__
        assert a.strides == (8, 16) and a.tolist() == [[0, 2, 4], [1, 3, 5]]
        with pytest.raises(ValueError, match="strides is not compatible with available memory"), \
                pytest.warns(DeprecationWarning):
            a.strides = (100, 8)
    assert wnp.sum(wnp.arange(3.0)).strides == ()


@pytest.mark.parametrize("name", ["sort", "argsort"])
def test_sort_kind_and_stable_refused_as_numpy(name):
    a = [3.0, 1.0, 2.0]
    for stable in (True, False):
        with pytest.raises(ValueError) as want:
            getattr(np, name)(np.asarray(a), kind="stable", stable=stable)
        with pytest.raises(ValueError, match="^" + str(want.value).replace(".", r"\.") + "$"):  # NumPy's words
            getattr(wnp, name)(wnp.asarray(a), kind="stable", stable=stable)
    for kw in ({}, {"kind": "stable"}, {"stable": True}, {"stable": False}):
        np.testing.assert_array_equal(np.asarray(getattr(wnp, name)(wnp.asarray(a), **kw)),
                                      getattr(np, name)(np.asarray(a)))


# ---- single checks: resize with weak references, deprecated aliases, __array_function__ ----------

def test_resize_refused_while_weakly_referenced_as_numpy(scope):
    import weakref

    for xp in (np, wnp):
        x = xp.zeros(3)
        ref = weakref.ref(x)
        with pytest.raises(ValueError, match="cannot resize an array that references or is referenced"):
            x.resize((5, 1))
        del ref
        x.resize((5, 1))
        assert x.shape == (5, 1)


@pytest.mark.parametrize("use", [lambda xp: xp.finfo(None), lambda xp: xp.chararray, lambda xp: xp.lib.math],
                         ids=["finfo(None)", "chararray", "lib.math"])
def test_deprecated_aliases_warn_as_numpy(use):
    with pytest.warns(DeprecationWarning) as want:
        expected = use(np)
    with pytest.warns(DeprecationWarning) as got:
        result = use(wnp)
    assert str(got[0].message) == str(want[0].message) and got[0].filename == __file__
    if isinstance(expected, np.finfo):
        assert result.dtype == expected.dtype and result.eps == expected.eps
    else:
        assert result is expected


def test_array_function_method_as_numpys():
    a, n = wnp.asarray([1, 2]), np.asarray([1, 2])
    got = a.__array_function__(func=np.reshape, types=(np.ndarray,), args=(a, (2, 1)), kwargs={})
    assert type(got) is wnp.Array
    np.testing.assert_array_equal(np.asarray(got), np.reshape(n, (2, 1)))
    got = a.__array_function__(func=lambda x: x * 2, types=(np.ndarray,), args=(a,), kwargs={})
    np.testing.assert_array_equal(np.asarray(got), n * 2)

    class Other:
        pass

    assert a.__array_function__(func=np.reshape, types=(np.ndarray, Other), args=(a,), kwargs={}) \
        is NotImplemented
    for x in (n, a):
        with pytest.raises(TypeError, match="args must be a tuple"):
            x.__array_function__(np.reshape, (np.ndarray,), x, (2, 1))
        with pytest.raises(TypeError, match="kwargs must be a dict"):
            x.__array_function__(np.reshape, (np.ndarray,), (x,), (2, 1))


def _user_seed_sequences(xp):
    """A user's non-spawnable and spawnable ISeedSequence whose states come from ``xp``."""
    from numpy.random.bit_generator import ISeedSequence, ISpawnableSeedSequence

    class Plain:
        def generate_state(self, n_words, dtype=np.uint32):
            return xp.arange(n_words, dtype=dtype) + 1

    class Spawnable(Plain):
        def __init__(self, k=0):
            self.k = k

        def generate_state(self, n_words, dtype=np.uint32):
            return xp.arange(n_words, dtype=dtype) + self.k + 1

        def spawn(self, n_children):
            return [Spawnable(self.k + i + 1) for i in range(n_children)]

    ISeedSequence.register(Plain)
    ISpawnableSeedSequence.register(Spawnable)
    return Plain, Spawnable


def test_user_seed_sequence_returning_wsarray_arrays_seeds_as_numpy(scope):
    plain, spawnable = _user_seed_sequences(wnp)
    np_plain, np_spawnable = _user_seed_sequences(np)
    got = wnp.random.default_rng(plain()).random(4)
    assert type(got) is wnp.Array
    np.testing.assert_array_equal(np.asarray(got), np.random.default_rng(np_plain()).random(4))
    assert wnp.random.PCG64(plain()).random_raw() == np.random.PCG64(np_plain()).random_raw()
    kids = wnp.random.default_rng(spawnable()).spawn(2)
    np_kids = np.random.default_rng(np_spawnable()).spawn(2)
    assert [k.random() for k in kids] == [k.random() for k in np_kids]
    # a non-spawnable one refuses spawning with NumPy's error
    for spawn in (wnp.random.default_rng(plain()).spawn, wnp.random.default_rng(plain()).bit_generator.spawn):
        with pytest.raises(TypeError, match="The underlying SeedSequence does not implement spawning"):
            spawn(2)
    with pytest.raises(TypeError, match="The underlying SeedSequence does not implement spawning"):
        np.random.default_rng(np_plain()).spawn(2)


# ---- operators defer as ndarray's (__array_priority__, in-place overrides) -------------------------

class _HighPriority:
    """No __array_ufunc__, a higher __array_priority__ than an ndarray's: NumPy defers to it."""

    __array_priority__ = 1000.0

    def _answer(self, other):
        return "deferred"

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __pow__ = __rpow__ = _answer
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _answer
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = _answer
    __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = __matmul__ = __rmatmul__ = _answer


class _LowPriority(_HighPriority):
    __array_priority__ = -1.0


OPERATORS = ["add", "sub", "mul", "pow", "truediv", "floordiv", "mod", "and_", "or_", "xor", "lshift",
             "rshift", "matmul"]


@pytest.mark.parametrize("name", OPERATORS)
def test_operators_defer_to_higher_array_priority_as_numpy(name, scope):
    import operator

    op = getattr(operator, name)
    for xp in (np, wnp):
        a = xp.arange(1, 3)
        assert op(a, _HighPriority()) == "deferred" and op(_HighPriority(), a) == "deferred"
    # A lower priority: NumPy keeps the operation (the object as an object array's element)
    try:
        want = op(np.arange(1, 3), _LowPriority())
    except (TypeError, ValueError) as e:  # matmul: NumPy's error, the same
        with pytest.raises(type(e)):
            op(wnp.arange(1, 3), _LowPriority())
    else:
        got = op(wnp.arange(1, 3), _LowPriority())
        assert type(got) is wnp.Array and got.tolist() == want.tolist()


def test_inplace_operator_returns_an_overrides_result_as_numpy(scope):
    from numpy.lib.mixins import NDArrayOperatorsMixin

    class Wrapped(NDArrayOperatorsMixin):
        def __init__(self, value):
            self.value = value

        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            inputs = [x.value if isinstance(x, Wrapped) else x for x in inputs]
            return Wrapped(getattr(ufunc, method)(*inputs))

    for xp in (np, wnp):
        a = xp.asarray([0, 1])
        a += Wrapped(1)
        assert type(a) is Wrapped
        np.testing.assert_array_equal(np.asarray(a.value), [1, 2])
    b = wnp.asarray([0, 1])
    before = b
    b += 1  # no override: the Array itself, written in place
    assert b is before and b.tolist() == [1, 2]


# ---- floor_divide.at agrees with floor_divide (the standard's special cases) ---------------------

@pytest.mark.parametrize("dtype", ["f8", "f4", "i8"])
def test_floor_divide_at_agrees_with_floor_divide(dtype, scope):
    rng = np.random.default_rng(3)
    index = rng.integers(0, 20, size=60)
    values = np.arange(60, dtype=dtype) - 5  # zeros among them: x // 0, then inf // x (floats)
    at = wnp.ones(20, dtype=dtype)
    loop = wnp.ones(20, dtype=dtype)
    with np.errstate(all="ignore"):
        wnp.floor_divide.at(at, wnp.asarray(index), wnp.asarray(values))
        for i, v in zip(index, values):
            loop[i] = wnp.floor_divide(loop[i], v)
        if dtype == "i8":  # no special cases: NumPy's own at
            ref = np.ones(20, dtype=dtype)
            np.floor_divide.at(ref, index, values)
            np.testing.assert_array_equal(np.asarray(at), ref)
    np.testing.assert_array_equal(np.asarray(at), np.asarray(loop))
    # the special cases themselves: inf // 2 is inf, 1 // -inf is -0.0 (NumPy: nan, -1)
    if dtype != "i8":
        x = wnp.asarray([np.inf, 1.0, 7.0], dtype=dtype)
        wnp.floor_divide.at(x, [0, 1, 2, 2], wnp.asarray([2.0, -np.inf, 2.0, 2.0], dtype=dtype))
        assert np.asarray(x).tolist() == [np.inf, -0.0, 1.0] and np.signbit(np.asarray(x)[1])
        m = wnp.ones((2, 3))
        wnp.floor_divide.at(m, (wnp.asarray([0, 1]), wnp.asarray([2, 2])), np.inf)
        assert np.asarray(m).tolist() == [[1, 1, 0], [1, 1, 0]]


def test_flat_from_many_threads_at_once():
    # NumPy's test_parallel_flat_iterator: threads that meet a.flat at the same moment (it hung
    # when the first a.flat imported wsarray._flatiter under a C++ static's guard).
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import threading
        import wsarray as np
        x = np.arange(20).reshape(5, 4).T
        want = list(np.asarray(x).flat)
        barrier = threading.Barrier(8)
        errors = []
        def work():
            try:
                barrier.wait(timeout=30)
                for _ in range(200):
                    assert list(x.flat) == want
                    y = np.arange(10)
                    y.flat[np.arange(10)] = np.arange(10)
            except Exception as e:
                errors.append(e)
        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert not any(t.is_alive() for t in threads) and not errors, errors
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


# ---- like= (NEP 35) hands the override wsarray's function ----------------------------------------

class _Duck:
    """Another array library's type: implements NumPy's functions through __array_function__."""

    def __init__(self, answer=None):
        self.answer = answer
        self.calls = []

    def __array_function__(self, func, types, args, kwargs):
        self.calls.append((func, types, args, kwargs))
        return self.answer if self.answer is not None else NotImplemented


@pytest.mark.parametrize("name, args", [("asarray", (1,)), ("array", ([1, 2],)), ("arange", (3,)),
                                        ("ones", ((2,),)), ("full", ((2,), 7)), ("empty", ((1,),))])
def test_like_dispatches_to_the_override_with_wsarrays_function(name, args):
    duck = _Duck(answer="answered")
    assert getattr(wnp, name)(*args, like=duck) == "answered"
    func, types, got_args, kwargs = duck.calls[0]
    assert func is getattr(wnp, name) and types == (_Duck,) and got_args == args and "like" not in kwargs
    # NumPy's own dispatch, for comparison: the same call, NumPy's function
    ref = _Duck(answer="answered")
    assert getattr(np, name)(*args, like=ref) == "answered" and ref.calls[0][0] is getattr(np, name)


def test_like_errors_as_numpy():
    with pytest.raises(TypeError, match="no implementation found for 'numpy.asarray'"):
        np.asarray(1, like=_Duck())
    with pytest.raises(TypeError, match="no implementation found for 'wsarray.asarray' on types that implement "
                                        "__array_function__"):
        wnp.asarray(1, like=_Duck())
    for xp in (np, wnp):  # the arguments are checked before dispatching
        duck = _Duck(answer="answered")
        with pytest.raises(TypeError, match="unexpected keyword argument 'bad'"):
            xp.array(1, bad=True, like=duck)
        assert not duck.calls
    # like= a wsarray or NumPy array, or None: no dispatch, a wsarray array
    for like in (None, wnp.zeros(1), np.zeros(1)):
        got = wnp.asarray([1, 2], like=like)
        assert type(got) is wnp.Array and got.tolist() == [1, 2]


@pytest.mark.parametrize("name", ["can_cast", "result_type"])
def test_signature_attribute_as_numpys(name):
    import inspect

    f, ref = getattr(wnp, name), getattr(np, name)
    assert f.__signature__ == ref.__signature__ == inspect.signature(f) == inspect.signature(ref)



def test_from_dlpack_text_signature_as_numpys():
    import inspect

    assert not hasattr(wnp.from_dlpack, "__signature__")
    assert wnp.from_dlpack.__text_signature__ == np.from_dlpack.__text_signature__
    assert list(inspect.signature(wnp.from_dlpack).parameters) == ["x", "device", "copy"]

# ---- the buffer's exporter; writes to arrays that warn on the first write --------------------------


@pytest.mark.parametrize("order", ["C", "F", "strided"])
def test_memoryview_exporter_is_the_array(order, scope):
    a = wnp.arange(24.0).reshape(4, 6)
    a = a[::2, ::2] if order == "strided" else a.copy(order=order)
    view = memoryview(a)
    assert view.obj is a
    assert view.tolist() == np.asarray(a).tolist()
    if order != "strided":  # NumPy's test_order_mismatch: a never-copy is a view over the buffer
        res = wnp.array(view, copy=False)
        assert res.base.obj is a
        res[0, 0] = -1.0
        assert a[0, 0] == -1.0


def test_memoryview_keeps_the_memory_and_lets_go():
    import gc
    import weakref

    a = wnp.arange(5.0)
    ref = weakref.ref(a)
    view = memoryview(a)
    del a
    gc.collect()
    assert ref() is not None and view.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    view.release()
    gc.collect()
    assert ref() is None


def test_memoryview_of_stale_array_raises():
    with wnp.workspace("DROPIN_TAIL_STALE"):
        a = wnp.ones(4)
    with pytest.raises(wnp.WorkspaceError):
        memoryview(a)


def _write_element(xp, a):
    a[1] = 10


def _write_inplace(xp, a):
    a += 1


def _write_out(xp, a):
    xp.add(a, 1, out=a)


@pytest.mark.parametrize("write", [_write_element, _write_inplace, _write_out])
@pytest.mark.parametrize("n", [10, 300_000])  # small calls and the lean float64 path
def test_warn_on_write_warns_once_as_numpy(write, n):
    import warnings

    counts = []
    for xp in (np, wnp):
        a = xp.arange(float(n))
        a.flags._warn_on_write = True
        with warnings.catch_warnings(record=True) as caught:
            warnings.filterwarnings("always")
            write(xp, a)
            write(xp, a)
        counts.append([str(w.message)[:40] for w in caught])
    assert counts[0] == counts[1] and len(counts[0]) == 1
