"""wsarray.data.PerformanceListener: the figures of any loop, every ``frequency`` iterations.

Deeplearning4j's PerformanceListener for a plain Python loop: ``for batch in
listener.track(it): ... listener.record(score=loss)``. Every ``frequency`` iterations it reports,
averaged over those iterations (Deeplearning4j reports the last one only): ETL time (time blocked
waiting for data: the AsyncIterator's own figure when it tracks one), time per iteration,
samples/s, batches/s, the score, workspace memory (from the cycle listeners of wsarray.memory:
capacity, used, peak per cycle, spilled, summed over the workspaces whose cycles ended in the
interval), minor page faults and Python GC collections. Lines go to
``logging`` (logger ``wsarray.data``); with tqdm installed (``pip install "wsarray[progress]"``) a
progress bar shows them too. ``history`` keeps every report; ``plot(path)`` draws it
(``pip install "wsarray[plot]"``).
"""

from __future__ import annotations

import gc
import logging
import resource
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from os import PathLike
from typing import Any, Literal, TypeVar

from .. import memory
from ._batches import sample_count
from .iterator import AsyncIterator

__all__ = ["PerformanceListener"]

MIB = 2 ** 20

_BatchT = TypeVar("_BatchT")
_PathT = TypeVar("_PathT", str, PathLike[str])


class PerformanceListener:
    """Report the performance of a loop every ``frequency`` iterations.

    ``PerformanceListener(frequency=10, report_score=False, *, logger=None, progress="auto",
    clock=time.perf_counter)``

    ``for batch in listener.track(iterable): ...; listener.record(score=loss, samples=len(x))``.
    ``samples`` defaults to the length of the batch's first array. ``progress``: ``"auto"`` shows
    a tqdm bar when tqdm is installed and stderr is a terminal, ``True`` always (ImportError
    naming the extra without tqdm), ``False`` never. ``clock`` times iterations (tests pass a fake
    one). ``history`` is a list of dicts, one per report; ``plot(path)`` writes a PNG of
    throughput, ETL and iteration time, and workspace memory over the iterations.
    """

    def __init__(self, frequency: int = 10, report_score: bool = False, *, logger: logging.Logger | None = None,
                 progress: bool | Literal["auto"] = "auto", clock: Callable[[], float] = time.perf_counter) -> None:
        fn = "wsarray.data.PerformanceListener()"
        if isinstance(frequency, bool) or not isinstance(frequency, int) or frequency < 1:
            raise ValueError(f"{fn}: frequency must be an int of at least 1, got {frequency!r}")
        if progress not in ("auto", True, False):
            raise ValueError(f"{fn}: progress must be 'auto', True or False, got {progress!r}")
        if progress is True:
            _tqdm()  # fail now, not in the middle of the loop
        self.frequency = frequency
        self.report_score = bool(report_score)
        self.logger = logger if logger is not None else logging.getLogger("wsarray.data")
        self.progress = progress
        self.clock = clock
        self.iteration = 0
        self.history: list[dict[str, Any]] = []
        self.evaluations: list[dict[str, Any]] = []
        self._lock = threading.RLock()
        self._workspaces = {}   # (thread, name) -> latest {capacity, used}
        self._current = None    # the running iteration's record() values
        self._cycle_listener = self._on_cycle  # one bound method: removed by identity
        self._start_interval()

    # -- the loop -----------------------------------------------------------------------------

    def track(self, iterable: Iterable[_BatchT], total: int | None = None) -> Iterator[_BatchT]:
        """Iterate ``iterable``, timing each iteration (a generator; break out of it freely)."""
        source = iter(iterable)
        if total is None:
            try:
                total = len(iterable)  # type: ignore[arg-type]
            except TypeError:
                total = None
        prefetching = iterable if isinstance(iterable, AsyncIterator) else None
        bar = self._open_bar(total)
        memory.add_cycle_listener(self._cycle_listener)
        clock = self.clock
        try:
            while True:
                start = clock()
                try:
                    batch = next(source)
                except StopIteration:
                    break
                got = clock()
                etl = prefetching.last_wait_s if prefetching is not None else got - start
                self._current = {"score": None, "samples": sample_count(batch), "etl": etl,
                                 "start": start}
                yield batch
                self._iteration_done(clock() - self._current["start"], bar)
        finally:
            if self._current is not None:  # the loop broke out (or raised) in this iteration
                self._iteration_done(clock() - self._current["start"], bar)
            memory.remove_cycle_listener(self._cycle_listener)
            if self._interval["iterations"]:
                self._report(bar)  # the last, partial interval
            if bar is not None:
                bar.close()

    def record(self, score: float | None = None, samples: int | None = None) -> None:
        """The current iteration's score (reported when ``report_score``) and sample count."""
        if self._current is None:
            raise RuntimeError("wsarray.data.PerformanceListener.record(): call it inside a loop "
                               "over listener.track(...)")
        if score is not None:
            self._current["score"] = float(score)
        if samples is not None:
            self._current["samples"] = int(samples)

    # -- accumulating --------------------------------------------------------------------------

    def _start_interval(self):
        with self._lock:
            self._interval = {"iterations": 0, "time": 0.0, "etl": 0.0, "samples": 0, "scores": [],
                              "peak": {}, "spilled": 0, "faults": _minor_faults(),
                              "gc": _gc_collections()}

    def _on_cycle(self, event):
        key = (event["thread"], event["workspace"])
        with self._lock:
            self._workspaces[key] = (event["capacity"], event["used"])
            peak = self._interval["peak"]
            peak[key] = max(peak.get(key, 0), event["peak_cycle_bytes"])
            self._interval["spilled"] += event["spilled_cycle_bytes"]

    def _iteration_done(self, seconds, bar):
        current, self._current = self._current, None
        interval = self._interval
        interval["iterations"] += 1
        interval["time"] += seconds
        interval["etl"] += current["etl"]
        interval["samples"] += current["samples"] or 0
        if current["score"] is not None:
            interval["scores"].append(current["score"])
        self.iteration += 1
        if bar is not None:
            bar.update(1)
        if interval["iterations"] >= self.frequency:
            self._report(bar)

    def _report(self, bar):
        with self._lock:
            i = self._interval
            # the workspaces whose cycles ended in the interval (destroyed ones drop out)
            latest = [self._workspaces[key] for key in i["peak"]]
            capacity = sum(c for c, _ in latest)
            used = sum(u for _, u in latest)
            peak, spilled = sum(i["peak"].values()), i["spilled"]
        n, seconds = i["iterations"], i["time"]
        entry = {
            "iteration": self.iteration,
            "iterations": n,
            "etl_s": i["etl"] / n,
            "iteration_s": seconds / n,
            "samples_per_s": i["samples"] / seconds if seconds > 0 else float("inf"),
            "batches_per_s": n / seconds if seconds > 0 else float("inf"),
            "score": sum(i["scores"]) / len(i["scores"]) if i["scores"] else None,
            "workspace_capacity": capacity,
            "workspace_used": used,
            "workspace_peak_cycle": peak,
            "workspace_spilled": spilled,
            "page_faults_per_iteration": (_minor_faults() - i["faults"]) / n,
            "gc_collections": _gc_collections() - i["gc"],
        }
        self.history.append(entry)
        line = self.format(entry)
        self.logger.info(line)
        if bar is not None:
            bar.set_postfix_str(line.split("; ", 1)[1] if "; " in line else line, refresh=True)
        self._start_interval()

    def evaluation(self, iteration: int, epoch: int, metrics: Any) -> None:
        """Log the headline scores of ``metrics`` (``wsarray.evaluation`` metrics, e.g. from
        ``ParallelWrapper.fit(eval_data=..., metrics=...)``) at ``iteration``, and keep them in
        ``evaluations``: dicts of iteration, epoch and ``MetricName.score`` values."""
        entry: dict[str, Any] = {"iteration": iteration, "epoch": epoch}
        for metric in metrics:
            for name, value in metric.summary().items():
                entry[f"{type(metric).__name__}.{name}"] = value
        self.evaluations.append(entry)
        scores = ", ".join(f"{k}: {v:.4f}" for k, v in entry.items() if k not in ("iteration", "epoch"))
        self.logger.info(f"evaluation at iteration {iteration} (epoch {epoch}): {scores}")

    def format(self, entry: dict[str, Any]) -> str:
        """The report line of a ``history`` entry."""
        parts = [f"ETL: {_ms(entry['etl_s'])}", f"iteration {entry['iteration']}",
                 f"iteration time: {_ms(entry['iteration_s'])}",
                 f"samples/sec: {entry['samples_per_s']:.1f}",
                 f"batches/sec: {entry['batches_per_s']:.1f}"]
        if self.report_score:
            score = entry["score"]
            parts.append(f"score: {score:.4g}" if score is not None else "score: n/a")
        parts.append(f"workspaces: capacity {_bytes(entry['workspace_capacity'])}, used "
                     f"{_bytes(entry['workspace_used'])}, peak/cycle "
                     f"{_bytes(entry['workspace_peak_cycle'])}, spilled "
                     f"{_bytes(entry['workspace_spilled'])}")
        parts.append(f"page faults/iteration: {entry['page_faults_per_iteration']:.1f}")
        parts.append(f"GC collections: {entry['gc_collections']}")
        return "; ".join(parts)

    def _open_bar(self, total):
        if self.progress is False:
            return None
        if self.progress == "auto":
            try:
                tqdm = _tqdm()
            except ImportError:
                return None
            if not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
                return None
        else:
            tqdm = _tqdm()
        return tqdm(total=total, unit="batch", initial=0, dynamic_ncols=True)

    # -- the plot -----------------------------------------------------------------------------

    def plot(self, path: _PathT, title: str = "wsarray.data.PerformanceListener") -> _PathT:
        """Write a PNG of the history: throughput, ETL and iteration time, workspace memory."""
        from ._plot import plot_history

        if not self.history:
            raise ValueError("wsarray.data.PerformanceListener.plot(): nothing to plot yet (no "
                             "report in the history)")
        plot_history(self.history, path, title)
        return path


def _tqdm():
    try:
        from tqdm import tqdm
    except ImportError:
        raise ImportError('wsarray.data.PerformanceListener: the progress bar needs tqdm: '
                          'pip install "wsarray[progress]"') from None
    return tqdm


def _minor_faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _gc_collections():
    return sum(s["collections"] for s in gc.get_stats())


def _ms(seconds):
    ms = seconds * 1e3
    return f"{ms:.0f} ms" if ms >= 100 else f"{ms:.1f} ms" if ms >= 10 else f"{ms:.2f} ms"


def _bytes(n):
    if n >= MIB:
        return f"{n / MIB:.1f} MiB"
    if n >= 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n} B"
