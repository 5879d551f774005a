"""The rest of the public Python API as a user writes it, annotated, checked with mypy --strict:
wsarray.data's WorkspaceManager, PerformanceListener, save_batches/BatchDirectory, wsarray.parallel,
wsarray.fuse and show_config (tests/package/test_typing.py also runs it)."""
import logging
import sys
import tempfile
from typing import Any

import numpy
import wsarray as np
from wsarray.data import BatchDirectory, PerformanceListener, WorkspaceManager, WorkspaceMode, save_batches
from wsarray.parallel import ParallelInference, ParallelWrapper
from wsarray.typing import NDArray

Batch = tuple[NDArray[np.float64], NDArray[np.float64]]


class LinearModel:
    """The model protocol of ParallelWrapper: params and fit_batch."""

    def __init__(self, d: int) -> None:
        self.params: dict[str, NDArray[np.float64]] = {"w": np.zeros(d)}

    def fit_batch(self, x: NDArray[np.float64], y: NDArray[np.float64]) -> float:
        r = x @ self.params["w"] - y
        self.params["w"] = self.params["w"] - 0.1 * (x.T @ r) / len(y)
        return float(np.mean(r * r))


@np.fuse
def axpy(a: float, x: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
    return a * x + y


def layer(mgr: WorkspaceManager, x: NDArray[np.float64]) -> NDArray[np.float64]:
    tmp = mgr.create("working_memory", x.shape)
    tmp += x * 2.0
    return mgr.leverage_to("activations", tmp)


def step(mgr: WorkspaceManager, x: NDArray[np.float64]) -> float:
    out = mgr.run_in("working_memory", layer, mgr, x)
    mgr.check("activations", out)
    return float(np.mean(out))


def main() -> None:
    rng = np.random.default_rng(0)  # wsarray.random: NumPy's Generator to type checkers
    data: list[Batch] = [(np.asarray(rng.normal(size=(8, 3))), np.asarray(rng.normal(size=8)))
                         for _ in range(4)]
    with tempfile.TemporaryDirectory() as tmp:
        written: int = save_batches(data, tmp)
        saved = BatchDirectory(tmp, on_error="skip", shuffle=True, seed=1)
        assert written == len(saved) == 4 and len(saved.files) == 4
        mgr = WorkspaceManager(WorkspaceMode.SEPARATE)
        listener = PerformanceListener(frequency=2, report_score=True, logger=logging.getLogger("t"),
                                       progress=False)
        for xb, yb in listener.track(saved):
            listener.record(score=mgr.run_step(step, mgr, xb), samples=len(yb))
        print(listener.format(listener.history[-1]), mgr.names(), sorted(mgr.stats()))
        mgr.destroy()
    model = LinearModel(3)
    wrapper = ParallelWrapper(model, workers=2, averaging_frequency=2, workspace_mode="single",
                              listener=lambda iteration, epoch, score: None)
    wrapper.fit(data, epochs=2)
    print("wrapper", wrapper.stats()["iterations"], model.params["w"].shape)
    with ParallelInference(lambda x: x @ model.params["w"], workers=2, mode="batched") as pool:
        futures = [pool.submit(x) for x, _ in data]
        results: list[Any] = [f.result(timeout=30) for f in futures]
    assert all(numpy.array_equal(r, x @ model.params["w"]) for r, (x, _) in zip(results, data))
    print("inference", len(results), pool.stats()["completed"])
    print("fused", axpy(2.0, data[0][1], data[1][1]).shape)
    config: dict[str, Any] = np.show_config(mode="dicts")
    print(sorted(config)[:1], file=sys.stderr)


if __name__ == "__main__":
    main()
