"""``WorkspacePool``: Dask's threaded scheduler with every task in a workspace.

``dask.config.set(pool=WorkspacePool(4))`` (or ``compute(pool=...)``): Dask's threaded scheduler
submits batches of tasks (``dask.local.batch_execute_tasks``) to the pool. Each task's ``loads``
step is wrapped so that the task itself runs through the pool's ``TaskRunner``: one cycle of the
worker thread's workspace per task, its result detached before the cycle ends, and a task that
returns an array of an ended cycle fails on its own with ``WorkspaceError`` (Dask reports it as a
failed task). Anything else submitted runs whole in one cycle, result detached. Contextvars are
carried from the submitting thread, as in Dask's own pool. Worker threads, and with them their
workspaces, end at ``shutdown()`` (or the ``with`` block's end).
"""
import concurrent.futures
import contextvars
import itertools
import os

from dask import local

from .registry import register
from .runner import TASK_WORKSPACE, TaskInWorkspace, check_workspace_name, config_fields, runner_for

WHO = "wsarray.dask.WorkspacePool"
_pool_numbers = itertools.count()


class _LoadsInWorkspace:
    """Dask's ``loads`` for one task, returning the task wrapped to run in a workspace."""

    __slots__ = ("loads", "runner")

    def __init__(self, loads, runner):
        self.loads = loads
        self.runner = runner

    def __call__(self, task_info):
        task, data = self.loads(task_info)
        return TaskInWorkspace(task, self.runner), data


class WorkspacePool(concurrent.futures.ThreadPoolExecutor):
    """A thread pool for Dask's threaded scheduler whose threads run each task in a cycle of
    their own workspace ``workspace_name`` (made with ``config``), results detached."""

    def __init__(self, max_workers=None, config=None, *, workspace_name=TASK_WORKSPACE):
        if max_workers is None:
            max_workers = os.cpu_count() or 1
        if not isinstance(max_workers, int) or isinstance(max_workers, bool) or max_workers < 1:
            raise ValueError(f"{WHO}(): max_workers must be an int of at least 1, got {max_workers!r}")
        fields = config_fields(config, f"{WHO}()")
        name = check_workspace_name(workspace_name, f"{WHO}()")
        register()
        self._runner = runner_for(name, fields)
        super().__init__(max_workers, thread_name_prefix=f"wsarray-dask-{next(_pool_numbers)}")

    @property
    def workspace_name(self):
        return self._runner.name

    def submit(self, fn, /, *args, **kwargs):
        if fn is local.batch_execute_tasks and len(args) == 1 and not kwargs:
            args = ([self._wrap(a) for a in args[0]],)
        elif fn is local.execute_task and not kwargs:
            args = self._wrap(args)
        else:
            fn, args, kwargs = self._runner.run, (fn, args, kwargs), {}
        context = contextvars.copy_context()
        return super().submit(context.run, fn, *args, **kwargs)

    def _wrap(self, task_args):
        # execute_task(key, task_info, dumps, loads, get_id, pack_exception)
        key, task_info, dumps, loads, *rest = task_args
        return (key, task_info, dumps, _LoadsInWorkspace(loads, self._runner), *rest)

    def stats(self):
        """Per worker thread: tasks, detached arrays and bytes, the workspace's ``stats()``."""
        return self._runner.stats(threads=set(self._threads))
