"""Fixtures of the drop-in tests: `scope` runs a test outside any workspace and inside one, the
workspace named by the test module's SCOPE_WORKSPACE (tests check results come from it)."""

import pytest

import wsarray as wnp


@pytest.fixture(params=["outside", "inside"])
def scope(request):
    """Run a test outside any workspace (None) and inside the module's workspace (the Workspace)."""
    if request.param == "outside":
        yield None
    else:
        with wnp.workspace(request.module.SCOPE_WORKSPACE) as ws:
            yield ws
