"""Benchmark of wsarray.data: a training loop whose batches need real ETL work.

    python -P bench/data_pipeline.py            # 3 runs per variant (about 3 minutes)
    python -P bench/data_pipeline.py --quick    # 1 short run per variant (a smoke test)

The source is wsarray.data._example.AugmentedImages: 128 images of 104x104x3 uint8 per batch,
gathered, decoded to float32, cropped to 96x96, blurred (3x3 box), flipped, brightness-jittered
and normalized (14 MB of float32 per batch; NumPy kernels, which release the GIL). The step is
one SGD step of an MLP 27648-256-10 (wsarray.data._example.train_step, WorkspaceManager SINGLE).
Every process runs with one BLAS thread and one wsarray thread (OPENBLAS_NUM_THREADS=1,
WSARRAY_NUM_THREADS=1): the step uses one core and the producer thread the other.

Variants (each a fresh process; runs interleaved; medians over runs):
  etl            the source alone (time per batch of the ETL)
  step           the step alone, on one fixed batch
  sync           for batch in source: step              (ETL and step in turn)
  shield         AsyncIterator(shield(source))            (synchronous, batches in slots)
  async          AsyncIterator(source, queue_size=4)      (prefetch into workspace slots)
  async-plain    AsyncIterator(source, 4, use_workspace=False)
  saved+async    AsyncIterator(BatchDirectory(dir), 4)    (one epoch pre-saved with save_batches)

Each process runs --epochs epochs of --batches batches; the first epoch (learning, first touch)
is left out. Figures: time per epoch and per batch, ETL per iteration (time the loop waited in
next()), peak RSS, minor page faults per iteration, and for the prefetching variants the ratio of
the time per batch to max(ETL alone, step alone): the target is at most 1.10.
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

VARIANTS = ["etl", "step", "sync", "shield", "async", "async-plain", "saved+async"]
SHAPE = dict(batch=128, size=104, crop=96)


def child(variant, batches, epochs, hidden, saved_dir):
    import numpy  # noqa: F401 - after the environment caps the threads

    from wsarray.data import AsyncIterator, BatchDirectory, WorkspaceManager, shield
    from wsarray.data._example import AugmentedImages, init_mlp, train_step

    source = AugmentedImages(batches=batches, **SHAPE)
    params = init_mlp([SHAPE["crop"] ** 2 * 3, hidden, 10])
    mgr = WorkspaceManager("single")
    iterator = None
    if variant in ("sync", "etl"):
        iterable = source
    elif variant == "shield":
        iterable = iterator = AsyncIterator(shield(source))
    elif variant == "async":
        iterable = iterator = AsyncIterator(source, queue_size=4)
    elif variant == "async-plain":
        iterable = iterator = AsyncIterator(source, queue_size=4, use_workspace=False)
    elif variant == "saved+async":
        iterable = iterator = AsyncIterator(BatchDirectory(saved_dir), queue_size=4)
    else:  # step
        x, y = next(iter(source))
        fixed = (x.detach(), y.detach())
        iterable = None

    epoch_s, etl_s, step_s, faults = [], [], [], []
    for epoch in range(epochs):
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        start = time.perf_counter()
        etl = step = 0.0
        it = iter(iterable) if iterable is not None else iter([fixed] * batches)
        n = 0
        while True:
            a = time.perf_counter()
            try:
                x, y = next(it)
            except StopIteration:
                break
            b = time.perf_counter()
            if variant != "etl":
                train_step(mgr, params, x, y)
            c = time.perf_counter()
            etl += b - a
            step += c - b
            n += 1
        epoch_s.append(time.perf_counter() - start)
        etl_s.append(etl / n)
        step_s.append(step / n)
        faults.append((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0) / n)
    out = {
        "variant": variant,
        "batches": n,
        "epoch_s": statistics.median(epoch_s[1:]),
        "etl_ms": statistics.median(etl_s[1:]) * 1e3,
        "step_ms": statistics.median(step_s[1:]) * 1e3,
        "faults": statistics.median(faults[1:]),
        "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    if iterator is not None:
        s = iterator.stats()
        ws = s["workspace"]
        out.update(consumed=s["consumed"], producer_wait_s=s["producer_wait_s"],
                   ring_capacity_mib=ws["capacity"] / 2**20 if ws else 0.0,
                   ring_spilled_mib=ws["spilled_bytes"] / 2**20 if ws else 0.0)
        iterator.close()
    print(json.dumps(out))


def run_child(variant, args, saved_dir):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               WSARRAY_NUM_THREADS="1")
    cmd = [sys.executable, "-P", os.path.abspath(__file__), "--child", variant,
           "--batches", str(args.batches), "--epochs", str(args.epochs), "--hidden", str(args.hidden),
           "--saved-dir", saved_dir]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if proc.returncode != 0:
        raise SystemExit(f"variant {variant} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def save_one_epoch(directory, batches):
    from wsarray.data import save_batches
    from wsarray.data._example import AugmentedImages

    start = time.perf_counter()
    n = save_batches(AugmentedImages(batches=batches, **SHAPE), directory)
    size = sum(os.path.getsize(os.path.join(directory, f)) for f in os.listdir(directory))
    return n, time.perf_counter() - start, size


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batches", type=int, default=20, help="batches per epoch")
    parser.add_argument("--epochs", type=int, default=4, help="epochs per process (the first is warm-up)")
    parser.add_argument("--hidden", type=int, default=256, help="hidden width of the MLP (step cost)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--saved-dir", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.batches, args.epochs, args.hidden, args.saved_dir)
        return 0
    if args.quick:
        args.repeats, args.batches, args.epochs = 1, 6, 2
    saved_dir = tempfile.mkdtemp(prefix="wsarray-bench-batches-")
    try:
        n, save_s, size = save_one_epoch(saved_dir, args.batches)
        print(f"pre-saved {n} batches ({size / 2**20:.0f} MiB) in {save_s:.1f} s", file=sys.stderr)
        runs = {v: [] for v in VARIANTS}
        for k in range(args.repeats):
            for v in VARIANTS:
                print(f"  run {k + 1}/{args.repeats}: {v}        ", end="\r", file=sys.stderr, flush=True)
                runs[v].append(run_child(v, args, saved_dir))
        print(file=sys.stderr)
    finally:
        shutil.rmtree(saved_dir, ignore_errors=True)
    report(runs, args)
    return 0


def report(runs, args):
    med = {v: {k: statistics.median(r[k] for r in rs) for k in rs[0] if isinstance(rs[0][k], (int, float))}
           for v, rs in runs.items()}
    etl_alone, step_alone = med["etl"]["etl_ms"], med["step"]["step_ms"]
    bound = max(etl_alone, step_alone)
    print(f"\nETL alone {etl_alone:.1f} ms/batch, step alone {step_alone:.1f} ms/batch "
          f"(ETL/step {etl_alone / step_alone:.2f}); {args.batches} batches per epoch, "
          f"medians of {args.repeats} runs\n")
    header = (f"{'variant':<13}{'epoch s':>9}{'ms/batch':>10}{'ETL ms/it':>11}{'step ms/it':>12}"
              f"{'vs max(ETL,step)':>18}{'peak RSS MiB':>14}{'faults/it':>11}{'ring MiB':>10}")
    print(header)
    print("-" * len(header))
    rows = []
    for v in VARIANTS:
        m = med[v]
        per_batch = m["epoch_s"] / m["batches"] * 1e3
        # each run's own ratio, then the median (side-by-side runs share the machine's state)
        ratios = sorted(r["epoch_s"] / r["batches"] * 1e3 / max(e["etl_ms"], s["step_ms"])
                        for r, e, s in zip(runs[v], runs["etl"], runs["step"]))
        ratio = statistics.median(ratios)
        ring = m.get("ring_capacity_mib")
        print(f"{v:<13}{m['epoch_s']:>9.2f}{per_batch:>10.1f}{m['etl_ms']:>11.1f}{m['step_ms']:>12.1f}"
              f"{ratio:>17.2f}x{m['rss_mib']:>14.0f}{m['faults']:>11.0f}"
              f"{'' if ring is None else format(ring, '.0f'):>10}")
        rows.append(dict(m, variant=v, ms_per_batch=per_batch, ratio=ratio, ratio_min=ratios[0],
                         ratio_max=ratios[-1]))
    print(f"\nTarget: a prefetching variant within 1.10x of max(ETL alone, step alone) = {bound:.1f} ms "
          "per batch.")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "runs": runs, "args": vars(args)}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
