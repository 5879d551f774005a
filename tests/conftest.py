import gc
import os

import pytest
from hypothesis import settings

import wsarray as wnp

# CI draws the same examples every run (a red CI must mean a regression, not a new draw);
# local runs keep exploring with fresh random examples.
settings.register_profile("ci", derandomize=True, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


def pytest_collection_finish(session):
    """The per-test collection below would otherwise walk every collected test, Hypothesis strategy
    and imported module each time (about half the suite's time); nothing that exists now is a
    test's garbage, so the collector can leave it alone (gc.freeze)."""
    gc.collect()
    gc.freeze()


def pytest_sessionfinish(session, exitstatus):
    """Frozen objects are never collected, not even at interpreter exit: hand them back."""
    gc.unfreeze()


@pytest.fixture(autouse=True)
def _clean_workspaces():
    """Every test starts and ends with no workspaces on the main thread."""
    yield
    gc.collect()
    assert wnp.memory.workspace_stack() == [], "a test left a workspace scope open"
    wnp.memory.destroy_all_workspaces_for_current_thread()
