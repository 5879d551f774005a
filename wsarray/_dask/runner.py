"""Running Dask task bodies in workspaces: one workspace per thread, results detached.

A ``TaskRunner`` stands for one workspace name and configuration in this process. ``run(fn, ...)``
enters the calling thread's workspace of that name (created on the thread's first task; a
workspace belongs to the thread that made it), calls ``fn`` in one cycle, and hands back its result
with every attached wsarray array copied out (``.detach()``), inside tuples, lists, dicts and
named tuples; other objects pass unchanged (a NumPy ndarray made by NumPy is never workspace
memory). A task that returns an array of a cycle that has already ended (one the task opened
itself) gets a ``WorkspaceError`` naming the task, never stale data. A call made while the same
thread already runs a task body (``@workspace_task`` inside a worker's task) just calls ``fn``: the
outer run detaches. Runners are shared per (name, configuration) process-wide and keep each
thread's counters and latest workspace statistics, which ``stats()`` reports.
"""
import functools
import inspect
import threading

from .. import memory
from .._native import Array
from .._workspaces import WorkspaceConfig, WorkspaceError, workspace

TASK_WORKSPACE = "DASK_TASK"
CONFIG_FIELDS = ("initial_size", "min_size", "max_size", "overallocation_limit", "allocation",
                 "learning", "cycles_before_initialization", "spill", "reset", "location",
                 "temp_file_path", "trim_after_cycles")
MAX_DEAD_RECORDS = 64  # records of threads that ended, kept for stats(); older ones are dropped

_local = threading.local()  # .running: this thread is inside a runner's task body


def config_fields(config, who):
    """``config`` (a WorkspaceConfig, a dict of its fields, or None) as a hashable, picklable
    tuple of (field, value) pairs, or None. WorkspaceConfig itself does not pickle."""
    if config is None:
        return None
    if isinstance(config, dict):
        unknown = sorted(set(config) - set(CONFIG_FIELDS))
        if unknown:
            raise TypeError(f"{who}: unknown WorkspaceConfig field(s) {', '.join(unknown)}")
        config = WorkspaceConfig(**config)
    if not isinstance(config, WorkspaceConfig):
        raise TypeError(f"{who}: config must be a wsarray.WorkspaceConfig, a dict of its fields "
                        f"or None, not {type(config).__name__}")
    return tuple((f, getattr(config, f)) for f in CONFIG_FIELDS)


def check_workspace_name(name, who):
    if not isinstance(name, str):
        raise TypeError(f"{who}: workspace_name must be a non-empty str, not {type(name).__name__}")
    if not name or "\x00" in name:
        raise ValueError(f"{who}: workspace_name must be a non-empty str without NUL characters, not {name!r}")
    return name


class _ThreadRecord:
    __slots__ = ("thread", "ident", "handle", "tasks", "detached_arrays", "detached_bytes",
                 "stats", "errors")

    def __init__(self, thread):
        self.thread = thread
        self.ident = thread.ident
        self.handle = None
        self.tasks = self.detached_arrays = self.detached_bytes = self.errors = 0
        self.stats = None

    def report(self, name):
        return {"thread": self.thread.name, "alive": self.thread.is_alive(), "workspace": name,
                "tasks": self.tasks, "failed_tasks": self.errors,
                "detached_arrays": self.detached_arrays, "detached_bytes": self.detached_bytes,
                "stats": dict(self.stats) if self.stats is not None else None}


class TaskRunner:
    """Runs callables in the calling thread's workspace ``name`` (see the module docstring)."""

    def __init__(self, name, fields):
        self.name = name
        self.fields = fields
        self._config = WorkspaceConfig(**dict(fields)) if fields is not None else None
        self._lock = threading.RLock()
        self._records = {}  # thread ident -> _ThreadRecord

    def __reduce__(self):  # pickled as its identity: the process that loads it uses its own
        return runner_for, (self.name, self.fields)

    def _record(self):
        thread = threading.current_thread()
        rec = self._records.get(thread.ident)
        if rec is None or rec.thread is not thread:  # a new thread (idents are reused)
            rec = _ThreadRecord(thread)
            with self._lock:
                self._records[thread.ident] = rec
                self._drop_dead_records()
        if rec.handle is None or not rec.handle.alive:
            rec.handle = self._workspace()
        return rec

    def _workspace(self):
        try:
            return workspace(self.name, self._config)
        except WorkspaceError:
            # The thread has this name with another configuration (a plugin registered again
            # with a new config): tasks own the name on their threads, so start it afresh.
            if memory.workspace_active(self.name):
                raise
            memory.destroy_workspace(self.name)
            return workspace(self.name, self._config)

    def _drop_dead_records(self):
        dead = [i for i, r in self._records.items() if not r.thread.is_alive()]
        for ident in dead[:max(0, len(dead) - MAX_DEAD_RECORDS)]:
            del self._records[ident]

    def run(self, fn, args=(), kwargs=None, label=None):
        """``fn(*args, **kwargs)`` in one cycle of this thread's workspace, result detached."""
        kwargs = kwargs or {}
        if getattr(_local, "running", False):
            return fn(*args, **kwargs)
        rec = self._record()
        _local.running = True
        ok = False
        try:
            with rec.handle:
                result = fn(*args, **kwargs)
                result = detached(result, rec, label)
            ok = True
            return result
        finally:
            _local.running = False
            rec.tasks += 1
            rec.errors += not ok
            if rec.handle.alive:
                rec.stats = rec.handle.stats()

    def stats(self, threads=None):
        """One report per thread that ran tasks (``threads``: only those Thread objects)."""
        with self._lock:
            records = list(self._records.values())
        return [r.report(self.name) for r in records
                if r.stats is not None and (threads is None or r.thread in threads)]


_runners = {}
_runners_lock = threading.RLock()


def runner_for(name, fields):
    """The process's runner for workspace ``name`` with configuration ``fields``."""
    with _runners_lock:
        runner = _runners.get((name, fields))
        if runner is None:
            runner = _runners[(name, fields)] = TaskRunner(name, fields)
        return runner


def all_runners():
    with _runners_lock:
        return list(_runners.values())


def detached(value, rec=None, label=None):
    """``value`` with every attached Array copied out of its workspace (containers walked; a
    container is rebuilt only when something in it changed)."""
    if type(value) is Array:
        if not value.is_attached():
            return value
        try:
            out = value.detach()
        except WorkspaceError as e:
            task = f"task {label!r}" if label is not None else "a task"
            raise WorkspaceError(
                f"wsarray.dask: {task} returned an array whose workspace cycle had already ended "
                "(it was made in a workspace the task opened and closed itself); return arrays "
                "made in the task's own workspace, or .detach() them inside their 'with' block. "
                f"{e}") from e
        if rec is not None:
            rec.detached_arrays += 1
            rec.detached_bytes += out.nbytes
        return out
    if isinstance(value, dict):
        changed = {k: n for k, v in value.items() if (n := detached(v, rec, label)) is not v}
        if not changed:
            return value
        out = value.copy()  # keeps OrderedDict, defaultdict, ...
        out.update(changed)
        return out
    if isinstance(value, (tuple, list)):
        items = [detached(v, rec, label) for v in value]
        if all(n is v for n, v in zip(items, value)):
            return value
        if isinstance(value, list):
            return items
        if hasattr(value, "_fields"):  # named tuple
            return type(value)(*items)
        return tuple(items)
    return value


class WorkspaceTask:
    """A function that runs in the calling thread's task workspace (see ``workspace_task``)."""

    def __init__(self, func, workspace_name=TASK_WORKSPACE, config=None, *, _fields=None):
        who = "wsarray.dask.workspace_task()"
        if not callable(func):
            raise TypeError(f"{who}: expected a function, not {type(func).__name__}")
        if inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func):
            raise TypeError(f"{who}: {getattr(func, '__name__', func)!r} is a coroutine function; "
                            "a workspace cycle cannot span an await (scopes follow the context)")
        self.workspace_name = check_workspace_name(workspace_name, who)
        self.fields = _fields if config is None else config_fields(config, who)
        self._runner = runner_for(self.workspace_name, self.fields)
        functools.update_wrapper(self, func)

    def __call__(self, *args, **kwargs):
        return self._runner.run(self.__wrapped__, args, kwargs, label=self.__name__)

    def __get__(self, instance, owner=None):  # decorating a method
        return self if instance is None else functools.partial(self, instance)

    def __repr__(self):
        return f"<wsarray.dask.workspace_task {self.__wrapped__!r} in {self.workspace_name!r}>"

    def __reduce__(self):
        module = inspect.getmodule(self.__wrapped__)
        try:  # a module-level decorated function: by reference, as a plain function pickles
            found = functools.reduce(getattr, self.__qualname__.split("."), module)
        except (AttributeError, TypeError):
            found = None
        if found is self:
            return self.__qualname__
        return _rebuild_task, (self.__wrapped__, self.workspace_name, self.fields)

    def __dask_tokenize__(self):
        from dask.tokenize import tokenize

        return ("wsarray.dask.workspace_task", tokenize(self.__wrapped__), self.workspace_name,
                self.fields)


def _rebuild_task(func, name, fields):
    return WorkspaceTask(func, name, _fields=fields)


def workspace_task(func=None, *, workspace_name=TASK_WORKSPACE, config=None):
    """Decorator: run ``func`` in the calling thread's workspace ``workspace_name`` (created with
    ``config`` on the thread's first call), one cycle per call, and return its result detached.

    For ``map_blocks``, ``dask.delayed`` and ``client.submit``: ``x.map_blocks(workspace_task(f))``,
    ``@workspace_task`` above a function. Inside a task already running in a workspace (under
    ``WorkspacePlugin`` or ``WorkspacePool``) it calls ``func`` directly: the outer run detaches.
    """
    if func is None:
        return functools.partial(workspace_task, workspace_name=workspace_name, config=config)
    return WorkspaceTask(func, workspace_name, config)


class TaskInWorkspace:
    """A Dask task (a ``dask._task_spec`` node: ``node(values)``) run by a TaskRunner."""

    __slots__ = ("inner", "runner")

    def __init__(self, inner, runner):
        self.inner = inner
        self.runner = runner

    @property
    def is_coro(self):
        return False

    def __call__(self, values=()):
        return self.runner.run(self.inner, (values,), label=getattr(self.inner, "key", None))

    def __getattr__(self, attr):  # key, dependencies, ... of the task itself
        return getattr(self.inner, attr)

    def __repr__(self):
        return f"<in workspace {self.runner.name!r}: {self.inner!r}>"

    def __reduce__(self):
        return TaskInWorkspace, (self.inner, self.runner)
