"""Workspace modes for training: a NumPy MLP trained with AsyncIterator, NONE vs SINGLE vs SEPARATE.

    python -P bench/workspace_modes.py            # 3 runs per mode (about a minute)
    python -P bench/workspace_modes.py --quick

The measurement is wsarray.data._demo's (also behind the demo's modes part). The model is
wsarray.data._example's MLP (784-2048-2048-2048-10, float32, ReLU, softmax loss, SGD), each layer
a function with its working memory in ``mgr.scope("working_memory")`` and its result kept with
``mgr.leverage_to("activations", ...)``. Batches of 256 rows come from an AsyncIterator
(queue_size=4) over a generator. One fresh process per mode (runs interleaved, medians), one BLAS
thread and one wsarray thread per process. Figures: time per iteration after warm-up, peak RSS and
its growth over the RSS before training, the manager's workspace capacity and peak bytes per cycle
(summed over its workspaces), minor page faults per iteration.
"""

import argparse
import json
import sys

from wsarray.data import _demo


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=60)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--quiet-wait", type=float, default=60, metavar="S",
                        help="before each run, wait up to S seconds (default 60) for other processes "
                             "to leave the cores free: the development machine is shared")
    parser.add_argument("--json", help="also write the runs and medians to this file")
    args = parser.parse_args(argv)
    if args.quick:
        args.repeats, args.iterations = 1, 12
    runs = _demo.run_modes(args.repeats, args.iterations, args.batch,
                           log=lambda *a, **k: print(*a, **k, file=sys.stderr),
                           quiet_wait_s=args.quiet_wait)
    rows = _demo.summarize_modes(runs)
    _demo.print_modes(rows, args.repeats, args.batch)
    print(_demo.MODES_NOTES)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "runs": runs, "args": vars(args)}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
