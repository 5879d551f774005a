"""Benchmark of wsarray.data.AsyncIterator: a training loop whose batches need real ETL work.

    python -P bench/data_pipeline.py                 # 3 runs per variant (about 2 minutes)
    python -P bench/data_pipeline.py --repeats 5 --json out.json
    python -P bench/data_pipeline.py --quick         # 1 short run per variant (a smoke test)

The measurement is wsarray.data._demo's (also behind the demo's pipeline part). Source:
wsarray.data._example.AugmentedImages, 128 images of 104x104x3 uint8 per batch gathered, decoded
to float32, cropped to 96x96, blurred (3x3 box), flipped, brightness-jittered and normalized
(14 MB of float32 per batch, NumPy kernels, which release the GIL). Step: one SGD step of an MLP
27648-hidden-10 (wsarray.data._example.train_step, WorkspaceManager SINGLE); --hidden sets the
step's cost. Every variant is a fresh process with one BLAS thread and one wsarray thread (the
step uses one core, the producer thread the other); runs are interleaved; tables show medians.
Each process runs --epochs epochs of --batches batches and the first epoch is left out.
Variants: etl (the source alone), step (the step alone, on one fixed batch), sync (for batch in
source), shield (AsyncIterator(shield(source))), async (AsyncIterator(source, queue_size=4)),
async-plain (use_workspace=False), saved+async (AsyncIterator(BatchDirectory(dir), 4) over one
epoch pre-saved with save_batches). Target: a prefetching variant within 1.10x of
max(ETL alone, step alone) per batch.
"""

import argparse
import json
import sys

from wsarray.data import _demo


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batches", type=int, default=20, help="batches per epoch")
    parser.add_argument("--epochs", type=int, default=4, help="epochs per process (the first is warm-up)")
    parser.add_argument("--hidden", type=int, default=256, help="hidden width of the MLP (the step's cost)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--quiet-wait", type=float, default=60, metavar="S",
                        help="before each run, wait up to S seconds (default 60) for other processes "
                             "to leave the cores free: the development machine is shared")
    parser.add_argument("--json", help="also write the runs and medians to this file")
    args = parser.parse_args(argv)
    if args.quick:
        args.repeats, args.batches, args.epochs = 1, 6, 2
    runs = _demo.run_pipeline(args.repeats, args.batches, args.epochs, args.hidden,
                              log=lambda *a, **k: print(*a, **k, file=sys.stderr),
                              quiet_wait_s=args.quiet_wait)
    rows = _demo.summarize_pipeline(runs)
    print(f"MLP 27648-{args.hidden}-10, {args.batches} batches per epoch, {args.epochs} epochs per process")
    _demo.print_pipeline(rows, args.repeats)
    print(_demo.PIPELINE_NOTES)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "runs": runs, "args": vars(args)}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
