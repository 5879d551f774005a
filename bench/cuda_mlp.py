"""An MLP training loop on a GPU: CuPy's default memory pool vs a wsarray device workspace.

    python -P bench/cuda_mlp.py [--device cuda:0] [--batch 1024] [--hidden 2048] [--steps 200]
                                [--rounds 3] [--json]

The same loop (wsarray's namespace on device arrays, so CuPy does the math either way) runs with
every temporary from CuPy's pool ("pool") and inside ``with np.workspace("MLP", device config):``
("workspace"), alternating, ``--rounds`` times. Per mode: the median time per iteration, the peak
of device memory the allocator below held (CuPy's pool bytes; the fake device's live bytes), and
the calls that reached that allocator (every allocation for "pool"; chunks and foreign-stream
spills for "workspace"). Without a usable GPU it prints ``skipped: no GPU (<reason>)`` and exits 0.
``--device fake:0`` runs the same code on the test-only fake device (NumPy; host memory): a smoke
run of the code path, not a measurement.
"""

import argparse
import json
import statistics
import sys
import time

import numpy

import wsarray as np


class Counting:
    """The allocator below the one measured, counted: calls and peak bytes held."""

    def __init__(self):
        self.calls = 0
        self.live = self.peak = 0


def cupy_hooks(device):
    """(context manager making CuPy allocate through a counter, counter, sync)."""
    import contextlib

    import cupy

    pool = cupy.get_default_memory_pool()
    counter = Counting()

    def malloc(size):
        counter.calls += 1
        p = pool.malloc(size)
        counter.peak = max(counter.peak, pool.total_bytes())
        return p

    @contextlib.contextmanager
    def installed():
        with cupy.cuda.Device(device.index), cupy.cuda.using_allocator(malloc):
            yield

    def reset():  # a fresh pool for each run: its bytes are then this run's
        cupy.cuda.Device(device.index).synchronize()
        pool.free_all_blocks()
        counter.peak = pool.total_bytes()

    return installed, counter, lambda: cupy.cuda.Device(device.index).synchronize(), reset


def fake_hooks(device):
    import contextlib

    from wsarray._devices import fake

    backend = fake.enable(device.index + 1)[device.index]
    counter = Counting()
    alloc, free = backend.alloc, backend.free

    def counted_alloc(size):
        counter.calls += 1
        counter.live += size
        counter.peak = max(counter.peak, counter.live)
        return alloc(size)

    def counted_free(address, size):
        counter.live -= size
        free(address, size)

    def reset():
        counter.peak = counter.live

    backend.alloc, backend.free = counted_alloc, counted_free
    return contextlib.nullcontext, counter, backend.synchronize, reset


def train(mode, device, args, hooks):
    installed, counter, sync, reset = hooks
    reset()
    rng = numpy.random.default_rng(0)
    with installed():
        x = np.asarray(rng.standard_normal((args.batch, args.features)), device=device)
        y = np.asarray(rng.standard_normal((args.batch, args.classes)), device=device)
        w1 = np.asarray(rng.standard_normal((args.features, args.hidden)) * 0.01, device=device)
        w2 = np.asarray(rng.standard_normal((args.hidden, args.classes)) * 0.01, device=device)
        ws = None
        if mode == "workspace":
            ws = np.workspace(f"MLP_{mode}_{time.perf_counter_ns()}",
                              np.WorkspaceConfig(device=str(device), learning="first_loop"))
        calls_before, times, losses = counter.calls, [], []
        for step in range(args.warmup + args.steps):
            if step == args.warmup:
                calls_before = counter.calls
            t0 = time.perf_counter()
            if ws is not None:
                with ws:
                    losses.append(step_once(x, y, w1, w2, args.lr))
            else:
                losses.append(step_once(x, y, w1, w2, args.lr))
            sync()
            times.append(time.perf_counter() - t0)
        result = {"ms_per_iter": statistics.median(times[args.warmup:]) * 1e3,
                  "allocator_calls_per_iter": (counter.calls - calls_before) / args.steps,
                  "peak_device_bytes": counter.peak, "final_loss": losses[-1]}
        if ws is not None:
            s = ws.stats()
            result.update(workspace_capacity=s["capacity"], foreign_stream_spills=s["foreign_stream_spills"],
                          syncs=s["syncs"])
            ws.destroy()
    return result


def step_once(x, y, w1, w2, lr):
    h = np.tanh(x @ w1)
    err = h @ w2 - y
    g2 = h.T @ err / len(x)
    g1 = x.T @ ((err @ w2.T) * (1.0 - h * h)) / len(x)
    w1 -= lr * g1  # in place: the weights live outside the workspace, updated by every cycle
    w2 -= lr * g2
    return float(np.mean(err * err))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="cuda:0")
    p.add_argument("--batch", type=int, default=1024)
    p.add_argument("--features", type=int, default=512)
    p.add_argument("--hidden", type=int, default=2048)
    p.add_argument("--classes", type=int, default=16)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    kind = args.device.split(":")[0]
    if kind == "cuda":
        from wsarray import cuda

        status = cuda.status()
        if not status["usable"]:
            print(f"skipped: no GPU ({status['reason']})")
            return 0
        device = np.Device(args.device)
        hooks = cupy_hooks(device)
    elif kind == "fake":
        index = int(args.device.split(":")[1]) if ":" in args.device else 0
        from wsarray._devices import fake

        fake.enable(index + 1)
        device = np.Device(f"fake:{index}")
        hooks = fake_hooks(device)
    else:
        p.error(f"--device must be cuda:N or fake:N, not {args.device!r}")
    rounds = {"pool": [], "workspace": []}
    for r in range(args.rounds):
        for mode in (("pool", "workspace") if r % 2 == 0 else ("workspace", "pool")):
            rounds[mode].append(train(mode, device, args, hooks))
    summary = {mode: {k: statistics.median(run[k] for run in runs) for k in runs[0]} for mode, runs in rounds.items()}
    summary["ratio_ms_workspace_over_pool"] = statistics.median(
        w["ms_per_iter"] / p_["ms_per_iter"] for w, p_ in zip(rounds["workspace"], rounds["pool"]))
    summary["device"] = str(device)
    if args.json:
        print(json.dumps(summary))
        return 0
    print(f"MLP on {device}: batch {args.batch}, {args.features}-{args.hidden}-{args.classes}, "
          f"{args.steps} steps x {args.rounds} rounds (medians)")
    print(f"{'mode':10s} {'ms/iter':>9s} {'alloc calls/iter':>17s} {'peak device MB':>15s} {'final loss':>11s}")
    for mode in ("pool", "workspace"):
        m = summary[mode]
        print(f"{mode:10s} {m['ms_per_iter']:9.3f} {m['allocator_calls_per_iter']:17.2f} "
              f"{m['peak_device_bytes'] / 1e6:15.2f} {m['final_loss']:11.5f}")
    print(f"workspace / pool time per iteration (median of per-round ratios): "
          f"{summary['ratio_ms_workspace_over_pool']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
