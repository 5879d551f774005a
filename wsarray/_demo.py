"""The demo behind ``python -m wsarray``: realistic loops, plain NumPy beside wsarray workspaces.

Each (loop, engine) pair runs in a fresh child process so that peak RSS and page faults belong to
that loop alone. The same function body runs with ``xp = numpy`` and with ``xp = wsarray``; the
wsarray run wraps each iteration in ``with xp.workspace("LOOP"):``.
"""

import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy


def heat_setup(xp, n=1024):
    u = xp.zeros((n, n))
    u[n // 4: n // 2, n // 4: n // 2] = 100.0
    return {"u": u, "nxt": xp.zeros((n, n))}


def heat_step(xp, s):
    """One explicit step of the 2-D heat equation; the result goes into a buffer kept outside."""
    u = s["u"]
    c = u[1:-1, 1:-1]
    s["nxt"][1:-1, 1:-1] = c + 0.1 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4.0 * c)
    s["u"], s["nxt"] = s["nxt"], s["u"]


def heat_check(s):
    return float(s["u"].sum())


def mlp_setup(xp, batch=512, d_in=256, d_hidden=256, d_out=10):
    rng = numpy.random.default_rng(0)
    return {
        "x": xp.asarray(rng.standard_normal((batch, d_in))),
        "y": xp.asarray(numpy.eye(d_out)[rng.integers(0, d_out, batch)]),
        "w1": xp.asarray(rng.standard_normal((d_in, d_hidden)) * 0.05),
        "w2": xp.asarray(rng.standard_normal((d_hidden, d_out)) * 0.05),
    }


def mlp_step(xp, s):
    """Forward and backward pass of a 2-layer MLP, SGD update written in place."""
    x, y, w1, w2 = s["x"], s["y"], s["w1"], s["w2"]
    h = xp.maximum(x @ w1, 0.0)
    logits = h @ w2
    p = xp.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    g_logits = (p - y) / x.shape[0]
    g_w2 = h.T @ g_logits
    g_h = (g_logits @ w2.T) * (h > 0)
    g_w1 = x.T @ g_h
    w1 -= 0.1 * g_w1
    w2 -= 0.1 * g_w2


def mlp_check(s):
    return float(abs(s["w1"]).sum() + abs(s["w2"]).sum())


LOOPS = {
    "heat": (heat_setup, heat_step, heat_check, 150),  # 1024x1024 grid
    "mlp": (mlp_setup, mlp_step, mlp_check, 150),  # batch 512, 256-256-10
}


def run_child(loop, engine, iters=None):
    """Run one loop in this process; print a JSON line of measurements."""
    setup, step, check, default_iters = LOOPS[loop]
    iters = iters or default_iters
    if engine == "wsarray":
        import wsarray as xp

        ws = xp.workspace("LOOP")

        def scope():
            return ws
    else:
        xp = numpy

        def scope():
            return contextlib.nullcontext()

    state = setup(xp)
    times, faults = [], []
    for _ in range(iters):
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        t0 = time.perf_counter()
        with scope():
            step(xp, state)
        times.append(time.perf_counter() - t0)
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
    warm = iters // 3  # learning and first-touch happen in the first iterations (at least one)
    out = {
        "loop": loop,
        "engine": engine,
        "ms": statistics.median(times[warm:]) * 1e3,
        "faults_first": faults[0],
        "faults": statistics.mean(faults[warm:]),
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "check": check(state),
    }
    if engine == "wsarray":
        out["stats"] = ws.stats()
    print(json.dumps(out))


def measure(loop, engine, iters=None):
    proc = subprocess.run([sys.executable, "-P", "-m", "wsarray._demo", loop, engine, str(iters or 0)],
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_loops(loops=None, repeats=3, log=print, iters=None):
    """Each loop, NumPy and wsarray alternating, `repeats` fresh processes each; returns the rows."""
    results = []
    for loop in loops or LOOPS:
        runs = {"numpy": [], "wsarray": []}
        for k in range(repeats):
            log(f"  running {loop} ({k + 1}/{repeats})", end="\r", flush=True)
            for engine in ("numpy", "wsarray"):
                runs[engine].append(measure(loop, engine, iters))
        for engine in ("numpy", "wsarray"):
            if runs[engine][0]["check"] != runs["numpy"][0]["check"]:
                raise SystemExit(f"results differ for {loop}: {runs['numpy'][0]['check']} vs "
                                 f"{runs[engine][0]['check']}")
        base = [r["ms"] for r in runs["numpy"]]
        for engine in ("numpy", "wsarray"):
            rs = runs[engine]
            ratios = sorted(r["ms"] / b for r, b in zip(rs, base))  # each pair ran side by side
            results.append({
                "loop": loop, "engine": engine,
                "ms": statistics.median(r["ms"] for r in rs),
                "ratio": statistics.median(ratios), "ratio_min": ratios[0], "ratio_max": ratios[-1],
                "rss_mib": statistics.median(r["rss_mb"] for r in rs),
                "faults": statistics.median(r["faults"] for r in rs),
                "faults_first": int(statistics.median(r["faults_first"] for r in rs)),
                "check": rs[0]["check"], "stats": rs[-1].get("stats"),
            })
    return results


def print_loops(results):
    header = f"{'loop':<16}{'engine':<9}{'ms/iter':>9}{'vs numpy':>10}{'(spread)':>14}" \
             f"{'peak RSS MiB':>14}{'faults/iter':>13}{'faults 1st':>12}"
    print(header)
    print("-" * len(header))
    for r in results:
        spread = f"{r['ratio_min']:.2f}-{r['ratio_max']:.2f}"
        print(f"{r['loop']:<16}{r['engine']:<9}{r['ms']:>9.2f}{r['ratio']:>9.2f}x{spread:>14}"
              f"{r['rss_mib']:>14.1f}{r['faults']:>13.1f}{r['faults_first']:>12}")
        if r["engine"] == "wsarray":
            s = r["stats"]
            print(f"{'':<16}workspace: capacity {s['capacity'] / 2**20:.1f} MiB, peak/cycle "
                  f"{s['peak_cycle_bytes'] / 2**20:.1f} MiB, {s['cycles']} cycles, "
                  f"{s['reused_bytes'] / max(s['allocated_bytes'], 1):.0%} of bytes reused, "
                  f"{s['spilled_bytes'] / 2**20:.1f} MiB spilled while learning its size")
            print(f"{'':<16}results identical to NumPy: {r['check']!r}\n")
    print("""How to read it:
* ms/iter: median time per iteration after warm-up; vs numpy: the median of the ratios of runs made
  side by side (NumPy, then wsarray, in fresh processes); (spread): the lowest and highest of those
  ratios. On a shared or busy machine the spread is wide: trust rows whose spread stays on one side
  of 1.00x.
* faults/iter: minor page faults per iteration after warm-up (the kernel handing out fresh pages).
  A workspace reuses its memory, so it stays near 0; NumPy's allocator keeps asking for pages.
* faults 1st: page faults of the very first iteration. The workspace's are higher: it touches its
  memory for the first time then (and learns its size), once, instead of on every iteration.
* spilled while learning: the first cycle measures what a cycle needs, served outside the workspace;
  from then on the workspace holds it and nothing spills.""")
    print("What these runs show:")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    for line in loop_takeaways(results, load, os.cpu_count() or 1):
        print(f"* {line}")


def loop_takeaways(results, load=None, cores=1):
    """What the measured rows say, computed from them (never a fixed sentence): per loop, faster,
    within the noise or slower (with what the spread, the machine's load and the faults say)."""
    busy = load is not None and load > cores * 0.75  # the demo itself keeps about one core busy
    lines = []
    by = {(r["loop"], r["engine"]): r for r in results}
    for loop in dict.fromkeys(r["loop"] for r in results):
        w, n = by.get((loop, "wsarray")), by.get((loop, "numpy"))
        if not w or not n:
            continue
        ratio, low, high = w["ratio"], w["ratio_min"], w["ratio_max"]
        if high < 1.0:
            speed = f"faster than NumPy in every run ({ratio:.2f}x its time, {low:.2f}-{high:.2f})"
        elif low > 1.0:
            why = (f"the machine was busy (load average {load:.1f} on {cores} cores): run it again when it is "
                   "idle" if busy else
                   "a loop of small arrays pays wsarray's per-call and per-cycle costs (bench/cycles.py), "
                   "which NumPy's allocator does not" if ratio < 1.3 else
                   "unexpected on an idle machine: run it again with --repeats 5 and report it with --info")
            speed = f"SLOWER than NumPy in every run ({ratio:.2f}x its time, {low:.2f}-{high:.2f}): {why}"
        else:
            speed = (f"within the noise of these runs ({ratio:.2f}x NumPy's time, spread {low:.2f}-{high:.2f} "
                     "crosses 1.00x)")
        faults = (f"page faults per iteration {w['faults']:.0f} against NumPy's {n['faults']:.0f}"
                  if w["faults"] < n["faults"] else
                  f"page faults per iteration {w['faults']:.0f}, NumPy's {n['faults']:.0f}: not fewer here")
        same = "identical results" if w["check"] == n["check"] else "DIFFERENT results"
        lines.append(f"{loop}: {speed}; {faults}; {same}.")
    return lines


PARTS = ("loops", "pipeline", "modes")


def main(argv=None):
    """``python -m wsarray [options]``: see ``--help``."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m wsarray",
        description="wsarray's demo: realistic loops with plain NumPy and inside a wsarray workspace "
                    "(time per iteration, peak RSS, page faults, workspace statistics), then the data "
                    "pipeline (wsarray.data: prefetching, pre-saved batches, workspace modes).")
    parser.add_argument("--info", action="store_true",
                        help="print the environment report (wsarray.show_config()) and exit")
    parser.add_argument("--part", default="all",
                        help=f"comma-separated parts to run: {', '.join(PARTS)} or all (default all)")
    parser.add_argument("--loops", default=",".join(LOOPS),
                        help=f"comma-separated loops to run (default: all of {', '.join(LOOPS)})")
    parser.add_argument("--repeats", type=int, default=None,
                        help="fresh processes per variant (default 3, 5 with --full; the ratio is their median)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON instead of a table")
    parser.add_argument("--full", action="store_true",
                        help="the long runs: 5 processes per variant, 4 epochs of the pipeline, 60 training "
                             "steps per workspace mode (about 5 minutes; the default takes about 2)")
    parser.add_argument("--quick", action="store_true",
                        help="a short run: few iterations, 1 process per variant (a smoke test, not a measurement)")
    args = parser.parse_args(argv)
    if args.info:
        from ._config import show_config

        show_config()
        return 0
    parts = [name.strip() for name in args.part.split(",") if name.strip()]
    if parts == ["all"]:
        parts = list(PARTS)
    unknown = [name for name in parts if name not in PARTS]
    if unknown or not parts:
        parser.error(f"unknown part(s) {', '.join(unknown) or repr(args.part)}; choose from "
                     f"{', '.join(PARTS)} or all")
    loops = [name.strip() for name in args.loops.split(",") if name.strip()]
    unknown = [name for name in loops if name not in LOOPS]
    if unknown:
        parser.error(f"unknown loop(s) {', '.join(unknown)}; choose from {', '.join(LOOPS)}")
    if args.repeats is None:
        args.repeats = 5 if args.full else 3
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    iters = 20 if args.quick else None
    if args.quick:
        args.repeats = 1
    quiet = lambda *a, **k: None  # noqa: E731
    to_stderr = lambda *a, **k: print(*a, **k, file=sys.stderr)  # noqa: E731
    figures = {}
    if "loops" in parts:
        if not args.json:
            print("wsarray demo: the same loop body with plain NumPy and inside a wsarray workspace")
            print(f"(each engine runs {args.repeats} times, each time in a fresh process)\n")
        figures["loops"] = run_loops(loops, args.repeats, log=quiet if args.json else to_stderr, iters=iters)
        if not args.json:
            print_loops(figures["loops"])
    figures.update(_data_parts(parts, args, quiet if args.json else to_stderr))
    if args.json:
        print(json.dumps(figures, indent=2))
    return 0


def _data_parts(parts, args, log):
    """The data pipeline's parts (wsarray/data/_demo.py): their figures, printed unless --json."""
    if "pipeline" not in parts and "modes" not in parts:
        return {}
    from .data import _demo as data_demo

    figures = {}
    if "pipeline" in parts:
        params = (dict(batches=6, epochs=2) if args.quick else dict(batches=20, epochs=4) if args.full
                  else dict(batches=20, epochs=3))
        figures["pipeline"] = data_demo.summarize_pipeline(data_demo.run_pipeline(args.repeats, log=log, **params))
        if not args.json:
            print("\nwsarray.data.AsyncIterator: a training step (MLP 27648-256-10) on batches that need "
                  "ETL work\n(decode, crop, blur, flip, jitter, normalize 128 images of 104x104x3)\n")
            data_demo.print_pipeline(figures["pipeline"], args.repeats)
            print(data_demo.PIPELINE_NOTES)
    if "modes" in parts:
        iterations = 12 if args.quick else 60 if args.full else 40
        figures["modes"] = data_demo.summarize_modes(data_demo.run_modes(args.repeats, log=log,
                                                                         iterations=iterations))
        if not args.json:
            print("\nwsarray.data.WorkspaceManager: the same MLP training step in each workspace mode\n")
            data_demo.print_modes(figures["modes"], args.repeats, 256)
            print(data_demo.MODES_NOTES)
    return figures

if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] in LOOPS:
        run_child(sys.argv[1], sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(main())
