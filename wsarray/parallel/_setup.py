"""Checking ParallelInference's arguments, and preparing its models and its BLAS cap.

Every check raises at once with the method's name (``who``) and the argument's: a clear error
before any thread starts, rather than one found out while serving.
"""

import copy
import math
import multiprocessing
import warnings

from .._workspaces import scope_out
from . import _blas


def positive_int(value, name, who, limit=None, why=""):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{who}: {name} must be an int, not {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{who}: {name} must be at least 1, got {value}")
    if limit is not None and value > limit:
        raise ValueError(f"{who}: {name} must be at most {limit}, got {value} ({why})")


def seconds(value, name, who):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{who}: {name} must be a number, not {type(value).__name__}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{who}: {name} must be a finite number >= 0, got {value!r}")


def entry_point(model, who):
    predict = getattr(model, "predict", None)
    if callable(predict):
        return predict
    if callable(model):
        return model
    raise TypeError(f"{who}: model must be callable or have a predict() method; "
                    f"{type(model).__name__} has neither")


def worker_models(model, workers, replicate, who):
    entry = entry_point(model, who)
    if not replicate:
        return [entry] * workers
    try:
        with scope_out():  # copies of arrays must not land in the caller's workspace
            copies = [copy.deepcopy(model) for _ in range(workers)]
    except Exception as e:
        raise TypeError(f"{who}: replicate=True needs a model copy.deepcopy() can copy: "
                        f"{type(e).__name__}: {e}") from e
    return [entry_point(c, who) for c in copies]


def cap_blas(blas_threads, workers, who):
    """Apply the BLAS cap; returns the token the core releases when the pool is shut down."""
    if blas_threads is None:
        return None
    cores = _blas.available_cores()
    if isinstance(blas_threads, str) and blas_threads == "auto":
        if _blas.threadpoolctl_or_none() is None:
            if workers > 1:
                warnings.warn(f"{who}: threadpoolctl is not installed, so BLAS threads are not "
                              f"capped and {workers} workers may oversubscribe {cores} cores "
                              f"({_blas.EXTRA_HINT}, or pass blas_threads=None)",
                              RuntimeWarning, stacklevel=3)
            return None
        return _blas.cap_blas_threads(max(1, cores // workers), who)
    if isinstance(blas_threads, bool) or not isinstance(blas_threads, int):
        raise TypeError(f"{who}: blas_threads must be 'auto', None or an int, "
                        f"not {type(blas_threads).__name__}")
    if blas_threads < 1:
        raise ValueError(f"{who}: blas_threads must be at least 1, got {blas_threads}")
    return _blas.cap_blas_threads(blas_threads, who)


def priority_int(value, who):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{who}: priority must be an int (higher runs first), not {type(value).__name__}")
    return value


def deadline_seconds(value, name, who):
    """A request deadline in seconds (``math.inf``: none, returned as None)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{who}: {name} must be a number of seconds, not {type(value).__name__}")
    if math.isnan(value) or value < 0:
        raise ValueError(f"{who}: {name} must be a number of seconds >= 0 (math.inf: no deadline), "
                         f"got {value!r}")
    return None if math.isinf(value) else float(value)


def backend_and_start_method(backend, start_method, who):
    """Check ``backend`` ("thread" or "process") and ``start_method``; the start method to use
    ("fork" where the platform has it, unless "spawn" is asked for)."""
    if backend not in ("thread", "process"):
        raise ValueError(f"{who}: backend must be 'thread' or 'process', got {backend!r}")
    if start_method not in (None, "fork", "spawn"):
        raise ValueError(f"{who}: start_method must be 'fork', 'spawn' or None, got {start_method!r}")
    methods = multiprocessing.get_all_start_methods()
    if start_method is not None and start_method not in methods:
        raise ValueError(f"{who}: start_method {start_method!r} is not available on this platform")
    return start_method or ("fork" if "fork" in methods else "spawn")
