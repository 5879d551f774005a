import gc

import pytest

import wsarray as wnp


@pytest.fixture(autouse=True)
def _clean_workspaces():
    """Every test starts and ends with no workspaces on the main thread."""
    yield
    gc.collect()
    assert wnp.memory.workspace_stack() == [], "a test left a workspace scope open"
    wnp.memory.destroy_all_workspaces_for_current_thread()
