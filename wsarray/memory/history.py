"""Memory history and snapshots: what each workspace of each thread did, cycle by cycle.

``record_history(True)`` adds one cycle listener (wsarray.memory.add_cycle_listener's machinery)
that appends a record per ended cycle to a bounded ring shared by every thread: the cycle's peak and
spill, the workspace's capacity, chunks and learned size, and what happened (learned its size, grew,
spilled, trimmed). Off by default; off costs nothing (no listener). ``snapshot()`` gathers the
history, the current statistics of the calling thread's workspaces and the latest state seen of
every other thread's, as plain data (JSON-ready: names, sizes and counts, never array contents);
``dump_snapshot(path)`` writes it as JSON, ``load_snapshot(path)`` reads it back.
"""

import collections
import itertools
import json
import os
import sys
import threading
import time
import tracemalloc

from .. import _native
from .debug import copied, escapes
from .sites import (TRACEMALLOC_CHUNK_DOMAIN, TRACEMALLOC_DOMAIN, cycle_sites, live_blocks, read_records, top_sites,
                    traced_chunk_bytes)

__all__ = ["record_history", "history_enabled", "snapshot", "dump_snapshot", "load_snapshot", "RECORD_BYTES"]

# A record is a dict of about a dozen small values: what the ring may hold is stated in bytes too.
RECORD_BYTES = 1200
SNAPSHOT_VERSION = 1

# Taken only to start and stop recording. Recording a cycle and reading the ring take no lock: the
# collector may run code inside either (a finalizer, a weakref callback) that waits for another
# thread, which must then never wait here for the interrupted one (deque.append, dict stores and
# next() on a counter are each one step under the GIL).
_lock = threading.RLock()
_sequence = itertools.count()  # numbers every record made: what the ring no longer holds was dropped
_state = {"ring": None, "listener": None, "started": None, "last": {}, "threads": {}}


def history_enabled():
    """Whether ``record_history`` is on."""
    return _state["listener"] is not None


def record_history(enabled=True, *, stacks=False, frames=8, max_entries=100_000):
    """Start (or stop, ``enabled=False``) recording every workspace cycle of every thread into a
    ring of at most ``max_entries`` records (about ``max_entries * RECORD_BYTES`` bytes; the oldest
    go first and ``snapshot()["history"]["dropped"]`` counts them). Starting again keeps what was
    recorded and changes the bound; stopping keeps the records for ``snapshot()``.

    ``stacks=True`` also records, for every workspace block made from then on, the Python frames
    that made it (``frames`` deep, at most 16), its workspace and cycle, and the dtype and shape of
    the array over it: ``snapshot()``'s ``live_blocks`` and ``sites``, each cycle's sites, the
    viewer, where a stale or escaped array was made, out-of-memory errors. It is wsarray's own
    record, not tracemalloc: a block keeps each frame's code and instruction, and line numbers are
    worked out only when read (see the README's figures for the cost). tracemalloc, when a program
    runs it, sees workspace blocks and chunk maps in wsarray's domains either way."""
    if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1:
        raise ValueError(f"wsarray.memory.record_history: max_entries must be a positive int, not {max_entries!r}")
    if isinstance(frames, bool) or not isinstance(frames, int) or not 1 <= frames <= 1000:
        raise ValueError(f"wsarray.memory.record_history: frames must be an int in [1, 1000], not {frames!r}")
    with _lock:
        if not enabled:
            if _state["listener"] is not None:
                _native._remove_cycle_listener(_state["listener"])
                _state["listener"] = None
            _native._record_blocks(0)
            return
        _native._record_blocks(frames if stacks else 0)  # clamped to 16 there
        old = _state["ring"] or ()
        _state["ring"] = collections.deque(old, maxlen=max_entries)
        if _state["listener"] is None:
            _state["started"] = time.time()
            _state["listener"] = _on_cycle
            _native._add_cycle_listener(_on_cycle)


def _events(before, now, event):
    happened = []
    if event["spilled_cycle_bytes"]:
        happened.append("spilled")
    if before is None:
        happened.append("created")
        return happened
    if now.get("learned_size") and now["learned_size"] != before.get("learned_size"):
        happened.append("learned its size")
    if now["capacity"] > before["capacity"]:
        happened.append("grew")
    elif now["capacity"] < before["capacity"]:
        happened.append("shrank")
    if now.get("trimmed_bytes", 0) > before.get("trimmed_bytes", 0):
        happened.append("trimmed")
    return happened


def _on_cycle(event):
    stats = _native._statistics().get(event["workspace"])
    if stats is not None:
        _record(event, stats)


def note_fill(name, stats):
    """Record a fill of a data-pipeline slot (wsarray.data's ring: workspaces outside the named
    ones of a thread, filled by producer threads) as a cycle, when history is on."""
    if _state["listener"] is None:
        return
    event = {"workspace": name, "thread": threading.get_ident(), "cycle": stats["cycles"],
             "peak_cycle_bytes": stats["peak_cycle_bytes"], "spilled_cycle_bytes": stats["spilled_cycle_bytes"]}
    _record(event, stats)


def _record(event, stats):
    ring = _state["ring"]
    if ring is None:
        return
    thread = threading.current_thread()
    key = (event["thread"], event["workspace"])
    before = _state["last"].get(key)
    record = {"time": time.time() - _state["started"], "thread": event["thread"], "thread_name": thread.name,
              "workspace": event["workspace"], "cycle": event["cycle"],
              "peak_cycle_bytes": event["peak_cycle_bytes"], "spilled_cycle_bytes": event["spilled_cycle_bytes"],
              "capacity": stats["capacity"], "chunks": stats["chunks"], "learned_size": stats["learned_size"],
              "os_maps": stats["os_maps"] - (before or {}).get("os_maps", 0),
              "trimmed_bytes": stats["trimmed_bytes"] - (before or {}).get("trimmed_bytes", 0),
              "events": _events(before, stats, event)}
    if event.get("sites"):  # stacks on: what this cycle allocated, by the program's line
        record["sites"] = cycle_sites(event["sites"])
    record["sequence"] = next(_sequence)
    ring.append(record)
    _state["last"][key] = stats  # a fresh dict per call: kept as it is
    _state["threads"][key] = thread.name  # idents are reused by later threads: named per record


def snapshot():
    """Everything known about wsarray's memory now, as plain data (dicts, lists, numbers, strings):
    ``workspaces`` (the calling thread's, with current statistics, and every other thread's as of
    its last recorded cycle), ``history`` (the cycle records, the ring's bound and what was dropped),
    ``stacks`` (the live workspace blocks recorded by ``record_history(stacks=True)``, of every
    thread, by the line that made them, ``sites``, and the largest ones with their frames,
    ``live_blocks``; with tracemalloc tracing, the chunk bytes it holds) and ``process``
    (pid, Python, time). File names, lines and sizes only: array contents are never included."""
    me = threading.get_ident()
    current = _native._statistics()
    ring = _state["ring"]
    records = copied(ring or (), list)
    last = {k: dict(v) for k, v in copied(_state["last"], dict).items()}
    names = copied(_state["threads"], dict)
    bound = ring.maxlen if ring is not None else 0
    # Every record made has a number: those the ring no longer holds were dropped.
    dropped = max((r["sequence"] for r in records), default=-1) + 1 - len(records) if records else 0
    workspaces = []
    for name, stats in sorted(current.items()):
        workspaces.append({"thread": me, "thread_name": threading.current_thread().name, "name": name,
                           "as_of": "now", **_plain(stats)})
    for (thread, name), stats in sorted(last.items()):
        if thread == me and name in current:
            continue
        workspaces.append({"thread": thread, "thread_name": names.get((thread, name), str(thread)), "name": name,
                           "as_of": "last recorded cycle", **_plain(stats)})
    tracing = tracemalloc.is_tracing()
    chunk_bytes, chunks = traced_chunk_bytes() if tracing else (0, 0)
    recording = bool(_native._recording_blocks())
    blocks = read_records()  # read once for both views
    return {"version": SNAPSHOT_VERSION, "kind": "wsarray.memory.snapshot",
            "process": {"pid": os.getpid(), "python": sys.version.split()[0], "time": time.time()},
            "workspaces": workspaces,
            "stacks": {"recording": recording, "tracing": tracing, "domain": TRACEMALLOC_DOMAIN,
                       "chunk_domain": TRACEMALLOC_CHUNK_DOMAIN,
                       "traced_chunk_bytes": chunk_bytes, "traced_chunks": chunks,
                       "sites": top_sites(records=blocks), "live_blocks": live_blocks(records=blocks)},
            "escapes": escapes(),
            "history": {"recording": history_enabled(), "max_entries": bound, "dropped": dropped,
                        "record_bytes": RECORD_BYTES, "records": records}}


def _plain(stats):
    return {k: v for k, v in stats.items() if isinstance(v, (int, float, str, bool)) or v is None}


def dump_snapshot(path, snap=None, *, format="json"):  # noqa: A002 -- the format's name, as json.dump's callers say
    """Write ``snapshot()`` (or ``snap``) to ``path``: JSON (the default, safe to share), or
    ``format="pickle"`` when asked. Returns the path."""
    snap = snapshot() if snap is None else snap
    if format == "json":
        with open(os.fspath(path), "w", encoding="utf-8") as f:
            json.dump(snap, f)
    elif format == "pickle":
        import pickle
        with open(os.fspath(path), "wb") as f:
            pickle.dump(snap, f)
    else:
        raise ValueError(f"wsarray.memory.dump_snapshot: format must be 'json' or 'pickle', not {format!r}")
    return path


def load_snapshot(path, *, trust_pickle=False):
    """Read a snapshot written by ``dump_snapshot``. JSON is read as data; a pickle (which can run
    code when read) only with ``trust_pickle=True``."""
    with open(os.fspath(path), "rb") as f:
        head = f.read(1)
    if head == b"\x80":
        if not trust_pickle:
            raise ValueError(f"wsarray.memory.load_snapshot: {os.fspath(path)!r} is a pickle, which can run code "
                             "when read; pass trust_pickle=True only for a file you made yourself")
        import pickle
        with open(os.fspath(path), "rb") as f:
            snap = pickle.load(f)
    else:
        with open(os.fspath(path), encoding="utf-8") as f:
            try:
                snap = json.load(f)
            except (json.JSONDecodeError, UnicodeDecodeError) as e:
                raise ValueError(f"wsarray.memory.load_snapshot: {os.fspath(path)!r} is not a snapshot ({e})") from None
    if not isinstance(snap, dict) or snap.get("kind") != "wsarray.memory.snapshot":
        raise ValueError(f"wsarray.memory.load_snapshot: {os.fspath(path)!r} is not a wsarray memory snapshot")
    return snap
