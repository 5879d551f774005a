"""wsarray.dask on Dask's threaded scheduler: a matrix of dask.array operations on wsarray chunks
against dask+NumPy (results, chunk types, meta), each task in a workspace (WorkspacePool), NEP 13/18
deferral in both operand orders, stable tokens, the "wsarray" creation backend, from_array."""
import threading

import dask
import dask.array as da
import numpy
import pytest

import wsarray as wnp
from wsarray.dask import WorkspacePool, from_array, register

register()

RNG = numpy.random.default_rng(18)
A = RNG.standard_normal((24, 20))
B = RNG.standard_normal((20, 12))
V = RNG.random(40)
TALL = RNG.standard_normal((40, 6))
INTS = RNG.integers(0, 7, size=30)


def pair(data, chunks):
    """The same data as a dask+NumPy array and a dask+wsarray array."""
    return da.from_array(data, chunks=chunks), from_array(wnp.asarray(data.copy()), chunks)


# name -> function of the Dask arrays (a, b, v, tall, ints)
OPS = {
    "add": lambda a, b, v, t, i: a + 1.5 * a,
    "sub_mul_div": lambda a, b, v, t, i: (a - 2) * a / (abs(a) + 1),
    "power": lambda a, b, v, t, i: a ** 2,
    "neg_abs": lambda a, b, v, t, i: -abs(a),
    "compare": lambda a, b, v, t, i: a > 0.1,
    "ufunc_sin_exp": lambda a, b, v, t, i: numpy.exp(numpy.sin(a)),
    "ufunc_maximum": lambda a, b, v, t, i: numpy.maximum(a, 0),
    "sum_axis0": lambda a, b, v, t, i: a.sum(axis=0),
    "mean_axis1": lambda a, b, v, t, i: a.mean(axis=1),
    "std": lambda a, b, v, t, i: a.std(axis=0),
    "min_max": lambda a, b, v, t, i: a.max(axis=1) - a.min(axis=1),
    "nansum": lambda a, b, v, t, i: da.nansum(da.where(a > 1, numpy.nan, a), axis=0),
    "nanmean": lambda a, b, v, t, i: da.nanmean(da.where(a > 1, numpy.nan, a), axis=1),
    "argmax": lambda a, b, v, t, i: a.argmax(axis=0),
    "argmin": lambda a, b, v, t, i: a.argmin(axis=1),
    "reshape_merge": lambda a, b, v, t, i: a.reshape(480),
    "reshape_split": lambda a, b, v, t, i: a.rechunk((12, 20)).reshape(2, 12, 4, 5),
    "transpose": lambda a, b, v, t, i: a.T,
    "matmul": lambda a, b, v, t, i: a @ b,
    "tensordot": lambda a, b, v, t, i: da.tensordot(a, b, axes=1),
    "einsum": lambda a, b, v, t, i: da.einsum("ij,jk->ik", a, b),
    "concatenate": lambda a, b, v, t, i: da.concatenate([a, a * 2], axis=0),
    "stack": lambda a, b, v, t, i: da.stack([a, a + 1], axis=1),
    "slicing": lambda a, b, v, t, i: a[3:17:2, ::-3],
    "fancy_index": lambda a, b, v, t, i: a[[0, 5, 23, 7]],
    "boolean_index": lambda a, b, v, t, i: v[v > 0.5],
    "rechunk": lambda a, b, v, t, i: a.rechunk((5, 20)),
    "where": lambda a, b, v, t, i: da.where(a > 0, a, -1.0),
    "cumsum": lambda a, b, v, t, i: a.cumsum(axis=0),
    "cumprod": lambda a, b, v, t, i: (a / 10 + 1).cumprod(axis=1),
    "map_blocks": lambda a, b, v, t, i: a.map_blocks(lambda x: x * 3 + 1),
    "qr_q": lambda a, b, v, t, i: da.linalg.qr(t)[0],
    "qr_r": lambda a, b, v, t, i: da.linalg.qr(t)[1],
    "unique": lambda a, b, v, t, i: da.unique(i),
    "percentile": lambda a, b, v, t, i: da.percentile(v, [10, 50, 90]),
    "histogram": lambda a, b, v, t, i: da.histogram(v, bins=8, range=(0, 1))[0],
    "clip_round": lambda a, b, v, t, i: da.round(da.clip(a, -1, 1), 2),
    "outer_broadcast": lambda a, b, v, t, i: v[:, None] * v[None, :],
    "diff": lambda a, b, v, t, i: da.diff(a, axis=0),
    "astype": lambda a, b, v, t, i: (a * 10).astype("int32"),
    "sort_topk": lambda a, b, v, t, i: da.topk(v, 5),
}


# Where Dask builds the meta itself instead of deriving it from the chunks' (a histogram's counts,
# arg reductions through a 0-d sample, boolean indexing and unique with unknown sizes), the meta is
# an ndarray, as for any chunk type whose 0-d indexing gives NumPy scalars (NumPy's rule, which
# wsarray follows). The chunks are wsarray arrays all the same.
NUMPY_META = {"argmax", "argmin", "boolean_index", "histogram", "unique"}
# da.unique goes through a structured array that Dask makes with numpy.empty in each task: its
# result is NumPy's (values equal).
NUMPY_RESULT = {"unique"}


@pytest.fixture(scope="module")
def pool():
    with WorkspacePool(2) as pool:
        yield pool


@pytest.fixture(scope="module")
def operands():
    chunks = ((10, 7, 7), (8, 12)), ((8, 12), (6, 6)), 13, (10, 6), 8
    datas = A, B, V, TALL, INTS
    pairs = [pair(d, c) for d, c in zip(datas, chunks)]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def test_matrix_has_the_operations_the_issue_lists():
    assert len(OPS) >= 30


@pytest.mark.parametrize("name", sorted(OPS))
def test_operation_matches_dask_numpy(name, operands, pool):
    op = OPS[name]
    expected = op(*operands[0]).compute(scheduler="sync")
    lazy = op(*operands[1])
    assert type(lazy._meta) is (numpy.ndarray if name in NUMPY_META else wnp.Array)
    with dask.config.set(pool=pool):
        result, *blocks = dask.compute(lazy, *lazy.to_delayed().ravel(), scheduler="threads")
    result_type = numpy.ndarray if name in NUMPY_RESULT else wnp.Array
    assert type(result) is result_type
    assert all(type(block) is result_type for block in blocks), {type(b) for b in blocks}
    assert result_type is numpy.ndarray or not result.is_attached()
    assert result.dtype == expected.dtype
    numpy.testing.assert_allclose(numpy.asarray(result), expected, rtol=1e-12, atol=1e-12)


def test_tasks_ran_in_the_pools_workspaces(operands, pool):
    before = sum(r["tasks"] for r in pool.stats())
    with dask.config.set(pool=pool):
        (operands[1][0] @ operands[1][1]).sum(axis=0).compute(scheduler="threads")
    reports = pool.stats()
    assert sum(r["tasks"] for r in reports) > before
    assert {r["workspace"] for r in reports} == {"DASK_TASK"}
    assert all(r["stats"]["cycles"] == r["tasks"] for r in reports)
    assert sum(r["stats"]["reused_bytes"] for r in reports) > 0


def test_full_reduction_gives_numpys_scalar(operands, pool):
    with dask.config.set(pool=pool):
        total = operands[1][0].sum().compute(scheduler="threads")
    assert total == pytest.approx(A.sum())


@pytest.mark.parametrize("op", ["add", "multiply", "greater"])
def test_deferral_in_both_operand_orders(op):
    x = from_array(wnp.asarray(A), chunks=12)
    w = wnp.asarray(A[0])
    ufunc = getattr(numpy, op)
    cases = [(ufunc(w, x), ufunc(A[0], A)), (ufunc(x, w), ufunc(A, A[0])),
             (getattr(wnp, op)(w, x), ufunc(A[0], A))]
    for result, expected in cases:
        assert isinstance(result, da.Array)
        assert type(result._meta) is wnp.Array
        computed = result.compute(scheduler="sync")
        assert type(computed) is wnp.Array
        numpy.testing.assert_array_equal(numpy.asarray(computed), expected)
    assert isinstance(w + x, da.Array) and isinstance(x + w, da.Array)
    stacked = numpy.concatenate([x, wnp.asarray(A)])
    assert isinstance(stacked, da.Array) and type(stacked._meta) is wnp.Array


def test_tokenize_is_stable_and_differs_from_numpys():
    w = wnp.asarray(A)
    assert dask.base.tokenize(w) == dask.base.tokenize(wnp.asarray(A.copy()))
    assert dask.base.tokenize(w) != dask.base.tokenize(wnp.asarray(A + 1))
    assert dask.base.tokenize(w) != dask.base.tokenize(A)
    assert from_array(w, 12).name == from_array(wnp.asarray(A), 12).name


def test_from_array_slices_eagerly_without_copies():
    w = wnp.arange(60.0).reshape(6, 10)
    x = from_array(w, chunks=(3, 5))
    graph = dict(x.__dask_graph__())
    assert len(graph) == 4
    chunk = graph[(x.name, 1, 0)]
    chunk = getattr(chunk, "value", chunk)  # a DataNode in recent Dask
    assert type(chunk) is wnp.Array
    assert numpy.shares_memory(numpy.asarray(chunk), numpy.asarray(w))
    numpy.testing.assert_array_equal(numpy.asarray(chunk), numpy.asarray(w)[3:, :5])
    assert type(x._meta) is wnp.Array and x._meta.shape == (0, 0)


def test_from_array_detaches_a_workspace_array_and_rejects_bad_input():
    with wnp.workspace("FROM_ARRAY"):
        x = from_array(wnp.ones((4, 4)) * 2, chunks=2)
    numpy.testing.assert_array_equal(numpy.asarray(x.compute(scheduler="sync")), 2)
    with pytest.raises(TypeError, match=r"wsarray.dask.from_array\(\): x is already a Dask"):
        from_array(x, chunks=2)
    with pytest.raises(ValueError, match=r"wsarray.dask.from_array\(\): bad chunks"):
        from_array(wnp.ones((4, 4)), chunks=(3, 3, 3))
    for zero in (0, (0, 2), (2, 0)):  # Dask itself divides by it (ZeroDivisionError)
        with pytest.raises(ValueError, match=r"from_array\(\): bad chunks .*a block size of 0"):
            from_array(wnp.ones((4, 4)), chunks=zero)


@pytest.mark.parametrize("make", [
    lambda: da.ones((10, 6), chunks=4),
    lambda: da.zeros((10, 6), chunks=4, dtype="int32"),
    lambda: da.full((10, 6), 2.5, chunks=4),
    lambda: da.arange(0, 30, 2, chunks=4),
    lambda: da.random.default_rng(3).random((10, 6), chunks=4),
    lambda: da.random.RandomState(3).normal(size=(10, 6), chunks=4),
])
def test_creation_backend_makes_wsarray_chunks(make):
    with dask.config.set({"array.backend": "wsarray"}):
        x = make()
    assert type(x._meta) is wnp.Array
    result, *blocks = dask.compute(x, *x.to_delayed().ravel(), scheduler="sync")
    assert type(result) is wnp.Array and all(type(b) is wnp.Array for b in blocks)
    with dask.config.set({"array.backend": "numpy"}):
        expected = make().compute(scheduler="sync")
    numpy.testing.assert_array_equal(numpy.asarray(result), expected)


def test_to_backend_both_ways():
    x = da.from_array(A, chunks=12)
    w = x.to_backend("wsarray")
    assert type(w._meta) is wnp.Array
    assert type(w.compute(scheduler="sync")) is wnp.Array
    back = w.to_backend("numpy")
    assert type(back.compute(scheduler="sync")) is numpy.ndarray


def test_pool_threads_end_at_shutdown():
    before = set(threading.enumerate())
    with WorkspacePool(2) as pool, dask.config.set(pool=pool):
        from_array(wnp.asarray(A), 6).sum(axis=0).compute(scheduler="threads")
        assert len(pool.stats()) >= 1
    assert set(threading.enumerate()) <= before


def test_pool_rejects_bad_arguments():
    with pytest.raises(ValueError, match=r"wsarray.dask.WorkspacePool\(\): max_workers"):
        WorkspacePool(0)
    with pytest.raises(TypeError, match=r"wsarray.dask.WorkspacePool\(\): unknown"):
        WorkspacePool(1, {"bogus": 1})
