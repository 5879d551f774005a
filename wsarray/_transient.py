"""``transient_workspace()``: a workspace that goes away by itself (a per-request or per-task arena).

Named workspaces live until destroyed, which is right for a training loop's and wrong for a workspace
made per request: 200 requests would keep 200 arenas. A transient workspace has a name no other call
returns (``label#N``), is never cached by ``workspace()``, and is destroyed when its handle is
garbage: at once on the thread that made it, or, when the handle dies elsewhere, the next time that
thread makes a transient workspace (and in any case when the thread ends, as all its workspaces are).
"""

import collections
import functools
import itertools
import sys
import threading
import weakref

from . import _native
from ._interrupts import shielded

__all__ = ["transient_workspace"]

_numbers = itertools.count(1)
# No lock: code the collector runs inside this bookkeeping may wait for another thread, which must
# never wait here in turn. dict.setdefault, deque.append and deque.popleft are each one step under
# the GIL, and an owner's queue is never removed, so no label is lost between two of them.
_pending = {}  # owner thread -> deque of labels whose handle died elsewhere
_watchers = {}  # weakref to a handle -> (its label, the thread that made it), until the handle dies


# The bookkeeping runs shielded (wsarray/_interrupts.py): a Ctrl-C landing between making a
# workspace and watching its handle, or inside the callback of a dying handle, would otherwise
# leave a workspace nobody destroys. The callback is C up to the shield (a partial of shielded,
# not a Python finalizer); a signal that arrived just before it runs is handled first and stops
# it, which leaves that handle's entry behind: the next sweep finds it dead and retires it.
def _retire(watcher):
    label, owner = _watchers.pop(watcher, (None, None))
    if label is None or sys.is_finalizing():
        return
    if threading.get_ident() == owner:
        if _native._exists(label):
            _native._destroy(label)
    else:
        _pending.setdefault(owner, collections.deque()).append(label)


def _sweep():
    for watcher in list(_watchers):  # a copy: other threads add and remove meanwhile
        if watcher() is None:
            _retire(watcher)
    labels = _pending.get(threading.get_ident())
    while labels:
        try:
            label = labels.popleft()
        except IndexError:  # emptied meanwhile (by code run here)
            break
        if _native._exists(label):
            _native._destroy(label)


def _make(name, config):
    _sweep()
    handle = _native.workspace(name, config)
    _watchers[weakref.ref(handle, functools.partial(shielded, _retire))] = (name, threading.get_ident())
    return handle


def transient_workspace(config=None, *, label="transient"):
    """A new workspace of the calling thread, destroyed when its handle is garbage (its memory goes
    back to the OS then; arrays made in it are stale after their cycle as always). ``config``: its
    ``WorkspaceConfig`` (default: ``WorkspaceConfig()``); ``label``: the start of its name, shown in
    statistics and errors (``label#N``, unique). ``with wsarray.transient_workspace() as ws:`` runs
    one cycle; keep the handle to run more."""
    if not isinstance(label, str) or not label:
        raise TypeError(f"wsarray.transient_workspace(): label must be a non-empty str, not {label!r}")
    if config is None:
        config = _native.WorkspaceConfig()  # given explicitly: workspace() does not cache the handle
    elif not isinstance(config, _native.WorkspaceConfig):
        raise TypeError(f"wsarray.transient_workspace(): config must be a wsarray.WorkspaceConfig, "
                        f"not {type(config).__name__}")
    return shielded(_make, f"{label}#{next(_numbers)}", config)
