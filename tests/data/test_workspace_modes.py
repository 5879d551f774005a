"""WorkspaceMode / WorkspaceManager: where each kind of array goes, in each mode and thread."""
import threading

import numpy
import pytest

import wsarray as wnp
from wsarray.data import KINDS, WorkspaceManager, WorkspaceMode
from wsarray.data._example import init_mlp, train_step


def test_none_mode_uses_no_workspace():
    mgr = WorkspaceManager("none")
    with wnp.workspace("OUTER"):
        with mgr.step():
            a = mgr.create("activations", (2, 3))
            with mgr.scope("working_memory"):
                t = wnp.ones(3) * 2
            attached = wnp.ones(2)
        with wnp.workspace("OUTER").borrow():
            in_outer = wnp.ones(2)
        kept = mgr.leverage_to("activations", in_outer)
    assert not a.is_attached() and not t.is_attached() and not attached.is_attached()
    assert numpy.asarray(a).sum() == 0 and float(t.sum()) == 6.0
    assert not kept.is_attached() and float(kept.sum()) == 2.0
    assert mgr.leverage_to("input", a) is a
    assert mgr.names() == [] and mgr.workspace_name("input") is None
    mgr.check("activations", a)


def test_single_mode_puts_every_kind_in_one_workspace():
    mgr = WorkspaceManager(WorkspaceMode.SINGLE, prefix="S")
    with mgr.step():
        a = mgr.create("activations", (4,))
        with mgr.scope("working_memory"):
            t = wnp.ones(4) + 1
        assert mgr.leverage_to("activations", t) is t  # already there: no copy
        g = mgr.create_uninitialized("activation_grad", (2,), dtype="float32")
        with mgr.scope("updater"):
            u = t * 3
        assert {a.workspace, t.workspace, g.workspace, u.workspace} == {"S/all"}
        assert float(t.sum()) == 8.0  # working memory lives until the step ends
        mgr.check("working_memory", t)
    with pytest.raises(wnp.WorkspaceError):
        a.sum()
    with pytest.raises(wnp.WorkspaceError, match=r"with mgr.step\(\)"):
        mgr.create("activations", (2,))
    assert list(mgr.stats()) == ["S/all"]


def test_separate_mode_one_workspace_per_kind_working_memory_per_scope():
    mgr = WorkspaceManager("separate", prefix="P")
    with mgr.step():
        x = mgr.leverage_to("input", numpy.arange(4.0))
        with mgr.scope("working_memory"):
            t = x * 2
            kept = mgr.leverage_to("activations", t)
            assert kept is not t and kept.workspace == "P/activations"
        with pytest.raises(wnp.WorkspaceError):  # the layer's working memory is gone
            t.sum()
        numpy.testing.assert_array_equal(numpy.asarray(kept), [0, 2, 4, 6])
        with mgr.scope("activation_grad"):
            g = kept - 1
        with mgr.scope("updater"):
            u = g * 0
        assert (x.workspace, g.workspace, u.workspace) == ("P/input", "P/activation_grad", "P/updater")
        with pytest.raises(wnp.WorkspaceError, match="should be in 'P/activations'"):
            mgr.check("activations", g)
    with pytest.raises(wnp.WorkspaceError):
        kept.sum()
    with mgr.scope("working_memory"):  # scoped kinds work outside a step too
        assert wnp.ones(2).workspace == "P/working_memory"
    with pytest.raises(wnp.WorkspaceError, match="not open"):
        mgr.create("working_memory", (2,))
    assert sorted(mgr.stats()) == sorted(f"P/{k}" for k in KINDS)
    mgr.destroy()
    assert mgr.stats() == {}


def test_configs_are_used_and_checked():
    mgr = WorkspaceManager("single", configs={"all": wnp.WorkspaceConfig(initial_size="4MB",
                                                                          learning="none")})
    with mgr.step():
        mgr.create("activations", 10)
    (stats,) = mgr.stats().values()
    assert stats["capacity"] >= 4_000_000
    with pytest.raises(ValueError, match="unknown kind 'weights'"):
        WorkspaceManager("separate", configs={"weights": wnp.WorkspaceConfig()})
    with pytest.raises(TypeError, match="WorkspaceConfig"):
        WorkspaceManager("separate", configs={"input": {}})
    with pytest.raises(ValueError, match="mode must be"):
        WorkspaceManager("double")
    with pytest.raises(ValueError, match="unknown kind"):
        WorkspaceManager().scope("weights")


@pytest.mark.parametrize("mode", list(WorkspaceMode))
def test_a_training_step_gives_the_same_numbers_in_every_mode(mode):
    rng = numpy.random.default_rng(1)
    x = rng.standard_normal((16, 8)).astype("float32")
    y = rng.integers(0, 3, 16)
    reference = init_mlp([8, 12, 3])
    mgr_ref = WorkspaceManager("none")
    params = init_mlp([8, 12, 3])
    mgr = WorkspaceManager(mode)
    for _ in range(3):
        loss_ref = train_step(mgr_ref, reference, wnp.asarray(x), wnp.asarray(y))
        loss = train_step(mgr, params, wnp.asarray(x), wnp.asarray(y))
        assert loss == loss_ref
    for (w, b), (w_ref, b_ref) in zip(params, reference):
        numpy.testing.assert_array_equal(numpy.asarray(w), numpy.asarray(w_ref))
        numpy.testing.assert_array_equal(numpy.asarray(b), numpy.asarray(b_ref))
    for name, s in mgr.stats().items():
        assert s["live_arrays"] == 0, name  # nothing of a step outlives it
    mgr.destroy()


def test_worker_threads_each_get_their_own_workspaces():
    mgr = WorkspaceManager("separate", prefix="W")
    barrier = threading.Barrier(3)
    results, errors = {}, []

    def worker(k):
        try:
            with mgr.step():
                a = mgr.create("activations", (1000,)) + k
                barrier.wait(10)  # all three steps are open at once
                results[k] = (float(a.sum()), a.workspace, sorted(mgr.stats()))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)
        finally:
            wnp.memory.destroy_all_workspaces_for_current_thread()

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors, errors
    assert {k: r[0] for k, r in results.items()} == {0: 0.0, 1: 1000.0, 2: 2000.0}
    assert all(r[1] == "W/activations" for r in results.values())
    assert mgr.stats() == {}  # the main thread has none of them


def test_the_demo_runs_and_reports_every_mode():
    """The modes part of the demo (python -m wsarray's pipeline part), one short run per mode."""
    import json
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-P", "-m", "wsarray.data._demo", "--part", "modes",
                           "--quick", "--json"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = {r["mode"]: r for r in json.loads(proc.stdout)["modes"]}
    assert set(rows) == {"none", "single", "separate"}
    assert rows["none"]["capacity_mib"] == 0 and rows["none"]["workspaces"] == {}
    assert rows["single"]["capacity_mib"] > 0 and list(rows["single"]["workspaces"]) == ["all"]
    assert set(rows["separate"]["workspaces"]) == set(KINDS)
