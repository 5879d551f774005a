"""Bad calls get NumPy's exception class and message, in NumPy's order of checks, also from the
functions wsarray implements itself (iteration; floor_divide, expm1, tanh for the standard's special
cases; sort and argsort for stability; astype; a Generator's shuffle). Found by differential
fuzzing against NumPy."""
import warnings

import numpy
import pytest

import wsarray


def outcome(call, module):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning NumPy does not give is a difference too
        try:
            result = call(module)
        except Exception as e:  # noqa: BLE001  (compared below)
            return type(e).__name__, str(e)
    return "result", repr(numpy.asarray(result).tolist())


def _read_only_inplace(m):
    a = m.array([m.inf, 1.0, 2.0])
    a.flags.writeable = False
    a //= m.ones((3, 2, 2))


def _int_inplace(m):
    a = m.ones((2, 0), "i8")
    a //= m.array([m.inf, 1.0])


CALLS = {
    "floor_divide with one operand": lambda m: m.floor_divide(m.ones(3)),
    "floor_divide with four": lambda m: m.floor_divide(m.ones(1), m.ones(1), m.ones(1), m.ones(1)),
    "floor_divide out twice": lambda m: m.floor_divide(m.ones(1), m.ones(1), m.zeros(1), out=m.zeros(1)),
    "expm1 out twice": lambda m: m.expm1(m.ones(1), m.zeros(1), out=m.zeros(1)),
    "tanh out twice": lambda m: m.tanh(m.ones(1), m.zeros(1), out=m.zeros(1)),
    "tanh with none": lambda m: m.tanh(),
    "//= into a read-only array, inf operand": _read_only_inplace,
    "//= float into int, inf operand": _int_inplace,
    "floor_divide positional out": lambda m: m.floor_divide(m.array([7.0, 5.0]), 2.0, m.zeros(2)),
    "argsort kind not a str": lambda m: m.argsort(m.ones(3), 0, m.ones(2)),
    "sort kind not a str": lambda m: m.sort(m.ones(3), 0, m.ones(2)),
    "sort kind and stable": lambda m: m.sort(m.ones(3), kind="stable", stable=True),
    "argsort kind and stable": lambda m: m.argsort(m.ones(3), kind="stable", stable=True),
    "astype of a list": lambda m: m.astype([1, 2], m.ones(1)),
    "astype of a str": lambda m: m.astype("abc", "f8"),
    "shuffle of a float": lambda m: m.random.default_rng(0).shuffle(0.5),
    "iteration over a 0-d array": lambda m: list(m.array(1.0)),
    "resize refcheck not an integer": lambda m: m.arange(6.0).resize(3, refcheck=""),
    "resize refcheck a float": lambda m: m.arange(6.0).resize(3, refcheck=1.0),
    "__array_function__ types not classes": lambda m: m.arange(6.0).__array_function__(
        numpy.sum, [5], (m.arange(6.0),), {}),
    "to_device of an int": lambda m: m.arange(6.0).to_device(5),
    "to_device of None": lambda m: m.arange(6.0).to_device(None),
    "unbound __array__ of an int": lambda m: m.ndarray.__array__(5),
    "unbound view of an int": lambda m: m.ndarray.view(5),
    "unbound __reduce__ of a str": lambda m: m.ndarray.__reduce__("x"),
    "unbound __str__ of a str": lambda m: m.ndarray.__str__("x"),
    "unbound __float__ of an int": lambda m: m.ndarray.__float__(5),
    "unbound __iand__ of a str": lambda m: m.ndarray.__iand__("x", 1),
    "unbound __sizeof__ of a list": lambda m: m.ndarray.__sizeof__([1.0]),
    "unbound sum with no argument": lambda m: m.ndarray.sum(),
    "unbound shape of an int": lambda m: m.ndarray.shape.__get__(5, int),
    "floor_divide.at without an operand": lambda m: m.floor_divide.at(m.ones(3), [0]),
    "floor_divide.at of None": lambda m: m.floor_divide.at(m.ones(3), [0], None),
    "floor_divide.at of a str": lambda m: m.floor_divide.at(m.ones(3), [0], "a"),
    "floor_divide.at with a keyword": lambda m: m.floor_divide.at(m.ones(3), [0], 2.0, out=None),
    "result_type of nothing": lambda m: m.result_type(),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_the_same_error_as_numpy(name):
    assert outcome(CALLS[name], wsarray) == outcome(CALLS[name], numpy)


def test_the_python_ufuncs_keep_numpys_docstring_and_signature():
    import inspect
    for name in ("floor_divide", "expm1", "tanh"):
        f = getattr(wsarray, name)
        assert f.__doc__.startswith(getattr(numpy, name).__doc__)
        assert "array API standard" in f.__doc__
        assert str(inspect.signature(f)).startswith("(x") and "out=None" in str(inspect.signature(f))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int64", "uint64"])
def test_floor_division_of_whole_numbers_is_numpys(dtype):
    # `//` of whole numbers runs NumPy's floor_divide directly: results, dtypes and the
    # division-by-zero warning as NumPy's, for every operand order and in place.
    a, b = numpy.array([0, 1, 5, 7], dtype=dtype), numpy.array([1, 0, 2, 1], dtype=dtype)
    for make in (lambda m: m.asarray(a) // m.asarray(b), lambda m: m.asarray(a) // 2, lambda m: 9 // m.asarray(b)):
        with warnings.catch_warnings(record=True) as want:
            warnings.simplefilter("always")
            expected = make(numpy)
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            result = make(wsarray)
        assert type(result) is wsarray.ndarray and result.dtype == expected.dtype
        assert numpy.asarray(result).tolist() == expected.tolist()
        assert [str(w.message) for w in got] == [str(w.message) for w in want]
    def inplace(m):
        x = m.asarray(a.copy())
        with numpy.errstate(divide="ignore"):
            x //= m.asarray(b)  # bool: NumPy's casting error (its result is int8)
        return x

    assert outcome(inplace, wsarray) == outcome(inplace, numpy)
    ws = wsarray.workspace("FLOORDIV")
    with ws:
        stale = wsarray.array(a)  # a copy, in the cycle
    with pytest.raises(wsarray.WorkspaceError, match="__floordiv__"):
        stale // 2


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_floor_division_of_finite_floats_is_numpys_and_infinite_ones_the_standards(dtype):
    # Finite operands (contiguous float32/float64 checked in C++) run NumPy's floor_divide
    # directly; any infinite element, anywhere in either operand or any layout, keeps the
    # standard's special cases (inf // finite is inf, finite // -inf is -0.0).
    base = numpy.array([[-7.5, 0.0, 5.0], [9.0, -0.0, 6e4]], dtype=dtype)
    divisor = numpy.array([[2.0, 3.0, -0.5], [0.0, 4.0, 7.0]], dtype=dtype)
    for x, y in [(base, divisor), (base.T, divisor.T), (numpy.asfortranarray(base), divisor),
                 (base[:, ::2], divisor[:, ::2]), (base, 3.0), (11.0, divisor), (base, 2)]:
        with warnings.catch_warnings(record=True) as want:
            warnings.simplefilter("always")
            expected = x // y  # Python numbers stay Python numbers (NEP 50's weak scalars)
        wx = wsarray.asarray(x) if isinstance(x, numpy.ndarray) else x
        wy = wsarray.asarray(y) if isinstance(y, numpy.ndarray) else y
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            result = wx // wy
        assert result.dtype == expected.dtype
        numpy.testing.assert_array_equal(numpy.asarray(result), expected)
        assert numpy.array_equal(numpy.signbit(numpy.asarray(result)), numpy.signbit(expected))
        assert [str(w.message) for w in got] == [str(w.message) for w in want]
    inf = numpy.array([numpy.inf, -1.0, 4.0], dtype=dtype)
    for x, y, want in [(inf, numpy.array([2.0, numpy.inf, 1.0], dtype=dtype), [numpy.inf, -0.0, 4.0]),
                       (inf[::-1].copy()[::-1], 2.0, [numpy.inf, -1.0, 2.0]),
                       (numpy.array([1.0, 3.0], dtype=dtype), -numpy.inf, [-0.0, -0.0])]:
        result = numpy.asarray(wsarray.asarray(x) // (wsarray.asarray(y) if isinstance(y, numpy.ndarray) else y))
        numpy.testing.assert_array_equal(result, numpy.array(want, dtype=dtype))
        assert numpy.array_equal(numpy.signbit(result), numpy.signbit(numpy.array(want)))
    x = wsarray.asarray(numpy.array([5.0, numpy.nan], dtype=dtype))
    numpy.testing.assert_array_equal(numpy.asarray(x // 2.0), numpy.array([2.0, numpy.nan], dtype=dtype))
    x //= 2.0  # in place: the same path
    numpy.testing.assert_array_equal(numpy.asarray(x), numpy.array([2.0, numpy.nan], dtype=dtype))
    with wsarray.workspace("FLOORDIV_F"):
        stale = wsarray.ones(3, dtype=dtype)
    with pytest.raises(wsarray.WorkspaceError, match="__floordiv__"):
        stale // 2.0
    with pytest.raises(wsarray.WorkspaceError, match="__rfloordiv__"):
        2.0 // stale


def test_floor_divide_at_of_a_python_int_past_int64_is_numpys():
    x, w = numpy.ones(3), wsarray.ones(3)
    numpy.floor_divide.at(x, [0], 2**70)
    wsarray.floor_divide.at(w, [0], 2**70)
    assert numpy.asarray(w).tolist() == x.tolist() == [0.0, 1.0, 1.0]


@pytest.mark.parametrize("first", [5, "x", None, 1.5, [1.0, 2.0], object()])
def test_every_unbound_method_refuses_what_is_not_an_array(first):
    # wsarray.ndarray.<name>(x) with x not an array read an Array record past the end of x (a
    # segfault for 31 names). Names NumPy's ndarray has give NumPy's TypeError; wsarray's own
    # names (detach, leverage, ...) say the same of wsarray.ndarray.
    for name, value in sorted(vars(wsarray.ndarray).items()):
        if type(value).__name__ != "ArrayMethod":
            continue
        for extra in ((), (1,), (1, 2)):
            try:
                value(first, *extra)
            except TypeError as e:
                if not hasattr(numpy.ndarray, name):
                    assert str(e) == (f"descriptor '{name}' for 'wsarray.ndarray' objects doesn't apply to a "
                                      f"'{type(first).__name__}' object"), name
            else:
                raise AssertionError(f"wsarray.ndarray.{name}({first!r}, *{extra}) did not raise")
        # The function behind the dispatcher, reached directly, refuses too.
        raw = value.__wsarray__
        with pytest.raises(TypeError):
            raw(first)
