"""A training loop as a user writes it, annotated, checked with mypy --strict."""
from collections.abc import Iterator

import numpy
import wsarray as np
from wsarray.data import AsyncIterator
from wsarray.typing import ArrayLike, NDArray

Batch = tuple[NDArray[np.float64], NDArray[np.float64]]


def batches(x: NDArray[np.float64], y: NDArray[np.float64], size: int) -> Iterator[Batch]:
    for start in range(0, len(x), size):
        yield x[start:start + size], y[start:start + size]


def gradient(w: NDArray[np.float64], x: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
    residual = x @ w - y
    return x.T @ residual / len(y)


def loss(w: NDArray[np.float64], x: ArrayLike, y: ArrayLike) -> float:
    r = np.asarray(x) @ w - np.asarray(y)
    return float(np.mean(r * r))


def train(x: NDArray[np.float64], y: NDArray[np.float64], epochs: int, lr: float = 0.1) -> NDArray[np.float64]:
    config = np.WorkspaceConfig(initial_size="1MB", learning="over_time", spill="reallocate")
    w = np.zeros(x.shape[1])
    for _ in range(epochs):
        with AsyncIterator(batches(x, y, 16), queue_size=2) as it:
            for xb, yb in it:
                with np.workspace("STEP", config) as ws:
                    w = (w - lr * gradient(w, xb, yb)).detach()
                    assert ws.is_open and ws.name == "STEP"
        print(f"epoch loss {loss(w, x, y):.4f}", np.memory.current_workspace())
    stats: dict[str, int] = {name: s["capacity"] for name, s in np.memory.allocation_statistics().items()}
    print(stats, np.memory.workspace_exists("STEP"), np.memory.workspace_stack())
    np.memory.set_auto_gc_window(100)
    np.memory.toggle_periodic_gc(True)
    np.memory.destroy_workspace("STEP")
    return w


rng = numpy.random.default_rng(0)
x = np.asarray(rng.normal(size=(64, 3)))
y = x @ np.asarray([1.0, -2.0, 0.5])
w: NDArray[np.float64] = train(x, y, epochs=3)
print(numpy.asarray(w), w.is_attached(), np.linalg.norm(w))
