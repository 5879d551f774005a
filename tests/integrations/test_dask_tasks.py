"""wsarray.dask task bodies in workspaces: @workspace_task (delayed, map_blocks), results detached
through containers, the ways data escapes a task (an array of an ended cycle: WorkspaceError; meta
inference inside a workspace), registration through Dask's entry points, sizeof, and the import
rules (import wsarray never imports Dask; a missing Dask names the extra)."""
import collections
import pickle
import subprocess
import sys

import dask
import dask.array as da
import numpy
import pytest
from dask.sizeof import sizeof

import wsarray as wnp
from wsarray.dask import WorkspacePool, from_array, workspace_task

Pair = collections.namedtuple("Pair", "first second")


@workspace_task
def scaled_parts(x):
    y = wnp.asarray(x) * 2
    return (y, [y + 1], {"sum": y.sum(axis=0)}, Pair(y - 1, "label"))


@workspace_task
def leaks_an_ended_cycle(x):
    with wnp.workspace("INNER"):
        inner = wnp.asarray(x) + 1
    return inner


def test_workspace_task_detaches_containers():
    first, (second,), third, fourth = scaled_parts(numpy.arange(6.0).reshape(2, 3))
    for array in (first, second, third["sum"], fourth.first):
        assert type(array) is wnp.Array and not array.is_attached()
    assert isinstance(fourth, Pair) and fourth.second == "label"
    numpy.testing.assert_array_equal(numpy.asarray(second), numpy.arange(6.0).reshape(2, 3) * 2 + 1)
    assert wnp.memory.workspace_stack() == []


def test_workspace_task_in_delayed_and_map_blocks():
    parts = dask.delayed(scaled_parts)(numpy.ones((2, 2))).compute(scheduler="threads")
    numpy.testing.assert_array_equal(numpy.asarray(parts[0]), 2)
    x = from_array(wnp.arange(12.0).reshape(3, 4), chunks=2)
    y = x.map_blocks(workspace_task(lambda b: b * b + 1), dtype=float)
    result = y.compute(scheduler="threads")
    assert type(result) is wnp.Array
    numpy.testing.assert_array_equal(numpy.asarray(result), numpy.arange(12.0).reshape(3, 4) ** 2 + 1)


def test_workspace_task_pickles_by_reference_and_rejects_coroutines():
    assert pickle.loads(pickle.dumps(scaled_parts)) is scaled_parts

    async def coroutine():
        return 1

    with pytest.raises(TypeError, match=r"wsarray.dask.workspace_task\(\): .*coroutine"):
        workspace_task(coroutine)
    with pytest.raises(TypeError, match=r"wsarray.dask.workspace_task\(\): expected a function"):
        workspace_task(3)


def test_returning_an_array_of_an_ended_cycle_raises():
    with pytest.raises(wnp.WorkspaceError, match="leaks_an_ended_cycle.*cycle had already ended"):
        leaks_an_ended_cycle(numpy.ones(3))


def test_a_pool_task_returning_an_ended_cycle_array_fails_loudly():
    def leak(block):
        with wnp.workspace("LEAK"):
            out = block + 1
        return out

    x = from_array(wnp.ones((4, 4)), chunks=2)
    with WorkspacePool(2) as pool, dask.config.set(pool=pool):
        with pytest.raises(wnp.WorkspaceError, match="cycle had already ended"):
            x.map_blocks(leak, dtype=float).compute(scheduler="threads")
        assert any(r["failed_tasks"] for r in pool.stats())


def test_graph_built_inside_a_workspace_computes_after_it():
    with wnp.workspace("BUILD"):
        x = from_array(wnp.arange(8.0) * 1, chunks=3)
        y = x.map_blocks(lambda b: b * 2 + wnp.ones(b.shape))  # meta inferred in the workspace
        z = (y + from_array(wnp.zeros(8), chunks=4)).sum(axis=0)
    assert type(y._meta) is wnp.Array and not y._meta.is_attached()
    with WorkspacePool(2) as pool, dask.config.set(pool=pool):
        assert float(z.compute(scheduler="threads")) == pytest.approx((numpy.arange(8.0) * 2 + 1).sum())


def test_an_attached_operand_captured_in_a_graph_fails_loudly():
    with wnp.workspace("BUILD"):
        x = from_array(wnp.arange(8.0), chunks=3)
        # Dask's own from_array (here behind +) copies a concrete operand: in a workspace, the
        # copy is the cycle's and the graph holds it past the cycle.
        z = x + wnp.ones(8).detach()
    with pytest.raises(wnp.WorkspaceError, match="cycle has ended"):
        z.compute(scheduler="threads")


def test_sizeof_counts_the_buffer_as_numpy_does():
    w = wnp.ones((100, 10))
    assert sizeof(w) == sizeof(numpy.ones((100, 10)))
    assert sizeof(wnp.broadcast_to(wnp.ones(10), (1000, 10))) < sizeof(w)


def run_python(code):
    done = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_import_wsarray_imports_no_dask():
    out = run_python("import sys, wsarray; print(sorted(m for m in sys.modules "
                     "if m.split('.')[0] in ('dask', 'distributed')))")
    assert out.strip() == "[]"


def test_entry_points_register_without_a_call():
    out = run_python(
        "import dask.array as da, numpy, wsarray as w\n"
        "from wsarray._dask import registry\n"
        "print(registry.is_registered())\n"
        "x = da.from_array(numpy.arange(6.0), chunks=2).to_backend('wsarray')\n"
        "print(type(da.percentile(x, [50]).compute()) is w.ndarray)\n")
    assert out.split() == ["True", "True"]


def test_missing_dask_names_the_extra():
    code = ("import sys\nsys.modules['dask'] = None\n"
            "try:\n    import wsarray.dask\nexcept ImportError as e:\n    print(e)\n")
    out = run_python(code)
    assert "wsarray.dask needs Dask" in out and 'pip install "wsarray[dask]"' in out


def test_threaded_scheduler_without_the_pool_still_works():
    x = from_array(wnp.arange(10.0), chunks=4)
    result = (x * 2).compute(scheduler="threads")
    assert type(result) is wnp.Array
    numpy.testing.assert_array_equal(numpy.asarray(result), numpy.arange(10.0) * 2)
    assert isinstance(da.ones(3), da.Array)


def test_register_before_dask_is_imported_does_not_deadlock():
    # register() imports dask.array, whose import hook registers again on the same thread.
    out = run_python("import sys\nfrom wsarray._dask.registry import register, is_registered\n"
                     "assert 'dask.array' not in sys.modules\nregister()\nprint(is_registered())")
    assert out.strip() == "True"
