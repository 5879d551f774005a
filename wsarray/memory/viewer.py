"""The snapshot viewer: one self-contained HTML page (inline SVG, no script, nothing fetched at view
time) from a snapshot's plain data: per workspace a timeline of the cycle peaks and the capacity
with spills marked, the events (learned its size, grew, spilled, trimmed), and the workspaces'
statistics. ``python -m wsarray.memory view mem.json -o mem.html``."""

import html
import os

__all__ = ["render_html", "write_html", "plot_png"]

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
    stacks = snap.get("stacks", {})
    if stacks.get("sites"):
        parts.append("<h2>Live workspace memory by the line that made it</h2><table id='sites'><tr><th>file</th>"
                     "<th>line</th><th>function</th><th>bytes</th><th>blocks</th></tr>")
        for s in stacks["sites"]:
            parts.append(f"<tr><td>{html.escape(s['file'])}</td><td>{s['line']}</td>"
                         f"<td>{html.escape(s.get('function', ''))}</td><td>{_mib(s['bytes'])}</td>"
                         f"<td>{s['blocks']}</td></tr>")
        parts.append("</table>")
        parts.append("<h2>Largest live blocks</h2><table id='blocks'><tr><th>made at</th><th>bytes</th>"
                     "<th>workspace</th><th>cycle</th><th>dtype</th><th>shape</th>"
                     "<th>frames (innermost first)</th></tr>")
        for b in stacks.get("live_blocks", [])[:50]:
            frames = " &larr; ".join(f"{html.escape(os.path.basename(f['file']))}:{f['line']}" for f in b["frames"])
            shape = "" if b.get("shape") is None else "(" + ", ".join(map(str, b["shape"])) + ")"
            function = b["site"].get("function")
            parts.append(f"<tr><td>{html.escape(b['site']['file'])}:{b['site']['line']}"
                         f"{' (' + html.escape(function) + ')' if function else ''}</td>"
                         f"<td>{_mib(b['bytes'])}</td><td>{html.escape(str(b.get('workspace') or ''))}</td>"
                         f"<td>{b.get('cycle') or ''}</td><td>{html.escape(str(b.get('dtype') or ''))}</td>"
                         f"<td>{shape}</td><td>{frames}</td></tr>")
        parts.append("</table>")
    elif not stacks.get("recording"):
        parts.append("<p>Allocation sites: off (wsarray.memory.record_history(True, stacks=True) records them).</p>")
    if snap.get("escapes"):
        parts.append("<h2>Escapes</h2><p>Arrays still referenced when their cycle ended (debug mode 'escapes'): "
                     "stale, so any use raises; .detach() them inside the cycle to keep them.</p>"
                     "<table id='escapes'><tr><th>variable</th><th>function</th><th>file</th><th>line</th>"
                     "<th>workspace</th><th>cycle</th><th>thread</th><th>made at</th></tr>")
        for e in snap["escapes"][-200:]:
            parts.append("<tr>" + "".join(f"<td>{html.escape(str(e.get(k, '')))}</td>" for k in (
                "variable", "function", "file", "line", "workspace", "cycle", "thread", "made_at")) + "</tr>")
        parts.append("</table>")
    for (thread, workspace), rs in sorted(groups.items()):
        events = [r for r in rs if r["events"]]
        with_sites = [r for r in rs if r.get("sites")]
        parts.append(f"<h2 class='workspace'>{html.escape(workspace)} "
                     f"<small>(thread {html.escape(thread)})</small></h2>")
        parts.append(_timeline(rs))
        if with_sites:
            peak = max(with_sites, key=lambda r: r["peak_cycle_bytes"])
            parts.append(f"<p>Allocation sites of the peak cycle (cycle {peak['cycle']}, "
                         f"{_mib(peak['peak_cycle_bytes'])}):</p>")
            parts.append(_sites_table("cycle-sites", peak["sites"]))
            spilled = _spill_sites(with_sites)
            if spilled:
                parts.append("<p>Lines whose allocations spilled (served outside the workspace's chunks), over "
                             "the recorded cycles:</p>")
                parts.append(_sites_table("spill-sites", spilled))
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

def _sites_table(css_class, sites):
    rows = [f"<table class='{css_class}'><tr><th>file</th><th>line</th><th>function</th><th>allocated</th>"
            "<th>blocks</th><th>spilled</th><th>spilled blocks</th></tr>"]
    for s in sites:
        rows.append(f"<tr><td>{html.escape(s['file'])}</td><td>{s['line']}</td>"
                    f"<td>{html.escape(s.get('function', ''))}</td><td>{_mib(s['bytes'])}</td>"
                    f"<td>{s['blocks']}</td><td>{_mib(s.get('spilled_bytes', 0))}</td>"
                    f"<td>{s.get('spilled_blocks', 0)}</td></tr>")
    rows.append("</table>")
    return "".join(rows)


def _spill_sites(records, limit=10):
    """The lines whose allocations spilled, summed over the records' cycles, most spilled first."""
    totals = {}
    for r in records:
        for s in r["sites"]:
            if s.get("spilled_blocks"):
                entry = totals.setdefault((s["file"], s["line"]), {
                    "file": s["file"], "line": s["line"], "function": s.get("function", ""), "bytes": 0,
                    "blocks": 0, "spilled_bytes": 0, "spilled_blocks": 0})
                for key in ("bytes", "blocks", "spilled_bytes", "spilled_blocks"):
                    entry[key] += s.get(key, 0)
    return sorted(totals.values(), key=lambda e: e["spilled_bytes"], reverse=True)[:limit]



def write_html(snap, path, title="wsarray memory snapshot"):
    with open(os.fspath(path), "w", encoding="utf-8") as f:
        f.write(render_html(snap, title))
    return path


def plot_png(snap, path, title="wsarray memory"):
    """A PNG for reports (matplotlib, the ``[plot]`` extra): one panel per workspace (up to 6), each
    cycle's peak and the capacity over the cycles, spills marked. Returns the path."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError('wsarray.memory.plot_snapshot() needs matplotlib: pip install "wsarray[plot]"') from None
    groups = {}
    for r in snap.get("history", {}).get("records", []):
        groups.setdefault((r["thread_name"], r["workspace"]), []).append(r)
    if not groups:
        raise ValueError("wsarray.memory.plot_snapshot: the snapshot has no cycle records "
                         "(wsarray.memory.record_history(True) records them)")
    shown = sorted(groups.items(), key=lambda kv: -max(r["capacity"] for r in kv[1]))[:6]
    fig = Figure(figsize=(8, 2.6 * len(shown)), dpi=100)
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(shown), 1, squeeze=False)[:, 0]
    for ax, ((thread, workspace), rs) in zip(axes, shown):
        cycles = [r["cycle"] for r in rs]
        ax.plot(cycles, [r["peak_cycle_bytes"] / 2**20 for r in rs], label="peak of the cycle")
        ax.plot(cycles, [r["capacity"] / 2**20 for r in rs], color="grey", label="capacity")
        spilled = [r for r in rs if r["spilled_cycle_bytes"]]
        ax.scatter([r["cycle"] for r in spilled], [r["peak_cycle_bytes"] / 2**20 for r in spilled], color="tab:red",
                   s=12, zorder=3, label="spilled")
        ax.set_title(f"{workspace} (thread {thread})", fontsize=10)
        ax.set_ylabel("MiB")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper left", fontsize=8)
    axes[-1].set_xlabel("cycle")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(os.fspath(path), format="png")
    return path
