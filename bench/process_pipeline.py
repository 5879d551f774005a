"""Benchmark of AsyncIterator(backend="process"): a training loop whose ETL is pure Python.

    python -P bench/process_pipeline.py                          # 3 runs per variant
    python -P bench/process_pipeline.py --torch-python /tmp/tv/bin/python --json out.json
    python -P bench/process_pipeline.py --quick                  # a smoke test

Dataset: ``Records``, map-style; a sample parses a text record in a Python loop (tokens hashed
into a float32[2048] bag of features: the GIL is held all along) and adds a float32[3, 48, 48]
"image" drawn by NumPy; batches of 64 samples (2.3 MB). Step: an MLP forward and backward on
the features with one BLAS thread, sized (--hidden) so that the ETL of a batch takes about twice
the step. Each variant runs in a fresh process (one BLAS thread), --epochs epochs of the dataset
with the first left out; runs are interleaved and the tables show medians.

Variants: etl (batches built in the loop, no step), step (the step alone), serial (build, then
step), thread (AsyncIterator over a generator of batches: today's thread producer), process
(AsyncIterator(backend="process", workers=2) with queue_size 1, 2, 4, 8 and "auto"; process-auto-stack:
"auto" with the default collate, which stacks straight into shared memory), torch
(PyTorch's DataLoader(num_workers=2), same dataset and collate, in --torch-python). Figures per
variant: seconds per batch, page faults (the process and its workers), and the memory of the
process and its workers at the end of an epoch (RSS summed, and PSS summed: shared pages
counted once). Targets: process <= 1.2 x (ETL + step) / 2 per batch; process <= 0.9 x torch;
auto within 5% of the best fixed queue size.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy

BATCH = 64
FEATURES = 2048


class Records:
    """Sample i: a text record parsed in Python into a bag of hashed tokens, plus an image."""

    def __init__(self, n, work):
        self.n, self.work = n, work
        words = [f"w{k}x{k * 7 % 13}" for k in range(400)]
        self.texts = [" ".join(words[(i * 31 + j * 17) % 400] for j in range(work)) for i in range(256)]

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        bag = [0.0] * FEATURES
        for token in self.texts[i % 256].split():
            h = 0
            for ch in token:
                h = (h * 131 + ord(ch)) & 0xFFFFFF
            bag[h % FEATURES] += 1.0
        image = numpy.random.default_rng(i).random((3, 48, 48), dtype=numpy.float32)
        return numpy.array(bag, dtype=numpy.float32), image, i % 10


def collate(samples):
    return (numpy.stack([s[0] for s in samples]), numpy.stack([s[1] for s in samples]),
            numpy.array([s[2] for s in samples]))


class Model:
    def __init__(self, hidden):
        rng = numpy.random.default_rng(0)
        self.w1 = rng.standard_normal((FEATURES, hidden), dtype=numpy.float32) * 0.01
        self.w2 = rng.standard_normal((hidden, 10), dtype=numpy.float32) * 0.01

    def step(self, x, y):
        x = numpy.asarray(x)
        h = numpy.maximum(x @ self.w1, 0)
        logits = h @ self.w2
        p = numpy.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        p[numpy.arange(len(p)), numpy.asarray(y)] -= 1
        g2 = h.T @ p
        gh = (p @ self.w2.T) * (h > 0)
        g1 = x.T @ gh
        self.w1 -= 1e-4 * g1
        self.w2 -= 1e-4 * g2


def _memory(pids):
    rss = pss = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Rss:"):
                        rss += int(line.split()[1]) * 1024
                    elif line.startswith("Pss:"):
                        pss += int(line.split()[1]) * 1024
        except OSError:
            pass
    return rss, pss


def _faults():
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt + resource.getrusage(resource.RUSAGE_SELF).ru_majflt
            + resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt)


def _batches(ds):
    for k in range(0, len(ds), BATCH):
        yield collate([ds[i] for i in range(k, min(k + BATCH, len(ds)))])


def run_variant(variant, args):
    ds = Records(args.samples, args.work)
    model = Model(args.hidden)
    fixed = collate([ds[i] for i in range(BATCH)])
    loader, pids = _loader(variant, ds), []
    times, memory = [], (0, 0)
    faults0 = _faults()
    for epoch in range(args.epochs):
        start = time.perf_counter()
        n = 0
        if variant == "step":
            for _ in range(len(ds) // BATCH):
                model.step(fixed[0], fixed[2])
                n += 1
        else:
            for batch in (loader if loader is not None else _batches(ds)):
                if variant != "etl":
                    model.step(batch[0], batch[2])
                n += 1
        if epoch:
            times.append((time.perf_counter() - start) / n)
        pids = _worker_pids(variant, loader)
        memory = max(memory, _memory([os.getpid()] + pids))
    _close(loader)
    return {"variant": variant, "s_per_batch": statistics.median(times), "faults": _faults() - faults0,
            "rss": memory[0], "pss": memory[1]}


def _loader(variant, ds):
    if variant.startswith("process"):
        from wsarray.data import AsyncIterator
        queue = variant.split("-")[1]
        # process-auto-stack: the default collate, which stacks straight into shared memory
        # (the others pass the benchmark's collate, whose result is copied in once).
        return AsyncIterator(ds, backend="process", workers=2, batch_size=BATCH,
                             collate=None if variant.endswith("-stack") else collate,
                             queue_size=queue if queue == "auto" else int(queue))
    if variant == "thread":
        from wsarray.data import AsyncIterator

        class Epochs:
            def __iter__(self):
                return _batches(ds)

        return AsyncIterator(Epochs(), queue_size=4)
    if variant == "torch":
        import torch
        torch.set_num_threads(1)
        return torch.utils.data.DataLoader(ds, batch_size=BATCH, num_workers=2, collate_fn=collate,
                                           persistent_workers=True)
    return None


def _worker_pids(variant, loader):
    if variant.startswith("process"):
        return loader.stats()["worker_pids"]
    if variant == "torch":
        it = getattr(loader, "_iterator", None)
        return [w.pid for w in getattr(it, "_workers", [])]
    return []


def _close(loader):
    if loader is None:
        return
    if hasattr(loader, "close"):
        loader.close()
    elif getattr(loader, "_iterator", None) is not None:
        loader._iterator._shutdown_workers()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--samples", type=int, default=1280, help="samples per epoch")
    parser.add_argument("--epochs", type=int, default=3, help="epochs per process (the first is warm-up)")
    parser.add_argument("--work", type=int, default=180, help="tokens per record (the ETL's cost)")
    parser.add_argument("--hidden", type=int, default=320, help="hidden width of the MLP (the step's cost)")
    parser.add_argument("--torch-python", help="a Python with torch installed, for the DataLoader variant")
    parser.add_argument("--variants", default="etl,step,serial,thread,process-1,process-2,process-4,"
                        "process-8,process-auto,process-auto-stack,torch")
    parser.add_argument("--variant", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    if args.quick:
        args.repeats, args.samples, args.epochs = 1, 256, 2
    if args.variant:
        print(json.dumps(run_variant(args.variant, args)))
        return
    runs = []
    variants = [v for v in args.variants.split(",") if v != "torch" or args.torch_python]
    for r in range(args.repeats):
        for v in variants:
            python = args.torch_python if v == "torch" else sys.executable
            cmd = [python, "-P", os.path.abspath(__file__), "--variant", v, "--samples", str(args.samples),
                   "--epochs", str(args.epochs), "--work", str(args.work), "--hidden", str(args.hidden)]
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
            if out.returncode:
                print(out.stderr[-2000:], file=sys.stderr)
                continue
            runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
            print(f"run {r + 1}: {runs[-1]}", file=sys.stderr)
    report(runs, args)


def report(runs, args):
    rows = {}
    for v in dict.fromkeys(r["variant"] for r in runs):
        mine = [r for r in runs if r["variant"] == v]
        rows[v] = {k: statistics.median(r[k] for r in mine) for k in ("s_per_batch", "faults", "rss", "pss")}
    etl, step = rows.get("etl", {}).get("s_per_batch"), rows.get("step", {}).get("s_per_batch")
    ideal = (etl + step) / 2 if etl and step else None
    fixed = [v for v in rows if v.startswith("process-") and v.split("-")[1].isdigit()]
    best = min(fixed, key=lambda v: rows[v]["s_per_batch"], default=None)
    print(f"{args.samples} samples per epoch, batches of {BATCH}, medians of {args.repeats} runs")
    print(f"{'variant':14} {'ms/batch':>9} {'x ideal':>8} {'x torch':>8} {'faults':>9} {'RSS MB':>8} {'PSS MB':>8}")
    torch = rows.get("torch", {}).get("s_per_batch")
    for v, row in rows.items():
        t = row["s_per_batch"]
        print(f"{v:14} {t * 1e3:9.2f} {t / ideal if ideal else float('nan'):8.2f} "
              f"{t / torch if torch else float('nan'):8.2f} {row['faults']:9.0f} {row['rss'] / 2**20:8.0f} "
              f"{row['pss'] / 2**20:8.0f}")
    if ideal:
        print(f"ideal (ETL + step) / 2 = {ideal * 1e3:.2f} ms per batch; ETL {etl * 1e3:.2f} ms, "
              f"step {step * 1e3:.2f} ms")
    if best and "process-auto" in rows:
        print(f"auto queue vs the best fixed one ({best}): "
              f"{rows['process-auto']['s_per_batch'] / rows[best]['s_per_batch']:.3f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"runs": runs, "medians": rows}, f, indent=1)


if __name__ == "__main__":
    main()
