"""Python code the garbage collector runs (finalizers, weakref and gc callbacks, signal handlers
between their bytecodes) may use workspaces while a context variable is being set: wsarray's own
scope changes, NumPy's errstate, a program's ContextVar.set. Before Python 3.12 the collector runs
inside those sets, and a scope opened there freed the variable map the set was building from: a
segfault (src/python/common/context_change.h). Each case runs in a child process, so that a crash
is an exit code, not the end of the test run.
"""
import subprocess
import sys
import textwrap

import pytest

import wsarray as wnp

# Every collection runs a workspace cycle (gc.callbacks), and a collection comes with nearly
# every allocation of a tracked object (threshold 1), so it lands inside every kind of set.
PRELUDE = """
import contextvars, gc, signal, sys, weakref
import numpy
import wsarray as wnp
from wsarray import memory

side = wnp.workspace("SIDE")
busy = [False]
ran = [0]

def side_cycles(times=2):
    if busy[0]:
        return
    busy[0] = True
    try:
        for _ in range(times):
            with side:
                assert float(wnp.ones(10).sum()) == 10.0
        ran[0] += 1
    finally:
        busy[0] = False

def on_collection(phase, info):
    side_cycles()

def collect_into_cycles():
    gc.callbacks.append(on_collection)
    gc.set_threshold(1, 1, 1)

def stop_collecting_into_cycles():
    gc.set_threshold(700, 10, 10)
    gc.callbacks.remove(on_collection)
"""


# A child that may deadlock: it prints HANG with every thread's stack and exits 3 after 60 s.
WATCHDOG = """
import faulthandler, os, threading

def hung():
    print("HANG", flush=True)
    faulthandler.dump_traceback(all_threads=True)
    os._exit(3)

watchdog = threading.Timer(60, hung)
watchdog.start()
"""


def run_child(body, timeout=240, prelude=PRELUDE):
    code = prelude + textwrap.dedent(body)
    proc = subprocess.run([sys.executable, "-P", "-X", "faulthandler", "-c", code], capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"exit code {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def test_cycles_run_by_the_collector_inside_wsarrays_own_scope_changes():
    out = run_child("""
        memory.record_history(True, max_entries=1000)
        main = wnp.workspace("MAIN")
        collect_into_cycles()
        for _ in range(3000):
            with main:
                x = wnp.arange(5) * 2
                assert int((x + 1).sum()) == 25
        stop_collecting_into_cycles()
        assert memory.workspace_stack() == []
        stats = memory.allocation_statistics()
        print(ran[0] > 0, stats["MAIN"]["cycles"], stats["SIDE"]["cycles"] == 2 * ran[0])
    """)
    assert out.split() == ["True", "3000", "True"]


def test_cycles_run_by_the_collector_inside_other_code_setting_context_variables():
    # The interrupted set is NumPy's (errstate) or the program's own: wsarray keeps the map it
    # builds from alive until a scope opens outside any collection.
    out = run_child("""
        var = contextvars.ContextVar("program")
        others = [contextvars.ContextVar(f"v{i}") for i in range(40)]  # a map of several levels
        collect_into_cycles()
        for i in range(3000):
            others[i % 40].set(i)
            with numpy.errstate(all="ignore"):
                var.set(i)
                assert numpy.isinf(numpy.ones(3) / 0).all()
        stop_collecting_into_cycles()
        kept = wnp._native._kept_context_maps()
        with wnp.workspace("AFTER"):  # the first scope opened outside a collection releases them
            wnp.ones(2)
        print(ran[0] > 0, kept > 0, wnp._native._kept_context_maps(), var.get(), others[7].get())
        assert memory.workspace_stack() == []
    """)
    assert out.split() == ["True", "True", "0", "2999", "2967"]


def test_a_signal_handler_opening_a_workspace_inside_finalizers_run_by_the_collector():
    # The shape found in CI: a periodic handler that uses workspaces, here run inside __del__
    # methods that the collector calls in the middle of the main loop's scope changes.
    out = run_child("""
        main = wnp.workspace("MAIN")
        signal.signal(signal.SIGALRM, lambda *_: side_cycles(1))

        armed = [True]

        class Node:
            def __del__(self):
                if armed[0]:
                    signal.setitimer(signal.ITIMER_REAL, 1e-6)
                for _ in range(200):  # bytecodes for the handler to run between
                    pass

        gc.set_threshold(1, 1, 1)
        for _ in range(3000):
            a, b = Node(), Node()
            a.other, b.other = b, a  # garbage only the collector frees
            del a, b
            with main:
                wnp.ones(10) + 1
        armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        gc.set_threshold(700, 10, 10)
        print(ran[0] > 0, memory.workspace_stack() == [])
    """)
    assert out.split() == ["True", "True"]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="from 3.12 on the collector runs only between bytecodes")
def test_changes_outside_any_collection_keep_nothing():
    before = wnp._native._kept_context_maps()
    for _ in range(100):
        with wnp.workspace("PLAIN"):
            wnp.ones(3)
    assert wnp._native._kept_context_maps() == 0 <= before


def test_a_pool_dropped_in_a_reference_cycle_is_shut_down_by_whichever_thread_collects_it():
    # The collector may run the dropped pool's finalizer on the pool's own worker while it holds
    # the queue's lock (or on any thread inside wsarray's locked code): the locks are reentrant, so
    # the finalizer cannot deadlock that thread, nor the interpreter's exit after it.
    out = run_child("""
        import faulthandler, gc
        import numpy
        from wsarray.parallel import ParallelInference
        faulthandler.dump_traceback_later(60, exit=True)  # a hang shows its stacks
        keep = []
        for i in range(120):
            pi = ParallelInference(lambda b: b * 2, workers=1)
            pi.output(numpy.ones((1, 4)))
            holder = {"pi": pi}
            holder["me"] = holder  # an unclosed pool in a reference cycle
            del pi
            keep.append(holder)
            del holder
            gc.collect(0)  # the cycle survives into generation 1 ...
            keep.clear()   # ... then is garbage, collected by whichever thread allocates next
            gc.set_threshold(5 + i % 40, 2 + i % 7, 10)
        gc.set_threshold(700, 10, 10)
        print("done")
    """, timeout=120, prelude="")
    assert out.split() == ["done"]


def test_reading_the_block_records_while_code_the_collector_runs_frees_blocks():
    # snapshot()'s block records (record_history(stacks=True)) are copied before their Python
    # objects are made: a collection there ran code that freed blocks and erased the record read.
    out = run_child("""
        import gc, random, sys
        import wsarray as wnp
        from wsarray import memory

        wnp.memory.record_history(True, stacks=True)
        rng = random.Random(0)
        ws = wnp.workspace("W")
        live = []
        busy = [False]
        def cb(phase, info):
            if busy[0]: return
            busy[0] = True
            try:
                with wnp.workspace("SIDE"):
                    # records made and records erased while the outer C++ loop iterates the map
                    tmp = [wnp.ones(rng.randrange(1, 64)) for _ in range(rng.randrange(1, 40))]
                    del tmp
                for _ in range(5):
                    if live: live.pop(rng.randrange(len(live)))   # frees a block whose record is being read
            except Exception:
                pass
            finally:
                busy[0] = False

        with ws:
            for i in range(300):
                live.append(wnp.ones(rng.randrange(1, 200)))   # many recorded live blocks
            gc.callbacks.append(cb); gc.set_threshold(1, 1, 1)
            for i in range(30):
                wnp._native._recorded_blocks()
                while len(live) < 300: live.append(wnp.ones(rng.randrange(1, 200)))
            gc.callbacks.remove(cb); gc.set_threshold(700, 10, 10)
        print("no crash")
    """, prelude="")
    assert out.split() == ["no", "crash"]


def test_a_cycle_ended_by_the_collector_inside_the_allocator_while_it_counts_a_site():
    # The allocator counts a large block's site (record_history(stacks=True)) with the collector
    # held off: a collection there closed a generator suspended in a workspace, whose cycle's end
    # freed the dictionary being written.
    out = run_child("""
        import ctypes, gc, sys
        import wsarray as wnp

        _get = ctypes.pythonapi.PyThreadState_GetDict
        _get.restype = ctypes.c_void_p                  # a borrowed reference
        def get_state():
            return ctypes.cast(_get(), ctypes.py_object).value
        wnp.memory.record_history(True, stacks=True)     # note_block -> note_site for blocks >= 256 KiB
        state = {"g": None, "hits": 0}

        def gen():
            with wnp.workspace("G"):
                yield

        def cb(phase, info):
            if phase != "start" or state["g"] is None: return
            sites = get_state().get("wsarray.cycle_sites", {})
            # Inside note_site, between creating `mine` (empty) and storing the first count in it:
            if not any(isinstance(v, dict) and not v for v in sites.values()): return
            g, state["g"] = state["g"], None
            state["hits"] += 1
            g.close()                  # GeneratorExit -> G.__exit__ -> cycle ends -> take_sites(G) frees `mine`

        gc.callbacks.append(cb)
        for it in range(2000):
            g = gen(); next(g)                         # G's cycle open in this context: allocations go to G
            drain = [[] for _ in range(100)]          # empty the list free list: the next PyList_New allocates
            gc.set_threshold(1, 1, 1)
            state["g"] = g
            del g
            try:
                a = wnp.ones(40000)                    # 320 KB: note_site runs
            except Exception:
                pass
            gc.set_threshold(700, 10, 10)
            if state["g"] is not None:
                state["g"].close(); state["g"] = None
            a = None
            if state["hits"] >= 20: break
        print("no crash; callback fired inside note_site", state["hits"], "times")
    """, prelude="")
    assert out.startswith("no crash")


def test_a_dead_array_whose_descriptor_runs_code_never_overfills_the_pool():
    # Releasing a descriptor with metadata runs its values' __del__, which may free other Arrays
    # into the pool of dead Arrays: the pool's room is checked again after it (heap corruption).
    out = run_child("""
        import sys, numpy, wsarray as wnp

        class D:
            def __del__(self):
                arrs = [wnp.ones(3) for _ in range(40)]   # freed at once: the rank-1 pool fills to 16
                del arrs

        dt = numpy.dtype(numpy.float64, metadata={"k": D()})
        a = wnp.asarray(numpy.zeros(3, dtype=dt))          # an Array whose descriptor carries metadata
        b = [wnp.ones((2, 2)) for _ in range(4)]; del b    # rank-2 Arrays in the pool (slots[2][0..3])
        del dt
        del a                                              # array_dealloc -> set_descr -> D.__del__
        counts = wnp._native._array_pool_counts()
        print("pool counts:", counts, flush=True)
        x = [wnp.ones(3) for _ in range(20)]               # take slots[1][16..0]
        y = [wnp.ones((2, 2)) for _ in range(20)]          # ... and slots[2][3..0]: the rank-1 object again
        del x, y
        if counts[1] > 16:
            sys.exit("pool overflow: %r" % counts)
    """, prelude="")
    assert out.startswith("pool counts:")


def test_a_signal_handler_run_by_the_shield_cannot_free_the_shielded_calls_arguments():
    # defer_signals runs pending handlers before the shielded call; a transient workspace's
    # weakref callback lends its weakref, which a handler's sweep could free (freed twice).
    out = run_child("""
        import _thread, collections, itertools, operator, os, signal
        import wsarray as wnp
        from wsarray._transient import transient_workspace

        def handler(signum, frame):
            transient_workspace()          # any wsarray code that makes a transient workspace (its _sweep)

        signal.signal(signal.SIGUSR1, handler)
        for i in range(20):
            holder = [transient_workspace()]
            # Trip SIGUSR1 and drop the handle with no bytecode in between (both C calls), so that the
            # handler runs inside defer_signals, not before: what a signal arriving just then does.
            collections.deque(itertools.starmap(operator.call, [(_thread.interrupt_main, signal.SIGUSR1),
                                                                (holder.clear,)]), maxlen=0)
        print("survived")
    """, prelude="")
    assert out.split() == ["survived"]


@pytest.mark.parametrize("how", ["one", "all", "thread_exit"])
def test_workspaces_destroyed_again_while_a_device_chunk_goes_back(how):
    # A device workspace gives its chunks back through the device source's Python free(); code the
    # collector runs there may destroy this thread's workspaces again (the table was walked across
    # it: a node erased twice, a freed node stepped on).
    out = run_child(f"""
        import gc, sys, threading
        import wsarray as wnp
        from wsarray import memory
        from wsarray._devices import fake

        fake.enable(1)
        how = {how!r}
        armed = [False]
        inner = []

        def giving_a_chunk_back():
            f = sys._getframe(1)
            while f is not None:
                if f.f_code.co_filename.endswith("_devices/workspace.py"):
                    return True
                f = f.f_back
            return False

        def cb(phase, info):
            if armed[0] and phase == "start" and giving_a_chunk_back():
                armed[0] = False
                try:
                    if how == "one":
                        memory.destroy_workspace("DEV0")
                    else:
                        memory.destroy_all_workspaces_for_current_thread()
                    inner.append("ok")
                except wnp.WorkspaceError as e:
                    inner.append(str(e))

        def make():
            for name in ("DEV0", "DEV1", "DEV2"):
                with wnp.workspace(name, wnp.WorkspaceConfig(device="fake:0", initial_size="64KB")):
                    assert float((wnp.ones(1000, device="fake:0") + 1).sum()) == 2000.0

        gc.callbacks.append(cb)
        if how == "thread_exit":
            def body():
                make()
                gc.collect()
                armed[0] = True
                gc.set_threshold(1, 1, 1)
            t = threading.Thread(target=body)
            t.start()
            t.join()
        else:
            make()
            armed[0] = True
            gc.set_threshold(1, 1, 1)
            if how == "one":
                memory.destroy_workspace("DEV0")
            else:
                memory.destroy_all_workspaces_for_current_thread()
        gc.set_threshold(700, 10, 10)
        print(not armed[0], inner, sorted(memory.allocation_statistics()))
    """, prelude="")
    ran, rest = out.split(" ", 1)
    assert ran == "True"
    if how == "one":  # the inner call finds it gone (the outer one took it out first)
        assert "no workspace named 'DEV0'" in rest and "['DEV1', 'DEV2']" in rest
    else:
        assert rest.strip() == "['ok'] []"


def test_cached_handles_dropped_at_exit_while_a_daemon_thread_ends():
    # At exit wsarray drops every thread's cached workspace handle; a weakref callback run by one
    # of them let a daemon thread end and its thread state be freed under the walk (a segfault).
    out = run_child("""
        import threading, time, weakref
        import wsarray as wnp
        go, ready = threading.Event(), threading.Event()
        refs = []

        def on_dead(ref):
            go.set()          # the daemon thread finishes...
            time.sleep(0.5)   # ...and its thread state is freed meanwhile

        def daemon():
            refs.append(weakref.ref(wnp.workspace("T"), on_dead))  # only the thread's cache holds it
            ready.set()
            go.wait()

        threading.Thread(target=daemon, daemon=True).start()
        ready.wait()
        print("exiting")
    """, prelude="")
    assert out.split() == ["exiting"]


@pytest.mark.parametrize("reader", ["memory.snapshot", "escapes"])
def test_code_run_inside_the_memory_history_may_wait_for_a_pipeline_thread(reader):
    # The collector runs code inside the history's (or the escape reports') bookkeeping; that code
    # iterates an AsyncIterator, whose producer records its fills there too. It used to wait for
    # a lock the interrupted thread held: a deadlock.
    out = run_child(f"""
        import gc, os, sys, threading, faulthandler
        import numpy
        import wsarray as wnp
        from wsarray import memory
        from wsarray.data import AsyncIterator
        from wsarray.memory.debug import escapes

        memory.record_history(True)
        memory.set_debug("escapes")
        data = [(numpy.ones((8, 4)) * i, numpy.arange(8.0)) for i in range(4)]
        done, busy = [0], [False]

        def inside_bookkeeping():
            f = sys._getframe(1)
            while f is not None:
                name = f.f_code.co_filename
                if name.endswith(("memory/history.py", "memory/debug.py")):
                    return True
                f = f.f_back
            return False

        def cb(phase, info):
            if busy[0] or done[0] >= 40 or phase != "start" or not inside_bookkeeping():
                return
            busy[0] = True
            done[0] += 1
            try:
                total = 0.0
                with AsyncIterator(data, queue_size=1) as it:
                    for x, y in it:
                        total += float((x * 2).sum())
                assert total == 384.0
            finally:
                busy[0] = False

        gc.callbacks.append(cb)
        gc.set_threshold(1, 1, 1)
        for _ in range(300):
            with wnp.workspace("W"):
                kept = wnp.ones(10) + 1
            {reader}()
            if done[0] >= 40:
                break
        gc.set_threshold(700, 10, 10)
        watchdog.cancel()
        snap = memory.snapshot()
        fills = [r for r in snap["history"]["records"] if r["workspace"] != "W"]
        print(done[0], len(fills) > 0, snap["history"]["dropped"])
    """, prelude=WATCHDOG)
    assert out.split() == ["40", "True", "0"]


def test_escape_scan_reads_only_plain_containers():
    # The escapes scan looks into the locals of the frames above a cycle's end; a list subclass
    # whose __getitem__ rejects slices, or a dict key whose repr raises, stopped the whole scan.
    import warnings

    from wsarray import memory

    class Row(list):
        def __getitem__(self, k):
            if isinstance(k, slice):
                raise KeyError(k)
            return list.__getitem__(self, k)

    class Key:
        def __repr__(self):
            raise ValueError("no repr")

    def loop():
        odd = Row([1, 2, 3])  # noqa: F841 -- a local the scan meets
        table = {Key(): 1, "k": None}
        with wnp.workspace("ESC_SCAN"):
            table["k"] = wnp.ones(4)
            kept = wnp.ones(10) + 1
        return kept

    memory.set_debug("escapes")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loop()
    finally:
        memory.set_debug(None)
    mine = [e for e in memory.snapshot()["escapes"] if e["workspace"] == "ESC_SCAN" and e["function"] == "loop"]
    assert sorted(e["variable"] for e in mine) == ["kept", "table['k']"]
    assert sum("ESC_SCAN" in str(w.message) for w in caught) == 2


def test_code_run_inside_a_transient_workspaces_retirement_may_wait_for_its_owner():
    # A transient workspace's handle dying on another thread queues its name for the owner; code
    # the collector runs there may wait for the owner thread, which reads that queue meanwhile.
    # The queue was behind a lock the interrupted thread held: a deadlock.
    out = run_child("""
        import gc, os, sys, threading, faulthandler
        import wsarray as wnp
        from wsarray._transient import transient_workspace

        handles, made, remaining = [], threading.Event(), ["not swept"]
        asked, swept, stop = threading.Event(), threading.Event(), threading.Event()

        def owner():
            handles.extend(transient_workspace() for _ in range(5))
            made.set()
            while not stop.is_set():
                if asked.wait(0.01):
                    asked.clear()
                    with transient_workspace():   # sweeps what died elsewhere
                        wnp.ones(4)
                    remaining[:] = [n for n in wnp.memory.allocation_statistics() if n.startswith("transient#")]
                    swept.set()

        def inside_retirement():
            f = sys._getframe(1)
            while f is not None:
                if f.f_code.co_name == "_retire" and f.f_code.co_filename.endswith("_transient.py"):
                    return True
                f = f.f_back
            return False

        waits = [0]
        def cb(phase, info):
            if phase == "start" and threading.current_thread() is threading.main_thread() and inside_retirement():
                waits[0] += 1
                swept.clear()
                asked.set()
                assert swept.wait(30), "the owner never swept"

        t = threading.Thread(target=owner)
        t.start()
        made.wait()
        gc.callbacks.append(cb)
        gc.set_threshold(1, 1, 1)
        while handles:
            handles.pop()        # dies here, on the main thread: queued for the owner
        gc.set_threshold(700, 10, 10)
        gc.callbacks.remove(cb)
        swept.clear()
        asked.set()
        swept.wait(30)
        stop.set()
        t.join()
        watchdog.cancel()
        print(waits[0] > 0, len(remaining) <= 1)  # at most the one that swept, until its `with` ends
    """, prelude=WATCHDOG)
    assert out.split() == ["True", "True"]


def test_block_records_let_go_of_a_dtype_whose_metadata_runs_wsarray_code():
    # With stacks recorded, a block's record holds its array's dtype; the record's end releases
    # it, and a dtype's metadata may run code (here, more blocks made, freed and read) right then.
    out = run_child("""
        import numpy, wsarray as wnp
        from wsarray import memory

        memory.record_history(True, stacks=True)
        fired = [0]

        class D:
            def __del__(self):
                fired[0] += 1
                with wnp.workspace("INNER"):
                    arrs = [wnp.ones(7) * i for i in range(60)]
                    del arrs
                memory.snapshot()

        ws = wnp.workspace("W")
        for i in range(100):
            dt = numpy.dtype(numpy.float64, metadata={"k": D()})
            with ws:
                a = wnp.zeros(5, dtype=dt) + 0 if i % 2 else wnp.asarray(numpy.zeros(5, dtype=dt))
                b = a * 2
                assert float(b.sum()) == 0.0
                assert any(blk["workspace"] == "W" for blk in memory.snapshot()["stacks"]["live_blocks"])
                del dt, a, b
        print(fired[0], len(memory.snapshot()["stacks"]["live_blocks"]))
    """, prelude="")
    assert out.split() == ["100", "0"]
