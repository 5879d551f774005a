"""wsarray.parallel.ParallelWrapper: time per epoch and final loss, serial vs 1 and 2 workers.

    python -P bench/parallel_wrapper.py              # 3 repeats
    python -P bench/parallel_wrapper.py --repeats 5 --epochs 3

A NumPy-style MLP 784-1024-10 (float32, softmax cross-entropy, plain SGD) written with wsarray,
trained on a synthetic 10-class problem (batches of 256, 40 per epoch). ``serial``: the model's own
fit_batch in a loop (BLAS on every core); ``serial, BLAS 1``: the same with one BLAS thread.
``workers=k``: ParallelWrapper with averaging every 5 iterations, BLAS capped at cores // k threads
per worker (so workers x BLAS threads <= cores); ``workers=2, 2x epochs``: twice the epochs, which
averaging needs to reach the serial loss (s/epoch stays per epoch). ``shared, workers=2``:
training_mode="shared_gradients" at the default (adaptive) threshold, with 1.5x the epochs too;
"bytes sent" is what the encoded messages weigh against the same updates sent dense.
``process workers=2``: backend="process" (one BLAS thread per worker process). ``--python-heavy``
trains ``PythonHeavyMLP`` instead (a Python loop over all 784 values of every sample in each
step, 51-52% of it measured) and compares serial with one BLAS thread, threads and processes. Each variant runs in turn
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

    def gradients(self, x, y):
        """(loss, update): what fit_batch subtracts, without applying it (gradient sharing)."""
        h, p = self.forward(x)
        n = len(y)
        loss = -np.mean(np.log(p[np.arange(n), y] + 1e-7))
        g = p.copy()
        g[np.arange(n), y] -= 1
        g /= n
        gh = (g @ self.params["w1"].T) * (h > 0)
        return loss, {"w1": self.lr * (h.T @ g), "b1": self.lr * g.sum(axis=0),
                      "w0": self.lr * (x.T @ gh), "b0": self.lr * gh.sum(axis=0)}

    def fit_batch(self, x, y):
        loss, update = self.gradients(x, y)
        for name, step in update.items():
            self.params[name] -= step
        return loss


class PythonHeavyMLP(MLP):
    """The MLP with per-sample Python work in each step (a feature computed by a Python loop over
    every value of each sample, as a tokenizer or a custom loss would): about half the step."""

    def __init__(self, *args, work=784, **kwargs):
        super().__init__(*args, **kwargs)
        self.work = work

    def _python_work(self, x):
        rows = numpy.asarray(x)[:, :self.work].tolist()
        total = 0.0
        for row in rows:
            for v in row:
                total += v * v if v > 0 else -v
        return total

    def gradients(self, x, y):  # fit_batch calls it: the Python work runs once per step
        self._python_work(x)
        return super().gradients(x, y)


def data(batches=40, batch=256, seed=1):
    rng = numpy.random.default_rng(seed)
    centers = rng.normal(size=(10, 784)).astype(numpy.float32)
    out = []
    for _ in range(batches):
        y = rng.integers(0, 10, batch)
        x = (centers[y] + 6.0 * rng.normal(size=(batch, 784))).astype(numpy.float32)
        out.append((x, y))
    return out


def run(variant, batches, epochs, model_class=None):
    model = (model_class or MLP)()
    if variant.endswith("2x epochs"):
        epochs *= 2
    if variant.endswith("1.5x epochs"):
        epochs = epochs * 3 // 2
    start = time.perf_counter()
    sent = None
    if variant.startswith("serial"):
        limits = contextlib.nullcontext()
        if variant.endswith("BLAS 1"):
            import threadpoolctl

            limits = threadpoolctl.threadpool_limits(1, user_api="blas")
        with limits:
            for _ in range(epochs):
                for x, y in batches:
                    model.fit_batch(np.asarray(x), np.asarray(y))
    elif variant.startswith("shared"):
        workers = int(variant.split("=")[1][0])
        backend = "process" if "process" in variant else "thread"
        pw = ParallelWrapper(model, workers=workers, training_mode="shared_gradients",
                             backend=backend).fit(batches, epochs=epochs)
        sent = pw.stats()["bytes_exchanged"] / pw.stats()["dense_bytes"]
    elif variant.startswith("process"):
        workers = int(variant.split("=")[1][0])
        ParallelWrapper(model, workers=workers, averaging_frequency=5, backend="process").fit(batches, epochs=epochs)
    else:
        workers = int(variant.split("=")[1][0])
        ParallelWrapper(model, workers=workers, averaging_frequency=5).fit(batches, epochs=epochs)
    seconds = (time.perf_counter() - start) / epochs
    x = np.asarray(numpy.concatenate([b[0] for b in batches]))
    y = np.asarray(numpy.concatenate([b[1] for b in batches]))
    return seconds, model.loss(x, y), sent


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--python-heavy", action="store_true",
                        help="a step with about half its time in Python: threads against processes")
    args = parser.parse_args(argv)
    batches = data()
    variants = ["serial", "serial, BLAS 1", "workers=1", "workers=2", "workers=2, 2x epochs",
                "shared, workers=2", "shared, workers=2, 1.5x epochs", "process workers=2",
                "process workers=2, 2x epochs", "shared process, workers=2"]
    model_class = MLP
    if args.python_heavy:
        model_class = PythonHeavyMLP
        variants = ["serial, BLAS 1", "workers=2", "process workers=2", "shared, workers=2",
                    "shared process, workers=2"]
    load_before = os.getloadavg()[0]
    runs = {v: [] for v in variants}
    for k in range(args.repeats):
        for v in variants:
            runs[v].append(run(v, batches, args.epochs, model_class))
            print(f"  repeat {k + 1}: {v} {runs[v][-1][0]:.3f} s/epoch", file=sys.stderr)
    base = statistics.median(r[0] for r in runs[variants[0]])
    print(f"{model_class.__name__} 784-1024-10 float32, 40 batches of 256 per epoch, {args.epochs} epochs, medians of "
          f"{args.repeats}; load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after "
          f"on {os.cpu_count()} cores")
    print(f"{'variant':31s} {'s/epoch':>8s} {'vs ' + variants[0]:>9s} {'final loss':>10s} {'bytes sent':>10s}")
    for v in variants:
        s = statistics.median(r[0] for r in runs[v])
        loss = statistics.median(r[1] for r in runs[v])
        sent = [r[2] for r in runs[v] if r[2] is not None]
        shown = f"{statistics.median(sent):9.1%}" if sent else "-"
        print(f"{v:31s} {s:8.3f} {s / base:8.2f}x {loss:10.4f} {shown:>10s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
