"""wsarray.parallel.ParallelWrapper: time per epoch and final loss, serial vs 1 and 2 workers.

    python -P bench/parallel_wrapper.py              # 3 repeats
    python -P bench/parallel_wrapper.py --repeats 5 --epochs 3

A NumPy-style MLP 784-1024-10 (float32, softmax cross-entropy, plain SGD) written with wsarray,
trained on a synthetic 10-class problem (batches of 256, 40 per epoch). ``serial``: the model's own
fit_batch in a loop (BLAS on every core); ``serial, BLAS 1``: the same with one BLAS thread.
``workers=k``: ParallelWrapper with averaging every 5 iterations, BLAS capped at cores // k threads
per worker (so workers x BLAS threads <= cores); ``workers=2, 2x epochs``: twice the epochs, which
averaging needs to reach the serial loss (s/epoch stays per epoch). Each variant runs in turn
within every repeat; medians. The load average is printed: on a shared machine, BLAS pools of 2
threads slow down many times when other processes take a core, single-threaded BLAS much less.
"""

import argparse
import contextlib
import os
import statistics
import sys
import time

import numpy

import wsarray as np
from wsarray.parallel import ParallelWrapper


class MLP:
    def __init__(self, sizes=(784, 1024, 10), lr=0.02, seed=0):
        rng = numpy.random.default_rng(seed)
        self.params = {}
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            self.params[f"w{i}"] = np.asarray((rng.normal(size=(a, b)) / numpy.sqrt(a)).astype(numpy.float32))
            self.params[f"b{i}"] = np.zeros(b, dtype=np.float32)
        self.lr = numpy.float32(lr)

    def forward(self, x):
        h = np.maximum(x @ self.params["w0"] + self.params["b0"], 0)
        z = h @ self.params["w1"] + self.params["b1"]
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return h, e / e.sum(axis=1, keepdims=True)

    def loss(self, x, y):
        _, p = self.forward(x)
        return float(-np.mean(np.log(p[np.arange(len(y)), y] + 1e-7)))

    def fit_batch(self, x, y):
        h, p = self.forward(x)
        n = len(y)
        loss = -np.mean(np.log(p[np.arange(n), y] + 1e-7))
        g = p.copy()
        g[np.arange(n), y] -= 1
        g /= n
        gh = (g @ self.params["w1"].T) * (h > 0)
        self.params["w1"] -= self.lr * (h.T @ g)
        self.params["b1"] -= self.lr * g.sum(axis=0)
        self.params["w0"] -= self.lr * (x.T @ gh)
        self.params["b0"] -= self.lr * gh.sum(axis=0)
        return loss


def data(batches=40, batch=256, seed=1):
    rng = numpy.random.default_rng(seed)
    centers = rng.normal(size=(10, 784)).astype(numpy.float32)
    out = []
    for _ in range(batches):
        y = rng.integers(0, 10, batch)
        x = (centers[y] + 6.0 * rng.normal(size=(batch, 784))).astype(numpy.float32)
        out.append((x, y))
    return out


def run(variant, batches, epochs):
    model = MLP()
    if variant.endswith("2x epochs"):
        epochs *= 2
    start = time.perf_counter()
    if variant.startswith("serial"):
        limits = contextlib.nullcontext()
        if variant.endswith("BLAS 1"):
            import threadpoolctl

            limits = threadpoolctl.threadpool_limits(1, user_api="blas")
        with limits:
            for _ in range(epochs):
                for x, y in batches:
                    model.fit_batch(np.asarray(x), np.asarray(y))
    else:
        workers = int(variant.split("=")[1][0])
        ParallelWrapper(model, workers=workers, averaging_frequency=5).fit(batches, epochs=epochs)
    seconds = (time.perf_counter() - start) / epochs
    x = np.asarray(numpy.concatenate([b[0] for b in batches]))
    y = np.asarray(numpy.concatenate([b[1] for b in batches]))
    return seconds, model.loss(x, y)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args(argv)
    batches = data()
    variants = ["serial", "serial, BLAS 1", "workers=1", "workers=2", "workers=2, 2x epochs"]
    load_before = os.getloadavg()[0]
    runs = {v: [] for v in variants}
    for k in range(args.repeats):
        for v in variants:
            runs[v].append(run(v, batches, args.epochs))
            print(f"  repeat {k + 1}: {v} {runs[v][-1][0]:.3f} s/epoch", file=sys.stderr)
    base = statistics.median(s for s, _ in runs["serial"])
    print(f"MLP 784-1024-10 float32, 40 batches of 256 per epoch, {args.epochs} epochs, medians of "
          f"{args.repeats}; load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after "
          f"on {os.cpu_count()} cores")
    print(f"{'variant':22s} {'s/epoch':>8s} {'vs serial':>9s} {'final loss':>10s}")
    for v in variants:
        s = statistics.median(t for t, _ in runs[v])
        loss = statistics.median(v_ for _, v_ in runs[v])
        print(f"{v:22s} {s:8.3f} {s / base:8.2f}x {loss:10.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
