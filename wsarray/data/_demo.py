"""The data-pipeline demo: a training loop with real ETL, synchronous vs prefetched vs pre-saved, and
the workspace modes of training (NONE, SINGLE, SEPARATE). ``python -m wsarray`` runs its
``run_*``/``summarize_*``/``print_*`` functions for its pipeline and modes parts, ``main(argv)`` runs
them alone; bench/data_pipeline.py and bench/workspace_modes.py run the
same measurements with more repeats.

Every variant runs in a fresh process with one BLAS thread and one wsarray thread, so that the
step uses one core and the producer thread the other, and peak RSS and page faults are its own.
"""

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

PIPELINE_VARIANTS = ["etl", "step", "sync", "shield", "async", "async-plain", "saved+async"]
MODES = ["none", "single", "separate"]
SHAPE = dict(batch=128, size=104, crop=96)   # 14 MB of float32 per batch
MLP_SIZES = [784, 2048, 2048, 2048, 10]


# -- children ---------------------------------------------------------------------------------

def pipeline_child(variant, batches, epochs, hidden, saved_dir):
    """Train ``epochs`` epochs of ``batches`` batches one way; the figures of epochs 2.. as a dict."""
    from . import AsyncIterator, BatchDirectory, WorkspaceManager, shield
    from ._example import AugmentedImages, init_mlp, train_step

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
    elif variant == "step":
        x, y = next(iter(source))
        iterable = [(x.detach(), y.detach())] * batches
    else:
        raise ValueError(f"unknown variant {variant!r}")
    epoch_s, etl_s, step_s, faults = [], [], [], []
    for _ in range(epochs):
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        start = time.perf_counter()
        etl = step = 0.0
        n = 0
        it = iter(iterable)
        while True:
            a = time.perf_counter()
            try:
                x, y = next(it)
            except StopIteration:
                break
            b = time.perf_counter()
            if variant != "etl":
                train_step(mgr, params, x, y)
            etl += b - a
            step += time.perf_counter() - b
            n += 1
        del x, y
        epoch_s.append(time.perf_counter() - start)
        etl_s.append(etl / n)
        step_s.append(step / n)
        faults.append((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0) / n)
    out = {"variant": variant, "batches": n,
           "epoch_s": statistics.median(epoch_s[1:]), "etl_ms": statistics.median(etl_s[1:]) * 1e3,
           "step_ms": statistics.median(step_s[1:]) * 1e3, "faults": statistics.median(faults[1:]),
           "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "ring_mib": None}
    if iterator is not None:
        ws = iterator.stats()["workspace"]
        if ws is not None:
            out["ring_mib"] = ws["capacity"] / 2**20
        iterator.close()
    return out


def modes_child(mode, iterations, batch):
    """Train the MLP with WorkspaceManager(mode) over an AsyncIterator; the figures as a dict."""
    import numpy

    from . import AsyncIterator, WorkspaceManager
    from ._example import init_mlp, train_step

    def batches():
        rng = numpy.random.default_rng(0)
        for _ in range(iterations):
            yield (rng.standard_normal((batch, MLP_SIZES[0]), dtype=numpy.float32),
                   rng.integers(0, MLP_SIZES[-1], batch))

    params = init_mlp(MLP_SIZES)
    mgr = WorkspaceManager(mode)
    before = _rss_mib()
    times, faults, losses = [], [], []
    warm = max(iterations // 5, 2)
    with AsyncIterator(batches(), queue_size=4) as it:
        for x, y in it:
            f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            t0 = time.perf_counter()
            losses.append(train_step(mgr, params, x, y, lr=0.01))
            times.append(time.perf_counter() - t0)
            faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
    stats = mgr.stats()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"mode": mode, "ms": statistics.median(times[warm:]) * 1e3, "rss_mib": peak,
            "rss_growth_mib": peak - before,
            "capacity_mib": sum(s["capacity"] for s in stats.values()) / 2**20,
            "peak_cycle_mib": sum(s["peak_cycle_bytes"] for s in stats.values()) / 2**20,
            "spilled_mib": sum(s["spilled_bytes"] for s in stats.values()) / 2**20,
            "faults": statistics.mean(faults[warm:]),
            "workspaces": {k.split("/")[-1]: round(v["capacity"] / 2**20, 1) for k, v in stats.items()},
            "loss_first": losses[0], "loss_last": losses[-1]}


def _rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _busy_cpu_s():
    """CPU seconds the whole machine has been busy (Linux /proc/stat; None elsewhere)."""
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def _children_cpu_s():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def wait_for_quiet(max_wait_s, other_cores=0.25):
    """Wait (at most ``max_wait_s``) until other processes use under ``other_cores`` cores: the
    development machine is shared, and a parallel speed-up needs both cores free."""
    deadline = time.monotonic() + max_wait_s
    while time.monotonic() < deadline:
        b0 = _busy_cpu_s()
        if b0 is None:
            return
        time.sleep(1.0)
        if _busy_cpu_s() - b0 < other_cores:
            return


def run_child(kind, name, quiet_wait_s=0, **params):
    """Run one variant (kind "pipeline") or mode (kind "modes") in a fresh process; its figures
    plus ``other_load``: cores other processes used meanwhile."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               WSARRAY_NUM_THREADS="1")
    cmd = [sys.executable, "-P", "-m", "wsarray.data._demo", "--child", kind, name, json.dumps(params)]
    if quiet_wait_s:
        wait_for_quiet(quiet_wait_s)
    busy0, mine0, start = _busy_cpu_s(), _children_cpu_s(), time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"{kind} {name} failed:\n{proc.stderr}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    if busy0 is not None:
        other = (_busy_cpu_s() - busy0) - (_children_cpu_s() - mine0)
        out["other_load"] = max(other, 0.0) / (time.monotonic() - start)
    return out


# -- the pipeline comparison ---------------------------------------------------------------------

def run_pipeline(repeats=3, batches=20, epochs=4, hidden=256, log=lambda *a, **k: None, quiet_wait_s=0):
    """Every variant ``repeats`` times (interleaved); {variant: [figures per run]}."""
    from . import save_batches
    from ._example import AugmentedImages

    saved_dir = tempfile.mkdtemp(prefix="wsarray-data-demo-")
    try:
        save_batches(AugmentedImages(batches=batches, **SHAPE), saved_dir)
        runs = {v: [] for v in PIPELINE_VARIANTS}
        for k in range(repeats):
            for v in PIPELINE_VARIANTS:
                log(f"  pipeline run {k + 1}/{repeats}: {v}          ", end="\r", flush=True)
                runs[v].append(run_child("pipeline", v, quiet_wait_s, batches=batches, epochs=epochs,
                                         hidden=hidden, saved_dir=saved_dir))
        log(" " * 60, end="\r")
        return runs
    finally:
        shutil.rmtree(saved_dir, ignore_errors=True)


QUIET = 0.1  # cores other processes may use during a run that counts


def _quiet(*runs):
    return all(r.get("other_load", 0.0) < QUIET for r in runs)


def summarize_pipeline(runs):
    """Medians per variant over the runs no other process disturbed (all runs if none was quiet),
    with each run's ratio to max(ETL alone, step alone) of its round."""
    rows = []
    for v, rs in runs.items():
        quiet = [r for r in rs if _quiet(r)]
        kept = quiet or rs
        med = {k: statistics.median(r.get(k, 0.0) for r in kept) for k in
               ("epoch_s", "etl_ms", "step_ms", "faults", "rss_mib", "other_load")}
        ring = [r["ring_mib"] for r in kept if r["ring_mib"] is not None]
        rounds = list(zip(rs, runs["etl"], runs["step"]))
        rounds = [t for t in rounds if _quiet(*t)] or rounds
        ratios = sorted(r["epoch_s"] / r["batches"] * 1e3 / max(e["etl_ms"], s["step_ms"])
                        for r, e, s in rounds)
        rows.append(dict(med, variant=v, quiet=bool(quiet),
                         ms_per_batch=med["epoch_s"] / rs[0]["batches"] * 1e3,
                         ring_mib=statistics.median(ring) if ring else None, runs=len(kept),
                         ratio=statistics.median(ratios), ratio_min=ratios[0], ratio_max=ratios[-1]))
    return rows


def _which_runs(rows, repeats):
    """What the medians are of, as it was: undisturbed runs only where there were some."""
    if all(r.get("quiet") for r in rows):
        return f"medians of the undisturbed runs of {repeats} (runs column)"
    if not any(r.get("quiet") for r in rows):
        return (f"medians of all {repeats} runs: other processes used the cores during every run "
                "(other load column), so these figures are disturbed")
    return (f"medians of the undisturbed runs of {repeats} where there were some, else of all runs "
            "(runs and other load columns)")


def print_pipeline(rows, repeats):
    by = {r["variant"]: r for r in rows}
    etl, step = by["etl"]["etl_ms"], by["step"]["step_ms"]
    print(f"ETL alone {etl:.1f} ms per batch, step alone {step:.1f} ms (ETL/step {etl / step:.2f}); "
          f"{_which_runs(rows, repeats)}")
    header = (f"{'variant':<13}{'s/epoch':>9}{'ms/batch':>10}{'ETL ms/it':>11}{'step ms/it':>12}"
              f"{'/max(ETL,step)':>16}{'(spread)':>12}{'peak RSS MiB':>14}{'faults/it':>11}{'ring MiB':>10}"
              f"{'other load':>12}{'runs':>6}")
    print(header)
    print("-" * len(header))
    for r in rows:
        ring = "" if r["ring_mib"] is None else f"{r['ring_mib']:.0f}"
        print(f"{r['variant']:<13}{r['epoch_s']:>9.2f}{r['ms_per_batch']:>10.1f}{r['etl_ms']:>11.1f}"
              f"{r['step_ms']:>12.1f}{r['ratio']:>15.2f}x{r['ratio_min']:>6.2f}-{r['ratio_max']:<5.2f}"
              f"{r['rss_mib']:>14.0f}{r['faults']:>11.0f}{ring:>10}{r['other_load']:>12.2f}{r['runs']:>6}")


# -- the workspace modes --------------------------------------------------------------------------

def run_modes(repeats=3, iterations=60, batch=256, log=lambda *a, **k: None, quiet_wait_s=0):
    runs = {m: [] for m in MODES}
    for k in range(repeats):
        for m in MODES:
            log(f"  modes run {k + 1}/{repeats}: {m}          ", end="\r", flush=True)
            runs[m].append(run_child("modes", m, quiet_wait_s, iterations=iterations, batch=batch))
    log(" " * 60, end="\r")
    return runs


def summarize_modes(runs):
    rows = []
    for m, rs in runs.items():
        quiet = [r for r in rs if _quiet(r)]
        kept = quiet or rs
        med = {k: statistics.median(r.get(k, 0.0) for r in kept) for k in
               ("ms", "rss_mib", "rss_growth_mib", "capacity_mib", "peak_cycle_mib", "spilled_mib", "faults",
                "other_load")}
        rounds = [t for t in zip(rs, runs["none"]) if _quiet(*t)] or list(zip(rs, runs["none"]))
        ratios = sorted(r["ms"] / b["ms"] for r, b in rounds)
        rows.append(dict(med, mode=m, quiet=bool(quiet), ratio=statistics.median(ratios), ratio_min=ratios[0],
                         runs=len(kept),
                         ratio_max=ratios[-1], workspaces=rs[-1]["workspaces"]))
    return rows


def print_modes(rows, repeats, batch):
    print(f"MLP {'-'.join(map(str, MLP_SIZES))}, batch {batch}, float32; {_which_runs(rows, repeats)}")
    header = (f"{'mode':<10}{'ms/iter':>9}{'vs NONE':>9}{'(spread)':>12}{'peak RSS MiB':>14}"
              f"{'RSS growth':>12}{'ws capacity MiB':>17}{'faults/iter':>13}{'other load':>12}{'runs':>6}")
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['mode']:<10}{r['ms']:>9.1f}{r['ratio']:>8.2f}x{r['ratio_min']:>6.2f}-{r['ratio_max']:<5.2f}"
              f"{r['rss_mib']:>14.0f}{r['rss_growth_mib']:>12.0f}{r['capacity_mib']:>17.1f}"
              f"{r['faults']:>13.0f}{r['other_load']:>12.2f}{r['runs']:>6}")
    for r in rows:
        if r["workspaces"]:
            print(f"  {r['mode']}: " + ", ".join(f"{k} {v} MiB" for k, v in r["workspaces"].items()))


def main(argv=None):
    """The pipeline part of ``python -m wsarray``: see ``--help``."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m wsarray.data._demo",
        description="wsarray.data demo: a training loop with real ETL work, synchronous vs "
                    "AsyncIterator vs pre-saved batches, and the workspace modes of training.")
    parser.add_argument("--part", choices=["pipeline", "modes", "all"], default="all")
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per variant (default 3)")
    parser.add_argument("--quick", action="store_true", help="1 short run per variant (a smoke test)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--quiet-wait", type=float, default=0, metavar="S",
                        help="before each run, wait up to S seconds for other processes to leave "
                             "the cores free (a shared machine)")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    p_params = dict(batches=6, epochs=2) if args.quick else dict(batches=20, epochs=4)
    m_params = dict(iterations=12) if args.quick else dict(iterations=60)
    repeats = 1 if args.quick else args.repeats
    log = (lambda *a, **k: None) if args.json else (lambda *a, **k: print(*a, **k, file=sys.stderr))
    out = {}
    if args.part in ("pipeline", "all"):
        out["pipeline"] = summarize_pipeline(run_pipeline(repeats, log=log, quiet_wait_s=args.quiet_wait,
                                                          **p_params))
    if args.part in ("modes", "all"):
        out["modes"] = summarize_modes(run_modes(repeats, log=log, quiet_wait_s=args.quiet_wait, **m_params))
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    if "pipeline" in out:
        print("\nwsarray.data.AsyncIterator: a training step (MLP 27648-256-10) on batches that need "
              "ETL work\n(decode, crop, blur, flip, jitter, normalize 128 images of 104x104x3)\n")
        print_pipeline(out["pipeline"], repeats)
        print(PIPELINE_NOTES)
    if "modes" in out:
        print("\nwsarray.data.WorkspaceManager: the same MLP training step in each workspace mode\n")
        print_modes(out["modes"], repeats, 256)
        print(MODES_NOTES)
    return 0


PIPELINE_NOTES = """
* etl / step: the source alone and the step alone. sync: `for batch in source` (ETL and step in
  turn). shield: AsyncIterator(shield(source)), synchronous, batches in workspace slots.
  async: AsyncIterator(source, queue_size=4). async-plain: the same with use_workspace=False.
  saved+async: AsyncIterator(BatchDirectory(dir)) over one epoch pre-saved with save_batches().
* ETL ms/it: how long the loop waited in next(). /max(ETL,step): time per batch over the larger
  of ETL alone and step alone (1.00x: the ETL is fully hidden). The prefetch runs the ETL on a
  second core only while the ETL releases the GIL (NumPy kernels on large arrays, file reads).
* faults/it: minor page faults per batch after the first epoch; ring MiB: the slots' memory.
* other load: cores other processes of the machine used during the run (a shared machine: with
  one core taken, the two threads share the other and nothing can be hidden). Runs with 0.1 or
  more are left out of the medians when undisturbed runs exist (runs: how many were kept)."""

MODES_NOTES = """
* NONE: no workspaces. SINGLE: one workspace for the whole step. SEPARATE: one per kind, the
  working memory a new cycle per layer. RSS growth: peak RSS over the RSS before training.
* wsarray frees a block as soon as its array dies, also inside a cycle, so a SINGLE workspace
  reuses a layer's temporaries for the next layer and needs about as much as SEPARATE's
  workspaces together; SEPARATE adds a copy of every result kept past its layer.
* vs NONE is the median of each round's ratio (the runs of a round ran side by side); ms/iter is
  the median of the times. On a disturbed machine the two can disagree (a row slower in ms/iter
  and below 1.00x): then trust neither, and run it again when the machine is idle."""


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        kind, name, params = sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
        child = pipeline_child if kind == "pipeline" else modes_child
        print(json.dumps(child(name, **params)))
    else:
        sys.exit(main())
