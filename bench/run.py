"""wsarray benchmarks: the same work with NumPy, wsarray and the peers a user would pick instead.

    python -P bench/run.py            # quick mode (about a minute or two)
    python -P bench/run.py --full     # more sizes, more repeats, 1,000-iteration memory runs
    python -P bench/run.py --threads 1  # every engine on one thread (steadier on a busy machine)

Groups (--groups small,large,loops,memory,gc):
  small   per-call overhead on arrays of 1, 64 and 1000 elements; workspace enter/exit
  large   elementwise chains, reductions and matmul on 1e5..3e7 elements
  loops   a 2-D heat step, an MLP training step and a k-means iteration, plain and inside a
          workspace entered and left every iteration
  memory  peak RSS and minor page faults over a long run of a loop (one fresh process per engine)
  gc      a long loop that leaves reference cycles behind, under wsarray's GC knobs

Engines alternate within every repeat (same process, same data), and the table shows medians. Time
ratios are engine time / NumPy time (below 1: faster than NumPy). Results go to
bench/results/*.json and, where matplotlib is installed, a PNG chart.
"""

import argparse
import datetime
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # `python -P` leaves bench/ off

import engines as eng
import loops
import ops

HERE = os.path.dirname(os.path.abspath(__file__))
ENGINE_ORDER = ("numpy", "wsarray", "wsarray+ws", "torch", "numexpr")


# ---- timing one case on every engine --------------------------------------------------------

def run_case(builders, modules, size, reps, target_s, ws_mode, ws_name, only=None):
    """Time every engine of a case that `modules` has, alternating engines within each repeat.

    builders: {engine: (module, size) -> body}. ws_mode: "cycle" wraps each call of the
    wsarray+ws body in a workspace cycle; "open" runs each whole sample inside one open cycle
    (per-call overhead of operations made inside a workspace). Returns {engine: {"samples":
    [(seconds per call, faults per call, peak RSS KiB), ...], "calls": calls per sample}}.
    `only`: time these engines alone.
    """
    import wsarray

    ws = wsarray.workspace(ws_name)
    bodies, around = {}, {}
    for name in ENGINE_ORDER:
        if name not in builders or name not in modules or (only and name not in only):
            continue
        body = builders[name](modules[name], size)
        around[name] = None
        if name == "wsarray+ws":
            if ws_mode == "cycle":
                body = eng.in_workspace(ws, body)
            else:
                around[name] = ws
        bodies[name] = body
    numbers = {}
    if not bodies:
        wsarray.memory.destroy_workspace(ws_name)
        return {}
    for name, body in bodies.items():  # warm up (workspace learning happens here), calibrate
        eng.measure(body, 2, around[name])
        once, _, _ = eng.measure(body, 1, around[name])
        numbers[name] = max(1, min(200_000, int(target_s / max(once, 1e-9))))
    samples = {name: [] for name in bodies}
    names = list(bodies)
    for r in range(reps):
        for name in names[r % len(names):] + names[: r % len(names)]:
            samples[name].append(eng.measure(bodies[name], numbers[name], around[name]))
    out = {name: {"samples": rows, "calls": numbers[name]} for name, rows in samples.items()}
    if "wsarray+ws" in out:
        out["wsarray+ws"]["workspace"] = ws.stats()
    del bodies
    gc.collect()
    wsarray.memory.destroy_workspace(ws_name)
    return out


def summarise(res):
    """Medians of the samples of every engine, and time ratios to NumPy."""
    for r in res.values():
        rows = r["samples"]
        peaks = [p for _, _, p in rows if p is not None]
        r.update(s=statistics.median(t for t, _, _ in rows), min_s=min(t for t, _, _ in rows),
                 faults=statistics.median(f for _, f, _ in rows),
                 peak_rss_kb=max(peaks) if peaks else None)
    return ratios(res)


def ratios(res):
    base = res["numpy"]["s"]
    for r in res.values():
        r["ratio"] = r["s"] / base
    return res


def child_json(group, name, cfg):
    """Run `group` on the engines `name` (comma-separated) in a fresh process; its JSON result."""
    proc = subprocess.run([sys.executable, "-P", os.path.abspath(__file__), "--child-group",
                           group, name, json.dumps(cfg)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"bench/run.py: group {group} on {name} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def isolated(group, cfg, names):
    """Run `group` in fresh processes: NumPy, wsarray and numexpr alternate in one; PyTorch runs
    in another (PyTorch's OpenMP threads and OpenBLAS's spin while waiting and would slow each
    other). `cfg["rounds"]` rounds of processes are merged."""
    teams = [[n for n in names if n != "torch"]]
    if "torch" in names:
        teams.append(["numpy", "torch"])
    merged = {}  # team index -> rows
    for _ in range(cfg["rounds"]):
        for t, team in enumerate(teams):
            rows = child_json(group, ",".join(team), cfg)["rows"]
            if t not in merged:
                merged[t] = rows
                continue
            for mine, theirs in zip(merged[t], rows):
                for engine, r in theirs["engines"].items():
                    mine["engines"][engine]["samples"] += r["samples"]
    rows = merged[0]
    for row in rows:
        summarise(row["engines"])
    # PyTorch's ratio is to NumPy's time in the first process: in PyTorch's own process NumPy's
    # BLAS threads compete with PyTorch's OpenMP threads (kept in the JSON for reference).
    for t in range(1, len(teams)):
        for row, other in zip(rows, merged[t]):
            if "torch" in other["engines"]:
                summarise(other["engines"])
                torch = dict(other["engines"]["torch"], numpy_s_same_process=other["engines"]["numpy"]["s"])
                torch["ratio"] = torch["s"] / row["engines"]["numpy"]["s"]
                row["engines"]["torch"] = torch
    return {"rows": rows}


def child_group(group, names, cfg):
    """In a fresh process: run the cases of `group` on the comma-separated engines; print JSON."""
    import importlib

    modules = {"numpy": importlib.import_module("numpy")}
    for name in names.split(","):
        modules[name] = importlib.import_module("wsarray" if name == "wsarray+ws" else name)
    cfg = dict(cfg, only=names.split(","))
    fn = {"large": group_large, "loops": group_loops, "gc": group_gc}[group]
    print(json.dumps(fn(modules, cfg), default=str))


# ---- groups ---------------------------------------------------------------------------------

def group_small(modules, cfg):
    rows = []
    for case, builders in ops.SMALL.items():
        for n in ops.SMALL_SIZES:
            res = summarise(run_case(builders, modules, n, cfg["reps"], cfg["small_s"], "open", "BENCH"))
            rows.append({"case": case, "size": n, "engines": res})
    import wsarray

    ws = wsarray.workspace("BENCH_ENTER")
    samples = [eng.measure(eng.in_workspace(ws, lambda: None), 100_000)[0] for _ in range(cfg["reps"])]
    wsarray.memory.destroy_workspace("BENCH_ENTER")
    enter_exit = {"case": "workspace enter/exit", "s": statistics.median(samples)}
    return {"rows": rows, "enter_exit": enter_exit}


def group_large(modules, cfg):
    rows = []
    for case, (builders, _, _) in ops.LARGE.items():
        for n in ops.large_sizes(case, cfg["full"]):
            res = run_case(builders, modules, n, cfg["reps"], cfg["large_s"], "cycle", "BENCH",
                           cfg.get("only"))
            rows.append({"case": case, "size": n, "engines": res})
    return {"rows": rows}


def loops_identical(modules):
    """{loop: True if three wsarray steps give NumPy's state exactly}."""
    out = {}
    for loop in loops.LOOPS:
        checks = {}
        for name in ("numpy", "wsarray"):
            state, body = loops.setup(loop, name, modules)
            for _ in range(3):
                body()
            checks[name] = loops.check(state)
        out[loop] = checks["numpy"] == checks["wsarray"]
    return out


def mark_identical(result, identical):
    for row in result["rows"]:
        row["identical_to_numpy"] = identical[row["case"]]
    return result


def group_loops(modules, cfg):
    rows = []
    for loop in loops.LOOPS:
        builders = {name: (lambda mod, size, name=name, loop=loop: loops.setup(loop, name, modules)[1])
                    for name in modules if loops.setup(loop, name, modules) is not None}
        res = run_case(builders, modules, None, cfg["reps"], cfg["loop_s"], "cycle", "LOOP", cfg.get("only"))
        rows.append({"case": loop, "size": None, "engines": res})
    return {"rows": rows}


def child_memory(loop, name, iters):
    """In a fresh process: run `loop` `iters` times on one engine; print a JSON line."""
    import importlib

    # "wsarray+ws strict": the workspace learns with allocation="strict" (no 30% headroom).
    base = "wsarray" if name.startswith("wsarray+ws") else name
    modules = {"numpy": importlib.import_module("numpy"), base: importlib.import_module(base)}
    state, body = loops.setup(loop, "wsarray+ws" if base == "wsarray" else name, modules)
    if base == "wsarray":
        wsarray = modules["wsarray"]
        config = wsarray.WorkspaceConfig(allocation="strict") if name.endswith("strict") else None
        body = eng.in_workspace(wsarray.workspace("LOOP", config), body)
    rss_before = eng.rss_kb()
    times, faults = [], []
    for _ in range(iters):
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        t0 = time.perf_counter()
        body()
        times.append(time.perf_counter() - t0)
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
    steady = iters // 3  # learning and first touch happen in the first iterations
    out = {"loop": loop, "engine": name, "iters": iters, "s": statistics.median(times[steady:]),
           "faults": statistics.mean(faults[steady:]), "faults_first": faults[0],
           "rss_before_loop_kb": rss_before, "peak_rss_kb": eng.hwm_kb()}
    if base == "wsarray":
        out["workspace"] = modules["wsarray"].workspace("LOOP").stats()
    print(json.dumps(out))


def group_memory(modules, cfg):
    rows = []
    for loop in ("heat 1024x1024", "MLP 512x256"):
        res = {}
        names = [n for n in ENGINE_ORDER if n in modules and n != "wsarray"
                 and (n == "wsarray+ws" or n in loops.LOOPS[loop][2])]
        if "wsarray+ws" in names:
            names.insert(names.index("wsarray+ws") + 1, "wsarray+ws strict")
        for name in names:
            proc = subprocess.run([sys.executable, "-P", os.path.abspath(__file__), "--child", loop, name,
                                   str(cfg["memory_iters"])], capture_output=True, text=True)
            if proc.returncode != 0:
                raise SystemExit(f"memory run {loop!r} on {name} failed:\n{proc.stderr}")
            res[name] = json.loads(proc.stdout.strip().splitlines()[-1])
        rows.append({"case": loop, "engines": ratios(res), "iters": cfg["memory_iters"]})
    return {"rows": rows}


def group_gc(modules, cfg):
    """A loop (MLP step) that leaves a reference cycle holding a workspace array behind every
    iteration, under each combination of Python's periodic collector and wsarray's window."""
    import wsarray

    state, step = loops.setup("MLP 512x256", "wsarray", modules)

    def body():
        step()
        junk = {"h": wsarray.ones(1000)}
        junk["self"] = junk  # a cycle: only the cyclic collector frees it (and its block)

    variants = [(True, 0), (False, 0), (False, 10), (False, 100), (True, 100)]
    rows = []
    was_enabled, old_window = gc.isenabled(), wsarray.memory.get_auto_gc_window()
    try:
        for periodic, window in variants:
            gc.collect()
            wsarray.memory.toggle_periodic_gc(periodic)
            wsarray.memory.set_auto_gc_window(window)
            ws = wsarray.workspace("GC")
            loop_body = eng.in_workspace(ws, body)
            c0 = wsarray.memory.gc_collections()
            py0 = sum(s["collections"] for s in gc.get_stats())
            eng.rss_peak_reset()
            rss0 = eng.rss_kb()
            times = []
            for _ in range(cfg["gc_iters"]):
                t0 = time.perf_counter()
                loop_body()
                times.append(time.perf_counter() - t0)
            peak = eng.hwm_kb() - rss0
            stats = ws.stats()
            rows.append({"periodic_gc": periodic, "window_ms": window, "s": statistics.median(times),
                         "mean_s": statistics.mean(times), "max_s": max(times),
                         "wsarray_collections": wsarray.memory.gc_collections() - c0,
                         "python_collections": sum(s["collections"] for s in gc.get_stats()) - py0,
                         "peak_rss_kb": peak, "workspace": stats})
            wsarray.memory.set_auto_gc_window(0)
            gc.collect()
            wsarray.memory.destroy_workspace("GC")
    finally:
        wsarray.memory.set_auto_gc_window(old_window)
        (gc.enable if was_enabled else gc.disable)()
    return {"rows": rows, "iters": cfg["gc_iters"]}


# ---- report ---------------------------------------------------------------------------------

def fmt_time(s):
    if s < 1e-3:
        return f"{s * 1e6:.2f} us"
    return f"{s * 1e3:.2f} ms"


def print_ratio_table(title, rows, names):
    print(f"\n== {title}: time / NumPy time (median), NumPy's absolute time; faults/iter")
    head = f"{'case':<30}{'size':>10}{'numpy':>11}" + "".join(f"{n:>12}" for n in names if n != "numpy")
    head += "   faults/iter (" + " ".join(names) + ")"
    print(head)
    print("-" * len(head))
    for row in rows:
        res = row["engines"]
        size = "" if row.get("size") is None else f"{row['size']:,}"
        line = f"{row['case']:<30}{size:>10}{fmt_time(res['numpy']['s']):>11}"
        for n in names:
            if n != "numpy":
                line += f"{res[n]['ratio']:>11.2f}x" if n in res else f"{'-':>12}"
        line += "   " + " ".join(f"{res[n]['faults']:.0f}" if n in res else "-" for n in names)
        if row.get("identical_to_numpy") is False:
            line += "  RESULTS DIFFER FROM NUMPY"
        print(line)


def print_peak_table(rows, names):
    print("\n   peak RSS above the RSS at the start of a sample, MiB (kernel VmHWM)")
    for row in rows:
        res = row["engines"]
        cells = "".join(f"{n}={res[n]['peak_rss_kb'] / 1024:.1f}  " for n in names
                        if n in res and res[n]["peak_rss_kb"] is not None)
        print(f"   {row['case']:<30} {cells}")


def print_workspace(row, engine="wsarray+ws"):
    s = row["engines"].get(engine, {}).get("workspace")
    if s:
        print(f"   {row['case']:<30} {engine}: capacity {s['capacity'] / 2**20:.1f} MiB, peak/cycle "
              f"{s['peak_cycle_bytes'] / 2**20:.1f} MiB, {s['cycles']} cycles, "
              f"{s['reused_bytes'] / max(s['allocated_bytes'], 1):.0%} of bytes reused, "
              f"spilled {s['spilled_bytes'] / 2**20:.1f} MiB")


def report(results, names):
    g = results["groups"]
    if "small" in g:
        print_ratio_table("small arrays (operations inside an open workspace for wsarray+ws)",
                          g["small"]["rows"], names)
        print(f"   workspace enter/exit: {fmt_time(g['small']['enter_exit']['s'])} per cycle")
    if "large" in g:
        print_ratio_table("large arrays (wsarray+ws: one workspace cycle per call)", g["large"]["rows"], names)
        print_peak_table(g["large"]["rows"], names)
    if "loops" in g:
        print_ratio_table("realistic loops (wsarray+ws: one workspace cycle per iteration)",
                          g["loops"]["rows"], names)
        print_peak_table(g["loops"]["rows"], names)
        for row in g["loops"]["rows"]:
            print_workspace(row)
    if "memory" in g:
        print(f"\n== memory: one fresh process per engine, {g['memory']['rows'][0]['iters']} iterations")
        head = f"{'loop':<18}{'engine':<19}{'ms/iter':>9}{'vs numpy':>10}{'peak RSS MiB':>14}" \
               f"{'RSS before loop':>17}{'faults/iter':>13}{'faults 1st':>12}"
        print(head)
        print("-" * len(head))
        for row in g["memory"]["rows"]:
            for n, r in row["engines"].items():
                print(f"{row['case']:<18}{n:<19}{r['s'] * 1e3:>9.2f}{r['ratio']:>9.2f}x"
                      f"{r['peak_rss_kb'] / 1024:>14.1f}{r['rss_before_loop_kb'] / 1024:>17.1f}"
                      f"{r['faults']:>13.1f}{r['faults_first']:>12}")
            print_workspace(row)
            print_workspace(row, "wsarray+ws strict")
    if "gc" in g:
        print(f"\n== GC knobs: MLP step + one reference cycle holding a workspace array per iteration, "
              f"{g['gc']['iters']} iterations")
        head = f"{'periodic gc':>12}{'window ms':>10}{'median ms':>11}{'mean ms':>9}{'max ms':>9}" \
               f"{'wsarray gc':>11}{'python gc':>10}{'peak RSS MiB':>13}{'spilled MiB':>12}{'capacity MiB':>13}"
        print(head)
        print("-" * len(head))
        for r in g["gc"]["rows"]:
            s = r["workspace"]
            print(f"{str(r['periodic_gc']):>12}{r['window_ms']:>10}{r['s'] * 1e3:>11.3f}{r['mean_s'] * 1e3:>9.3f}"
                  f"{r['max_s'] * 1e3:>9.2f}{r['wsarray_collections']:>11}{r['python_collections']:>10}"
                  f"{r['peak_rss_kb'] / 1024:>13.1f}{s['spilled_bytes'] / 2**20:>12.1f}{s['capacity'] / 2**20:>13.1f}")


def write_chart(results, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rows = [r for grp in ("small", "large", "loops") if grp in results["groups"]
            for r in results["groups"][grp]["rows"] if grp != "small" or r["size"] == 1000]
    if not rows:
        return False
    names = [n for n in ENGINE_ORDER if n != "numpy" and any(n in r["engines"] for r in rows)]
    fig, ax = plt.subplots(figsize=(10, 0.35 * len(rows) * len(names) / 2 + 2))
    height = 0.8 / len(names)
    for i, n in enumerate(names):
        ys = [k + i * height for k in range(len(rows))]
        ax.barh(ys, [r["engines"][n]["ratio"] if n in r["engines"] else 0 for r in rows], height, label=n)
    ax.set_yticks([k + 0.4 - height / 2 for k in range(len(rows))])
    ax.set_yticklabels([r["case"] + ("" if r.get("size") is None else f" n={r['size']:,}") for r in rows],
                       fontsize=7)
    ax.axvline(1.0, color="k", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("time / NumPy time (log scale; left of 1 = faster than NumPy)")
    ax.invert_yaxis()
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--full", action="store_true", help="more sizes and repeats (several minutes)")
    p.add_argument("--groups", default="small,large,loops,memory,gc",
                   help="comma-separated subset of small,large,loops,memory,gc")
    p.add_argument("--engines", default=",".join(ENGINE_ORDER), help="comma-separated engines to run")
    p.add_argument("--child", nargs=3, metavar=("LOOP", "ENGINE", "ITERS"), help=argparse.SUPPRESS)
    p.add_argument("--child-group", nargs=3, metavar=("GROUP", "ENGINE", "CFG"), help=argparse.SUPPRESS)
    p.add_argument("--threads", type=int, default=0,
                   help="threads for every engine (BLAS, PyTorch, numexpr, wsarray's pool); "
                        "default: each library's own default")
    args = p.parse_args(argv)
    if args.threads and os.environ.get("WSARRAY_BENCH_THREADS") != str(args.threads):
        # Thread counts are read when the libraries load: start again with them in the environment
        # (child processes inherit it).
        n = str(args.threads)
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
                    "NUMEXPR_MAX_THREADS", "WSARRAY_NUM_THREADS", "WSARRAY_BENCH_THREADS"):
            os.environ[var] = n
        os.execv(sys.executable, [sys.executable, "-P", os.path.abspath(__file__)] + sys.argv[1:])
    if args.child:
        child_memory(args.child[0], args.child[1], int(args.child[2]))
        return
    if args.child_group:
        child_group(args.child_group[0], args.child_group[1], json.loads(args.child_group[2]))
        return
    cfg = {"full": args.full, "reps": 11 if args.full else 5,
           "small_s": 0.02 if args.full else 0.005, "large_s": 0.2 if args.full else 0.05,
           "loop_s": 0.2 if args.full else 0.05, "memory_iters": 1000 if args.full else 150,
           "gc_iters": 2000 if args.full else 200, "rounds": 2 if args.full else 1}
    wanted = args.engines.split(",")
    if "wsarray+ws" in wanted and "wsarray" not in wanted:
        wanted.append("wsarray")  # the workspace engine's checks compare against plain wsarray
    modules = {n: m for n, m in eng.available_engines().items() if n in wanted or n == "numpy"}
    names = [n for n in ENGINE_ORDER if n in modules]
    info = eng.peers_info()
    print("wsarray benchmarks (" + ("full" if args.full else "quick") + " mode)")
    print(json.dumps(info))
    groups = {"small": group_small,
              "large": lambda m, c: isolated("large", c, names),
              "loops": lambda m, c: mark_identical(isolated("loops", c, names), loops_identical(m)),
              "memory": group_memory,
              "gc": lambda m, c: child_json("gc", "wsarray", c)}
    results = {"mode": "full" if args.full else "quick", "info": info,
               "started": datetime.datetime.now(datetime.timezone.utc).isoformat(), "groups": {}}
    for g in args.groups.split(","):
        if g not in groups:
            raise SystemExit(f"bench/run.py: unknown group {g!r}; choose from {', '.join(groups)}")
        t0 = time.perf_counter()
        results["groups"][g] = groups[g](modules, cfg)
        print(f"[{g}: {time.perf_counter() - t0:.1f} s]", file=sys.stderr)
    report(results, names)
    out_dir = os.path.join(HERE, "results")
    os.makedirs(out_dir, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = os.path.join(out_dir, f"bench-{results['mode']}-{stamp}.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1, default=str)
    print(f"\nresults: {path}")
    png = path[:-5] + ".png"
    if write_chart(results, png):
        print(f"chart:   {png}")


if __name__ == "__main__":
    main()
