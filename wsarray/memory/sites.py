"""Which lines hold workspace memory. While ``record_history(stacks=True)`` records, every block a
workspace hands out keeps the Python frames that made it (their code and instruction: the line
numbers are worked out only when read, here), its workspace, cycle, and the dtype and shape of
the array over it (src/python/allocation/block_descriptions.h). Frames inside NumPy and wsarray
are skipped: a site is the first frame of the program's own code.

Python's ``tracemalloc`` sees workspace memory too whenever a program traces: each block under
wsarray's domain (``TRACEMALLOC_DOMAIN``) while it lives, and the chunks and spills workspaces map
under ``TRACEMALLOC_CHUNK_DOMAIN`` (what they hold from the system, used or not)."""

import os
import tracemalloc

import numpy

from ._source import function_at

__all__ = ["TRACEMALLOC_DOMAIN", "TRACEMALLOC_CHUNK_DOMAIN", "traced_chunk_bytes", "live_blocks", "top_sites",
           "memory_report", "made_at", "block_made_at"]

TRACEMALLOC_DOMAIN = 0x77736100  # src/python/allocation/numpy_alloc.cpp: kWorkspaceTraceDomain
TRACEMALLOC_CHUNK_DOMAIN = 0x77736101  # ... kChunkTraceDomain
_LIBRARIES = tuple(os.path.dirname(m.__file__) + os.sep for m in (numpy,)) + (
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,)


def _program_frame(frames):
    """Of (filename, lineno) frames, innermost first: the first outside NumPy and wsarray (the
    program's line), else the innermost; None for no frames."""
    for filename, lineno in frames:
        if not filename.startswith(_LIBRARIES) and not filename.startswith("<frozen"):
            return filename, lineno
    return frames[0] if frames else None


def traced_chunk_bytes():
    """Bytes of the workspace chunks and spills tracemalloc holds now, and how many ((0, 0) unless
    a program traces)."""
    from .. import _native
    tracing = tracemalloc.is_tracing()
    _native._trace_chunk_maps(tracing)  # the allocator also learns it at every block it hands out
    _native._report_chunk_maps()
    if not tracing:
        return 0, 0
    snap = tracemalloc.take_snapshot().filter_traces([tracemalloc.DomainFilter(True, TRACEMALLOC_CHUNK_DOMAIN)])
    return sum(t.size for t in snap.traces), len(snap.traces)


def read_records():
    """The native records of the live recorded blocks (read once, for several views of them)."""
    from .. import _native
    return _native._recorded_blocks()


def live_blocks(limit=100, records=None):
    """The largest live workspace blocks made while ``record_history(stacks=True)`` recorded:
    [{bytes, site: {file, line, function}, frames: [{file, line, function}], workspace, cycle,
    dtype, shape}] (dtype and shape None until an array was made over the block). ``records``: the
    native records when the caller has them already."""
    records = read_records() if records is None else records
    records = sorted(records, key=lambda r: r[1], reverse=True)[:limit]
    return [_block(nbytes, frames, workspace, cycle, dtype, list(shape) if shape is not None else None)
            for _, nbytes, workspace, cycle, dtype, shape, frames in records]


def _block(nbytes, frames, workspace, cycle, dtype, shape):
    file, line = _program_frame(list(frames)) or ("?", 0)
    return {"bytes": nbytes, "site": {"file": file, "line": line, "function": function_at(file, line)},
            "frames": [{"file": f, "line": n, "function": function_at(f, n)} for f, n in frames],
            "workspace": workspace, "cycle": cycle, "dtype": dtype, "shape": shape}


def top_sites(limit=50, records=None):
    """Live workspace bytes grouped by the line that made them: [{file, line, function, bytes,
    blocks}], largest first (blocks made while ``record_history(stacks=True)`` recorded)."""
    sites = {}
    for _, nbytes, _, _, _, _, frames in read_records() if records is None else records:
        key = _program_frame(list(frames)) or ("?", 0)
        entry = sites.setdefault(key, [0, 0])
        entry[0] += nbytes
        entry[1] += 1
    ranked = sorted(sites.items(), key=lambda kv: kv[1][0], reverse=True)[:limit]
    return [{"file": f, "line": line, "function": function_at(f, line), "bytes": b, "blocks": n}
            for (f, line), (b, n) in ranked]


def made_at(frames):
    """For a stale-array error: ' (made at file:line)', the program's own frame of the frames
    tracemalloc recorded for the array's block ((filename, lineno), most recent first)."""
    frame = _program_frame(frames)
    return f" (made at {frame[0]}:{frame[1]})" if frame else ""


def block_made_at(array):
    """'file:line' where a wsarray array's block was made (also for a stale one), if its block was
    recorded (record_history(stacks=True)) or tracemalloc traced it, else ''."""
    from .. import _native
    frames = _native._array_block_traceback(array)
    text = made_at(frames) if frames else ""
    return text[len(" (made at "):-1] if text else ""


def cycle_sites(raw, limit=10):
    """A cycle's allocation sites from the core's counts ((frames, bytes, blocks, spilled bytes,
    spilled blocks), frames innermost first): by the program's own line, largest first, each
    {file, line, function, bytes, blocks, spilled_bytes, spilled_blocks} (spilled: served outside
    the workspace's chunks)."""
    totals = {}
    for frames, *counts in raw or ():
        site = made_at(frames)[len(" (made at "):-1] if frames else "?"
        entry = totals.setdefault(site, [0, 0, 0, 0])
        for i, n in enumerate(counts[:4]):
            entry[i] += n
    ranked = sorted(totals.items(), key=lambda kv: kv[1][0], reverse=True)[:limit]
    out = []
    for site, (nbytes, blocks, spilled_bytes, spilled_blocks) in ranked:
        file, _, line = site.rpartition(":")
        line = int(line) if line.isdigit() else 0
        out.append({"file": file, "line": line, "function": function_at(file, line), "bytes": nbytes,
                    "blocks": blocks, "spilled_bytes": spilled_bytes, "spilled_blocks": spilled_blocks})
    return out


def memory_report():
    """For a WorkspaceMemoryError: the lines holding the most workspace memory, or how to see them."""
    try:
        from .. import _native
        if not _native._recording_blocks():
            return ("wsarray: to see which lines hold this memory, call "
                    "wsarray.memory.record_history(True, stacks=True) before the loop")
        sites = top_sites(5)
        if not sites:
            return "wsarray: no live workspace block was recorded (recording began after they were made?)"
        lines = [f"  {s['bytes']} bytes in {s['blocks']} block(s) made at {s['file']}:{s['line']}" for s in sites]
        return "wsarray: the lines holding the most workspace memory now:\n" + "\n".join(lines)
    except Exception as e:  # noqa: BLE001 -- a report must never replace the error it explains
        return f"wsarray: no memory report ({type(e).__name__}: {e})"
