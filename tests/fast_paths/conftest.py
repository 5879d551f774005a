"""Fixtures of the fast-path tests: `scope` runs a test outside any workspace and inside one, the
workspace named by the test module's SCOPE_WORKSPACE (destroyed afterwards)."""

import pytest

import wsarray as wa


@pytest.fixture(params=["outside", "workspace"])
def scope(request):
    """Run a test outside any workspace (None) and inside the module's workspace (the Workspace)."""
    if request.param == "outside":
        yield None
        return
    name = request.module.SCOPE_WORKSPACE
    with wa.workspace(name) as ws:
        yield ws
    wa.memory.destroy_workspace(name)
