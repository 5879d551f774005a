"""Load test of ParallelInference's serving queue: priorities under overload, and pad buckets.

    python -P bench/serving_queue.py            # 5 runs per case (about 2 minutes)
    python -P bench/serving_queue.py --quick    # 1 short run per case (about 20 s)

(a) Priorities under overload. The MLP 784-2048-2048-10 of bench/parallel_inference.py,
``PRIORITY_WORKERS`` workers with one BLAS thread each (1 worker on a machine of 2 cores or
fewer, so that the load generator has a core of its own; else 2), ``batch_limit=32``,
``queue_limit=256``, requests of 4 rows (so that one generator thread can offer more than the
pool serves and still keep to its schedule: its lateness is reported). The pool's capacity is its
closed-loop throughput with 64 clients. Open loop, Poisson arrivals, latency counted from the
scheduled arrival, ``submit(block=False)``: *unloaded*, only top-priority traffic (priority 1) at
20% of the capacity; *overloaded*, the same top-priority traffic plus priority-0 traffic at 150%
of the capacity, which the pool sheds (``RequestShed``: a top request takes the place of the
newest low one in the full queue) or rejects (``queue.Full``). Target: the top priority's p99
overloaded within 2x of its p99 unloaded.

(b) Pad buckets. 64 client threads (closed loop) send single-sequence requests of shape
(1, L, 64), L uniform in 16..128, to 2 workers. Two models, both ``model(x, mask=None)``:
*classifier*, a per-token projection 64 -> 256 with ReLU, the masked mean over the sequence and
an MLP head ``HEAD`` = 256-4096-4096-10 (float32, 68 MB, more than the caches of most CPUs;
weights stored (out, in) as in bench/parallel_inference.py): reading the head's weights dominates
the cost of one request, as in a text classifier, and a batch reads them once for all its rows;
*per-token*, an MLP 64 -> 256 -> 64 on every token, whose output (1, L, 64) is trimmed back per
request (every token costs the same, so padding costs much of what batching saves). Engines:
``sequential`` (every request alone, unpadded: the baseline), ``batched`` with
``pad_buckets=[16, 32, 64, 128]``, and for the classifier ``batched`` without buckets (only
requests of equal length batch). Target: bucketed throughput at least 2x sequential's
(classifier). Before timing, bucketed results are checked against the model run on each request
alone.

Runs of all cases are interleaved (run 1 of every case, then run 2, ...); medians over runs.
"""

import argparse
import json
import os
import queue
import statistics
import sys
import threading
import time

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # `python -P` leaves bench/ off sys.path

import wsarray as wnp  # noqa: E402
from parallel_inference import closed_loop, make_model  # noqa: E402
from wsarray.parallel import ParallelInference, RequestShed  # noqa: E402

BUCKETS = [16, 32, 64, 128]
TOKEN = 64
HEAD = (256, 4096, 4096, 10)
PRIORITY_WORKERS = 1 if (os.cpu_count() or 1) <= 2 else 2


# ---- (a) priorities under overload ----------------------------------------------------------

def arrivals(rates, total, seed):
    """Sorted (time, priority) of Poisson streams, one per priority."""
    rng = numpy.random.default_rng(seed)
    out = []
    for priority, rate in rates.items():
        times = numpy.cumsum(rng.exponential(1 / rate, int(rate * total * 1.5) + 10))
        out += [(float(t), priority) for t in times[times < total]]
    return sorted(out)


def overload_run(model, inputs, rates, warmup, duration, seed):
    """Open loop at ``rates`` ({priority: requests/s}); per-priority latencies and losses."""
    pi = ParallelInference(model, workers=PRIORITY_WORKERS, batch_limit=32, queue_limit=256,
                           blas_threads=1)
    lat = {p: [] for p in rates}
    lost = {p: {"shed": 0, "rejected": 0, "errors": 0} for p in rates}
    lock = threading.Lock()
    futures, late = [], []

    def done(f, p, scheduled, measured):
        finished = time.perf_counter()
        error = f.exception()
        with lock:
            if error is None:
                if measured:
                    lat[p].append(finished - scheduled)
            elif measured:
                lost[p]["shed" if isinstance(error, RequestShed) else "errors"] += 1
    try:
        t_zero = time.perf_counter()
        for i, (at, p) in enumerate(arrivals(rates, warmup + duration, seed)):
            delay = t_zero + at - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            late.append(time.perf_counter() - t_zero - at)
            try:
                f = pi.submit(inputs[i % len(inputs)], priority=p, block=False)
            except queue.Full:
                lost[p]["rejected"] += at >= warmup
                continue
            f.add_done_callback(lambda f, p=p, s=t_zero + at, m=at >= warmup: done(f, p, s, m))
            futures.append(f)
        for f in futures:
            f.exception(timeout=60)
    finally:
        pi.shutdown()
    row = {"late_p99": float(numpy.percentile(late, 99)) * 1e3}
    for p, values in lat.items():
        ms = numpy.array(values) * 1e3
        row[p] = {"rate": rates[p], "served_per_s": len(ms) / duration,
                  "p50": float(numpy.percentile(ms, 50)), "p99": float(numpy.percentile(ms, 99)),
                  **lost[p]}
    return row


def bench_priorities(runs, warmup, duration):
    model = make_model()
    rng = numpy.random.default_rng(1)
    inputs = [rng.standard_normal((4, 784)).astype("float32") for _ in range(64)]
    capacity = statistics.median(
        closed_loop("batched", 64, model, inputs, warmup, duration, blas_threads=1,
                    workers=PRIORITY_WORKERS)["throughput"]
        for _ in range(runs))
    top, low = 0.2 * capacity, 1.5 * capacity
    unloaded, overloaded = [], []
    for run in range(runs):
        unloaded.append(overload_run(model, inputs, {1: top}, warmup, duration, seed=run))
        overloaded.append(overload_run(model, inputs, {1: top, 0: low}, warmup, duration, seed=run))
        print(f"priorities: run {run + 1}/{runs} done", file=sys.stderr)
    return {"capacity": capacity, "unloaded": unloaded, "overloaded": overloaded}


# ---- (b) pad buckets ------------------------------------------------------------------------

def make_sequence_models(seed=2):
    rng = numpy.random.default_rng(seed)

    def weights(i, o):
        return wnp.asarray((rng.standard_normal((i, o)) / numpy.sqrt(i)).astype("float32"))
    embed, up, down = weights(TOKEN, 256), weights(TOKEN, 256), weights(256, TOKEN)
    head = make_model(sizes=HEAD)

    def tokens(x, w):
        rows, steps, width = x.shape
        return wnp.reshape(wnp.reshape(x, (rows * steps, width)) @ w, (rows, steps, w.shape[1]))

    def classifier(x, mask=None):
        h = wnp.maximum(tokens(x, embed), 0)
        if mask is None:
            return head(wnp.mean(h, axis=1))
        m = wnp.expand_dims(wnp.asarray(mask, dtype=h.dtype), -1)
        return head(wnp.sum(h * m, axis=1) / wnp.sum(m, axis=1))

    def per_token(x, mask=None):
        return tokens(wnp.maximum(tokens(x, up), 0), down)
    return {"classifier": classifier, "per-token": per_token}


def sequence_requests(n=256, seed=3):
    rng = numpy.random.default_rng(seed)
    return [rng.standard_normal((1, int(n), TOKEN)).astype("float32") for n in rng.integers(16, 129, n)]


def check_buckets(model, requests):
    with ParallelInference(model, workers=2, pad_buckets=BUCKETS) as pi:
        results = [f.result(timeout=60) for f in [pi.submit(x) for x in requests[:64]]]
    for x, r in zip(requests, results):
        numpy.testing.assert_allclose(numpy.asarray(r), numpy.asarray(model(wnp.asarray(x))),
                                      rtol=1e-4, atol=1e-4)


def bucket_run(model, requests, engine, clients, warmup, duration):
    kwargs = {"mode": "sequential"} if engine == "sequential" else {}
    if engine == "buckets":
        kwargs["pad_buckets"] = BUCKETS
    pi = ParallelInference(model, workers=2, batch_limit=32, queue_limit=256, **kwargs)
    start = time.perf_counter() + warmup
    end = start + duration
    latencies = [[] for _ in range(clients)]

    def client(k):
        i = k
        while (t0 := time.perf_counter()) < end:
            pi.output(requests[i % len(requests)])
            i += clients
            if t0 >= start and (t1 := time.perf_counter()) <= end:
                latencies[k].append(t1 - t0)
    try:
        threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
        for t in threads:
            t.start()
        time.sleep(max(0.0, start - time.perf_counter()))
        pi.reset_stats()
        for t in threads:
            t.join()
        batch = pi.stats()["mean_batch_requests"]
    finally:
        pi.shutdown()
    ms = numpy.array([v for per in latencies for v in per]) * 1e3
    return {"throughput": len(ms) / duration, "p50": float(numpy.percentile(ms, 50)),
            "p99": float(numpy.percentile(ms, 99)), "batch": batch}


BUCKET_CASES = [("classifier", "sequential"), ("classifier", "buckets"), ("classifier", "batched"),
                ("per-token", "sequential"), ("per-token", "buckets")]


def bench_buckets(runs, warmup, duration, clients=64):
    models = make_sequence_models()
    requests = sequence_requests()
    for model in models.values():
        check_buckets(model, requests)
    out = {case: [] for case in BUCKET_CASES}
    for run in range(runs):
        for name, engine in BUCKET_CASES:
            out[(name, engine)].append(bucket_run(models[name], requests, engine, clients, warmup, duration))
        print(f"pad buckets: run {run + 1}/{runs} done", file=sys.stderr)
    return out


# ---- report ---------------------------------------------------------------------------------

def med(values):
    return statistics.median(values)


def report_priorities(res):
    lines = [f"\n(a) Priorities under overload, {PRIORITY_WORKERS} worker(s): capacity "
             f"{res['capacity']:.0f} req/s (closed loop, 64 clients, requests of 4 rows); top priority at "
             "20% of it, low priority at 150% when overloaded",
             "| case, priority | offered/s | served/s | p50 ms | p99 ms | shed | rejected | errors |",
             "|---|---|---|---|---|---|---|---|"]
    for case in ("unloaded", "overloaded"):
        for p in sorted((k for k in res[case][0] if k != "late_p99"), reverse=True):
            rows = [r[p] for r in res[case]]
            cells = [f"{med([r[k] for r in rows]):.{d}f}" for k, d in
                     (("rate", 0), ("served_per_s", 0), ("p50", 2), ("p99", 2), ("shed", 0),
                      ("rejected", 0), ("errors", 0))]
            lines.append(f"| {case}, {'top (1)' if p else 'low (0)'} | " + " | ".join(cells) + " |")
    ratio = med([o[1]["p99"] / u[1]["p99"] for u, o in zip(res["unloaded"], res["overloaded"])])
    late = max(r["late_p99"] for case in ("unloaded", "overloaded") for r in res[case])
    summary = (f"top-priority p99 overloaded / unloaded: {ratio:.2f}x (target <= 2x); the "
               f"generator's p99 lateness was at most {late:.2f} ms")
    return lines, summary


def report_buckets(res):
    lines = ["\n(b) Pad buckets [16, 32, 64, 128], lengths 16..128, 64 clients",
             "| model, engine | req/s | p50 ms | p99 ms | mean batch |", "|---|---|---|---|---|"]
    label = {"sequential": "sequential (alone, unpadded)", "buckets": "batched, pad_buckets",
             "batched": "batched, no buckets"}
    for name, engine in BUCKET_CASES:
        rows = res[(name, engine)]
        cells = [f"{med([r[k] for r in rows]):.{d}f}" for k, d in
                 (("throughput", 0), ("p50", 2), ("p99", 2), ("batch", 1))]
        lines.append(f"| {name}, {label[engine]} | " + " | ".join(cells) + " |")
    summary = []
    for name in ("classifier", "per-token"):
        r = med([b["throughput"] / s["throughput"]
                 for b, s in zip(res[(name, "buckets")], res[(name, "sequential")])])
        summary.append(f"{name}: pad_buckets / sequential throughput {r:.2f}x"
                       + (" (target >= 2x)" if name == "classifier" else ""))
    return lines, summary


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="1 short run per case")
    p.add_argument("--runs", type=int, help="runs per case (default 5; --quick: 1)")
    p.add_argument("--duration", type=float, help="measured seconds per run (default 2; quick 0.8)")
    p.add_argument("--only", choices=("priorities", "buckets"), help="run one of the two parts")
    args = p.parse_args()
    runs = args.runs or (1 if args.quick else 5)
    duration = args.duration or (0.8 if args.quick else 2.0)
    warmup = 0.3 if args.quick else 0.5
    lines, summary, saved = [], [], {"runs": runs, "duration": duration}
    if args.only in (None, "priorities"):
        saved["priorities"] = bench_priorities(runs, warmup, duration)
        part, line = report_priorities(saved["priorities"])
        lines += part
        summary.append(line)
    if args.only in (None, "buckets"):
        buckets = bench_buckets(runs, warmup, duration)
        saved["buckets"] = {f"{m},{e}": v for (m, e), v in buckets.items()}
        part, more = report_buckets(buckets)
        lines += part
        summary += more
    print("\n".join([f"wsarray.parallel.ParallelInference serving queue: {os.cpu_count()} cores, "
                     f"medians of {runs} run(s) of {duration:g} s", *lines, "", *summary]))
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    path = os.path.join(HERE, "results", "serving_queue.json")
    with open(path, "w") as f:
        json.dump({**saved, "summary": summary}, f, indent=1)
    print(f"\nresults: {path}")


if __name__ == "__main__":
    main()
