"""BLAS thread caps for parallel workers.

OpenBLAS (and MKL, BLIS) keep one process-wide thread pool. With several worker threads each
calling BLAS, that pool multiplies: two workers with two BLAS threads each on two cores made
batch-32 inference 5x slower on the development machine. A pool that runs workers therefore caps
the BLAS threads (through threadpoolctl, imported only when a cap is asked for) while it is open.
Caps of pools open at the same time combine (the smallest wins); a cap never raises a library's
thread count above what it was before the first cap, and the last pool to close restores it.

The OpenBLAS that NumPy wheels ship (0.3.31 here) ignores thread-count changes made on any thread
but the main one. A change made elsewhere (a pool shut down on another thread, or dropped there)
is therefore marked pending and made again by ``settle()`` on the main thread: pools call it when
they are created or shut down there, and at interpreter exit.
"""

import importlib
import os
import threading

from .._interrupts import shielded

_lock = threading.RLock()
_caps = {}            # token -> cap asked for by an open pool
_next_token = 0
_libraries = None     # [(threadpoolctl LibController, threads before the first cap)]
_pending = False      # the last change was made off the main thread, where OpenBLAS ignores it

EXTRA_HINT = 'pip install "wsarray[parallel]"'


def available_cores():
    """CPU cores this process may run on (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def threadpoolctl_or_none():
    try:
        # Imported on the interrupt shield: a KeyboardInterrupt landing inside its class bodies
        # would come out as RuntimeError("Error calling __set_name__ ...") and leave it half made.
        return shielded(importlib.import_module, "threadpoolctl")
    except ImportError:
        return None


def require_threadpoolctl(who):
    module = threadpoolctl_or_none()
    if module is None:
        raise ImportError(f"{who}: capping BLAS threads (blas_threads=) needs threadpoolctl: "
                          f"{EXTRA_HINT}, or pass blas_threads=None to leave BLAS alone")
    return module


def blas_thread_counts():
    """{library file: threads} of the BLAS libraries loaded now ({} without threadpoolctl)."""
    module = threadpoolctl_or_none()
    if module is None:
        return {}
    return {lib["filepath"]: lib["num_threads"]
            for lib in module.threadpool_info() if lib["user_api"] == "blas"}


def _apply():
    """Set every library to the smallest cap (bounded by its original count), or back to its
    original count when no cap is left. Call with _lock held."""
    global _libraries, _pending
    cap = min(_caps.values()) if _caps else None
    for library, original in _libraries:
        library.set_num_threads(original if cap is None else max(1, min(original, cap)))
    _pending = threading.current_thread() is not threading.main_thread()
    if cap is None and not _pending:
        _libraries = None


def cap_blas_threads(cap, who):
    """Cap every BLAS library at ``cap`` threads until ``release_blas_cap(token)``."""
    global _next_token, _libraries
    threadpoolctl = require_threadpoolctl(who)
    with _lock:
        if _libraries is None:
            libraries = threadpoolctl.ThreadpoolController().select(user_api="blas")
            _libraries = [(lib, lib.num_threads) for lib in libraries.lib_controllers]
        _next_token += 1
        _caps[_next_token] = cap
        _apply()
        return _next_token


def release_blas_cap(token):
    """Drop one pool's cap: the smallest remaining cap applies, or the original counts return."""
    with _lock:
        if _caps.pop(token, None) is not None:
            _apply()


def cap_worker_process(threads):
    """In a worker process of its own (a replica of the process backend): cap every thread pool
    threadpoolctl knows (BLAS, OpenMP) at ``threads`` for the process's life; nothing without
    threadpoolctl. At one thread, OpenBLAS's helper threads are also stopped: OpenBLAS re-creates
    its pool after a fork on the first thread-count change, and each new helper busy-waits for
    work (about 0.1 s of a core) that a one-thread pool never gives it, taking that CPU from the
    sibling workers (measured: a forked replica's first 5 training steps took 137 ms with the
    helper, 89 ms without)."""
    if threads is None:
        return
    try:
        import threadpoolctl  # not on the shield: the worker ignores SIGINT (data/_child.begin)
    except ImportError:
        return
    controller = threadpoolctl.ThreadpoolController()
    controller.limit(limits=threads)
    if threads != 1:
        return
    for library in controller.select(internal_api="openblas").lib_controllers:
        if getattr(library, "threading_layer", None) == "pthreads":
            # Exported by OpenBLAS for its own fork handler; joins the helpers. With one thread
            # set, no later call starts them again (only a thread-count change would).
            shutdown = getattr(library.dynlib, "blas_thread_shutdown_", None)
            if shutdown is not None:
                shutdown()


def _reset_in_forked_child():
    # A thread of the parent may have held the lock at the fork; the parent's pools are closed in
    # the child (see _workers) and the child keeps the thread counts as they are.
    global _lock, _caps, _libraries, _pending
    _lock, _caps, _libraries, _pending = threading.RLock(), {}, None, False


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_in_forked_child)


def settle():
    """On the main thread, make again a change that was made (and ignored) on another thread."""
    with _lock:
        if _pending and _libraries is not None and \
                threading.current_thread() is threading.main_thread():
            _apply()
