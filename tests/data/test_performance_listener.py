"""PerformanceListener: its figures against a fake clock, its output, its plot."""
import logging
import sys

import numpy
import pytest

import wsarray as wnp
from wsarray.data import AsyncIterator, PerformanceListener


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now

    def advance(self, ms):
        self.now += ms / 1e3


class TimedSource:
    """Each next() takes etl_ms[i] on the fake clock; batches of `rows` rows."""

    def __init__(self, clock, etl_ms, rows=32):
        self.clock, self.etl_ms, self.rows = clock, etl_ms, rows

    def __iter__(self):
        for ms in self.etl_ms:
            self.clock.advance(ms)
            yield numpy.zeros((self.rows, 2))

    def __len__(self):
        return len(self.etl_ms)


def listener_with_log(frequency, **kw):
    logger = logging.getLogger(f"test.listener.{id(kw)}")
    logger.setLevel(logging.INFO)
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logger.addHandler(handler)
    return PerformanceListener(frequency, logger=logger, progress=False, **kw), records


def test_figures_are_averaged_over_the_interval():
    clock = FakeClock()
    listener, records = listener_with_log(2, report_score=True, clock=clock)
    source = TimedSource(clock, etl_ms=[2, 4, 10, 10])
    step_ms = [8, 16, 40, 40]
    scores = [1.0, 0.5, 0.25, 0.25]
    for i, _batch in enumerate(listener.track(source)):
        clock.advance(step_ms[i])
        listener.record(score=scores[i])
    assert [h["iteration"] for h in listener.history] == [2, 4]
    first = listener.history[0]
    assert first["iterations"] == 2
    assert first["etl_s"] == pytest.approx(0.003)          # (2 + 4) / 2 ms
    assert first["iteration_s"] == pytest.approx(0.015)    # (10 + 20) / 2 ms
    assert first["samples_per_s"] == pytest.approx(64 / 0.030)
    assert first["batches_per_s"] == pytest.approx(2 / 0.030)
    assert first["score"] == pytest.approx(0.75)
    line = records[0].getMessage()
    assert line.startswith("ETL: 3.00 ms; iteration 2; iteration time: 15.0 ms; samples/sec: 2133.3; "
                           "batches/sec: 66.7; score: 0.75; workspaces: ")
    assert "page faults/iteration: " in line and "GC collections: " in line
    assert listener.history[1]["iteration_s"] == pytest.approx(0.050)
    assert len(records) == 2


def test_samples_from_record_and_a_partial_last_interval():
    clock = FakeClock()
    listener, records = listener_with_log(10, clock=clock)
    for _batch in listener.track(TimedSource(clock, [1] * 3, rows=8)):
        clock.advance(9)
        listener.record(samples=5)
    (entry,) = listener.history  # 3 iterations < frequency: reported at the end
    assert entry["iterations"] == 3 and entry["iteration"] == 3
    assert entry["samples_per_s"] == pytest.approx(15 / 0.030)
    assert "score" not in records[0].getMessage()


def test_iterations_count_across_loops_and_break_reports():
    clock = FakeClock()
    listener, _ = listener_with_log(2, clock=clock)
    for _ in range(2):
        for i, _batch in enumerate(listener.track(TimedSource(clock, [1] * 5))):
            clock.advance(1)
            if i == 2:
                break
    assert listener.iteration == 6
    assert [h["iteration"] for h in listener.history] == [2, 3, 5, 6]
    assert wnp.memory.cycle_listeners() == []  # removed when the loop ended


def test_record_outside_a_loop():
    with pytest.raises(RuntimeError, match="inside a loop"):
        PerformanceListener(progress=False).record(score=1.0)


def test_bad_arguments():
    with pytest.raises(ValueError, match="frequency"):
        PerformanceListener(0)
    with pytest.raises(ValueError, match="progress"):
        PerformanceListener(progress="yes")


def test_workspace_memory_and_etl_from_the_prefetching_iterator():
    listener, records = listener_with_log(4)
    src = [numpy.ones((16, 1000)) for _ in range(8)]
    with AsyncIterator(src, queue_size=2) as it:
        for batch in listener.track(it):
            with wnp.workspace("STEP"):
                float((batch * 2).sum())
        waits = it.stats()["consumer_wait_s"]
    second = listener.history[1]
    assert second["workspace_capacity"] > 0  # the slots and STEP
    assert second["workspace_peak_cycle"] >= 16 * 1000 * 8
    total_etl = sum(h["etl_s"] * h["iterations"] for h in listener.history)
    assert total_etl == pytest.approx(waits)  # the iterator's own wait figures
    assert second["samples_per_s"] > 0


def test_gc_collections_are_counted():
    clock = FakeClock()
    listener, _ = listener_with_log(3, clock=clock)
    import gc

    for _batch in listener.track(TimedSource(clock, [1] * 3)):
        gc.collect()
    assert listener.history[0]["gc_collections"] >= 3


def test_without_tqdm_it_logs_and_asking_for_a_bar_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    with pytest.raises(ImportError, match=r'pip install "wsarray\[progress\]"'):
        PerformanceListener(progress=True)
    clock = FakeClock()
    logger = logging.getLogger("test.listener.notqdm")
    logger.setLevel(logging.INFO)
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logger.addHandler(handler)
    listener = PerformanceListener(1, logger=logger, progress="auto", clock=clock)
    for _batch in listener.track(TimedSource(clock, [1, 1])):
        pass
    assert len(records) == 2


def test_progress_bar_with_tqdm(capsys):
    pytest.importorskip("tqdm")
    clock = FakeClock()
    listener = PerformanceListener(2, progress=True, clock=clock)
    for _batch in listener.track(TimedSource(clock, [1] * 4)):
        clock.advance(1)
    err = capsys.readouterr().err
    assert "4/4" in err and "samples/sec" in err


def test_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    clock = FakeClock()
    listener, _ = listener_with_log(2, clock=clock)
    with pytest.raises(ValueError, match="nothing to plot"):
        listener.plot(tmp_path / "x.png")
    for _batch in listener.track(TimedSource(clock, [1, 2, 3, 4, 5, 6])):
        clock.advance(5)
    path = listener.plot(tmp_path / "perf.png")
    data = open(path, "rb").read()
    assert data.startswith(b"\x89PNG") and len(data) > 10_000


def test_plot_without_matplotlib_names_the_extra(monkeypatch, tmp_path):
    clock = FakeClock()
    listener, _ = listener_with_log(1, clock=clock)
    for _batch in listener.track(TimedSource(clock, [1])):
        pass
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    monkeypatch.setitem(sys.modules, "matplotlib.backends.backend_agg", None)
    with pytest.raises(ImportError, match=r'pip install "wsarray\[plot\]"'):
        listener.plot(tmp_path / "p.png")
