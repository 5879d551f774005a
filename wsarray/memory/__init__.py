"""The memory manager: workspaces of the current thread, garbage-collection knobs, and seeing memory
(history, snapshots and their viewer, measure(), debug modes: history.py, viewer.py, measure.py,
debug.py).

Garbage collection, in Python terms (ND4J's MemoryManager names):

* ``toggle_periodic_gc(enabled)`` turns Python's automatic cyclic garbage collector on or off
  (``gc.enable()`` / ``gc.disable()``); ``is_periodic_gc_active()`` reports ``gc.isenabled()``.
  Reference counting frees arrays at once either way; the cyclic collector only finds reference
  cycles, and in a long loop its automatic runs (triggered by allocation counts) cost time.
* ``set_auto_gc_window(ms)``: when ``ms > 0``, wsarray runs a full ``gc.collect()`` at the end of a
  workspace cycle if at least ``ms`` milliseconds have passed since the last collection that
  wsarray ran. ``0`` (the default) never collects. Use it together with
  ``toggle_periodic_gc(False)`` to move collections to cycle boundaries at a bounded rate.
* ``invoke_gc()`` runs ``gc.collect()`` now and returns the number of unreachable objects found.
"""

import gc as _gc
from collections.abc import Callable
from typing import IO, Any

from .. import _native
from .._devices import workspace as _device_workspaces

from .debug import MODES as DEBUG_MODES, EscapeWarning, get_debug, reset_thread as reset_thread_debug, set_debug
from .history import RECORD_BYTES, dump_snapshot, history_enabled, load_snapshot, record_history, snapshot
from .measure import Measurement, measure
from .sites import TRACEMALLOC_CHUNK_DOMAIN, TRACEMALLOC_DOMAIN, made_at as _made_at, memory_report as _memory_report
from .viewer import plot_png as plot_snapshot, render_html as render_snapshot_html, write_html as write_snapshot_html

CycleListener = Callable[[dict[str, Any]], object]

__all__ = [
    "DEBUG_MODES",
    "EscapeWarning",
    "Measurement",
    "RECORD_BYTES",
    "TRACEMALLOC_DOMAIN",
    "TRACEMALLOC_CHUNK_DOMAIN",
    "dump_snapshot",
    "get_debug",
    "history_enabled",
    "load_snapshot",
    "measure",
    "plot_snapshot",
    "record_history",
    "render_snapshot_html",
    "reset_thread_debug",
    "set_debug",
    "snapshot",
    "write_snapshot_html",
    "add_cycle_listener",
    "allocation_statistics",
    "cycle_listeners",
    "current_workspace",
    "destroy_all_workspaces_for_current_thread",
    "destroy_workspace",
    "device_info",
    "gc_collections",
    "get_auto_gc_window",
    "invoke_gc",
    "is_periodic_gc_active",
    "numpy_allocations",
    "print_allocation_statistics",
    "remove_cycle_listener",
    "set_auto_gc_window",
    "toggle_periodic_gc",
    "workspace_active",
    "workspace_exists",
    "workspace_stack",
]


def _name(fn: str, name: object) -> str:
    if not isinstance(name, str):
        raise TypeError(f"wsarray.memory.{fn}(): name must be a str, not {type(name).__name__}")
    return name


def device_info() -> list[dict[str, Any]]:
    """Memory of each usable GPU: a list of dicts (``device``, ``free``, ``total``, ``pool_used``,
    ``pool_total``: CuPy's pool on it); empty where no GPU is usable (``wsarray.cuda.status()``
    says why). Imports CuPy on first use, never before."""
    from .. import cuda
    from .._devices.workspace import registry

    info = cuda.device_info()
    for d in info:  # this thread's workspaces of each device: their chunks are part of its memory
        d["workspace_bytes"] = sum(ws.stats()["capacity"] for ws in registry().values()
                                   if ws.device == d["device"] and ws.alive)
    return info


def set_auto_gc_window(ms: int) -> None:
    """Collect garbage at workspace cycle ends, at most once per ``ms`` milliseconds (0: never)."""
    if isinstance(ms, bool) or not isinstance(ms, int):
        raise TypeError("wsarray.memory.set_auto_gc_window(): ms must be an int number of milliseconds")
    if ms > _native._MAX_GC_WINDOW_MS:
        raise ValueError("wsarray.memory.set_auto_gc_window(): the window must be at most "
                         f"{_native._MAX_GC_WINDOW_MS} ms (about 292 years)")
    _native._set_gc_window(ms)


def get_auto_gc_window() -> int:
    """The auto GC window in milliseconds (0: off)."""
    return _native._get_gc_window()


def toggle_periodic_gc(enabled: bool) -> None:
    """Turn Python's automatic cyclic garbage collector on (True) or off (False)."""
    if not isinstance(enabled, bool):
        raise TypeError("wsarray.memory.toggle_periodic_gc(): enabled must be a bool")
    (_gc.enable if enabled else _gc.disable)()


def is_periodic_gc_active() -> bool:
    """True while Python's automatic cyclic garbage collector runs."""
    return _gc.isenabled()


def invoke_gc() -> int:
    """Run a full garbage collection now; returns the number of unreachable objects found."""
    return _native._collect()


def gc_collections() -> int:
    """How many collections wsarray has run (auto GC window and invoke_gc)."""
    return _native._gc_collections()


def destroy_all_workspaces_for_current_thread() -> None:
    """Destroy every workspace of this thread, returning their memory to the operating system.

    Raises WorkspaceError (destroying nothing) while any of them is open or borrowed.
    """
    _native._destroy_all()
    _device_workspaces.forget()


def destroy_workspace(name: str) -> None:
    """Destroy the workspace ``name`` of this thread; its memory goes back to the OS."""
    _native._destroy(_name("destroy_workspace", name))
    _device_workspaces.forget(name)


def workspace_exists(name: str) -> bool:
    """True if this thread has a workspace called ``name``."""
    return _native._exists(_name("workspace_exists", name))


def workspace_active(name: str) -> bool:
    """True if the workspace ``name`` has an open cycle on this thread."""
    return _native._active(_name("workspace_active", name))


def current_workspace() -> str | None:
    """Name of the workspace allocations go to now (None outside workspaces or in scope_out())."""
    return _native._current()


def workspace_stack() -> list[tuple[str, str | None]]:
    """This thread's scopes, outermost first, as (kind, workspace name) pairs."""
    return _native._stack()


def allocation_statistics() -> dict[str, dict[str, Any]]:
    """Statistics of every workspace of this thread: {name: {capacity, used, ...}}."""
    return _native._statistics()


def numpy_allocations() -> dict[str, int]:
    """How many data buffers NumPy allocated on this thread through wsarray's allocator since the
    thread began: ``in_workspaces`` (made inside a wsarray call, or a routed update, while a
    workspace cycle was open) and ``outside`` (NumPy's own allocator). Counted once wsarray's
    allocator is installed in the thread's context (its first call routed into a workspace); compare
    two readings to see what a loop allocates outside workspaces."""
    routed, outside = _native._numpy_allocation_counts()
    return {"in_workspaces": routed, "outside": outside}


def print_allocation_statistics(file: IO[str] | None = None) -> None:
    """Print a table of this thread's workspaces and their statistics."""
    stats = allocation_statistics()
    cols = ["capacity", "used", "peak_cycle_bytes", "spilled_bytes", "reused_bytes", "cycles",
            "allocations", "live_arrays"]
    rows = [["workspace"] + cols]
    for name, s in sorted(stats.items()):
        rows.append([name] + [str(s[c]) for c in cols])
    if len(rows) == 1:
        print("wsarray: no workspaces on this thread", file=file)
        return
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.rjust(w) for c, w in zip(r, widths)), file=file)


def add_cycle_listener(listener: CycleListener) -> CycleListener:
    """Call ``listener(event)`` each time a workspace cycle ends, on the thread that ended it.

    ``event`` is a dict: ``workspace`` (name), ``cycle`` (cycles completed), ``peak_cycle_bytes``,
    ``spilled_cycle_bytes``, ``capacity``, ``used``, ``thread`` (``threading.get_ident()``).
    Listeners run after the cycle ended and after the auto GC window; one that raises is reported
    through ``sys.unraisablehook`` and never breaks the loop it watches, except for
    ``KeyboardInterrupt`` and ``SystemExit`` (a Ctrl-C that arrives while a listener runs), which
    propagate from the end of the cycle to the loop. Returns ``listener``.
    """
    _native._add_cycle_listener(listener)
    return listener


def remove_cycle_listener(listener: CycleListener) -> None:
    """Stop calling ``listener`` (ValueError if it was not added)."""
    _native._remove_cycle_listener(listener)


def cycle_listeners() -> list[CycleListener]:
    """The listeners added with ``add_cycle_listener``, in call order."""
    return _native._cycle_listeners()


from .debug import apply_environment as _apply_environment  # noqa: E402

_apply_environment()
_native._set_hook("memory_report", _memory_report)  # what an out-of-memory error adds
_native._set_hook("made_at", _made_at)  # where a stale array was made (recorded blocks)
