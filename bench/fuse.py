"""wsarray.fuse against NumPy, numexpr and PyTorch (CPU): the targets of the fused-kernel work.

    python -P bench/fuse.py                 # 1 and 2 threads, 7 repeats
    python -P bench/fuse.py --threads 2 --repeats 11

Cases (each engine alternates within every repeat, in one fresh process per thread count;
PyTorch runs in a process of its own, beside NumPy, whose time it is compared with):

* chain: ``max(exp(a*0.5)*b + sqrt(abs(c)) - a/(b+1.0))`` over three arrays of 8M float64;
* heat: one step of the 1024x1024 heat stencil, written into the other buffer.

Prints the medians and each engine's time relative to NumPy's (below 1: faster), the fastest peer
per row, and writes bench/results/fuse-<date>.json.
"""

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
N = 8_000_000
GRID = 1024


def _median_ms(fn, repeats):
    fn()  # warm up (traces, learns, first pages)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def _chain_bodies(engine):
    import numpy as np

    rng = np.random.default_rng(0)
    a, b, c = (rng.random(N) for _ in range(3))
    if engine == "numpy":
        return lambda: np.max(np.exp(a * 0.5) * b + np.sqrt(np.abs(c)) - a / (b + 1.0))
    if engine == "numexpr":
        import numexpr as ne

        names = {"a": a, "b": b, "c": c}
        return lambda: ne.evaluate("max(exp(a*0.5)*b + sqrt(abs(c)) - a/(b+1.0))", local_dict=names)
    if engine == "torch":
        import torch

        ta, tb, tc = (torch.from_numpy(x) for x in (a, b, c))
        return lambda: torch.max(torch.exp(ta * 0.5) * tb + torch.sqrt(torch.abs(tc)) - ta / (tb + 1.0))
    import wsarray as wnp

    wa, wb, wc = (wnp.asarray(x) for x in (a, b, c))
    if engine == "wsarray":
        return lambda: wnp.max(wnp.exp(wa * 0.5) * wb + wnp.sqrt(wnp.abs(wc)) - wa / (wb + 1.0))
    fused = wnp.fuse(lambda a, b, c: wnp.max(wnp.exp(a * 0.5) * b + wnp.sqrt(wnp.abs(c)) - a / (b + 1.0)))
    return lambda: fused(wa, wb, wc)


def _heat_bodies(engine):
    import numpy as np

    u0 = np.zeros((GRID, GRID))
    u0[GRID // 4: GRID // 2, GRID // 4: GRID // 2] = 100.0
    state = {}
    if engine in ("numpy", "wsarray"):
        xp = np
        if engine == "wsarray":
            import wsarray as xp
        state["u"], state["nxt"] = xp.asarray(u0.copy()), xp.asarray(u0.copy())

        def step():
            u, nxt = state["u"], state["nxt"]
            c = u[1:-1, 1:-1]
            nxt[1:-1, 1:-1] = c + 0.1 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4.0 * c)
            state["u"], state["nxt"] = nxt, u
        return step
    if engine == "torch":
        import torch

        state["u"], state["nxt"] = torch.from_numpy(u0.copy()), torch.from_numpy(u0.copy())

        def step():
            u, nxt = state["u"], state["nxt"]
            c = u[1:-1, 1:-1]
            nxt[1:-1, 1:-1] = c + 0.1 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4.0 * c)
            state["u"], state["nxt"] = nxt, u
        return step
    import wsarray as wnp

    stencil = wnp.fuse(lambda c, n, s, e, w: c + 0.1 * (n + s + e + w - 4.0 * c))
    state["u"], state["nxt"] = wnp.asarray(u0.copy()), wnp.asarray(u0.copy())

    def step():
        u, nxt = state["u"], state["nxt"]
        stencil(u[1:-1, 1:-1], u[2:, 1:-1], u[:-2, 1:-1], u[1:-1, 2:], u[1:-1, :-2], out=nxt[1:-1, 1:-1])
        state["u"], state["nxt"] = nxt, u
    return step


CASES = {"chain": _chain_bodies, "heat": _heat_bodies}
ENGINES = {"chain": ["numpy", "wsarray", "wsarray.fuse", "numexpr"],
           "heat": ["numpy", "wsarray", "wsarray.fuse"]}


def child(engines, threads, repeats):
    """Time `engines` (alternating) on every case in this process; print JSON."""
    if "numexpr" in engines:
        try:
            import numexpr

            numexpr.set_num_threads(threads)
        except ImportError:
            engines = [e for e in engines if e != "numexpr"]
    if "torch" in engines:
        import torch

        torch.set_num_threads(threads)
    out = {}
    for case, make in CASES.items():
        bodies = {e: make(e) for e in engines if e in ENGINES[case] + ["torch"]}
        samples = {e: [] for e in bodies}
        for _ in range(repeats):
            for e, body in bodies.items():
                samples[e].append(_median_ms(body, 3))
        out[case] = {e: statistics.median(v) for e, v in samples.items()}
    print(json.dumps(out))


def run(threads, repeats):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads), WSARRAY_NUM_THREADS=str(threads), NUMEXPR_MAX_THREADS=str(threads))

    def measure(engines):
        proc = subprocess.run([sys.executable, "-P", __file__, "--child", ",".join(engines), "--threads",
                               str(threads), "--repeats", str(repeats)], env=env, capture_output=True,
                              text=True, timeout=1800)
        if proc.returncode != 0:
            raise SystemExit(proc.stderr)
        return json.loads(proc.stdout.strip().splitlines()[-1])

    main = measure(["numpy", "wsarray", "wsarray.fuse", "numexpr"])
    try:
        import importlib.util

        has_torch = importlib.util.find_spec("torch") is not None
    except ImportError:
        has_torch = False
    if has_torch:
        torch_run = measure(["numpy", "torch"])
        for case in main:
            # PyTorch's ratio is to NumPy's time in its own process (OpenMP threads spin).
            main[case]["torch"] = torch_run[case]["torch"] * main[case]["numpy"] / torch_run[case]["numpy"]
    return main


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--child")
    args = parser.parse_args()
    if args.child:
        child(args.child.split(","), int(args.threads), args.repeats)
        return
    results = {}
    for t in [int(x) for x in args.threads.split(",")]:
        results[t] = run(t, args.repeats)
        for case, times in results[t].items():
            base = times["numpy"]
            peers = {e: ms for e, ms in times.items() if e in ("numexpr", "torch")}
            fastest = min(peers, key=peers.get) if peers else None
            row = "  ".join(f"{e} {ms:.1f} ms ({ms / base:.2f}x)" for e, ms in times.items())
            print(f"threads {t}  {case:6s} {row}  fastest peer: {fastest}")
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    path = os.path.join(HERE, "results", f"fuse-{datetime.date.today().isoformat()}.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=2)
    print(f"written {path}")


if __name__ == "__main__":
    main()
