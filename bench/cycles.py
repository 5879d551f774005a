"""What a workspace cycle costs, against NumPy's `a + b` (n = 64), side by side in one process.

    python -P bench/cycles.py             # the table (medians of 7 repeats, ratios to NumPy's a + b)
    python -P bench/cycles.py --json out.json
    python -P bench/cycles.py --scaling     # also: costs as programs grow (live blocks, workspaces,
                                            # nesting, destroy with stale arrays, two threads)

Rows: an empty cycle (`with ws: pass`, the handle held), `np.workspace(name)` of an existing
workspace, a 10-operation chain with `float(np.max(...))` outside workspaces, the same chain with
one cycle per iteration, NumPy's chain, and `zeros(64)` inside an open cycle and outside. Two
floors, what any cycle pays before its own work: a `with` block over the cheapest context manager
CPython has (a `threading.Lock`, in C), and one context-variable set and reset (asyncio's
isolation of the scope stack needs one per cycle). Each
repeat times every row once (rotating their order) and divides by the same repeat's NumPy `a + b`,
so a drifting load on a shared machine hits all rows alike; the table gives the median time and
the median ratio with their spread.
"""

import argparse
import contextvars
import json
import statistics
import threading
import timeit

NUMBER = 20_000


def chain(xp, a, b):
    c = a * b + 1.0
    c = xp.sqrt(xp.abs(c)) - a
    c = c * 0.5 + b
    c = xp.exp(-c * c)
    c = c / (1.0 + c)
    return float(xp.max(c))


def rows():
    import numpy

    import wsarray as np

    n = numpy.arange(64.0) / 64
    a, b = np.asarray(n), np.asarray(n[::-1].copy())
    ws = np.workspace("BENCH_CYCLES")

    def empty_cycle():
        with ws:
            pass

    def chain_in_cycle():
        with ws:
            chain(np, a, b)

    lock = threading.Lock()

    def lock_block():
        with lock:
            pass

    var = contextvars.ContextVar("bench_cycles")

    nb = n[::-1].copy()
    return {
        "numpy a + b": lambda: n + nb,
        "cycle: with ws: pass": empty_cycle,
        "np.workspace(name), existing": lambda: np.workspace("BENCH_CYCLES"),
        "chain, no workspace": lambda: chain(np, a, b),
        "chain, one cycle per iteration": chain_in_cycle,
        "numpy chain": lambda: chain(numpy, n, nb),
        "zeros(64), outside": lambda: np.zeros(64),
        "floor: with lock: pass": lock_block,
        "floor: ContextVar set + reset": lambda: var.reset(var.set(None)),
    }, ws, np


def measure(repeats):
    cases, ws, np = rows()
    times = {name: [] for name in cases}
    times["zeros(64), in an open cycle"] = []
    names = list(cases)
    for _ in range(3):  # warm up: the workspace learns in its first cycles
        for f in cases.values():
            timeit.timeit(f, number=200)
    for r in range(repeats):
        order = names[r % len(names):] + names[: r % len(names)]
        for name in order:
            times[name].append(timeit.timeit(cases[name], number=NUMBER) / NUMBER)
        with ws:
            times["zeros(64), in an open cycle"].append(
                timeit.timeit(lambda: np.zeros(64), number=NUMBER) / NUMBER)
    base = times["numpy a + b"]
    out = {}
    for name, ts in times.items():
        ratios = [t / b for t, b in zip(ts, base)]
        out[name] = {"ns": statistics.median(ts) * 1e9, "ratio": statistics.median(ratios),
                     "ratio_min": min(ratios), "ratio_max": max(ratios)}
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--json")
    parser.add_argument("--scaling", action="store_true", help="also: costs as programs grow")
    options = parser.parse_args(argv)
    result = measure(options.repeats)
    print(f"{'row':36s} {'median':>10s} {'x numpy a+b':>12s} {'spread':>15s}")
    for name, r in result.items():
        print(f"{name:36s} {r['ns']:8.0f}ns {r['ratio']:11.2f}x  {r['ratio_min']:.2f}-{r['ratio_max']:.2f}")
    if options.scaling:
        grown = scaling()
        print()
        for name, value in grown.items():
            print(f"{name:80s} {value:10.2f}")
        result = {"cycles": result, "scaling": grown}
    if options.json:
        with open(options.json, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)



# ---- costs as programs grow ------------------------------------------------------------------

def _per_call(f, number):
    return timeit.timeit(f, number=number) / number


def scaling():
    """Allocate+free of a small array inside a cycle with 1..100,000 other live blocks, on a thread
    with 1..1,000 workspaces, at nesting depth 1..64; destroy_workspace with 100,000 stale Arrays
    still referenced; two threads looping small calls each in its own workspace against two
    threads of NumPy. Each figure is the median of 5."""
    import threading
    import time

    import numpy

    import wsarray as np

    def alloc_free():
        return statistics.median(_per_call(lambda: np.empty(64), 20_000) for _ in range(5)) * 1e9

    def warm(ws, body):  # the workspace learns its size in its first cycles: measure a later one
        for _ in range(3):
            with ws:
                body()

    out = {}
    # A short program: a new workspace and 10 cycles of the chain (learning included), against
    # NumPy's 10 chains.
    n = numpy.arange(64.0) / 64
    nb = n[::-1].copy()
    a, b = np.asarray(n), np.asarray(nb)
    ratios = []
    for k in range(30):
        t0 = time.perf_counter()
        ws = np.workspace(f"SCALE_FRESH_{k}")
        for _ in range(10):
            with ws:
                chain(np, a, b)
        mine = time.perf_counter() - t0
        t0 = time.perf_counter()
        for _ in range(10):
            chain(numpy, n, nb)
        ratios.append(mine / (time.perf_counter() - t0))
        np.memory.destroy_workspace(f"SCALE_FRESH_{k}")
    out["a new workspace and its first 10 cycles (chain): time vs NumPy's 10 chains"] = statistics.median(ratios)
    for live in (1, 1_000, 100_000):
        ws = np.workspace(f"SCALE_BLOCKS_{live}")

        def cycle(live=live):
            keep = [np.empty(8) for _ in range(live)]
            np.empty(64)
            return keep

        warm(ws, cycle)
        with ws:
            keep = cycle()
            out[f"alloc+free, {live} live blocks"] = alloc_free()
            del keep
        np.memory.destroy_workspace(f"SCALE_BLOCKS_{live}")
    for count in (1, 1_000):
        spaces = [np.workspace(f"SCALE_WS_{i}") for i in range(count)]
        warm(spaces[-1], lambda: np.empty(64))
        with spaces[-1]:
            out[f"alloc+free, {count} workspaces on the thread"] = alloc_free()
        for i in range(count):
            np.memory.destroy_workspace(f"SCALE_WS_{i}")
    for depth in (1, 64):
        spaces = [np.workspace(f"SCALE_DEPTH_{i}") for i in range(depth)]
        warm(spaces[-1], lambda: np.empty(64))
        for s in spaces:
            s.__enter__()
        try:
            out[f"alloc+free, nesting depth {depth}"] = alloc_free()
        finally:
            for s in reversed(spaces):
                s.__exit__(None, None, None)
        for i in range(depth):
            np.memory.destroy_workspace(f"SCALE_DEPTH_{i}")
    times = []
    for _ in range(3):
        big = np.workspace("SCALE_DESTROY")
        with big:
            stale = [np.empty(4) for _ in range(100_000)]
        t0 = time.perf_counter()
        np.memory.destroy_workspace("SCALE_DESTROY")
        times.append(time.perf_counter() - t0)
        del stale
    out["destroy_workspace, 100,000 stale Arrays referenced (ms)"] = statistics.median(times) * 1e3

    def loop(xp, name, calls, results, i):
        """`calls` np.exp(64) calls: NumPy's in one go, wsarray's in cycles of 1,000 of its own
        workspace (a loop of small steps, its first learning cycle included)."""
        a = xp.ones(64)
        t0 = time.perf_counter()
        if name is None:
            for _ in range(calls):
                xp.exp(a)
        else:
            ws = np.workspace(name)
            for _ in range(calls // 1000):
                with ws:
                    for _ in range(1000):
                        np.exp(a)
        results[i] = time.perf_counter() - t0

    def two_threads(xp, names):
        results = [0.0, 0.0]
        threads = [threading.Thread(target=loop, args=(xp, names[i], 100_000, results, i)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return 200_000 / max(results)  # calls per second, both threads together

    numpy_rate = statistics.median(two_threads(numpy, (None, None)) for _ in range(3))
    mine = statistics.median(two_threads(np, ("SCALE_T0", "SCALE_T1")) for _ in range(3))
    out["two threads, np.exp(64) each in its own workspace: calls/s vs NumPy's two threads"] = mine / numpy_rate
    # The same calls on one thread, as a reference for the GIL's share.
    results = [0.0]
    loop(numpy, None, 200_000, results, 0)
    numpy_one = 200_000 / results[0]
    loop(np, "SCALE_T0", 200_000, results, 0)
    out["one thread, np.exp(64) in a workspace: calls/s vs NumPy's one thread"] = 200_000 / results[0] / numpy_one
    return out


if __name__ == "__main__":
    main()
