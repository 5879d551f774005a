"""Models for the wsarray.parallel tests: a small MLP, and a model that waits at a gate."""
import threading

import numpy

import wsarray as wnp

GATE_LIMIT_S = 10  # a gate nobody opens fails the test instead of hanging it


def make_mlp(seed=0, sizes=(6, 16, 3)):
    rng = numpy.random.default_rng(seed)
    w1 = wnp.asarray(rng.standard_normal(sizes[:2]))
    w2 = wnp.asarray(rng.standard_normal(sizes[1:]))

    def mlp(x):
        return wnp.tanh(x @ w1) @ w2
    return mlp


def ragged_requests(n, features=6, seed=1, max_rows=5):
    rng = numpy.random.default_rng(seed)
    return [rng.standard_normal((int(rng.integers(1, max_rows + 1)), features)) for _ in range(n)]


class Gated:
    """Records every batch it gets (a NumPy copy), then waits for ``gate`` before computing
    ``fn``. ``gate`` starts closed; ``entered`` is set by the first call."""

    def __init__(self, fn=lambda x: x * 2.0):
        self.fn = fn
        self.gate = threading.Event()
        self.entered = threading.Event()
        self.batches = []
        self.threads = []

    def __call__(self, x):
        self.batches.append(numpy.array(numpy.asarray(x)))
        self.threads.append(threading.current_thread().name)
        self.entered.set()
        if not self.gate.wait(GATE_LIMIT_S):
            raise TimeoutError("the test never opened the gate")
        return self.fn(x)

    def wait_entered(self):
        assert self.entered.wait(GATE_LIMIT_S), "the model was never called"
