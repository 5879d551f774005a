"""Two builds of wsarray side by side: small operations inside an open workspace, A/B.

    python -P bench/ab_builds.py /path/to/venv_a/bin/python /path/to/venv_b/bin/python [--rounds 7]

Each round runs one child process per interpreter (alternating, A first on even rounds, B first on
odd ones); each child times every small case of bench/ops.py (sizes 1, 64, 1000; --cases picks some by
substring) with the "wsarray+ws" engine, operations inside an open workspace, so that every
temporary goes through the workspace's allocate and free: once in the workspace's first cycle
("spill": learning, every block outside the chunks) and once in its second ("learned": blocks
from the learned chunk). The table gives the median time per call
of each build and the median over rounds of B/A within a round (A and B ran next to each other in
time: drifting load on a shared machine cancels); the last line the geometric mean of that over
all cases. For changes to the allocator (bookkeeping)
where a whole-library benchmark would drown the difference in noise.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

_CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import wsarray, ops
ws = wsarray.workspace("AB")
out = {}
budget = float(sys.argv[2])
wanted = [w for w in sys.argv[3].split(",") if w]
cases = [(name, n, build(wsarray, n)) for name, builders in ops.SMALL.items()
         for build in [builders.get("wsarray+ws")] if build is not None
         and (not wanted or any(w in name for w in wanted)) for n in ops.SMALL_SIZES]


def time_case(body):
    body()
    number = 1
    while True:  # calibrate to about `budget` seconds
        t0 = time.perf_counter()
        for _ in range(number):
            body()
        dt = time.perf_counter() - t0
        if dt >= budget:
            break
        number *= 4 if dt < budget / 8 else 2
    best = dt / number
    for _ in range(2):
        t0 = time.perf_counter()
        for _ in range(number):
            body()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


# The first cycle learns (every temporary spills outside the chunks, as in bench/run.py's small
# group); the second is served from the learned chunk (a loop's steady state).
for label in ("spill", "learned"):
    with ws:
        for name, n, body in cases:
            out[f"{name} [{n}] {label}"] = time_case(body)
json.dump(out, sys.stdout)
"""


def child(python, budget, cases):
    proc = subprocess.run([python, "-P", "-c", _CHILD, HERE, str(budget), cases], capture_output=True, text=True,
                          timeout=900)
    if proc.returncode:
        sys.exit(f"{python} failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a", help="python of build A (the baseline)")
    p.add_argument("b", help="python of build B")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--budget", type=float, default=0.01, help="seconds per timing of one case")
    p.add_argument("--cases", default="", help="comma-separated substrings of case names (default: all)")
    args = p.parse_args()
    runs = {"a": [], "b": []}
    t0 = time.time()
    for r in range(args.rounds):
        order = ("a", "b") if r % 2 == 0 else ("b", "a")
        for key in order:
            runs[key].append(child(getattr(args, key), args.budget, args.cases))
    med = {k: {case: statistics.median(run[case] for run in v) for case in v[0]} for k, v in runs.items()}
    ratios = []
    print(f"{'case':48s} {'A':>10s} {'B':>10s} {'B/A':>6s}")
    for case in med["a"]:
        a, b = med["a"][case], med["b"][case]
        ratio = statistics.median(rb[case] / ra[case] for ra, rb in zip(runs["a"], runs["b"]))
        ratios.append(ratio)
        print(f"{case:48s} {a * 1e9:8.0f}ns {b * 1e9:8.0f}ns {ratio:6.3f}")
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"geometric mean B/A over {len(ratios)} cases, {args.rounds} rounds: {geo:.3f}  "
          f"({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
