"""transient_workspace(): a workspace that goes away with its handle (on its own thread, or at that
thread's next transient_workspace() when the handle dies elsewhere); many named workspaces warn."""
import asyncio
import gc
import threading
import warnings

import pytest

import wsarray as wnp
from wsarray import memory


def test_a_transient_workspace_goes_away_with_its_handle():
    ws = wnp.transient_workspace(label="req")
    with ws:
        a = wnp.ones(100_000) + 1
        total = float(a.sum())
    name = ws.name
    assert name.startswith("req#") and memory.workspace_exists(name) and total == 200_000.0
    assert ws.stats()["capacity"] >= 800_000
    del ws
    gc.collect()
    assert not memory.workspace_exists(name)
    with pytest.raises(wnp.WorkspaceError):
        a + 1  # its arrays are stale, as after any cycle
    other = wnp.transient_workspace(label="req")
    assert other.name != name and wnp.workspace(other.name, wnp.WorkspaceConfig()) == other


def test_per_task_workspaces_do_not_accumulate():
    async def request(k):
        with wnp.transient_workspace(label="task"):
            x = wnp.ones(50_000) * k
            await asyncio.sleep(0)
            return float(x.sum())

    async def serve():
        return await asyncio.gather(*(request(k) for k in range(50)))
    results = asyncio.run(serve())
    gc.collect()
    assert results == [50_000.0 * k for k in range(50)]
    assert not [n for n in memory.allocation_statistics() if n.startswith("task#")]


def test_a_handle_dropped_on_another_thread_is_destroyed_by_its_owner():
    handed = {}
    ready, go, done = threading.Event(), threading.Event(), threading.Event()

    def owner():
        ws = wnp.transient_workspace(label="owned")
        with ws:
            wnp.ones(1000)
        handed["ws"], handed["name"] = ws, ws.name
        del ws
        ready.set()
        go.wait(10)
        handed["before"] = memory.workspace_exists(handed["name"])
        wnp.transient_workspace(label="next")  # the owner's next transient workspace sweeps
        handed["after"] = memory.workspace_exists(handed["name"])
        done.set()
    t = threading.Thread(target=owner)
    t.start()
    ready.wait(10)
    handed.pop("ws")  # the last handle dies here, on the main thread
    gc.collect()
    go.set()
    done.wait(10)
    t.join(10)
    assert handed["before"] is True and handed["after"] is False


def test_bad_arguments_and_many_named_workspaces_warn():
    with pytest.raises(TypeError, match="label must be a non-empty str"):
        wnp.transient_workspace(label="")
    with pytest.raises(TypeError, match="config must be a wsarray.WorkspaceConfig"):
        wnp.transient_workspace(config={"initial_size": 10})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k in range(120):
            wnp.workspace(f"many{k}")
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(messages) == 1 and "holds 100 named workspaces" in messages[0]
    assert "wsarray.transient_workspace()" in messages[0] and caught[0].filename == __file__
