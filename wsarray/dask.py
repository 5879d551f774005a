"""``wsarray.dask``: Dask arrays of wsarray chunks, and Dask tasks that run in workspaces.

Dask and distributed are optional (``pip install "wsarray[dask]"``); ``import wsarray`` never
imports them, and importing this module without Dask raises an ImportError naming the extra.
Registration is automatic once Dask is installed alongside wsarray (Dask's entry points call it);
``register()`` does it explicitly. The pieces:

* ``register()``: chunk type, dispatch functions, ``sizeof``, tokens, ``array.backend="wsarray"``;
* ``from_array(x, chunks)``: a Dask array of zero-copy views of ``x``;
* ``WorkspacePool``: the threaded scheduler with each task in its thread's workspace
  (``dask.config.set(pool=WorkspacePool(4))``);
* ``WorkspacePlugin(config)``: the same on distributed workers (``client.register_plugin``),
  ``worker_stats(client)`` their per-thread workspace statistics;
* ``workspace_task``: a decorator for ``map_blocks``, ``delayed`` and ``client.submit``.

The implementation lives in ``wsarray._dask``.
"""
from ._dask import require as _require

_require("dask.array", "wsarray.dask")

from ._dask.arrays import from_array  # noqa: E402
from ._dask.pool import WorkspacePool  # noqa: E402
from ._dask.registry import is_registered, register  # noqa: E402
from ._dask.runner import TASK_WORKSPACE, workspace_task  # noqa: E402

# WorkspacePlugin and worker_stats come from __getattr__ below.
__all__ = ["TASK_WORKSPACE", "WorkspacePool", "from_array", "is_registered", "register",
           "workspace_task", "WorkspacePlugin", "worker_stats"]  # noqa: F822


def __getattr__(name):
    # The distributed pieces import distributed only when asked for: the threaded scheduler
    # needs dask alone.
    if name in ("WorkspacePlugin", "worker_stats"):
        _require("distributed", f"wsarray.dask.{name}")
        from ._dask import plugin

        return getattr(plugin, name)
    raise AttributeError(f"module 'wsarray.dask' has no attribute {name!r}")
