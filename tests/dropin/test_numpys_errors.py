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
