"""Small calls against NumPy (issue 19's per-call targets), and two builds of wsarray compared.

    python -P bench/small_calls.py                     # the target calls, n = 1, 64, 1000
    python -P bench/small_calls.py --all               # every small case of bench/ops.py
    python -P bench/small_calls.py --compare PY_A PY_B # build A (before) beside build B (after)

One process times NumPy, wsarray outside any workspace ("wsarray") and inside an open workspace
cycle ("wsarray+ws") on the same data, the engines alternating within every repeat (the order
rotates), so that a drifting load on a shared machine hits all of them alike. Each repeat gives a
ratio engine time / NumPy time; the table shows the median ratio over the repeats and their
spread (min-max). --compare runs this in child processes of two interpreters, alternately, and
shows each build's median ratio to NumPy (NumPy timed in the same child) side by side.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # `python -P` leaves bench/ off

import ops

# Issue 19's small-call targets (at most 1.0x, element loops at most 1.2x) and their neighbours.
TARGETS = ("exp(a)", "zeros(n)", "a[1:] (slice)", "a[i] (scalar)", "a[i, j] (2-D)", "a[i] = v",
           "loop: s += a[i] * a[i]", "loop: for v in a: s += v * v", "loop: count a[i] % 3 == 0")
ENGINES = ("numpy", "wsarray", "wsarray+ws")


def timed(body, number, ws=None):
    """Seconds per call of `number` calls (inside one cycle of `ws` when given)."""
    if ws is None:
        t0 = time.perf_counter()
        for _ in range(number):
            body()
        return (time.perf_counter() - t0) / number
    with ws:
        t0 = time.perf_counter()
        for _ in range(number):
            body()
        return (time.perf_counter() - t0) / number


def run_case(builders, n, repeats, budget):
    """{engine: [seconds per call, one per repeat]} for one case and size."""
    import numpy

    import wsarray

    modules = {"numpy": numpy, "wsarray": wsarray, "wsarray+ws": wsarray}
    ws = wsarray.workspace("SMALL_CALLS")
    bodies = {e: builders[e](modules[e], n) for e in ENGINES}
    around = {"numpy": None, "wsarray": None, "wsarray+ws": ws}
    numbers = {}
    for e in ENGINES:  # warm up (the workspace learns in its first cycles), then calibrate
        timed(bodies[e], 3, around[e])
        timed(bodies[e], 3, around[e])
        once = timed(bodies[e], 20, around[e])
        numbers[e] = max(1, min(500_000, int(budget / max(once, 1e-9))))
    samples = {e: [] for e in ENGINES}
    for r in range(repeats):
        order = ENGINES[r % 3:] + ENGINES[:r % 3]
        for e in order:
            samples[e].append(timed(bodies[e], numbers[e], around[e]))
    del bodies
    wsarray.memory.destroy_workspace("SMALL_CALLS")
    return samples


def measure(cases, repeats, budget):
    """{"case [n]": {"numpy_s": median, engine: {"ratio": median, "lo": min, "hi": max}}}."""
    out = {}
    for case in cases:
        for n in ops.SMALL_SIZES:
            samples = run_case(ops.SMALL[case], n, repeats, budget)
            row = {"numpy_s": statistics.median(samples["numpy"])}
            for e in ENGINES[1:]:
                rs = [t / b for t, b in zip(samples[e], samples["numpy"])]
                row[e] = {"ratio": statistics.median(rs), "lo": min(rs), "hi": max(rs),
                          "s": statistics.median(samples[e])}
            out[f"{case} [{n}]"] = row
    return out


def fmt_ns(s):
    return f"{s * 1e9:9.0f}ns" if s < 1e-5 else f"{s * 1e6:9.1f}us"


def print_table(res):
    print(f"{'case [n]':38s} {'NumPy':>11s}  {'wsarray':>20s}  {'wsarray+ws':>20s}")
    for key, row in res.items():
        cells = [f"{row[e]['ratio']:5.2f}x ({row[e]['lo']:.2f}-{row[e]['hi']:.2f})" for e in ENGINES[1:]]
        print(f"{key:38s} {fmt_ns(row['numpy_s'])}  {cells[0]:>20s}  {cells[1]:>20s}")


def compare(py_a, py_b, rounds, argv):
    """Child runs of both interpreters, alternating; medians over rounds of each one's ratios."""
    runs = {"A": [], "B": []}
    for r in range(rounds):
        for key, py in ((("A", py_a), ("B", py_b)) if r % 2 == 0 else (("B", py_b), ("A", py_a))):
            proc = subprocess.run([py, "-P", os.path.abspath(__file__), "--json", *argv], capture_output=True,
                                  text=True, timeout=1800)
            if proc.returncode:
                sys.exit(f"bench/small_calls.py: {py} failed:\n{proc.stderr[-4000:]}")
            runs[key].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    print(f"medians over {rounds} rounds per build (each round: medians of its repeats); "
          f"ratios to NumPy timed in the same process")
    print(f"{'case [n]':38s} {'NumPy':>11s}  {'A wsarray':>9s} {'B wsarray':>9s}  {'A +ws':>7s} {'B +ws':>7s}")
    for key in runs["A"][0]:
        numpy_s = statistics.median(run[key]["numpy_s"] for run in runs["A"] + runs["B"])
        cells = []
        for e in ENGINES[1:]:
            for b in ("A", "B"):
                cells.append(statistics.median(run[key][e]["ratio"] for run in runs[b]))
        print(f"{key:38s} {fmt_ns(numpy_s)}  {cells[0]:8.2f}x {cells[1]:8.2f}x  {cells[2]:6.2f}x {cells[3]:6.2f}x")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--all", action="store_true", help="every small case of bench/ops.py")
    p.add_argument("--cases", default="", help="comma-separated substrings of case names")
    p.add_argument("--repeats", type=int, default=9)
    p.add_argument("--budget", type=float, default=0.01, help="seconds per timing of one engine")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--compare", nargs=2, metavar=("PY_A", "PY_B"), help="two interpreters: A before, B after")
    p.add_argument("--rounds", type=int, default=3, help="child runs per build with --compare")
    args = p.parse_args(argv)
    if args.compare:
        passed = [a for a in (argv if argv is not None else sys.argv[1:])]
        i = passed.index("--compare")
        del passed[i:i + 3]
        if "--rounds" in passed:
            i = passed.index("--rounds")
            del passed[i:i + 2]
        compare(*args.compare, args.rounds, passed)
        return
    cases = list(ops.SMALL) if args.all else list(TARGETS)
    if args.cases:
        wanted = args.cases.split(",")
        cases = [c for c in ops.SMALL if any(w in c for w in wanted)]
    res = measure(cases, args.repeats, args.budget)
    if args.json:
        print(json.dumps(res))
    else:
        print_table(res)


if __name__ == "__main__":
    main()
