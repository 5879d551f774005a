"""wsarray.dask on a distributed LocalCluster (two worker processes, one thread each, loopback):
WorkspacePlugin on every worker (also one that replaces a killed worker), results equal NumPy's,
per-worker statistics (reuse, no steady-state spills), P2P rechunk, spilling to disk, retries."""
import faulthandler
import os
import threading

import dask
import dask.array as da
import numpy
import pytest

import wsarray as wnp
from wsarray.dask import WorkspacePlugin, from_array, worker_stats

distributed = pytest.importorskip("distributed")

TIMEOUT = 60  # seconds for any one wait on the cluster
TEST_TIMEOUT = 180  # seconds: a test still running then dumps every thread's stack and exits


@pytest.fixture(autouse=True)
def _bounded_time():
    # No test may hang the suite: past TEST_TIMEOUT the process exits with the stacks printed.
    faulthandler.dump_traceback_later(TEST_TIMEOUT, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def local_cluster(**kwargs):
    return distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1,
                                    host="127.0.0.1", dashboard_address=":0",  # a free port: never "8787 in use"
                                    silence_logs=40, **kwargs)


@pytest.fixture(scope="module")
def client():
    before = set(threading.enumerate())
    with local_cluster() as cluster, distributed.Client(cluster, timeout=TIMEOUT) as client:
        client.register_plugin(WorkspacePlugin({"spill": "external"}))
        yield client
    leftover = {t for t in set(threading.enumerate()) - before if t.is_alive()}
    # distributed keeps a few process-wide daemon threads (its offload executor); none of ours.
    assert not [t for t in leftover if t.name.startswith("wsarray")]


def data(shape, seed=0):
    return numpy.random.default_rng(seed).standard_normal(shape)


def plugins_of(client):
    return client.run(lambda dask_worker: sorted(dask_worker.plugins))


def test_plugin_is_on_every_worker(client):
    plugins = plugins_of(client)
    assert len(plugins) == 2
    assert all("wsarray-workspace" in names for names in plugins.values())


def test_results_equal_numpys_and_come_back_detached(client):
    a = data((400, 300))
    x = from_array(wnp.asarray(a), chunks=(100, 150))
    y = ((x * 2 + 1) ** 2).mean(axis=0) - (x.T @ x).sum(axis=1) / 1000
    result = y.compute()
    assert type(result) is wnp.Array and not result.is_attached()
    expected = ((a * 2 + 1) ** 2).mean(axis=0) - (a.T @ a).sum(axis=1) / 1000
    numpy.testing.assert_allclose(numpy.asarray(result), expected, rtol=1e-10)
    futures = client.compute(list((x + 1).to_delayed().ravel()))
    blocks = client.gather(futures)
    assert all(type(b) is wnp.Array and not b.is_attached() for b in blocks)


def total(stats, field):
    return sum(r["stats"][field] if field in r["stats"] else r[field]
               for reports in stats.values() for r in reports)


def test_worker_stats_show_reuse_and_no_steady_state_spills(client):
    a = data((200, 200), 1)
    x = from_array(wnp.asarray(a), chunks=50)
    expected = ((numpy.sin(a) + a * 3) ** 2).sum(axis=0)

    def run():
        result = ((numpy.sin(x) + x * 3) ** 2).sum(axis=0).compute()
        numpy.testing.assert_allclose(numpy.asarray(result), expected, rtol=1e-12)
        return worker_stats(client)

    # Each thread's workspace learns again when a cycle spills, until it has seen the largest
    # task: warm up until a round spills nothing (task placement varies between rounds).
    stats = run()
    for _ in range(6):
        previous, stats = stats, run()
        if total(stats, "spills") == total(previous, "spills"):
            break
    else:
        pytest.fail("the workspaces spilled in each of 6 rounds of the same computation")
    steady = run()
    assert set(steady) == set(client.scheduler_info()["workers"])
    assert all(steady.values()), "a worker ran no task in a workspace"
    assert all(r["workspace"] == "DASK_TASK" for rs in steady.values() for r in rs)
    assert total(steady, "tasks") > total(stats, "tasks")
    assert total(steady, "reused_bytes") > total(stats, "reused_bytes")
    assert total(steady, "spills") == total(stats, "spills"), "a steady-state round spilled"


def test_p2p_rechunk_runs_outside_workspaces(client):
    a = data((120, 120), 2)
    x = from_array(wnp.asarray(a), chunks=(120, 10))
    y = x.rechunk((10, 120), method="p2p") * 2
    result = y.compute()
    assert type(result) is wnp.Array
    numpy.testing.assert_array_equal(numpy.asarray(result), a * 2)
    with dask.config.set({"array.rechunk.method": "tasks"}):
        numpy.testing.assert_array_equal(numpy.asarray(x.rechunk((10, 120)).compute()), a)


def test_a_task_returning_an_ended_cycle_array_errs(client):
    def leak(block):
        with wnp.workspace("LEAK"):
            out = block + 1
        return out

    x = from_array(wnp.ones((4, 4)), chunks=2)
    with pytest.raises(wnp.WorkspaceError, match="cycle had already ended"):
        x.map_blocks(leak, dtype=float).compute()


@pytest.mark.filterwarnings("ignore:Sending large graph")  # the test sends one on purpose
def test_forced_spill_to_disk_gives_correct_results(tmp_path):
    # 40 MB of chunks on workers limited to 60 MB each, told to spill from 1%: the chunks go to
    # disk and come back (unpickled outside any workspace) for the reduction.
    a = data((1000, 2500), 3)
    config = {"distributed.worker.memory.target": 0.01, "distributed.worker.memory.spill": 0.02,
              "distributed.worker.memory.pause": False, "distributed.worker.memory.terminate": False}
    with dask.config.set(config), \
            local_cluster(memory_limit="120MB", local_directory=str(tmp_path)) as cluster, \
            distributed.Client(cluster, timeout=TIMEOUT) as client:
        client.register_plugin(WorkspacePlugin())
        x = from_array(wnp.asarray(a), chunks=(100, 2500))
        y = (x * 2).persist()
        distributed.wait(y, timeout=TIMEOUT)
        spilled = client.run(lambda dask_worker: len(dask_worker.data.slow))
        total = y.sum(axis=1).compute()
    assert sum(spilled.values()) > 0, "nothing was spilled to disk"
    numpy.testing.assert_allclose(numpy.asarray(total), (a * 2).sum(axis=1), rtol=1e-12)


def test_killed_worker_is_replaced_and_the_task_retried(tmp_path):
    marker = tmp_path / "killed-once"

    def kill_once(block):
        if not marker.exists():
            marker.write_text(str(os.getpid()))
            os._exit(1)  # the worker process dies mid-task
        return block * 2

    a = data((40, 40), 4)
    with local_cluster() as cluster, distributed.Client(cluster, timeout=TIMEOUT) as client:
        client.register_plugin(WorkspacePlugin())
        first = set(client.scheduler_info()["workers"])
        x = from_array(wnp.asarray(a), chunks=20)
        y = x.map_blocks(kill_once, meta=wnp.empty((0, 0)))  # no meta inference: it would kill us
        future = client.compute(y, retries=1)
        result = future.result(timeout=TIMEOUT)
        client.wait_for_workers(2, timeout=TIMEOUT)
        workers = set(client.scheduler_info()["workers"])
        plugins = plugins_of(client)
    assert marker.exists()
    assert workers - first, "no new worker replaced the killed one"
    assert all("wsarray-workspace" in names for names in plugins.values())
    assert type(result) is wnp.Array
    numpy.testing.assert_array_equal(numpy.asarray(result), a * 2)


def test_plugin_and_stats_reject_bad_arguments():
    with pytest.raises(TypeError, match=r"wsarray.dask.WorkspacePlugin\(\): unknown"):
        WorkspacePlugin({"bogus": 1})
    with pytest.raises(ValueError, match=r"wsarray.dask.WorkspacePlugin\(\): workspace_name"):
        WorkspacePlugin(workspace_name="")
    with pytest.raises(ValueError, match=r"wsarray.dask.WorkspacePlugin\(\): workspace_name .* NUL"):
        WorkspacePlugin(workspace_name="a\x00b")
    with pytest.raises(TypeError, match=r"wsarray.dask.WorkspacePlugin\(\): workspace_name .* not int"):
        WorkspacePlugin(workspace_name=3)
    with pytest.raises(TypeError, match=r"wsarray.dask.worker_stats\(\): expected a distributed"):
        worker_stats(object())


def test_creation_backend_on_the_cluster(client):
    with dask.config.set({"array.backend": "wsarray"}):
        x = da.random.default_rng(5).random((300, 200), chunks=100)
    result = (x @ x.T).compute()
    expected = da.random.default_rng(5).random((300, 200), chunks=100).compute(scheduler="sync")
    assert type(result) is wnp.Array
    numpy.testing.assert_allclose(numpy.asarray(result), expected @ expected.T, rtol=1e-12)
