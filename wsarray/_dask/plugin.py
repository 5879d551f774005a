"""``WorkspacePlugin`` and ``worker_stats``: every task of a distributed worker in a workspace.

The plugin is a ``distributed.WorkerPlugin``. ``client.register_plugin(WorkspacePlugin(config))``
sends it to every worker, and the scheduler keeps it for workers that join later or restart. On a
worker, each task about to execute (its transition to "executing") has its run spec wrapped in a
``TaskInWorkspace``: the task body runs in one cycle of the executing thread's workspace and its
result is detached before the worker stores it. Two kinds of task stay outside workspaces:
coroutine tasks (a cycle cannot span an await) and the tasks of distributed's P2P shuffles and
rechunks (``distributed.shuffle``), whose buffers outlive the task that fills them.
``worker_stats(client)`` asks each worker for its runners' per-thread reports.
"""
from distributed import WorkerPlugin

from .registry import register
from .runner import TASK_WORKSPACE, TaskInWorkspace, all_runners, check_workspace_name
from .runner import config_fields, runner_for

WHO = "wsarray.dask.WorkspacePlugin"
P2P_MODULE = "distributed.shuffle"


MAX_NODES = 10_000  # a task spec larger than this is not searched further


def _is_p2p(spec):
    """Whether task ``spec`` calls a function of ``distributed.shuffle`` anywhere in it: Dask
    fuses P2P transfers and unpacks with their neighbours (``_execute_subgraph``)."""
    stack, visited = [spec], 0
    while stack and visited < MAX_NODES:
        node = stack.pop()
        visited += 1
        module = getattr(getattr(node, "func", None), "__module__", None) or ""
        if module == P2P_MODULE or module.startswith(P2P_MODULE + "."):
            return True
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
        else:
            args = getattr(node, "args", None)
            if isinstance(args, tuple):
                stack.extend(args)
            kwargs = getattr(node, "kwargs", None)
            if isinstance(kwargs, dict):
                stack.extend(kwargs.values())
            value = getattr(node, "value", None)  # a DataNode holding a subgraph
            if isinstance(value, (dict, list, tuple)):
                stack.append(value)
    return False


class WorkspacePlugin(WorkerPlugin):
    """Runs every task of a worker in the executing thread's workspace ``workspace_name``
    (created with ``config`` on the thread's first task), one cycle per task, results detached.

    ``config``: a ``wsarray.WorkspaceConfig``, a dict of its fields, or None (the defaults).
    Registering again (same ``name``) replaces the plugin on every worker.
    """

    name = "wsarray-workspace"

    def __init__(self, config=None, *, workspace_name=TASK_WORKSPACE):
        self.fields = config_fields(config, f"{WHO}()")
        self.workspace_name = check_workspace_name(workspace_name, f"{WHO}()")
        self._worker = None
        self._runner = None

    def __getstate__(self):  # the worker and runner are the receiving process's own
        return {"fields": self.fields, "workspace_name": self.workspace_name}

    def __setstate__(self, state):
        self.fields = state["fields"]
        self.workspace_name = state["workspace_name"]
        self._worker = None
        self._runner = None

    def __repr__(self):
        return f"<wsarray.dask.WorkspacePlugin workspace {self.workspace_name!r}>"

    def setup(self, worker):
        register()
        self._runner = runner_for(self.workspace_name, self.fields)
        self._worker = worker

    def teardown(self, worker):
        self._worker = None

    def transition(self, key, start, finish, **kwargs):
        if finish != "executing" or self._worker is None:
            return
        ts = self._worker.state.tasks.get(key)
        spec = getattr(ts, "run_spec", None)
        if spec is None or isinstance(spec, TaskInWorkspace) or _is_p2p(spec):
            return
        if getattr(spec, "is_coro", False):
            return
        ts.run_spec = TaskInWorkspace(spec, self._runner)


def _report():
    # Every runner of the worker process: executor threads, including ones that ended (a thread
    # that seceded, or one replaced by the executor), flagged by "alive".
    return [report for runner in all_runners() for report in runner.stats()]


def worker_stats(client):
    """``{worker address: [report per executor thread]}``: tasks run, failed tasks, arrays and
    bytes detached, and the thread's workspace ``stats()`` (cycles, spills, reuse, ...)."""
    from distributed import Client

    if not isinstance(client, Client):
        raise TypeError(f"wsarray.dask.worker_stats(): expected a distributed.Client, not "
                        f"{type(client).__name__}")
    return client.run(_report)
