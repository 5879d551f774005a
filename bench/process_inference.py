"""ParallelInference with a Python-heavy model: the thread backend against the process backend.

    python -P bench/process_inference.py                 # 5 runs per backend, interleaved
    python -P bench/process_inference.py --repeats 3 --seconds 2
    python -P bench/process_inference.py --batch-limit 8    # smaller batches: more per-batch cost

Model: a linear layer (32 -> 8) after a pure-Python pass over every value of the request, 200
times (a tokenizer, a feature hash, a custom post-processing written in Python: the GIL is held
all along), about 0.5 ms of Python per 4-row request. 16 client threads each send 4-row requests
in a closed loop for --seconds; 2 workers, batched mode, batch_limit 32. Figures: requests per
second, medians; the process backend's ratio to the thread backend's. Target: at least 1.6x.
"""

import argparse
import statistics
import sys
import threading
import time

import numpy

from wsarray.parallel import ParallelInference


class PythonHeavy:
    def __init__(self, passes=200):
        self.w = numpy.random.default_rng(0).normal(size=(32, 8))
        self.passes = passes

    def predict(self, x):
        x = numpy.asarray(x)
        total = 0.0
        for row in x.tolist():
            for _ in range(self.passes):
                for v in row:
                    total += v * v
        return x @ self.w


def throughput(backend, clients, seconds, batch_limit=32):
    pi = ParallelInference(PythonHeavy(), workers=2, backend=backend, batch_limit=batch_limit)
    x = numpy.ones((4, 32))
    expected = x @ PythonHeavy().w
    assert numpy.allclose(numpy.asarray(pi.output(x)), expected)
    done = [0] * clients
    stop = time.monotonic() + seconds

    def client(k):
        while time.monotonic() < stop:
            pi.output(x)
            done[k] += 1

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rate = sum(done) / (time.perf_counter() - start)
    pi.shutdown()
    return rate


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--batch-limit", type=int, default=32, help="rows per batch (default 32)")
    args = parser.parse_args(argv)
    runs = {"thread": [], "process": []}
    for r in range(args.repeats):
        for backend in runs:
            runs[backend].append(throughput(backend, args.clients, args.seconds, args.batch_limit))
            print(f"  run {r + 1}: {backend} {runs[backend][-1]:.0f} req/s", file=sys.stderr)
    thread, process = (statistics.median(runs[b]) for b in ("thread", "process"))
    ratios = [p / t for p, t in zip(runs["process"], runs["thread"])]
    print(f"{args.clients} clients, 2 workers, 4-row requests, medians of {args.repeats} runs of {args.seconds} s")
    print(f"thread backend   {thread:8.0f} req/s")
    print(f"process backend  {process:8.0f} req/s   {process / thread:.2f}x "
          f"(per run {min(ratios):.2f}x to {max(ratios):.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
