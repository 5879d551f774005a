"""Load test of wsarray.parallel.ParallelInference: direct calls vs sequential vs batched.

    python -P bench/parallel_inference.py            # 5 runs per case (about 5 minutes)
    python -P bench/parallel_inference.py --quick    # 1 short run per case (about 25 s)

Model: a NumPy-style MLP 784-2048-2048-10 (float32, ReLU) written with wsarray. Its weights are
stored (out, in), as PyTorch's Linear stores them, and it computes ``W @ X.T``: OpenBLAS packs the
weights slowly for a few-row ``X @ W`` (8 rows took 2.8 ms that way, 1.8 ms this way), which would
hide most of what batching gains.

Closed loop: N client threads (1, 4, 16, 64) each send single-sample requests (shape (1, 784))
and wait for the answer, for ``--duration`` seconds after a warm-up. Engines: ``direct`` (each
client thread calls the model itself, BLAS capped at 1 thread as in the pools), ``sequential`` and
``batched`` (2 workers, ``batch_limit=32``, ``queue_limit=256``). Open loop: Poisson arrivals at
50% and 90% of each mode's closed-loop throughput with the most clients, latency counted from
the scheduled arrival (no coordinated omission), ``submit(block=False)`` so that a full queue
shows as rejects. Extra closed-loop cases: batched with a queue delay (``max_wait_ms``, default
1) at 1 and 16 clients, and batched at 64 clients with 1 vs 2 BLAS threads per worker.

Runs of all cases are interleaved (run 1 of every case, then run 2, ...), so machine noise hits
every engine alike; tables show medians over runs. Spills and minor page faults are counted over
the measured phase only; peak RSS is the process's high-water mark, reset before each case
(/proc/self/clear_refs), so it includes the model (about 25 MB) and the interpreter.
"""

import argparse
import json
import os
import queue
import resource
import statistics
import sys
import threading
import time

import numpy

import wsarray as wnp
from wsarray.parallel import ParallelInference

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = (784, 2048, 2048, 10)


def make_model(dtype="float32", seed=0, sizes=SIZES):
    rng = numpy.random.default_rng(seed)
    weights = [wnp.asarray((rng.standard_normal((o, i)) / numpy.sqrt(i)).astype(dtype))
               for i, o in zip(sizes[:-1], sizes[1:])]
    biases = [wnp.asarray(numpy.full((o, 1), 0.01, dtype)) for o in sizes[1:]]

    def mlp(x):
        h = x.T
        for k, (w, b) in enumerate(zip(weights, biases)):
            h = w @ h + b
            if k < len(weights) - 1:
                h = wnp.maximum(h, 0)
        return h.T
    return mlp


# ---- process measurements -----------------------------------------------------------------

def reset_peak_rss():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_rss_mb():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def minor_faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def pool_spills(pi):
    return sum(w["workspace"]["spills"] for w in pi.stats()["workers"])


def blas_limit(n):
    from threadpoolctl import threadpool_limits
    return threadpool_limits(limits=n, user_api="blas")


# ---- one closed-loop case -------------------------------------------------------------------

def closed_loop(engine, clients, model, inputs, warmup, duration, blas_threads="auto",
                max_wait_ms=0, workers=2):
    """N client threads, each sending one request at a time. Returns a dict of figures."""
    pi = None
    limiter = None
    if engine == "direct":
        limiter = blas_limit(1)
        call = model
    else:
        pi = ParallelInference(model, workers=workers, mode=engine, batch_limit=32, queue_limit=256,
                               blas_threads=blas_threads, max_wait_ms=max_wait_ms)
        call = pi.output
    start = time.perf_counter() + warmup
    end = start + duration
    latencies = [[] for _ in range(clients)]
    errors = [0] * clients
    marks = {}

    def client(k):
        x = inputs[k % len(inputs)]
        while True:
            t0 = time.perf_counter()
            if t0 >= end:
                return
            try:
                call(x)
            except Exception:  # noqa: BLE001 - counted
                errors[k] += 1
                continue
            t1 = time.perf_counter()
            if t0 >= start and t1 <= end:
                latencies[k].append(t1 - t0)

    def mark_start():
        time.sleep(max(0.0, start - time.perf_counter()))
        if pi is not None:
            pi.reset_stats()
            marks["spills"] = pool_spills(pi)
        marks["faults"] = minor_faults()

    try:
        threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
        for t in threads:
            t.start()
        mark_start()
        for t in threads:
            t.join()
        faults = minor_faults() - marks["faults"]
        lat = numpy.array([v for per in latencies for v in per]) * 1e3
        row = {"throughput": len(lat) / duration,
               "p50": float(numpy.percentile(lat, 50)), "p99": float(numpy.percentile(lat, 99)),
               "max": float(lat.max()), "errors": sum(errors), "rejects": 0,
               "faults_per_1k": faults / max(1, len(lat)) * 1e3}
        if pi is not None:
            s = pi.stats()
            row["batch"] = s["mean_batch_requests"]
            row["spills"] = pool_spills(pi) - marks["spills"]
    finally:
        if pi is not None:
            pi.shutdown()
        if limiter is not None:
            limiter.restore_original_limits()
    return row


# ---- one open-loop case ---------------------------------------------------------------------

def open_loop(mode, rate, model, inputs, warmup, duration, seed):
    """Poisson arrivals at ``rate`` per second from one generator thread."""
    pi = ParallelInference(model, workers=2, mode=mode, batch_limit=32, queue_limit=256)
    rng = numpy.random.default_rng(seed)
    total = warmup + duration
    arrivals = numpy.cumsum(rng.exponential(1 / rate, int(rate * total * 1.5) + 10))
    arrivals = arrivals[arrivals < total]
    latencies, errors, rejects = [], [0], [0]
    lock = threading.Lock()
    try:
        t_zero = time.perf_counter()
        marks = {}
        futures = []
        for i, at in enumerate(arrivals):
            if "spills" not in marks and at >= warmup:
                pi.reset_stats()
                marks["spills"], marks["faults"] = pool_spills(pi), minor_faults()
            delay = t_zero + at - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            try:
                fut = pi.submit(inputs[i % len(inputs)], block=False)
            except queue.Full:
                if at >= warmup:
                    rejects[0] += 1
                continue
            scheduled = t_zero + at

            def done(f, scheduled=scheduled, measured=at >= warmup):
                finished = time.perf_counter()
                with lock:
                    if f.exception() is not None:
                        errors[0] += 1
                    elif measured:
                        latencies.append(finished - scheduled)
            fut.add_done_callback(done)
            futures.append(fut)
        for f in futures:
            while not f.done():
                time.sleep(0.01)
        faults = minor_faults() - marks["faults"]
        lat = numpy.array(latencies) * 1e3
        s = pi.stats()
        return {"rate": rate, "throughput": len(lat) / duration,
                "p50": float(numpy.percentile(lat, 50)), "p99": float(numpy.percentile(lat, 99)),
                "max": float(lat.max()), "errors": errors[0], "rejects": rejects[0],
                "batch": s["mean_batch_requests"], "spills": pool_spills(pi) - marks["spills"],
                "faults_per_1k": faults / max(1, len(lat)) * 1e3}
    finally:
        pi.shutdown()


# ---- per-request compute --------------------------------------------------------------------

def compute_times(model, rows_list=(1, 8, 16, 32), reps=200):
    ws = wnp.workspace("BENCH_COMPUTE")
    out = {}
    with blas_limit(1):
        for rows in rows_list:
            x = wnp.asarray(numpy.random.default_rng(rows).standard_normal((rows, 784))
                            .astype("float32"))
            ts = []
            for _ in range(reps if rows == 1 else reps // 4):
                t = time.perf_counter()
                with ws:
                    model(x).detach()
                ts.append(time.perf_counter() - t)
            out[rows] = statistics.median(ts) * 1e3
    wnp.memory.destroy_workspace("BENCH_COMPUTE")
    return out


# ---- report ---------------------------------------------------------------------------------

COLUMNS = [("throughput", "req/s", "{:.0f}"), ("p50", "p50 ms", "{:.2f}"),
           ("p99", "p99 ms", "{:.2f}"), ("max", "max ms", "{:.1f}"),
           ("batch", "mean batch", "{:.1f}"), ("errors", "errors", "{:.0f}"),
           ("rejects", "rejects", "{:.0f}"), ("spills", "spills", "{:.0f}"),
           ("faults_per_1k", "faults/1k req", "{:.0f}"), ("rss", "peak RSS MB", "{:.0f}")]


def median_row(runs):
    row = {}
    for key in runs[0]:
        vals = [r[key] for r in runs if r.get(key) is not None]
        row[key] = statistics.median(vals) if vals else None
    return row


def table(title, label, rows):
    lines = [f"\n{title}\n", f"| {label} | " + " | ".join(c[1] for c in COLUMNS) + " |",
             "|---" * (len(COLUMNS) + 1) + "|"]
    for name, row in rows:
        cells = [c[2].format(row[c[0]]) if row.get(c[0]) is not None else "-" for c in COLUMNS]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="1 short run per case")
    p.add_argument("--runs", type=int, help="runs per case (default 5; --quick: 1)")
    p.add_argument("--duration", type=float, help="measured seconds per run (default 2; quick 0.6)")
    p.add_argument("--clients", default="1,4,16,64")
    p.add_argument("--max-wait", type=float, default=1.0,
                   help="max_wait_ms of the queue-delay cases (default 1)")
    args = p.parse_args()
    runs = args.runs or (1 if args.quick else 5)
    duration = args.duration or (0.6 if args.quick else 2.0)
    warmup = 0.3 if args.quick else 0.5
    clients = [int(c) for c in args.clients.split(",")]
    model = make_model()
    rng = numpy.random.default_rng(1)
    inputs = [rng.standard_normal((1, 784)).astype("float32") for _ in range(64)]

    compute = compute_times(model)
    print("per-request compute (one thread, one BLAS thread, inside a workspace): " + ", ".join(
        f"{rows} row{'s' * (rows > 1)}: {ms:.2f} ms" for rows, ms in compute.items()))

    engines = ("direct", "sequential", "batched")
    closed = {(e, n): [] for n in clients for e in engines}
    # label -> closed_loop() arguments, each next to the default batched case it varies
    extras = {f"batched, max_wait_ms={args.max_wait:g}, {n} client{'s' * (n > 1)}":
              ("batched", n, {"max_wait_ms": args.max_wait}) for n in (1, 16)}
    extras.update({f"batched, {b} BLAS thread{'s' * (b > 1)} per worker ({2 * b} on "
                   f"{os.cpu_count()} cores), 64 clients": ("batched", 64, {"blas_threads": b})
                   for b in (1, 2)})
    extra_runs = {label: [] for label in extras}
    for run in range(runs):
        for n in clients:
            for e in engines:
                rss_ok = reset_peak_rss()
                row = closed_loop(e, n, model, inputs, warmup, duration)
                row["rss"] = peak_rss_mb() if rss_ok else None
                closed[(e, n)].append(row)
        for label, (engine, n, kwargs) in extras.items():
            rss_ok = reset_peak_rss()
            row = closed_loop(engine, n, model, inputs, warmup, duration, **kwargs)
            row["rss"] = peak_rss_mb() if rss_ok else None
            extra_runs[label].append(row)
        print(f"closed-loop run {run + 1}/{runs} done", file=sys.stderr)

    closed_med = {k: median_row(v) for k, v in closed.items()}
    # capacity: the saturated closed loop (the most clients)
    capacity = {m: closed_med[(m, max(clients))]["throughput"] for m in ("sequential", "batched")}
    opened = {(m, f): [] for m in capacity for f in (0.5, 0.9)}
    for run in range(runs):
        for (m, f) in opened:
            rss_ok = reset_peak_rss()
            row = open_loop(m, f * capacity[m], model, inputs, warmup, duration * 1.5, seed=run)
            row["rss"] = peak_rss_mb() if rss_ok else None
            opened[(m, f)].append(row)
        print(f"open-loop run {run + 1}/{runs} done", file=sys.stderr)
    open_med = {k: median_row(v) for k, v in opened.items()}
    extra_med = {label: median_row(v) for label, v in extra_runs.items()}

    out = [f"wsarray.parallel.ParallelInference load test: MLP 784-2048-2048-10 float32, 2 "
           f"workers, {os.cpu_count()} cores, medians of {runs} run(s) of {duration:g} s"]
    out.append(table("Closed loop (N clients, one request each in flight)", "engine, clients",
                     [(f"{e}, {n}", closed_med[(e, n)]) for n in clients for e in engines]))
    out.append(table("Open loop (Poisson arrivals; latency from the scheduled arrival)",
                     "mode, load", [(f"{m}, {int(f * 100)}% = {open_med[(m, f)]['rate']:.0f}/s",
                                     open_med[(m, f)]) for (m, f) in opened]))
    out.append(table("Queue delay and BLAS oversubscription (closed loop)", "case",
                     list(extra_med.items())))
    ratios = []
    for n in clients:
        if n >= 16:
            r = [b["throughput"] / s["throughput"]
                 for b, s in zip(closed[("batched", n)], closed[("sequential", n)])]
            ratios.append(f"batched / sequential throughput at {n} clients: "
                          f"{statistics.median(r):.2f}x (target >= 3x)")
    if 1 in clients:
        r = [b["p50"] / s["p50"] for b, s in zip(closed[("batched", 1)], closed[("sequential", 1)])]
        ratios.append(f"batched / sequential p50 latency at 1 client: {statistics.median(r):.2f}x "
                      "(target <= 1.1x)")
    one, two = (extra_runs[label] for label in extras if label.endswith("64 clients"))
    r = [o2["throughput"] / o1["throughput"] for o1, o2 in zip(one, two)]
    ratios.append(f"2 vs 1 BLAS threads per worker, batched throughput at 64 clients: "
                  f"{statistics.median(r):.2f}x")
    delayed = extra_runs[f"batched, max_wait_ms={args.max_wait:g}, 16 clients"]
    r = [d["throughput"] / s["throughput"] for d, s in zip(delayed, closed[("sequential", 16)])]
    ratios.append(f"batched with max_wait_ms={args.max_wait:g} / sequential throughput at 16 "
                  f"clients: {statistics.median(r):.2f}x")
    delayed = extra_runs[f"batched, max_wait_ms={args.max_wait:g}, 1 client"]
    r = [d["p50"] / s["p50"] for d, s in zip(delayed, closed[("sequential", 1)])]
    ratios.append(f"batched with max_wait_ms={args.max_wait:g} / sequential p50 latency at 1 "
                  f"client: {statistics.median(r):.2f}x")
    out.append("\n" + "\n".join(ratios))
    text = "\n".join(out)
    print(text)

    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    path = os.path.join(HERE, "results", "parallel_inference.json")
    with open(path, "w") as f:
        json.dump({"compute_ms": compute, "runs": runs, "duration": duration,
                   "closed": {f"{e},{n}": v for (e, n), v in closed.items()},
                   "open": {f"{m},{fr}": v for (m, fr), v in opened.items()},
                   "extra": extra_runs,
                   "summary": ratios}, f, indent=1)
    print(f"\nresults: {path}")


if __name__ == "__main__":
    main()
