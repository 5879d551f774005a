"""BLAS thread caps for parallel workers.

OpenBLAS (and MKL, BLIS) keep one process-wide thread pool. With several worker threads each
calling BLAS, that pool multiplies: two workers with two BLAS threads each on two cores made
batch-32 inference 5x slower on the development machine. A pool that runs workers therefore caps
the BLAS threads (through threadpoolctl, imported only when a cap is asked for) while it is open.
Caps of pools open at the same time combine (the smallest wins); a cap never raises a library's
thread count above what it was before the first cap, and the last pool to close restores it.
"""

import os
import threading

_lock = threading.Lock()
_caps = {}          # token -> cap asked for by an open pool
_next_token = 0
_limiter = None     # threadpoolctl limiter holding the limits from before the first cap
_original = {}      # BLAS library prefix -> its thread count before the first cap

EXTRA_HINT = 'pip install "wsarray[parallel]"'


def available_cores():
    """CPU cores this process may run on (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def threadpoolctl_or_none():
    try:
        import threadpoolctl
    except ImportError:
        return None
    return threadpoolctl


def require_threadpoolctl(who):
    module = threadpoolctl_or_none()
    if module is None:
        raise ImportError(f"{who}: capping BLAS threads (blas_threads=) needs threadpoolctl: "
                          f"{EXTRA_HINT}, or pass blas_threads=None to leave BLAS alone")
    return module


def blas_thread_counts():
    """{library prefix: threads} of the BLAS libraries loaded now ({} without threadpoolctl)."""
    module = threadpoolctl_or_none()
    if module is None:
        return {}
    return {lib["prefix"]: lib["num_threads"]
            for lib in module.threadpool_info() if lib["user_api"] == "blas"}


def _apply(threadpoolctl, cap):
    limits = {prefix: max(1, min(threads, cap)) for prefix, threads in _original.items()}
    if limits:
        threadpoolctl.threadpool_limits(limits=limits)


def cap_blas_threads(cap, who):
    """Cap every BLAS library at ``cap`` threads until ``release_blas_cap(token)``."""
    global _next_token, _limiter
    threadpoolctl = require_threadpoolctl(who)
    with _lock:
        if not _caps:
            _original.clear()
            _original.update(blas_thread_counts())
            _limiter = threadpoolctl.threadpool_limits(
                limits={prefix: max(1, min(threads, cap)) for prefix, threads in _original.items()})
        elif cap < min(_caps.values()):
            _apply(threadpoolctl, cap)
        _next_token += 1
        _caps[_next_token] = cap
        return _next_token


def release_blas_cap(token):
    """Drop one pool's cap: the smallest remaining cap applies, or the original counts return."""
    global _limiter
    with _lock:
        if _caps.pop(token, None) is None:
            return
        if _caps:
            _apply(threadpoolctl_or_none(), min(_caps.values()))
        else:
            _limiter.restore_original_limits()
            _limiter = None
            _original.clear()
