"""Checking the arguments of AsyncIterator(backend="process") and assembling its pipeline.

Everything a caller can get wrong is refused here, before any process starts, with the argument's
name; the pieces are the plan (``_plan``), the worker specification (``_worker.Spec``) and the
pipeline (``_process_pipeline``).
"""

import multiprocessing
import os
import secrets

from .._native import _build_info
from .._workspaces import parse_size
from ._plan import IterablePlan, MapPlan, STATE_VERSION, check_state
from ._process_pipeline import ProcessPipeline
from ._processes import MAX_SEGMENTS
from ._worker import Spec

MAX_WORKERS = 256
MAX_QUEUE = 1024


def default_budget():
    """A quarter of the memory the process can still get now (MemAvailable and free swap, capped by
    a cgroup limit: the core's own measure, page cache counted as available)."""
    available = _build_info()["available_memory"]
    if not available or available >= 1 << 62:  # unknown
        return 1 << 30
    return available // 4


def process_pipeline(who, label, source, *, queue_size, consumers, use_workspace, workspace_config, workers,
                     batch_size, shuffle, drop_last, seed, collate, memory_budget, start_method,
                     worker_init_fn, hint, timeout=None):
    fn = f"{who}()"
    if consumers != 1:
        raise ValueError(f"{fn}: backend='process' serves one consumer (consumers=1), got {consumers}")
    if not use_workspace:
        raise ValueError(f"{fn}: backend='process' builds batches in shared workspaces: use_workspace must be True")
    workers = 2 if workers is None else workers
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"{fn}: workers must be an int from 1 to {MAX_WORKERS}, got {workers!r}")
    if queue_size is None:
        queue_size = "auto"
    if queue_size != "auto" and (isinstance(queue_size, bool) or not isinstance(queue_size, int)
                                 or not 1 <= queue_size <= MAX_QUEUE):
        raise ValueError(f"{fn}: queue_size must be 'auto' or an int from 1 to {MAX_QUEUE}, got {queue_size!r}")
    if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1):
        raise ValueError(f"{fn}: batch_size must be a positive int or None (the dataset gives whole batches), "
                         f"got {batch_size!r}")
    for name, value in (("shuffle", shuffle), ("drop_last", drop_last)):
        if not isinstance(value, bool):
            raise TypeError(f"{fn}: {name} must be a bool, not {type(value).__name__}")
    seed_given = seed is not None
    if seed is None:
        seed = secrets.randbits(63)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"{fn}: seed must be a non-negative int or None, got {seed!r}")
    for name, value in (("collate", collate), ("worker_init_fn", worker_init_fn)):
        if value is not None and not callable(value):
            raise TypeError(f"{fn}: {name} must be callable or None, not {type(value).__name__}")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or not timeout > 0):
        raise ValueError(f"{fn}: timeout must be a positive number of seconds or None, got {timeout!r}")
    budget = _budget(memory_budget, fn)
    start_method = _start_method(start_method, fn)
    plan = _plan(source, workers, batch_size, shuffle, seed, drop_last, fn)
    plan.seed_given = seed_given
    spec = Spec(source, plan.kind, batch_size, drop_last, collate, seed, workers, worker_init_fn,
                os.getpid(), MAX_SEGMENTS)
    return ProcessPipeline(who, label, source, plan, spec=spec, workers=workers, queue_size=queue_size,
                           start_method=start_method, workspace_config=workspace_config, budget=budget,
                           hint=hint, timeout=timeout)


def _budget(memory_budget, fn):
    if memory_budget is None:
        return default_budget()
    try:
        budget = parse_size(memory_budget)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{fn}: memory_budget must be a size (bytes, or a string such as '512MB'): {e}") from None
    if budget <= 0:
        raise ValueError(f"{fn}: memory_budget must be positive, got {memory_budget!r}")
    return budget


def _start_method(start_method, fn):
    methods = multiprocessing.get_all_start_methods()
    if start_method is None:
        return "fork" if "fork" in methods else "spawn"
    if start_method not in ("fork", "spawn"):
        raise ValueError(f"{fn}: start_method must be 'fork' or 'spawn' (or None: fork where the platform "
                         f"has it), got {start_method!r}")
    if start_method not in methods:
        raise ValueError(f"{fn}: start_method {start_method!r} is not available on this platform")
    return start_method


def _plan(source, workers, batch_size, shuffle, seed, drop_last, fn):
    if hasattr(source, "__getitem__") and hasattr(source, "__len__"):
        length = len(source)
        return MapPlan(length, batch_size, shuffle, seed, drop_last)
    if hasattr(source, "__iter__"):
        if shuffle:
            raise ValueError(f"{fn}: shuffle=True needs a map-style dataset (__len__ and __getitem__); an "
                             "iterable dataset shuffles its own shards")
        return IterablePlan(workers, batch_size, seed, drop_last)
    raise TypeError(f"{fn}: backend='process' needs a dataset: a map-style one (__len__ and __getitem__ "
                    f"returning a sample) or an iterable one, not {type(source).__name__}")


def state_dict(p):
    """The JSON-able state ``load_state_dict`` resumes from (see AsyncIterator.state_dict)."""
    with p.lock:
        position = p.position()
        if p.finished and p.plan.kind == "map":
            position = p.plan.batches  # the epoch's end was handed out too, and it is no batch
        state = dict(p.plan.state(), version=STATE_VERSION, epoch=p.epoch, position=position,
                     finished=p.finished)
        if p.plan.kind == "iterable":
            state["exhausted"] = {str(k): v for k, v in p.exhausted.items()}
    return state


def load_state_dict(p, state):
    epoch, position, exhausted = check_state(state, p.plan, p.who)
    if state.get("finished"):
        epoch, position, exhausted = epoch + 1, 0, {}
    p.restart_at(epoch, position, exhausted)
