"""Seeing memory: the cycle history (all threads, bounded), snapshots as JSON, the HTML viewer and its
command, measure(), and the debug modes (escapes, bypass_everything, WSARRAY_DEBUG)."""
import json
import re
import pickle
import subprocess
import sys
import threading
import warnings

import numpy
import pytest

import wsarray as wnp
from wsarray import memory
from wsarray.data import AsyncIterator


@pytest.fixture
def history():
    memory.record_history(True, max_entries=10_000)
    yield
    memory.record_history(False)
    from wsarray.memory import history as h
    with h._lock:
        h._state.update(ring=None, last={}, threads={}, dropped=0)


def _grow(name, cycles, step=1000):
    ws = wnp.workspace(name)
    for i in range(cycles):
        with ws:
            wnp.ones(step * (i + 1)) * 2


def test_history_records_every_cycle_of_every_thread_with_what_happened(history):
    assert memory.history_enabled()
    _grow("HIST_MAIN", 5)
    worker = threading.Thread(target=_grow, args=("HIST_WORKER", 4), name="hist-worker")
    worker.start()
    worker.join()
    with AsyncIterator(iter([numpy.ones(10)] * 6), queue_size=2) as it:
        for _ in it:
            pass
    records = memory.snapshot()["history"]["records"]
    main = [r for r in records if r["workspace"] == "HIST_MAIN"]
    assert [r["cycle"] for r in main] == [1, 2, 3, 4, 5]
    assert "created" in main[0]["events"] and any("grew" in r["events"] for r in main[1:])
    assert all(r["spilled_cycle_bytes"] > 0 for r in main if "spilled" in r["events"])
    assert [r["thread_name"] for r in records if r["workspace"] == "HIST_WORKER"] == ["hist-worker"] * 4
    assert any(r["thread_name"] != threading.current_thread().name and r["workspace"] != "HIST_WORKER"
               for r in records)  # the prefetch producer's cycles
    names = {(w["thread_name"], w["name"]) for w in memory.snapshot()["workspaces"]}
    assert ("hist-worker", "HIST_WORKER") in names and (threading.current_thread().name, "HIST_MAIN") in names


class _Rows:
    def __len__(self):
        return 12

    def __getitem__(self, i):
        return numpy.full(8, float(i))


def test_history_records_the_batches_worker_processes_build_in_shared_slots(history):
    with AsyncIterator(_Rows(), backend="process", workers=2, batch_size=4, name="HISTPROC") as it:
        for _ in it:
            pass
    shared = [r for r in memory.snapshot()["history"]["records"] if ":shared" in r["workspace"]]
    assert len(shared) == 3 and all(r["workspace"].startswith("data:HISTPROC#") for r in shared)
    assert all(r["peak_cycle_bytes"] >= 4 * 8 * 8 for r in shared)


def test_history_is_bounded_and_off_costs_no_listener(history):
    memory.record_history(True, max_entries=3)
    _grow("HIST_BOUND", 7, step=10)
    snap = memory.snapshot()["history"]
    assert len(snap["records"]) == 3 and snap["dropped"] >= 4 and snap["max_entries"] == 3
    assert [r["cycle"] for r in snap["records"]] == [5, 6, 7]
    memory.record_history(False)
    assert not memory.history_enabled() and not memory.cycle_listeners()
    _grow("HIST_BOUND", 2, step=10)
    assert len(memory.snapshot()["history"]["records"]) == 3  # kept, not growing
    with pytest.raises(ValueError, match="max_entries must be a positive int"):
        memory.record_history(True, max_entries=0)


def test_snapshots_are_json_and_pickles_need_trust(history, tmp_path):
    _grow("SNAP", 3)
    path = memory.dump_snapshot(tmp_path / "mem.json")
    snap = json.loads(path.read_text())
    assert snap["kind"] == "wsarray.memory.snapshot" and snap["history"]["records"]
    assert memory.load_snapshot(path) == snap
    pickled = memory.dump_snapshot(tmp_path / "mem.pkl", format="pickle")
    with pytest.raises(ValueError, match="is a pickle, which can run code"):
        memory.load_snapshot(pickled)
    assert memory.load_snapshot(pickled, trust_pickle=True)["kind"] == "wsarray.memory.snapshot"
    (tmp_path / "bad.json").write_text('{"a": 1}')
    with pytest.raises(ValueError, match="not a wsarray memory snapshot"):
        memory.load_snapshot(tmp_path / "bad.json")
    with pytest.raises(ValueError, match="format must be"):
        memory.dump_snapshot(tmp_path / "x", format="yaml")
    assert pickle.dumps(snap)  # plain data


def test_the_viewer_page_and_its_command(history, tmp_path):
    _grow("VIEW", 6)
    snap = memory.snapshot()
    page = memory.render_snapshot_html(snap)
    spilled = sum(1 for r in snap["history"]["records"] if r["workspace"] == "VIEW" and r["spilled_cycle_bytes"])
    assert page.count("<svg class='timeline'") >= 1 and page.count("class='spill'") >= spilled > 0
    assert "<table id='workspaces'>" in page and "VIEW" in page and "http" not in page  # nothing fetched
    memory.dump_snapshot(tmp_path / "mem.json")
    proc = subprocess.run([sys.executable, "-P", "-m", "wsarray.memory", "view", str(tmp_path / "mem.json"), "-o",
                           str(tmp_path / "mem.html")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "<svg class='timeline'" in (tmp_path / "mem.html").read_text()
    bad = subprocess.run([sys.executable, "-P", "-m", "wsarray.memory", "view", str(tmp_path / "missing.json")],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "No such file" in bad.stderr


def test_measure_gives_the_blocks_figures():
    ws = wnp.workspace("MEASURED")
    with ws:
        wnp.ones(10)  # created before the block
    for _ in range(2):  # learned its size: the measured cycles do not spill
        with ws:
            wnp.sort(wnp.ones(1000) + 1)  # a routed call: this thread's NumPy allocations are counted
    with memory.measure() as m:
        for _ in range(4):
            with ws:
                a = wnp.ones(1000)
                assert float((a + 1)[0]) == 2.0
        plain = [numpy.ones(100) for _ in range(3)]
    assert m.cycles == 4 and m.allocations == 8 and m.allocated_bytes == 8 * 8000
    assert m.spills == 0 and m.peak_cycle_bytes >= 16000 and m.numpy_outside >= 3
    assert set(m.as_dict()) >= {"allocations", "page_faults", "peak_cycle_bytes"} and len(plain) == 3
    assert not memory.cycle_listeners()


def test_escapes_name_the_variable_and_line_once():
    ws = wnp.workspace("ESCAPE")
    memory.set_debug("escapes")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(3):
                with ws:
                    kept = wnp.ones(4) + 1
                    fine = (kept * 2).detach()
            assert fine.is_in_scope() or not fine.is_attached()
        messages = [str(w.message) for w in caught if issubclass(w.category, memory.EscapeWarning)]
        assert len(messages) == 3 and all("'kept' in test_escapes_name_the_variable_and_line_once" in m
                                          for m in messages)
        assert all(w.filename == __file__ for w in caught)
        assert memory.get_debug() == ["escapes"]
        mine = [e for e in memory.snapshot()["escapes"] if e["workspace"] == "ESCAPE"][-3:]
        assert len(mine) == 3 and all(e["variable"] == "kept" and e["file"] == __file__ for e in mine)
        assert [e["cycle"] for e in mine] == sorted(e["cycle"] for e in mine) and mine[0]["cycle"] >= 1
        assert mine[0]["function"] == "test_escapes_name_the_variable_and_line_once"
        page = memory.render_snapshot_html(memory.snapshot())
        assert "<table id='escapes'>" in page and "<td>kept</td>" in page
    finally:
        memory.set_debug(None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ws:
            kept = wnp.ones(4)
    with pytest.raises(ValueError, match="unknown debug mode 'loud'"):
        memory.set_debug("loud")


def test_bypass_everything_runs_as_plain_numpy_per_thread_or_process():
    ws = wnp.workspace("BYPASS")
    memory.set_debug("bypass_everything", this_thread=True)
    try:
        other = {}

        def elsewhere():
            with wnp.workspace("BYPASS_OTHER"):
                other["attached"] = wnp.ones(3).is_attached()
        t = threading.Thread(target=elsewhere)
        t.start()
        t.join()
        with ws:
            a = wnp.ones(3) + 1
        assert not a.is_attached() and a.tolist() == [2.0, 2.0, 2.0]  # usable after the cycle
        assert other["attached"] is True  # other threads are not affected
        assert memory.get_debug() == ["bypass_everything"]
    finally:
        memory.reset_thread_debug()
    with ws:
        assert wnp.ones(3).is_attached()
    code = ("import wsarray as np\nwith np.workspace('W'):\n    a = np.ones(3)\n"
            "print(a.is_attached(), np.memory.get_debug())")
    env = dict(__import__("os").environ, WSARRAY_DEBUG="bypass_everything")
    out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.stdout.split() == ["False", "['bypass_everything']"], out.stderr
    env["WSARRAY_DEBUG"] = "nonsense"
    out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert "WSARRAY_DEBUG ignored" in out.stderr and out.stdout.split()[0] == "True"


def test_debug_listeners_go_when_no_thread_reports_escapes():
    memory.set_debug("escapes", this_thread=True)
    assert len(memory.cycle_listeners()) == 1
    memory.set_debug("escapes")
    memory.set_debug(None)
    assert len(memory.cycle_listeners()) == 1  # this thread still reports
    memory.reset_thread_debug()
    assert memory.cycle_listeners() == [] and memory.get_debug() == []


def test_a_thread_that_ends_reporting_escapes_takes_its_listener_with_it():
    def worker():
        memory.set_debug("escapes", this_thread=True)  # and ends without reset_thread_debug()

    t = threading.Thread(target=worker)
    t.start()
    t.join(30)
    import gc
    gc.collect()
    memory.set_debug(None)
    assert memory.cycle_listeners() == []


def test_debug_modes_of_the_wrong_type_are_refused_by_name():
    for bad in (5, [3], {"escapes": 1}.items()):
        with pytest.raises(TypeError, match=r"wsarray\.memory\.set_debug: .* not (int|dict_items)"):
            memory.set_debug(bad)
    assert memory.get_debug() == []


def test_the_history_can_be_read_from_code_run_while_it_records(history, monkeypatch):
    # A signal handler, a __del__ or a weakref callback may run between two bytecodes of _record,
    # which holds the history's lock, and read or record the history itself.
    from wsarray.memory import history as h
    recorded = h._events

    def events_then_read(*args):
        memory.snapshot()
        return recorded(*args)

    monkeypatch.setattr(h, "_events", events_then_read)
    done = threading.Event()

    def cycles():
        ws = wnp.workspace("REENTRANT")
        for _ in range(3):
            with ws:
                wnp.ones(3)
        memory.destroy_all_workspaces_for_current_thread()
        done.set()

    threading.Thread(target=cycles, daemon=True).start()
    assert done.wait(30), "the history's lock deadlocked"
    assert [r["workspace"] for r in memory.snapshot()["history"]["records"]].count("REENTRANT") == 3


def test_stacks_name_the_lines_holding_workspace_memory(tmp_path):
    import tracemalloc
    assert not tracemalloc.is_tracing()
    memory.record_history(True, stacks=True, frames=4)
    try:
        ws = wnp.workspace("STACKS")
        with ws:
            held = [wnp.ones(5000) for _ in range(3)]  # the line the report must name
            line = sys._getframe().f_lineno - 1
            snap = memory.snapshot()
            sites = snap["stacks"]["sites"]
            assert sites[0]["file"] == __file__ and sites[0]["line"] == line
            assert sites[0]["bytes"] >= 3 * 40000 and sites[0]["blocks"] >= 3
            assert sites[0]["function"] == "test_stacks_name_the_lines_holding_workspace_memory"
            assert snap["stacks"]["live_blocks"][0]["bytes"] == 40000
            page = memory.render_snapshot_html(snap)
            assert "<table id='sites'>" in page and f"{line}" in page
            json.dumps(snap)
            assert not tracemalloc.is_tracing()  # wsarray's own record: tracemalloc stays off
        del held
        from wsarray import _native
        assert not [r for r in _native._recorded_blocks() if r[2] == "STACKS"]  # given back: forgotten
    finally:
        memory.record_history(False)
        from wsarray.memory import history as h
        with h._lock:
            h._state.update(ring=None, last={}, threads={}, dropped=0)
    assert not tracemalloc.is_tracing()


def test_tracemalloc_sees_workspace_blocks_whenever_a_program_traces():
    import tracemalloc

    def traced():
        return [t.size for t in tracemalloc.take_snapshot().filter_traces(
            [tracemalloc.DomainFilter(True, memory.TRACEMALLOC_DOMAIN)]).traces]

    tracemalloc.start(4)
    try:
        with wnp.workspace("TRACED"):
            held = wnp.ones(5000)
            assert 40000 in traced()
            del held
        assert 40000 not in traced()  # given back: untraced
    finally:
        tracemalloc.stop()


def test_out_of_memory_errors_say_what_holds_the_memory():
    cfg = wnp.WorkspaceConfig(initial_size=1 << 16, max_size=1 << 16, spill="fail", learning="none")
    ws = wnp.workspace("OOM_REPORT", cfg)
    with ws:
        keep = [wnp.ones(1000) for _ in range(5)]
        with pytest.raises(wnp.WorkspaceMemoryError, match=r"(?s)is full.*record_history\(True, stacks=True\)"):
            wnp.ones(100000)
    del keep
    memory.record_history(True, stacks=True)
    try:
        with ws:
            keep = [wnp.ones(1000) for _ in range(5)]
            line = sys._getframe().f_lineno - 1
            with pytest.raises(wnp.WorkspaceMemoryError) as err:
                wnp.sort(wnp.ones(100000))
            assert f"40000 bytes in 5 block(s) made at {__file__}:{line}" in str(err.value)
            assert len(keep) == 5
    finally:
        memory.record_history(False)


def test_spill_everything_serves_every_allocation_outside_the_chunks():
    ws = wnp.workspace("SPILL_ALL")
    for _ in range(3):
        with ws:
            wnp.ones(1000) + 1
    before = ws.stats()
    memory.set_debug("spill_everything", this_thread=True)
    try:
        for _ in range(4):
            with ws:
                a = wnp.ones(1000) + 1
                total = float(wnp.sum(a))
        after = ws.stats()
        assert after["spills"] - before["spills"] >= 4 * 2 and total == 2000.0
        with pytest.raises(wnp.WorkspaceError):
            a + 1  # still stale after its cycle: the checks are unchanged
    finally:
        memory.reset_thread_debug()
    for _ in range(3):
        with ws:
            wnp.ones(1000) + 1
    assert ws.stats()["spills"] == after["spills"]  # back to the chunks
    assert not wnp._native._spilling_everything()


def test_the_viewer_renders_in_a_headless_browser(history, tmp_path):
    import shutil
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        pytest.skip("no Chromium here (apt-get install chromium): the page's structure is tested above")
    _grow("BROWSER", 8)
    page = tmp_path / "mem.html"
    memory.write_snapshot_html(memory.snapshot(), page)
    shot = tmp_path / "shot.png"
    import os
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS")}
    proc = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
                           "--v=0", f"--screenshot={shot}", "--window-size=900,1200", page.as_uri()],
                          capture_output=True, text=True, timeout=120, env=env)  # (a sanitizer run preloads ASan)
    assert shot.exists() and shot.stat().st_size > 10_000, proc.stderr[-2000:]
    assert "CONSOLE" not in proc.stderr and "Uncaught" not in proc.stderr
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_readme_walkthrough_runs(tmp_path, monkeypatch):
    import os
    import re
    page = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "docs", "pages",
                        "memory.md")
    with open(page) as f:
        section = f.read()
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exec(compile(code, "loop.py", "exec"), {})
    finally:
        memory.set_debug(None)
        memory.record_history(False)
        from wsarray.memory import history as h
        with h._lock:
            h._state.update(ring=None, last={}, threads={}, dropped=0)
    escaped = {str(w.message).split("'")[3] for w in caught if issubclass(w.category, memory.EscapeWarning)}
    assert escaped == {"grown", "last"}
    snap = memory.load_snapshot(tmp_path / "mem.json")
    records = [r for r in snap["history"]["records"] if r["workspace"] == "LOOP"]
    assert len(records) == 20 and any("grew" in r["events"] for r in records)
    assert snap["stacks"]["recording"] and snap["stacks"]["sites"]


def test_a_png_for_reports(history, tmp_path):
    pytest.importorskip("matplotlib", reason="the PNG needs the [plot] extra")
    _grow("PNG_A", 5)
    _grow("PNG_B", 3, step=10)
    path = memory.plot_snapshot(memory.snapshot(), tmp_path / "mem.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000
    with pytest.raises(ValueError, match="no cycle records"):
        memory.plot_snapshot({"history": {"records": []}}, tmp_path / "x.png")


def test_with_stacks_a_stale_array_and_an_escape_name_the_line_that_made_them():
    memory.record_history(True, stacks=True)
    try:
        ws = wnp.workspace("MADE_AT")
        with ws:
            made = wnp.ones(1000) * 2
            line = sys._getframe().f_lineno - 1
        with pytest.raises(wnp.WorkspaceError, match=rf"workspace 'MADE_AT' \(made at {re.escape(__file__)}:{line}\)"):
            made + 1
        memory.set_debug("escapes", this_thread=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with ws:
                kept = wnp.zeros(10) + 1
                kept_line = sys._getframe().f_lineno - 1
        assert any(f"made at {__file__}:{kept_line}" in str(w.message) for w in caught) and kept is not None
    finally:
        memory.reset_thread_debug()
        memory.record_history(False)
    with ws:
        plain = wnp.ones(3) * 2
    with pytest.raises(wnp.WorkspaceError) as err:
        plain + 1
    assert "made at" not in str(err.value)  # not tracing: the message as before


def test_a_later_cycles_peak_includes_last_cycles_arrays_still_bound():
    ws = wnp.workspace("PEAK")
    peaks = []
    for _ in range(3):
        with ws:
            d = wnp.ones(100_000) * 2  # 800 kB; last cycle's d is still bound while this one is made
        peaks.append(ws.stats()["peak_cycle_bytes"])
    assert peaks[1] == peaks[2] >= peaks[0] + 800_000
    del d
    released = []
    for _ in range(3):
        with ws:
            d = wnp.ones(100_000) * 2
            del d  # nothing of this cycle is left bound
        released.append(ws.stats()["peak_cycle_bytes"])
    assert released[1] == released[2] == peaks[0]


def test_each_cycle_records_the_lines_that_allocated_in_it(history):
    memory.record_history(True, stacks=True)
    ws = wnp.workspace("CYCLE_SITES")
    for _ in range(3):
        with ws:
            big = wnp.ones(50_000) * 2  # 400 kB (NumPy computes the product in the temporary's block)
            line = sys._getframe().f_lineno - 1
            small = wnp.zeros(10)
    assert big is not None and small is not None
    records = [r for r in memory.snapshot()["history"]["records"] if r["workspace"] == "CYCLE_SITES"]
    assert len(records) == 3 and all(r.get("sites") for r in records)
    top = records[-1]["sites"][0]
    assert (top["file"], top["line"]) == (__file__, line) and top["bytes"] >= 400_000 and top["blocks"] >= 1
    assert top["function"] == "test_each_cycle_records_the_lines_that_allocated_in_it"
    assert len(records[-1]["sites"]) == 1  # blocks under 256 KiB (the zeros) are not counted by line
    page = memory.render_snapshot_html(memory.snapshot())
    assert "class='cycle-sites'" in page and f"<td>{line}</td>" in page
    memory.record_history(False)
    memory.record_history(True)  # without stacks: no sites recorded, nothing left counting
    with ws:
        wnp.ones(10)
    assert "sites" not in memory.snapshot()["history"]["records"][-1]


def test_cycle_sites_say_which_lines_spilled(history):
    memory.record_history(True, stacks=True)
    ws = wnp.workspace("SPILL_SITES")  # learns its size in the first cycle: everything there spills
    for _ in range(3):
        with ws:
            big = wnp.ones(50_000) + 1  # 400 kB
            line = sys._getframe().f_lineno - 1
    records = [r for r in memory.snapshot()["history"]["records"] if r["workspace"] == "SPILL_SITES"]
    assert len(records) == 3
    first, last = records[0]["sites"][0], records[-1]["sites"][0]
    assert (first["file"], first["line"]) == (__file__, line)
    assert first["spilled_blocks"] == first["blocks"] >= 1 and first["spilled_bytes"] >= 400_000
    assert (last["file"], last["line"]) == (__file__, line)
    assert last["spilled_blocks"] == 0 and last["spilled_bytes"] == 0 and last["blocks"] >= 1
    page = memory.render_snapshot_html(memory.snapshot())
    assert "class='spill-sites'" in page
    spill_table = page[page.index("class='spill-sites'"):]
    assert f"<td>{line}</td>" in spill_table[:spill_table.index("</table>")]
    assert big is not None


def test_live_blocks_carry_workspace_cycle_dtype_and_shape(history):
    memory.record_history(True, stacks=True)
    ws = wnp.workspace("DESCRIBED")
    with ws:
        pass
    with ws:  # cycle 2
        grid = wnp.ones((64, 32)) * 3  # 16 kB, float64
        line = sys._getframe().f_lineno - 1
        narrow = grid.T.astype(wnp.float32)  # 8 kB, float32, (32, 64)
        tiny = wnp.arange(10.0)  # a small block: described as well
        blocks = memory.snapshot()["stacks"]["live_blocks"]
        mine = [b for b in blocks if b["site"]["file"] == __file__]
        first = next(b for b in mine if b["site"]["line"] == line)
        assert first["bytes"] == 64 * 32 * 8 and first["workspace"] == "DESCRIBED" and first["cycle"] == 2
        assert first["dtype"] == "float64" and first["shape"] == [64, 32]
        assert first["site"]["function"] == "test_live_blocks_carry_workspace_cycle_dtype_and_shape"
        assert first["frames"][0]["function"] == first["site"]["function"]
        second = next(b for b in mine if b["site"]["line"] == line + 2)
        assert second["dtype"] == "float32" and second["shape"] == [32, 64] and second["cycle"] == 2
        small = next(b for b in mine if b["site"]["line"] == line + 3)
        assert small["bytes"] == 80 and small["dtype"] == "float64" and small["shape"] == [10]
        assert small["workspace"] == "DESCRIBED" and small["cycle"] == 2
        page = memory.render_snapshot_html(memory.snapshot())
        assert "<td>float32</td><td>(32, 64)</td>" in page
        json.dumps(blocks)  # plain data
    del grid, narrow, tiny
    from wsarray import _native
    assert not [r for r in _native._recorded_blocks() if r[2] == "DESCRIBED"]  # freed blocks forgotten
    memory.record_history(True)  # without stacks: new blocks are not recorded
    with ws:
        unrecorded = wnp.ones(600)
        assert not [r for r in _native._recorded_blocks() if r[2] == "DESCRIBED"]
        assert unrecorded.shape == (600,)


def test_chunk_maps_and_spills_are_traced_in_their_own_domain(history):
    import tracemalloc

    def chunk_traces():
        memory.snapshot()  # hands queued maps to tracemalloc
        snap = tracemalloc.take_snapshot().filter_traces(
            [tracemalloc.DomainFilter(True, memory.TRACEMALLOC_CHUNK_DOMAIN)])
        return sorted(t.size for t in snap.traces)

    tracemalloc.start(1)  # a program that traces: tracemalloc sees the maps
    try:
        before = chunk_traces()
        config = wnp.WorkspaceConfig(initial_size=1 << 20, learning="none", spill="external")
        ws = wnp.workspace("CHUNK_TRACES", config)
        with ws:
            a = wnp.ones(1 << 18)  # 2 MiB: more than the chunk holds, a spill
            with_chunk = chunk_traces()
            assert len(with_chunk) == len(before) + 2
            assert sum(with_chunk) - sum(before) >= (1 << 20) + (2 << 20)
            snap = memory.snapshot()["stacks"]
            assert snap["chunk_domain"] == memory.TRACEMALLOC_CHUNK_DOMAIN
            assert snap["traced_chunk_bytes"] >= (1 << 20) + (2 << 20) and snap["traced_chunks"] >= 2
            del a
        ws.destroy()
        assert chunk_traces() == before  # given back: untraced
    finally:
        tracemalloc.stop()


def test_sites_name_their_function_from_the_source(tmp_path):
    from wsarray.memory._source import function_at
    source = tmp_path / "prog.py"
    source.write_text(
        "x = 1\n"                      # 1
        "class Model:\n"               # 2
        "    @staticmethod\n"          # 3
        "    def step(a):\n"           # 4
        "        def inner():\n"       # 5
        "            return a\n"       # 6
        "        return inner()\n"     # 7
        "async def serve():\n"         # 8
        "    return 2\n")              # 9
    name = str(source)
    assert [function_at(name, n) for n in range(1, 10)] == [
        "<module>", "Model", "Model.step", "Model.step", "Model.step.<locals>.inner",
        "Model.step.<locals>.inner", "Model.step", "serve", "serve"]
    source.write_text("def changed():\n    pass\n")  # a file that changes is read again
    import os
    os.utime(name, (1, 1))
    assert function_at(name, 2) == "changed"
    assert function_at(str(tmp_path / "missing.py"), 1) == "" and function_at("<string>", 1) == ""
    source.write_text("def broken(:\n")
    os.utime(name, (2, 2))
    assert function_at(name, 1) == ""


def test_function_names_are_found_in_files_nested_deeper_than_the_recursion_limit(tmp_path):
    from wsarray.memory._source import function_at
    body = ["def dispatch(x):", "    if x == 0:", "        return 0"]
    body += [f"    elif x == {i}:\n        return {i}" for i in range(1, 1500)]  # generated code
    body += ["class Model:", "    def step(self):", "        return 1"]
    source = tmp_path / "generated.py"
    source.write_text("\n".join(body) + "\n")
    lines = source.read_text().splitlines()
    assert function_at(str(source), 3) == "dispatch"
    assert function_at(str(source), len(lines)) == "Model.step"
    deep = tmp_path / "deep.py"  # deeper than the parser goes: no name, and no error
    deep.write_text("x = " + "(" * 5000 + "1" + ")" * 5000 + "\n")
    assert function_at(str(deep), 1) == ""


def test_names_with_nul_characters_are_refused_where_they_are_given():
    for make in (lambda: wnp.workspace("a\x00b"), lambda: wnp.ones(2).leverage_to("a\x00b")):
        with pytest.raises(ValueError, match=r"must not hold a NUL character"):
            make()
    with pytest.raises(ValueError, match=r"temp_file_path must not hold a NUL"):
        wnp.WorkspaceConfig(temp_file_path="/tmp/x\x00y")
    assert "a" not in memory.allocation_statistics()


def test_a_binary_or_partial_snapshot_file_is_refused_by_name(tmp_path):
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ValueError, match=r"load_snapshot: .* is not a snapshot"):
        memory.load_snapshot(binary)
    partial = tmp_path / "p.json"
    partial.write_text(json.dumps({"kind": "wsarray.memory.snapshot", "history": {"records": [{}]}}))
    out = subprocess.run([sys.executable, "-P", "-m", "wsarray.memory", "view", str(partial)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "is not a whole snapshot" in out.stderr and "Traceback" not in out.stderr
    memory.dump_snapshot(tmp_path / "whole.json")
    out = subprocess.run([sys.executable, "-P", "-m", "wsarray.memory", "view", str(tmp_path / "whole.json"),
                          "-o", str(tmp_path / "missing" / "x.html")], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "cannot write" in out.stderr and "Traceback" not in out.stderr


def test_measure_blocks_cut_by_ctrl_c_leave_no_listener():
    import gc

    from interrupt_helpers import ctrl_c_storm
    ws = wnp.workspace("MEASURED")

    def block():
        with memory.measure():
            with ws:
                wnp.ones(10)

    interrupted = ctrl_c_storm(block, 3000, 1e-4)
    gc.collect()
    with ws:  # a listener whose Measurement is gone removes itself at the next cycle
        pass
    assert interrupted > 0 and memory.cycle_listeners() == []
