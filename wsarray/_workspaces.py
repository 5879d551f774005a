"""Workspace scopes: ``workspace``, ``scope_out``, ``WorkspaceConfig`` and the errors."""

from ._core import (
    Workspace,
    WorkspaceConfig,
    WorkspaceError,
    WorkspaceMemoryError,
    parse_size,
    scope_out,
)
from ._core import workspace as _workspace

__all__ = [
    "Workspace",
    "WorkspaceConfig",
    "WorkspaceError",
    "WorkspaceMemoryError",
    "parse_size",
    "scope_out",
    "workspace",
]


def workspace(name="WSA_DEFAULT", config=None):
    """The workspace ``name`` of the current thread (created on first use with ``config``).

    ``with wsarray.workspace("LOOP"):`` runs one cycle: every array made inside comes from the
    workspace's memory and becomes invalid when the block ends; ``.detach()`` keeps a result.
    Calling it again with the same name on the same thread returns the same workspace; a
    different ``config`` for an existing name raises ``WorkspaceError``.
    """
    if not isinstance(name, str):
        raise TypeError(f"wsarray.workspace(): name must be a str, not {type(name).__name__}")
    if config is not None and not isinstance(config, WorkspaceConfig):
        raise TypeError("wsarray.workspace(): config must be a wsarray.WorkspaceConfig, "
                        f"not {type(config).__name__}")
    return _workspace(name, config)
