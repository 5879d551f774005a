"""A class derived from wsarray.ndarray (``class Q(np.ndarray)`` under ``import wsarray as np``)
sees the array protocols in wsarray's names, as the same class derived from numpy.ndarray sees
them in NumPy's: ``ufunc is np.power``, ``func is np.concatenate``, ``t is np.ndarray for t in
types`` (unit libraries), and ``super().__array_ufunc__()`` on plain views (NumPy's documented
pattern) computes. wsarray/_numpy/protocols.py."""

import numpy as np
import pytest

import wsarray as wnp


def units_class(xp):
    """A unit-carrying subclass written against namespace ``xp`` (NumPy or wsarray), recording
    which of ``xp``'s objects its overrides recognised by identity."""
    seen = []

    class Quantity(xp.ndarray):
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            seen.append(("ufunc", ufunc is xp.power, ufunc is xp.add, ufunc is xp.square, method))
            plain = [x.view(xp.ndarray) if isinstance(x, Quantity) else x for x in inputs]
            result = super().__array_ufunc__(ufunc, method, *plain, **kwargs)
            if result is NotImplemented:
                return NotImplemented
            return xp.asarray(result).view(Quantity) if ufunc is not xp.power else result

        def __array_function__(self, func, types, args, kwargs):
            plain = all(issubclass(t, Quantity) or t is xp.ndarray for t in types)
            seen.append(("function", func is xp.concatenate, func is xp.append, plain))
            if not plain:
                return NotImplemented
            return super().__array_function__(func, types, args, kwargs)

    return Quantity, seen


@pytest.mark.parametrize("xp", [np, wnp], ids=["numpy", "wsarray"])
def test_a_subclass_recognises_its_namespaces_ufuncs(xp):
    Quantity, seen = units_class(xp)
    q = xp.arange(3.0).view(Quantity)
    calls = {
        "operator": lambda: q ** 3,
        "its namespace": lambda: xp.power(q, 3),
        "numpy's ufunc": lambda: np.power(q, 3),
        "wsarray's": lambda: wnp.power(q, 3),
    }
    for name, call in calls.items():
        seen.clear()
        r = call()
        assert seen == [("ufunc", True, False, False, "__call__")], name
        np.testing.assert_array_equal(np.asarray(r), [0.0, 1.0, 8.0])
    seen.clear()
    assert type(q + q) is Quantity and seen == [("ufunc", False, True, False, "__call__")]
    seen.clear()
    assert float(xp.add.reduce(q)) == 3.0 and seen == [("ufunc", False, True, False, "reduce")]
    seen.clear()
    np.testing.assert_array_equal(np.asarray(q ** 2), [0.0, 1.0, 4.0])  # NumPy's fast path: square
    assert seen == [("ufunc", False, False, True, "__call__")]


@pytest.mark.parametrize("xp", [np, wnp], ids=["numpy", "wsarray"])
def test_a_subclass_sees_plain_arrays_as_its_ndarray_in_types(xp):
    Quantity, seen = units_class(xp)
    q = xp.arange(3.0).view(Quantity)
    r = xp.append(q, [4.0, 5.0])  # NumPy's append calls concatenate with a plain ndarray
    np.testing.assert_array_equal(np.asarray(r), [0.0, 1.0, 2.0, 4.0, 5.0])
    assert ("function", False, True, True) in seen and ("function", True, False, True) in seen
    # (A class derived from numpy.ndarray sees wsarray's arrays as wsarray.ndarray: not plain.)
    for other in (np.ones(2), wnp.ones(2)) if xp is wnp else (np.ones(2),):
        seen.clear()
        r = np.concatenate([q, other])
        assert seen == [("function", True, False, True)]
        np.testing.assert_array_equal(np.asarray(r), [0.0, 1.0, 2.0, 1.0, 1.0])


def test_a_numpy_subclass_still_gets_numpys_objects():
    Quantity, seen = units_class(np)
    q = np.arange(3.0).view(Quantity)
    for call in (lambda: wnp.power(q, 2), lambda: np.power(q, 2)):
        seen.clear()
        call()
        assert seen == [("ufunc", True, False, False, "__call__")]
    assert wnp.power is not np.power and "__wrapped__" not in vars(Quantity.__array_ufunc__)


def test_ufuncs_wsarray_lacks_arrive_as_they_are():
    received = []

    class Q(wnp.ndarray):
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            received.append(ufunc)
            plain = [x.view(wnp.ndarray) if isinstance(x, Q) else x for x in inputs]
            return super().__array_ufunc__(ufunc, method, *plain, **kwargs)

    twice = np.frompyfunc(lambda v: 2 * v, 1, 1)
    q = wnp.arange(3).view(Q)
    assert list(twice(q)) == [0, 2, 4] and received == [twice]
    received.clear()
    np.testing.assert_array_equal(np.asarray(np.sqrt(q)), np.sqrt(np.arange(3)))
    assert received[0] is wnp.sqrt and received[0] == np.sqrt and isinstance(received[0], np.ufunc)
    assert hash(received[0]) == hash(np.sqrt) and received[0].nin == 1 and received[0].__name__ == "sqrt"


def test_the_inherited_default_answers_as_numpys():
    class Q(wnp.ndarray):
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            return super().__array_ufunc__(ufunc, method, *inputs, **kwargs)

    class Duck:
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            return "duck"

    q = wnp.arange(3.0).view(Q)
    # An operand that still overrides (the subclass itself, a duck): NotImplemented, as NumPy's.
    with pytest.raises(TypeError, match="NotImplemented"):
        q + 1
    assert np.add(wnp.arange(3.0).view(wnp.ndarray), Duck()) == "duck"
    # Plain operands, NumPy's or wsarray's, are computed; out= is checked too.
    default = wnp.ndarray.__array_ufunc__
    r = default(np.ones(2), np.add, "__call__", wnp.ones(2), np.ones(2))
    np.testing.assert_array_equal(np.asarray(r), [2.0, 2.0])
    assert default(np.ones(2), np.add, "__call__", wnp.ones(2), Duck()) is NotImplemented
    out = np.zeros(2).view(Q)
    assert default(np.ones(2), np.add, "__call__", np.ones(2), np.ones(2), out=(out,)) is NotImplemented
    assert np.ndarray.__array_ufunc__(np.ones(2), np.add, "__call__", wnp.ones(2), 1) is NotImplemented
    import inspect

    assert inspect.signature(wnp.ndarray.__array_ufunc__) == inspect.signature(np.ndarray.__array_ufunc__)


def test_overrides_are_wrapped_once_and_stay_introspectable():
    class Base(wnp.ndarray):
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            """Base's override."""
            return ("base", ufunc is wnp.multiply)

    class Child(Base):
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            return ("child", ufunc is wnp.multiply, super().__array_ufunc__(ufunc, method, *inputs, **kwargs))

    class Inherits(Child):
        pass

    class OptedOut(wnp.ndarray):
        __array_ufunc__ = None

    c = wnp.ones(2).view(Inherits)
    assert np.multiply(c, 2) == ("child", True, ("base", True))
    assert Base.__array_ufunc__.__name__ == "__array_ufunc__" and Base.__array_ufunc__.__doc__ == "Base's override."
    assert Base.__array_ufunc__.__wrapped__.__qualname__.endswith("Base.__array_ufunc__")
    assert Inherits.__array_ufunc__ is Child.__array_ufunc__
    assert OptedOut.__array_ufunc__ is None
    with pytest.raises(TypeError):
        wnp.ones(2).view(OptedOut) + 1


def test_overrides_a_subclass_inherits_from_a_mixin_see_wsarrays_names():
    # vector's arrays: class VectorNumpy3D(VectorNumpy, np.ndarray), the protocols in the mixin
    def array_ufunc(self, ufunc, method, *inputs, **kwargs):
        if ufunc is not wnp.negative:
            return NotImplemented
        return "handled"

    class Mixin:
        __array_ufunc__ = array_ufunc

        def __array_function__(self, func, types, args, kwargs):
            if func is not wnp.sum or not all(issubclass(t, wnp.ndarray) for t in types):
                return NotImplemented
            return "summed"

    class Vector(Mixin, wnp.ndarray):
        pass

    class Vector3D(Vector):
        pass

    for cls in (Vector, Vector3D):
        x = wnp.arange(3.0).view(cls)
        assert wnp.negative(x) == "handled" and -x == "handled"
        assert wnp.sum(x) == "summed"
    assert Mixin.__array_ufunc__ is array_ufunc  # the mixin itself is left as it is
