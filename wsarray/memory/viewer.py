"""The snapshot viewer: one self-contained HTML page (inline SVG, no script, nothing fetched at view
time) from a snapshot's plain data: per workspace a timeline of the cycle peaks and the capacity
with spills marked, the events (learned its size, grew, spilled, trimmed), and the workspaces'
statistics. ``python -m wsarray.memory view mem.json -o mem.html``."""

import html
import os

__all__ = ["render_html", "write_html"]

_W, _H, _PAD = 760, 180, 40


def _mib(n):
    return f"{n / 2**20:.2f} MiB" if n >= 2**20 else f"{n / 2**10:.1f} KiB" if n >= 2**10 else f"{n} B"


def _timeline(records):
    """An SVG of peak_cycle_bytes (blue) and capacity (grey) over the cycles, spills in red."""
    if not records:
        return "<p>No cycle recorded (history was off: wsarray.memory.record_history()).</p>"
    top = max(max(r["peak_cycle_bytes"], r["capacity"]) for r in records) or 1
    n = len(records)

    def x(i):
        return _PAD + (i * (_W - 2 * _PAD) / max(n - 1, 1))

    def y(v):
        return _H - _PAD / 2 - v * (_H - _PAD) / top

    def line(key, colour):
        points = " ".join(f"{x(i):.1f},{y(r[key]):.1f}" for i, r in enumerate(records))
        return f"<polyline fill='none' stroke='{colour}' stroke-width='1.5' points='{points}'/>"
    spills = "".join(f"<circle class='spill' cx='{x(i):.1f}' cy='{y(r['peak_cycle_bytes']):.1f}' r='3' "
                     f"fill='#d62728'><title>cycle {r['cycle']}: spilled {_mib(r['spilled_cycle_bytes'])}</title>"
                     "</circle>" for i, r in enumerate(records) if r["spilled_cycle_bytes"])
    return (f"<svg class='timeline' width='{_W}' height='{_H}' viewBox='0 0 {_W} {_H}' role='img'>"
            f"<text x='4' y='12' font-size='10'>{html.escape(_mib(top))}</text>"
            f"<text x='{_PAD}' y='{_H - 2}' font-size='10'>cycle {records[0]['cycle']}</text>"
            f"<text x='{_W - _PAD - 60}' y='{_H - 2}' font-size='10'>cycle {records[-1]['cycle']}</text>"
            + line("capacity", "#999") + line("peak_cycle_bytes", "#1f77b4") + spills + "</svg>")


def render_html(snap, title="wsarray memory snapshot"):
    """The page for snapshot ``snap`` (a dict from wsarray.memory.snapshot or load_snapshot)."""
    history = snap.get("history", {})
    process = snap.get("process", {})
    records = history.get("records", [])
    groups = {}
    for r in records:
        groups.setdefault((r["thread_name"], r["workspace"]), []).append(r)
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'>", f"<title>{html.escape(title)}</title>",
             "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}th{background:#eee}"
             "td:first-child,td:nth-child(2){text-align:left}</style></head><body>",
             f"<h1>{html.escape(title)}</h1>",
             f"<p>pid {process.get('pid')}, Python {html.escape(str(process.get('python')))}; {len(records)} cycle "
             f"records (bound {history.get('max_entries', 0)}, dropped {history.get('dropped', 0)}); "
             "blue: each cycle's peak, grey: the workspace's capacity, red: a cycle that spilled.</p>",
             "<h2>Workspaces</h2><table id='workspaces'><tr><th>thread</th><th>workspace</th><th>as of</th>"
             "<th>capacity</th><th>used</th><th>peak/cycle</th><th>spilled</th><th>spills</th><th>cycles</th>"
             "<th>learned size</th><th>chunks</th></tr>"]
    for w in snap.get("workspaces", []):
        parts.append("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in (
            w.get("thread_name"), w.get("name"), w.get("as_of"), _mib(w.get("capacity", 0)), _mib(w.get("used", 0)),
            _mib(w.get("peak_cycle_bytes", 0)), _mib(w.get("spilled_bytes", 0)), w.get("spills", 0),
            w.get("cycles", 0), _mib(w.get("learned_size", 0)), w.get("chunks", 0))) + "</tr>")
    parts.append("</table>")
    for (thread, workspace), rs in sorted(groups.items()):
        events = [r for r in rs if r["events"]]
        parts.append(f"<h2 class='workspace'>{html.escape(workspace)} "
                     f"<small>(thread {html.escape(thread)})</small></h2>")
        parts.append(_timeline(rs))
        if events:
            parts.append("<table class='events'><tr><th>cycle</th><th>what happened</th><th>peak</th><th>spilled</th>"
                         "<th>capacity</th></tr>")
            for r in events[-200:]:
                parts.append(f"<tr><td>{r['cycle']}</td><td>{html.escape(', '.join(r['events']))}</td>"
                             f"<td>{_mib(r['peak_cycle_bytes'])}</td><td>{_mib(r['spilled_cycle_bytes'])}</td>"
                             f"<td>{_mib(r['capacity'])}</td></tr>")
            parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_html(snap, path, title="wsarray memory snapshot"):
    with open(os.fspath(path), "w", encoding="utf-8") as f:
        f.write(render_html(snap, title))
    return path
