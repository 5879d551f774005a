"""Debug modes (Deeplearning4j's DebugMode, for wsarray): ``set_debug("escapes")`` reports Arrays
still referenced when their cycle ends; ``set_debug("bypass_everything")`` sends every allocation
outside workspaces, so the program runs as plain NumPy would (to rule wsarray out);
``set_debug("spill_everything")`` makes every allocation a spill, memory outside the chunks given
back at the end of its cycle, whatever the spill policy (a use after the cycle then reads freed
memory, which the sanitizers report, instead of a later cycle's data). For the whole
process, or one thread (``this_thread=True``); the environment variable ``WSARRAY_DEBUG`` (modes
separated by commas) sets the process's modes when wsarray is imported, so a user can switch them
on without editing code."""

import collections
import os
import sys
import threading
import warnings
import weakref

from .. import _native
from .._interrupts import shielded
from .sites import block_made_at

__all__ = ["MODES", "EscapeWarning", "set_debug", "get_debug"]

MODES = ("escapes", "bypass_everything", "spill_everything")
_FRAMES = 8  # frames above the end of a cycle that are searched for escaped arrays
_process = set()
_local = threading.local()  # .modes: this thread's own set, or absent (the process's apply)
_listening = [False]
_threads_with_escapes = [0]  # threads whose own modes include escapes
_reported = {}  # id -> weak reference: each escaped Array is reported once (Arrays are unhashable)
_lock = threading.RLock()  # reentrant: a cycle may end in a signal handler or __del__ run under it
ESCAPES_KEPT = 1000
_escapes = collections.deque(maxlen=ESCAPES_KEPT)  # the latest reports, for snapshots and the viewer


class EscapeWarning(UserWarning):
    """An Array outlived its workspace cycle (debug mode 'escapes'): it is stale, and using it
    raises; .detach() it inside the cycle to keep it."""


def _parse(modes, who):
    if modes is None or modes == "" or modes == "off":
        return set()
    if isinstance(modes, str):
        modes = [m.strip() for m in modes.split(",") if m.strip()]
    elif not isinstance(modes, (list, tuple, set, frozenset)):
        raise TypeError(f"{who}: modes must be None, a mode name, names separated by commas or a list of "
                        f"names, not {type(modes).__name__}")
    chosen = set()
    for m in modes:
        if not isinstance(m, str):
            raise TypeError(f"{who}: a debug mode is a name (str), not {type(m).__name__}")
        if m not in MODES:
            raise ValueError(f"{who}: unknown debug mode {m!r}; the modes are {', '.join(MODES)} (or None)")
        chosen.add(m)
    return chosen


def set_debug(modes=None, *, this_thread=False):
    """Turn debug modes on: None (all off), a mode name, several separated by commas, or a list.
    ``this_thread=True`` sets them for the calling thread only (``set_debug(None,
    this_thread=True)`` turns them off there; ``reset_thread()`` returns it to the process's)."""
    chosen = _parse(modes, "wsarray.memory.set_debug")
    if this_thread:
        _set_thread_modes(chosen)
        _native._set_bypass("bypass_everything" in chosen, True)
        _native._set_spill_everything("spill_everything" in chosen, True)
    else:
        with _lock:
            _process.clear()
            _process.update(chosen)
        _native._set_bypass("bypass_everything" in chosen, False)
        _native._set_spill_everything("spill_everything" in chosen, False)
    _update_listener()


def reset_thread():
    """The calling thread follows the process's debug modes again."""
    _set_thread_modes(None)
    _native._clear_thread_bypass()
    _native._clear_thread_spill_everything()
    _update_listener()


class _EscapesOnThisThread:
    """Held in the thread's local storage while its own modes include escapes: counted once, and
    uncounted when the modes change or the thread ends without reset_thread() (its storage goes)."""

    def __init__(self):
        with _lock:
            _threads_with_escapes[0] += 1

    def __del__(self):
        try:
            with _lock:
                _threads_with_escapes[0] -= 1
            _update_listener()
        except (TypeError, AttributeError):  # at interpreter exit the module's globals may be gone
            pass


def _set_thread_modes(modes):
    if modes is None:
        if hasattr(_local, "modes"):
            del _local.modes
    else:
        _local.modes = modes
    wanted = modes is not None and "escapes" in modes
    if wanted and getattr(_local, "escapes", None) is None:
        _local.escapes = _EscapesOnThisThread()
    elif not wanted:
        _local.escapes = None  # its __del__ uncounts it


def get_debug():
    """The debug modes in force on the calling thread, as a sorted list."""
    modes = getattr(_local, "modes", None)
    return sorted(_process if modes is None else modes)


def _update_listener():
    """The cycle listener is there only while some thread may report escapes."""
    with _lock:
        shielded(_apply_listener)  # a Ctrl-C cannot split the listener from its flag


def _apply_listener():
    wanted = "escapes" in _process or _threads_with_escapes[0] > 0
    if wanted and not _listening[0]:
        _native._add_cycle_listener(_on_cycle)
    elif not wanted and _listening[0]:
        _native._remove_cycle_listener(_on_cycle)
    _listening[0] = wanted


def _arrays_in(name, value, depth=0):
    # Exact types only: a subclass's __getitem__ or items() is the program's code, which may fail.
    kind = type(value)
    if kind is _native.Array:
        yield name, value
    elif depth < 1 and (kind is list or kind is tuple):
        for i, v in enumerate(value[:64]):
            yield from _arrays_in(f"{name}[{i}]", v, depth + 1)
    elif depth < 1 and kind is dict:
        for k, v in list(value.items())[:64]:
            yield from _arrays_in(f"{name}[{_key_text(k)}]", v, depth + 1)


def _key_text(key):
    if type(key) in (str, int, float, bool, bytes) or key is None:
        return repr(key)
    return f"<{type(key).__name__} key>"  # a key's own __repr__ is the program's code


def _first_report(array):
    key = id(array)
    ref = _reported.get(key)
    if ref is not None and ref() is array:
        return False

    def forget(r, key=key):
        if _reported.get(key) is r:
            del _reported[key]
    _reported[key] = weakref.ref(array, forget)
    return True


def _made_at(array):
    """Where the Array's block was made, when it was recorded (record_history(stacks=True))."""
    return block_made_at(array)


def escapes():
    """The latest escape reports (at most ESCAPES_KEPT), oldest first: [{workspace, cycle, variable,
    function, file, line, thread, made_at}]; made_at is "" unless the array's block was recorded."""
    return [dict(e) for e in copied(_escapes, list)]


def copied(container, copy):
    """``copy(container)`` of a ring or dict that other threads, or code the collector runs here,
    change without a lock (one step at a time): copied again when it changed during the copy."""
    while True:
        try:
            return copy(container)
        except RuntimeError:  # "deque mutated during iteration", "dictionary changed size ..."
            continue


def _on_cycle(event):
    modes = getattr(_local, "modes", None)
    if "escapes" not in (_process if modes is None else modes):
        return
    name = event["workspace"]
    frame = sys._getframe(1)
    for _ in range(_FRAMES):
        if frame is None:
            break
        code = frame.f_code
        for variable, value in list(frame.f_locals.items()):
            for path, array in _arrays_in(variable, value):
                if array.workspace != name or array.is_in_scope() or not _first_report(array):
                    continue
                where = f"{code.co_name} ({code.co_filename}:{frame.f_lineno})"
                made = _made_at(array)
                # No lock: appending is one step, and code the collector runs here may wait on a
                # thread whose cycle ends meanwhile.
                _escapes.append({"workspace": name, "cycle": event.get("cycle"), "variable": path,
                                 "function": code.co_name, "file": code.co_filename, "line": frame.f_lineno,
                                 "thread": threading.current_thread().name, "made_at": made})
                warnings.warn_explicit(
                    f"wsarray.memory (debug 'escapes'): '{path}' in {where} still holds an Array of workspace "
                    f"'{name}' whose cycle has ended{'; made at ' + made if made else ''}: it is stale, and any "
                    "use of it raises; .detach() it inside the cycle to keep it", EscapeWarning,
                    code.co_filename, frame.f_lineno or code.co_firstlineno,  # None between lines (3.11)
                    module=frame.f_globals.get("__name__", "__main__"))
        frame = frame.f_back


def apply_environment():
    """Set the process's modes from WSARRAY_DEBUG (at import)."""
    value = os.environ.get("WSARRAY_DEBUG", "")
    if value:
        try:
            set_debug(value)
        except ValueError as e:
            warnings.warn(f"WSARRAY_DEBUG ignored: {e}", RuntimeWarning, stacklevel=2)
