"""The pool of dead ndarrays (src/python/results/ndarray_pool.cpp): a result or view built on a kept ndarray
looks exactly like NumPy's (flags, strides, dtype, base, values), a view holds its parent's memory,
a kept ndarray's data is freed at once (workspace statistics, tracemalloc), an ndarray anything
else still sees is never reused, the pool stays bounded, and the interpreter exits cleanly with it
full."""

import subprocess
import sys
import tracemalloc

import numpy
import pytest

import wsarray as wa

SCOPE_WORKSPACE = "NDARRAY_POOL"
FLAGS = ("C_CONTIGUOUS", "F_CONTIGUOUS", "OWNDATA", "WRITEABLE", "ALIGNED", "WRITEBACKIFCOPY")
SHAPES = [(5,), (1,), (1, 5), (5, 1), (1, 1), (2, 3), (2, 3, 4), (1, 1, 7), (3, 1, 1), (2, 1, 1, 3), (2, 2, 2, 2)]
DTYPES = ["float64", "float32", "int64", "int8", "uint16", "bool", "complex128", "float16"]
NUMPY_TRACE_DOMAIN = 389047


def warm(rank, dtype="int8"):
    """Fill the pool with ndarrays of `rank` dimensions of another dtype and shape."""
    made = [wa.ones((3,) * rank, dtype=dtype) for _ in range(20)]
    del made


def assert_like_numpy(got, want):
    assert got.shape == want.shape and got.dtype == want.dtype
    assert got.strides == want.strides
    assert {f: got.flags[f] for f in FLAGS} == {f: want.flags[f] for f in FLAGS}
    assert got.base is None
    numpy.testing.assert_array_equal(numpy.asarray(got), want)


@pytest.mark.parametrize("shape", SHAPES)
def test_results_on_kept_ndarrays_look_like_numpys(scope, shape):
    for dtype in DTYPES:
        for make in ("zeros", "ones", "empty"):
            warm(len(shape))
            got = getattr(wa, make)(shape, dtype=dtype)
            want = getattr(numpy, make)(shape, dtype=dtype)
            if make == "empty":
                got[...] = 7
                want[...] = 7
            assert_like_numpy(got, want)


def test_results_are_built_on_kept_ndarrays(scope):
    warm(2)
    kept = wa._native._ndarray_pool_counts()
    assert kept[1] > 0  # rank 2
    made = [wa.zeros((4, 4)) for _ in range(kept[1])]
    assert wa._native._ndarray_pool_counts()[1] == 0  # every one of them taken
    del made
    assert wa._native._ndarray_pool_counts()[1] == kept[1]


def test_operation_results_on_kept_ndarrays_equal_numpys(scope):
    x = numpy.linspace(-2.0, 2.0, 24).reshape(2, 3, 4)
    a = wa.asarray(x)
    for _ in range(3):
        warm(3, "float32")
        assert_like_numpy(a * 2.0 + 1.0, x * 2.0 + 1.0)
        warm(3, "uint16")
        assert_like_numpy(wa.exp(a), numpy.exp(x))
        warm(3, "complex128")
        assert_like_numpy(a > 0, x > 0)


VIEW_KEYS = [(slice(1, None),), (slice(None, None, -2),), (1,), (slice(1, -1), slice(2, None)),
             (0, slice(None, None, 3)), (slice(None), 2), (slice(0, 1), slice(None))]


@pytest.mark.parametrize("key", VIEW_KEYS, ids=repr)
def test_views_on_kept_ndarrays_look_like_numpys(scope, key):
    x = numpy.arange(60.0).reshape(6, 10) if len(key) > 1 or isinstance(key[0], int) else numpy.arange(60.0)
    for writeable in (True, False):
        a = wa.asarray(x.copy())
        want_parent = x.copy()
        if not writeable:
            a.flags.writeable = False
            want_parent.flags.writeable = False
        for _ in range(3):
            warm(2)
            warm(1)
            got, want = a[key if len(key) > 1 else key[0]], want_parent[key if len(key) > 1 else key[0]]
            assert got.base is a
            assert got.shape == want.shape and got.strides == want.strides and got.dtype == want.dtype
            assert {f: got.flags[f] for f in FLAGS} == {f: want.flags[f] for f in FLAGS}
            numpy.testing.assert_array_equal(numpy.asarray(got), want)
            del got


def test_a_view_keeps_its_parents_memory_until_it_dies():
    ws = wa.workspace("NDARRAY_POOL_VIEWS")
    try:
        with ws:
            base = ws.stats()["live_arrays"]
            a = wa.arange(100.0)
            view = a[10:20]
            del a
            warm(1)
            others = [wa.full(100, -1.0) for _ in range(10)]
            assert view.tolist() == [float(i) for i in range(10, 20)]
            assert ws.stats()["live_arrays"] == base + 1 + len(others)
            del view, others
            assert ws.stats()["live_arrays"] == base
    finally:
        wa.memory.destroy_workspace("NDARRAY_POOL_VIEWS")


def test_a_kept_ndarrays_memory_goes_back_to_the_workspace_at_once():
    ws = wa.workspace("NDARRAY_POOL_STATS")
    try:
        with ws:
            base = ws.stats()
            for _ in range(200):
                arrays = [wa.zeros((4, 5)), wa.ones(7), wa.empty((2, 2, 2))]
                del arrays
            after = ws.stats()
            assert after["live_arrays"] == base["live_arrays"]
            assert after["used"] == base["used"]
            assert after["frees"] - base["frees"] == after["allocations"] - base["allocations"] == 600
    finally:
        wa.memory.destroy_workspace("NDARRAY_POOL_STATS")


def test_tracemalloc_sees_every_kept_ndarrays_data_freed():
    warm(1)
    tracemalloc.start()
    try:
        for _ in range(300):
            a = wa.zeros(1000)
            b = wa.ones((10, 10))
            del a, b
        snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.DomainFilter(True, NUMPY_TRACE_DOMAIN)])
        leaked = sum(stat.size for stat in snapshot.statistics("filename"))
    finally:
        tracemalloc.stop()
    assert leaked == 0


def descriptor_references(dtype):
    # Counted outside the assert statement: pytest's rewritten asserts keep their operands.
    return sys.getrefcount(numpy.dtype(dtype))


def test_kept_ndarrays_hold_no_reference_to_numpys_descriptors(scope):
    # NumPy's own tests check that a call leaves a descriptor's reference count as it found it.
    for dtype in ("float64", "intp", "bool"):
        warm(1, dtype)
        before = descriptor_references(dtype)
        made = [wa.zeros(5, dtype=dtype), wa.ones((2, 2), dtype=dtype)[1:], wa.asarray(numpy.arange(3))[::2]]
        del made
        warm(1, "int8")
        after = descriptor_references(dtype)
        assert after == before


def test_an_ndarray_still_seen_elsewhere_is_never_reused(scope):
    a = wa.arange(64.0)
    view = memoryview(a)  # a buffer exported from the Array's ndarray
    del a
    others = [wa.full(64, -1.0) for _ in range(50)]
    assert numpy.frombuffer(view, dtype=numpy.float64).tolist() == list(range(64))
    assert all(o.tolist() == [-1.0] * 64 for o in others)
    view.release()


def test_the_pool_stays_bounded():
    def run():
        for i in range(2000):
            arrays = [wa.zeros((2,) * rank) + i for rank in range(1, 6)]
            del arrays

    run()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        run()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 64 * 1024, grown


def test_the_interpreter_exits_cleanly_with_the_pool_full():
    code = (
        "import wsarray as wa\n"
        "ws = wa.workspace('exit')\n"
        "with ws:\n"
        "    kept = [wa.zeros((2,) * r) for r in range(1, 5) for _ in range(40)]\n"
        "    del kept\n"
        "plain = [wa.ones((3,) * r) for r in range(1, 5) for _ in range(40)]\n"
        "del plain\n"
        "last = wa.zeros(3)\n"
        "print('ok', float(last.sum()))\n"
    )
    done = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok 0.0" and done.stderr == ""
