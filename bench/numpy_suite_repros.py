"""Minimal reproducers of the failure classes bench/numpy_suite.py found (issue 23).

    python -P bench/numpy_suite_repros.py          # every class: still reproduces, or fixed
    python -P bench/numpy_suite_repros.py C03 C08  # some classes

Each snippet asserts what NumPy does; it runs in a fresh interpreter (a crash is reported, not
suffered), so "reproduces" means the assertion failed, something raised, or the process died.
bench/numpy_suite_findings.md has the diagnosis and the recommended fix of each class; its counts
are the tests of NumPy's suite each class fails.
"""

import subprocess
import sys
import textwrap

REPROS = [
    ("C01", "numpy.testing takes its scalar path for wsarray arrays", """
        import wsarray as np
        from numpy.testing import assert_equal
        assert_equal(np.arange(3), [0, 1, 2])  # ValueError: truth value of an array ... is ambiguous
        assert_equal(np.zeros(3), 0)           # AssertionError: Items are not equal
    """),
    ("C01b", "numpy.ma.testutils takes its scalar path for wsarray arrays", """
        import wsarray as np
        from numpy.ma.testutils import assert_equal
        assert_equal(np.arange(3), [0, 1, 2])
    """),
    ("C02", "numpy.asarray(Array) loses StringDType (via __array_interface__)", """
        import numpy, wsarray as np
        a = np.array(["a", "bc"], dtype=numpy.dtypes.StringDType())
        assert numpy.asarray(a).dtype == a.dtype  # TypeError: data type 'StringDType()' not understood
    """),
    ("C02b", "numpy.asarray(Array) turns void 'V5' into an empty structured dtype", """
        import numpy, wsarray as np
        assert numpy.asarray(np.zeros(2, "V5")).dtype == numpy.dtype("V5")
    """),
    ("C02c", "numpy.asarray(Array) of a padded structured dtype fails", """
        import numpy, wsarray as np
        dt = numpy.dtype({"names": ["a", "b"], "formats": ["i4", "i4"], "offsets": [0, 8], "itemsize": 16})
        assert numpy.asarray(np.zeros(2, dt)).dtype == dt  # ValueError: field 'b' occurs more than once
    """),
    ("C03", "wsarray's ufuncs are not equal to NumPy's (==, in, list.remove, dict keys)", """
        import numpy, wsarray as np
        assert np.sin == numpy.sin and numpy.sin in [np.sin]
        assert {np.add: 1}.get(numpy.add) == 1
    """),
    ("C04", "a.view(type(a)) raises (NumPy's linalg test module cannot load)", """
        import wsarray as np
        a = np.arange(4.0)
        assert type(a.view(type(a))) is type(a)  # TypeError: Cannot change data-type for array of references.
    """),
    ("C04b", "a.view(np.ndarray) gives a NumPy subclass instance, not an Array", """
        import wsarray as np
        a = np.arange(4.0)
        assert type(a.view(np.ndarray)) is type(a)
    """),
    ("C05", "NumPy modules and names wsarray does not offer", """
        import importlib, wsarray as np
        np.char.chararray, np.random.bit_generator, np.random.mtrand
        importlib.import_module(np.__name__ + ".lib.recfunctions")
    """),
    ("C06", "bool scalar results are not np.True_/np.False_", """
        import wsarray as np
        assert (np.array(1) == np.array("s")) is np.False_
    """),
    ("C06b", "type(x) is np.ndarray is false for results", """
        import wsarray as np
        assert type(np.array([3]).squeeze()) is np.ndarray
    """),
    ("C08", "crash: a self-containing list given to a wsarray function", """
        import wsarray as np
        l = []
        l.append(l)
        np.array([l, l], dtype=object)  # SIGSEGV (NumPy: an object array of shape (2, 1, ..., 1))
    """),
    ("C08b", "crash: reading a self-containing list out of an object array", """
        import numpy, wsarray as np
        l = []
        l.append(l)
        o = numpy.empty(1, object)
        o[0] = l
        assert np.asarray(o)[0] is l  # SIGSEGV
    """),
    ("C09", "Arrays cannot be weakly referenced", """
        import weakref, wsarray as np
        weakref.ref(np.arange(3))  # TypeError: cannot create weak reference to 'Array' object
    """),
    ("C10", "an object whose __array__ returns a wsarray Array is refused by numpy.asarray", """
        import numpy, wsarray as np
        class Wrapped:
            def __array__(self, dtype=None, copy=None):
                return np.arange(3)
        numpy.asarray(Wrapped())  # ValueError: object __array__ method not producing an array
    """),
    ("C11", "bit generators and SeedSequence refuse a wsarray array as seed", """
        import wsarray as np
        np.random.MT19937(np.array([1], dtype=np.uint32))  # TypeError: SeedSequence expects int ...
    """),
    ("C12", "finfo/iinfo are not subscriptable; functions lack __signature__", """
        import wsarray as np
        np.finfo[np.float64]
        assert hasattr(np.dot, "__signature__")
    """),
    ("C13", "divmod(Array, polynomial) does not defer to the polynomial", """
        import numpy, wsarray as np
        divmod(np.arange(3.0), numpy.polynomial.Polynomial([1.0, 2.0]))  # TypeError: ... __array_ufunc__=None
    """),
    ("C14", "np.load(mmap_mode=...) is refused", """
        import tempfile, os, wsarray as np
        path = os.path.join(tempfile.mkdtemp(), "a.npy")
        np.save(path, np.arange(3))
        np.load(path, mmap_mode="r")  # NotImplementedError
    """),
    ("C15", "memoryview() of a structured Array is refused", """
        import wsarray as np
        memoryview(np.zeros(2, dtype=[("a", "i4")]))  # BufferError
    """),
    ("C16", "memoryview(a).obj is the ndarray inside, not the Array", """
        import wsarray as np
        a = np.arange(3)
        assert memoryview(a).obj is a
    """),
    ("C18", "np.broadcast(a).iters[0].base is not a", """
        import wsarray as np
        a = np.empty((5, 6))
        assert np.broadcast(a).iters[0].base is a
    """),
    ("C19", "finfo fields are Python floats: finfo(float32).max * 2 neither overflows nor warns", """
        import numpy, wsarray as np
        assert isinstance(np.finfo(np.float32).max, numpy.float32)
    """),
    ("C20", "argument checking differs from NumPy's", """
        import wsarray as np
        assert np.can_cast(from_=np.int8, to=np.int16)  # TypeError: positional-only arguments
    """),
    ("C20b", "clip(a, 2) is accepted (NumPy: TypeError, a_max missing)", """
        import wsarray as np
        try:
            np.clip(np.arange(5), 2)
        except TypeError:
            pass
        else:
            raise AssertionError("no TypeError")
    """),
    ("C21", "a scalar result assigned into an array is cast as an array (silent wrap-around)", """
        import wsarray as np
        s = np.array([2**64 - 1], dtype=np.uint64)[0]
        t = np.zeros(1, dtype=np.int8)
        try:
            t[0] = s  # NumPy: OverflowError; wsarray writes -1
        except OverflowError:
            pass
        else:
            raise AssertionError(f"no OverflowError, wrote {t[0]}")
    """),
    ("C22", "a.flat[mask] with a wsarray boolean index raises", """
        import wsarray as np
        a = np.arange(4)
        assert a.flat[np.array([True, False, True, False])].tolist() == [0, 2]
    """),
    ("C23", "np.datetime64(scalar result) raises", """
        import wsarray as np
        d = np.array(["2000-01-01"], "M8[D]")[0]
        np.datetime64(d)  # ValueError: Could not convert object to NumPy datetime
    """),
    ("C24", "Array.mT on 1-d raises wsarray's message, not NumPy's", """
        import numpy, wsarray as np
        try:
            np.arange(3).mT
        except ValueError as e:
            assert "matrix transpose with ndim < 2 is undefined" in str(e), str(e)
    """),
]


def run(code):
    """('fixed' | 'REPRODUCES', detail) for one snippet, run in a fresh interpreter."""
    try:
        p = subprocess.run([sys.executable, "-P", "-c", textwrap.dedent(code)], capture_output=True,
                           text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "REPRODUCES", "hang (no end in 120 s)"
    if p.returncode == 0:
        return "fixed", ""
    if p.returncode < 0:
        return "REPRODUCES", f"crash (signal {-p.returncode})"
    lines = [line for line in p.stderr.strip().splitlines() if line.strip()]
    return "REPRODUCES", lines[-1] if lines else f"exit status {p.returncode}"


def main(argv):
    wanted = set(argv)
    unknown = wanted - {r[0] for r in REPROS}
    if unknown:
        raise SystemExit(f"numpy_suite_repros: unknown class(es) {', '.join(sorted(unknown))}")
    for key, title, code in REPROS:
        if wanted and key not in wanted:
            continue
        status, detail = run(code)
        print(f"{key:<5} {status:<10} {title}" + (f"\n      {detail[:150]}" if detail else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
