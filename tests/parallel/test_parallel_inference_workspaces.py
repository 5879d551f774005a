"""Every worker runs its batches in a workspace of its own; callers only ever get detached data."""
import collections
import threading

import numpy
import pytest
from parallel_helpers import make_mlp

import wsarray as wnp
from wsarray.parallel import ParallelInference


@pytest.mark.parametrize("mode", ["batched", "sequential"])
def test_each_batch_runs_in_one_cycle_of_its_workers_own_workspace(mode):
    mlp = make_mlp()
    seen = []  # (thread, workspace stack, workspace handle) per batch

    def model(x):
        seen.append((threading.current_thread().name, wnp.memory.workspace_stack(),
                     wnp.workspace("ParallelInference")))
        return mlp(x)

    with ParallelInference(model, workers=2, mode=mode) as pi:
        futures = [pi.submit(numpy.ones((1 + k % 3, 6)) * k) for k in range(60)]
        for f in futures:
            f.result(timeout=10)
        # Identical batches one at a time: a worker that runs three of them reuses its memory
        # whatever the concurrent batches before (their sizes depend on timing: a worker whose
        # batches only grew has reused nothing yet).
        alone = len(seen)
        for _ in range(8):
            pi.output(numpy.ones((2, 6)))
        stats = pi.stats()
    identical = collections.Counter(t for t, _, _ in seen[alone:])
    threads = {t for t, _, _ in seen}
    assert len(threads) <= 2 and all(t.startswith("wsarray-parallel-inference-") for t in threads)
    assert threads <= {w["thread"] for w in stats["workers"]}
    assert all(stack == [("cycle", "ParallelInference")] for _, stack, _ in seen)
    handles = {t: h for t, _, h in seen}
    assert len({id(h) for h in handles.values()}) == len(threads)  # one workspace per thread
    assert not any(h.alive for _, _, h in seen)  # destroyed when the workers stopped
    total = 0
    for w in stats["workers"]:
        ws = w["workspace"]
        assert ws["cycles"] == w["batches"]  # one cycle per batch
        assert ws["live_arrays"] == 0 and not ws["open"]
        total += w["batches"]
        if identical[w["thread"]] >= 3:
            assert ws["reused_bytes"] > 0
    assert total == stats["batches"] == len(seen)


def test_steady_state_batches_do_not_spill():
    mlp = make_mlp()
    config = wnp.WorkspaceConfig(learning="first_loop")
    with ParallelInference(mlp, workers=2, mode="sequential", workspace_config=config) as pi:
        x = numpy.ones((4, 6))
        for _ in range(20):  # every worker learns its size
            pi.submit(x).result(timeout=10)
        before = [w["workspace"] for w in pi.stats()["workers"]]
        futures = [pi.submit(x) for _ in range(100)]
        for f in futures:
            f.result(timeout=10)
        after = [w["workspace"] for w in pi.stats()["workers"]]
    for b, a in zip(before, after):
        if b["cycles"] > 1:  # a worker that has learned
            assert a["spills"] == b["spills"] and a["spilled_bytes"] == b["spilled_bytes"]
            assert a["os_maps"] == b["os_maps"]
        assert a["reused_bytes"] >= b["reused_bytes"]
    assert sum(a["cycles"] - b["cycles"] for b, a in zip(before, after)) == 100


def test_the_workspace_config_is_used_for_every_worker():
    config = wnp.WorkspaceConfig(initial_size="2MB", learning="none")
    with ParallelInference(lambda x: x + 1, workers=2, workspace_config=config) as pi:
        pi.output(numpy.ones((1, 1)))
        capacities = [w["workspace"]["capacity"] for w in pi.stats()["workers"]]
    assert all(c >= 2_000_000 for c in capacities) and len(capacities) == 2


@pytest.mark.parametrize("mode", ["batched", "sequential"])
@pytest.mark.parametrize("kind", ["wsarray", "numpy view", "input itself"])
def test_results_stay_valid_after_many_later_cycles_reuse_the_memory(mode, kind):
    def model(x):
        y = x * 3.0 + 1.0  # made in the worker's workspace
        if kind == "numpy view":
            return numpy.asarray(y)  # a raw view of workspace memory
        if kind == "input itself":
            return x
        return y

    requests = [numpy.full((1 + k % 2, 4), float(k)) for k in range(80)]
    results = []
    with ParallelInference(model, workers=2, mode=mode) as pi:
        for wave in range(0, len(requests), 8):  # waves of similar batches, so memory is reused
            futures = [pi.submit(x) for x in requests[wave:wave + 8]]
            results += [f.result(timeout=10) for f in futures]
        stats = pi.stats()
    assert sum(w["workspace"]["reused_bytes"] for w in stats["workers"]) > 0
    for x, r in zip(requests, results):  # read after every cycle has ended
        expected = x if kind == "input itself" else x * 3.0 + 1.0
        numpy.testing.assert_array_equal(numpy.asarray(r), expected)
        if type(r) is wnp.Array:
            assert not r.is_attached()
        assert not numpy.shares_memory(numpy.asarray(r), x)  # the caller gets a copy


def test_the_model_getting_a_request_inside_a_callers_workspace_is_independent_of_it():
    with ParallelInference(lambda x: x * 2.0, workers=1) as pi:
        with wnp.workspace("CALLER"):
            r = pi.output(wnp.ones((2, 2)))
            assert wnp.memory.current_workspace() == "CALLER"
        assert not r.is_attached()
        numpy.testing.assert_array_equal(numpy.asarray(r), numpy.full((2, 2), 2.0))


def test_statistics_count_requests_batches_queue_wait_and_latency():
    with ParallelInference(lambda x: x, workers=2) as pi:
        assert pi.stats()["latency_ms"]["p50"] is None
        for _ in range(30):
            pi.output(numpy.ones((2, 1)))
        s = pi.stats()
        assert s["requests"] == s["completed"] == 30 and s["mode"] == "batched"
        assert s["batches"] == 30 and s["mean_batch_requests"] == 1 and s["mean_batch_rows"] == 2
        for key in ("queue_wait_ms", "latency_ms"):
            v = s[key]
            assert 0 <= v["p50"] <= v["p99"] <= v["max"] and v["mean"] >= 0
        assert s["latency_ms"]["p50"] >= s["queue_wait_ms"]["p50"]
        assert [w["device"] for w in s["workers"]] == ["cpu", "cpu"]
        assert sum(w["requests"] for w in s["workers"]) == 30
        pi.reset_stats()
        assert pi.stats()["requests"] == 0 and pi.stats()["latency_ms"]["p50"] is None
        assert sum(w["requests"] for w in pi.stats()["workers"]) == 30  # cumulative
    assert repr(pi) == "<wsarray.parallel.ParallelInference mode='batched' workers=2 closed>"
