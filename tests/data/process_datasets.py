"""Datasets of the process-backend tests, importable by name (the spawn start method pickles them
by reference): samples computed from their index, so every test knows what each batch must be."""
import os
import time

import numpy

from wsarray.data import worker_info


class Squares:
    """Sample i: (features float32[4] = i, i + 0.5, ..., label int64 i*i)."""

    def __init__(self, n=40, delay=0.0):
        self.n, self.delay = n, delay

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.delay:
            time.sleep(self.delay)
        return numpy.arange(4, dtype=numpy.float32) * 0.5 + i, i * i


def expected_squares(indices):
    x = numpy.stack([numpy.arange(4, dtype=numpy.float32) * 0.5 + i for i in indices])
    return x, numpy.array([i * i for i in indices])


class Noisy(Squares):
    """Random augmentation drawn from the global NumPy and Python generators (seeded per batch)."""

    def __getitem__(self, i):
        import random
        return numpy.random.random(3) + i, random.random(), worker_info().rng.integers(0, 1 << 30)


class Failing(Squares):
    """Raises ValueError for index ``bad``."""

    def __init__(self, n, bad):
        super().__init__(n)
        self.bad = bad

    def __getitem__(self, i):
        if i == self.bad:
            raise ValueError(f"sample {i} is broken")
        return super().__getitem__(i)


class Dying(Squares):
    """The worker process dies (os._exit) on index ``bad``: always, or once (a marker file)."""

    def __init__(self, n, bad, marker=None):
        super().__init__(n)
        self.bad, self.marker = bad, marker

    def __getitem__(self, i):
        if i == self.bad:
            if self.marker is None:
                os._exit(3)
            if not os.path.exists(self.marker):
                open(self.marker, "w").close()
                os._exit(3)
        return super().__getitem__(i)


class Records:
    """Dict samples with a string and a number: {'x': float64[2, 3], 'name': str, 'w': float}."""

    def __len__(self):
        return 10

    def __getitem__(self, i):
        return {"x": numpy.full((2, 3), float(i)), "name": f"r{i}", "w": i / 10}


class Stream:
    """An iterable dataset sharded by worker: worker k yields the numbers k, k + W, k + 2W, ... < n."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(start, self.n, step):
            yield numpy.full(3, float(i))


def pad_collate(samples):
    """Pads variable-length 1-d samples to the longest: (padded float64[B, L], lengths int64[B])."""
    longest = max(len(s) for s in samples)
    out = numpy.zeros((len(samples), longest))
    for k, s in enumerate(samples):
        out[k, :len(s)] = s
    return out, numpy.array([len(s) for s in samples])


class Ragged:
    def __len__(self):
        return 12

    def __getitem__(self, i):
        return numpy.arange(1 + i % 5, dtype=float)


class Unpicklable(Squares):
    """Sample ``bad`` carries a lambda beside its arrays: a value that cannot reach the owner."""

    def __init__(self, n, bad):
        super().__init__(n)
        self.bad = bad

    def __getitem__(self, i):
        x, y = super().__getitem__(i)
        return (x, y, (lambda: i) if i == self.bad else i)
