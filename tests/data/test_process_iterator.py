"""AsyncIterator(backend="process"): batches built by worker processes in shared-memory slots.

Results against the batches stacked by NumPy in the test, the seeded order, the batch-validity
rule, errors at their position with the worker's traceback, workers killed (kill -9, os._exit)
and re-run, the owner killed, fork and spawn, exact resume in a new process, the memory budget,
bad arguments; after each test no worker process and no thread is left."""
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy
import pytest

import wsarray
from wsarray.data import AsyncIterator, WorkerError, default_collate, detach
from process_datasets import (Dying, Failing, Noisy, Ragged, Records, Squares, Stream, Unpicklable,
                              expected_squares, pad_collate)

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(autouse=True)
def _no_worker_left():
    yield
    deadline = time.monotonic() + 10
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not multiprocessing.active_children(), multiprocessing.active_children()


def shm_files():
    return set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()


def values(batch):
    x, y = batch
    return numpy.asarray(x).copy(), numpy.asarray(y).copy()


def _labels(it, n=None):
    out = []
    for k, batch in enumerate(it):
        out += [int(v) for v in numpy.asarray(batch[1])]
        if n is not None and k + 1 == n:
            break
    return out


def _plan_labels(seed, epoch, n=20):
    """Squares' labels of epoch ``epoch`` shuffled from ``seed``: the plan's permutation."""
    return [int(i) * int(i) for i in numpy.random.default_rng([seed, epoch]).permutation(n)]


def _wait_built(it, count):
    deadline = time.monotonic() + 10
    while it.stats()["built"] < count and time.monotonic() < deadline:
        time.sleep(0.01)
    return it.stats()["built"]


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_batches_equal_numpy_stacking_in_order(start_method):
    with AsyncIterator(Squares(23), backend="process", workers=2, batch_size=5,
                       start_method=start_method) as it:
        got = [values(b) for b in it]
        assert len(it) == 5
        pids = it.stats()["worker_pids"]
        assert len(pids) == 2 and os.getpid() not in pids
    assert len(got) == 5
    for k, (x, y) in enumerate(got):
        ex, ey = expected_squares(range(5 * k, min(5 * k + 5, 23)))
        assert x.dtype == numpy.float32 and numpy.array_equal(x, ex)
        assert numpy.array_equal(y, ey)


def test_batches_live_in_shared_slots_and_are_retired_by_the_next():
    with AsyncIterator(Squares(12), backend="process", workers=2, batch_size=4, seed=1) as it:
        first = next(it)
        x = first[0]
        assert type(x) is wsarray.Array and x.workspace.startswith("data:")
        kept = detach(first)
        next(it)
        with pytest.raises(wsarray.WorkspaceError, match="built by a worker process"):
            x + 1
        assert numpy.array_equal(numpy.asarray(kept[0]), expected_squares(range(4))[0])
        st = it.stats()
        assert st["workspace"]["slots_alive"] >= 2 and st["built"] >= 2


def test_shuffle_is_a_seeded_permutation_per_epoch():
    def epoch_indices(seed, epochs=2):
        out = []
        with AsyncIterator(Squares(20), backend="process", workers=2, batch_size=6, shuffle=True,
                           seed=seed) as it:
            for _ in range(epochs):
                out.append([int(v) for b in it for v in numpy.asarray(b[1])])
        return out

    a, b, c = epoch_indices(7), epoch_indices(7), epoch_indices(8)
    assert a == b and a != c
    assert a[0] != a[1]  # a new permutation each epoch
    for epoch in a:
        assert sorted(round(v ** 0.5) for v in epoch) == list(range(20))
    assert a[0] == _plan_labels(7, 1)


def test_random_augmentation_is_the_same_whichever_worker_builds_it():
    def run(workers):
        with AsyncIterator(Noisy(16), backend="process", workers=workers, batch_size=4, seed=3) as it:
            return [[numpy.asarray(leaf).copy() for leaf in b] for b in it]

    one, three = run(1), run(3)
    for b1, b3 in zip(one, three):
        for l1, l3 in zip(b1, b3):
            assert numpy.array_equal(l1, l3)


def test_structures_strings_numbers_and_custom_collate():
    with AsyncIterator(Records(), backend="process", workers=2, batch_size=4) as it:
        batch = next(it)
        assert set(batch) == {"x", "name", "w"}
        want = numpy.stack([numpy.full((2, 3), float(i)) for i in range(4)])
        assert numpy.array_equal(numpy.asarray(batch["x"]), want)
        assert batch["name"] == ["r0", "r1", "r2", "r3"]
        assert numpy.allclose(numpy.asarray(batch["w"]), [0, 0.1, 0.2, 0.3])
    with AsyncIterator(Ragged(), backend="process", workers=2, batch_size=5, collate=pad_collate) as it:
        for k, (padded, lengths) in enumerate(it):
            want = pad_collate([Ragged()[i] for i in range(5 * k, min(5 * k + 5, 12))])
            assert numpy.array_equal(numpy.asarray(padded), want[0])
            assert numpy.array_equal(numpy.asarray(lengths), want[1])


def test_default_collate_matches_stacking_and_refuses_ragged_samples():
    x, y = default_collate([Squares()[i] for i in range(3)])
    ex, ey = expected_squares(range(3))
    assert numpy.array_equal(x, ex) and numpy.array_equal(y, ey)
    with pytest.raises(ValueError, match="different shapes"):
        default_collate([Ragged()[0], Ragged()[1]])
    with AsyncIterator(Ragged(), backend="process", workers=1, batch_size=3) as it:
        with pytest.raises(ValueError, match="different shapes.*pass collate="):
            next(it)


def test_a_dataset_error_is_raised_at_its_batch_with_the_worker_traceback():
    with AsyncIterator(Failing(20, bad=9), backend="process", workers=2, batch_size=4) as it:
        got = [values(next(it))[1] for _ in range(2)]
        with pytest.raises(ValueError, match="sample 9 is broken") as info:
            next(it)
        note = "\n".join(getattr(info.value, "__notes__", []))
        assert "while it built batch 3" in note and "__getitem__" in note
        rest = [values(b)[1] for b in it]  # the iterator goes on after the error
    assert [list(g) for g in got] == [[0, 1, 4, 9], [16, 25, 36, 49]]
    assert [list(r) for r in rest] == [[144, 169, 196, 225], [256, 289, 324, 361]]


def test_a_worker_killed_with_sigkill_is_replaced_and_its_batch_re_run():
    with AsyncIterator(Squares(60, delay=0.01), backend="process", workers=2, batch_size=4) as it:
        got = [values(next(it))]
        victim = it.stats()["worker_pids"][0]
        os.kill(victim, signal.SIGKILL)
        got += [values(b) for b in it]
        st = it.stats()
        assert victim not in st["worker_pids"] and len(st["worker_pids"]) == 2
        assert st["worker_restarts"] >= 1
    assert len(got) == 15
    for k, (x, y) in enumerate(got):
        ex, ey = expected_squares(range(4 * k, 4 * k + 4))
        assert numpy.array_equal(x, ex) and numpy.array_equal(y, ey)


def test_a_batch_that_kills_its_worker_twice_raises_worker_error_at_its_position(tmp_path):
    with AsyncIterator(Dying(16, bad=6), backend="process", workers=2, batch_size=4) as it:
        assert list(values(next(it))[1]) == [0, 1, 4, 9]
        with pytest.raises(WorkerError, match=r"exited with status 3 while it built batch 2.*samples: \[4, 5, 6, 7\]"):
            next(it)
        rest = [values(b)[1] for b in it]
    assert [list(r) for r in rest] == [[64, 81, 100, 121], [144, 169, 196, 225]]
    # A worker that dies once (a marker file): the batch is re-run and nothing is lost.
    marker = str(tmp_path / "died")
    with AsyncIterator(Dying(16, bad=6, marker=marker), backend="process", workers=2, batch_size=4) as it:
        got = [list(values(b)[1]) for b in it]
        assert it.stats()["rerun_batches"] >= 1
    assert os.path.exists(marker) and got[1] == [16, 25, 36, 49]


def test_early_break_and_resume_lose_nothing():
    with AsyncIterator(Squares(40), backend="process", workers=2, batch_size=4) as it:
        seen = []
        for batch in it:
            seen.append(int(numpy.asarray(batch[1])[0]))
            if len(seen) == 3:
                break
        for batch in it:
            seen.append(int(numpy.asarray(batch[1])[0]))
    assert seen == [(4 * k) ** 2 for k in range(10)]


def test_state_dict_resumes_bit_for_bit_in_a_new_process():
    with AsyncIterator(Noisy(30), backend="process", workers=2, batch_size=4, shuffle=True, seed=11) as it:
        for _ in range(3):
            next(it)
        state = json.loads(json.dumps(it.state_dict()))
        rest = [[numpy.asarray(leaf).tolist() for leaf in b] for b in it]
    assert state["position"] == 3 and state["epoch"] == 1
    script = textwrap.dedent(f"""
        import json, sys, numpy
        sys.path.insert(0, {HERE!r})
        from process_datasets import Noisy
        from wsarray.data import AsyncIterator
        with AsyncIterator(Noisy(30), backend="process", workers=3, batch_size=4, shuffle=True, seed=11) as it:
            it.load_state_dict(json.loads(sys.argv[1]))
            print(json.dumps([[numpy.asarray(leaf).tolist() for leaf in b] for b in it]))
    """)
    out = subprocess.run([sys.executable, "-P", "-c", script, json.dumps(state)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout) == rest


def test_the_next_epoch_is_built_while_the_last_one_ends_and_is_the_plans():
    # 20 samples in batches of 6: 4 batches per epoch; queue_size 2: 2 of epoch 2 built ahead.
    with AsyncIterator(Squares(20), backend="process", workers=2, batch_size=6, shuffle=True, seed=5,
                       queue_size=2) as it:
        first = _labels(it)
        assert _wait_built(it, 6) == 6  # before the second for loop asks for anything
        second = _labels(it)
        st = it.stats()
        assert st["epochs_prefetched"] == 1 and st["dropped"] == 0 and st["epoch"] == 2
        third = _labels(it, 2)
        state = it.state_dict()
    assert first == _plan_labels(5, 1) and second == _plan_labels(5, 2)
    assert third == _plan_labels(5, 3)[:12]
    assert state["epoch"] == 3 and state["position"] == 2


def test_epochs_shorter_than_the_queue_are_built_epochs_ahead_and_come_in_order():
    # 8 samples in batches of 4: 2 batches per epoch, a queue of 8 runs several epochs ahead.
    with AsyncIterator(Squares(8), backend="process", workers=2, batch_size=4, shuffle=True, seed=2,
                       queue_size=8) as it:
        epochs = [_labels(it) for _ in range(5)]
        st = it.stats()
        assert st["epochs_prefetched"] == 4 and st["dropped"] == 0 and st["epoch"] == 5
    assert epochs == [_plan_labels(2, e, 8) for e in range(1, 6)]


def test_a_reset_before_the_epoch_ended_drops_the_next_epochs_prefetched_batches():
    with AsyncIterator(Squares(20), backend="process", workers=2, batch_size=6, shuffle=True, seed=5,
                       queue_size=2) as it:
        for _ in range(4):  # every batch of epoch 1, but not the end of it
            next(it)
        assert _wait_built(it, 5) == 5  # the end and one batch of epoch 2 in the queue of 2
        it.reset()  # epoch 2 anew: what was built ahead is dropped, the plan is the same
        second = _labels(it)
        st = it.stats()
        assert st["epochs_prefetched"] == 0 and st["dropped"] >= 1 and st["epoch"] == 2
    assert second == _plan_labels(5, 2)


def test_an_epoch_without_batches_ends_at_once_every_time():
    with AsyncIterator(Squares(3), backend="process", workers=2, batch_size=5, drop_last=True) as it:
        assert [list(it) for _ in range(3)] == [[], [], []]


def test_a_state_saved_at_the_end_of_an_epoch_resumes_with_the_next_epoch():
    # The common checkpoint: after the epoch's for loop. Its state says the whole epoch was handed
    # out, and loading it gives the next epoch from its start.
    with AsyncIterator(Squares(20), backend="process", workers=2, batch_size=6, shuffle=True, seed=9) as it:
        _labels(it)
        state = json.loads(json.dumps(it.state_dict()))
        second = _labels(it)
    assert state["epoch"] == 1 and state["position"] == 4 and state["finished"] is True
    with AsyncIterator(Squares(20), backend="process", workers=2, batch_size=6, shuffle=True, seed=9) as again:
        again.load_state_dict(state)
        assert _labels(again) == second == _plan_labels(9, 2)
        assert again.stats()["epoch"] == 2


def test_load_state_dict_refuses_other_settings():
    with AsyncIterator(Squares(30), backend="process", workers=1, batch_size=4, seed=1) as it:
        state = it.state_dict()
    with AsyncIterator(Squares(30), backend="process", workers=1, batch_size=5, seed=1) as other:
        with pytest.raises(ValueError, match="batch_size=4, this iterator has batch_size=5"):
            other.load_state_dict(state)
        with pytest.raises(ValueError, match="state version"):
            other.load_state_dict({})
    with AsyncIterator([numpy.ones(2)]) as threaded:
        with pytest.raises(TypeError, match="needs backend='process'"):
            threaded.state_dict()


def test_iterable_dataset_is_sharded_round_robin_and_deterministic():
    def run():
        with AsyncIterator(Stream(23), backend="process", workers=3, batch_size=2) as it:
            return [numpy.asarray(b)[:, 0].astype(int).tolist() for b in it]

    first, second = run(), run()
    assert first == second
    assert sorted(v for b in first for v in b) == list(range(23))
    # Worker k's shard is k, k+3, ...; its batches come in turn: worker 0, 1, 2, 0, ...
    assert first[:3] == [[0, 3], [1, 4], [2, 5]]


def test_close_leaves_no_process_no_thread_and_no_shared_file():
    before = shm_files()
    it = AsyncIterator(Squares(400, delay=0.005), backend="process", workers=2, batch_size=4)
    next(it)
    pids = it.stats()["worker_pids"]
    assert it.close() is True
    assert [t.name for t in threading.enumerate() if t.name.startswith("wsarray-data-")] == []
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert shm_files() <= before


def test_garbage_collection_stops_the_workers():
    it = AsyncIterator(Squares(400, delay=0.005), backend="process", workers=2, batch_size=4)
    next(it)
    del it  # the finalizer closes it (the autouse fixture checks no child is left)


def test_killing_the_owner_leaves_no_worker_and_nothing_in_dev_shm():
    before = shm_files()
    script = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {HERE!r})
        from process_datasets import Squares
        from wsarray.data import AsyncIterator
        it = AsyncIterator(Squares(100000, delay=0.001), backend="process", workers=2, batch_size=8)
        next(it)
        print(*it.stats()["worker_pids"], flush=True)
        time.sleep(60)
    """)
    owner = subprocess.Popen([sys.executable, "-P", "-c", script], stdout=subprocess.PIPE, text=True)
    pids = [int(p) for p in owner.stdout.readline().split()]
    assert len(pids) == 2
    owner.kill()
    owner.wait(10)
    deadline = time.monotonic() + 10
    alive = pids
    while alive and time.monotonic() < deadline:
        alive = [p for p in pids if _running(p)]
        time.sleep(0.05)
    assert not alive
    assert shm_files() <= before


def _running(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_memory_budget_bounds_the_slots_and_too_small_a_budget_says_so():
    with AsyncIterator(Squares(64), backend="process", workers=2, batch_size=8, memory_budget="64KB") as it:
        got = [values(b)[1] for b in it]
        ws = it.stats()["workspace"]
        assert ws["capacity"] <= 64 * 1024
    assert len(got) == 8
    with AsyncIterator(Squares(64), backend="process", workers=2, batch_size=8, memory_budget=1000) as it:
        with pytest.raises(MemoryError, match="memory_budget .1000 bytes. holds fewer than 3 batches"):
            next(it)


def test_auto_queue_stays_within_its_bounds():
    with AsyncIterator(Squares(200), backend="process", workers=2, batch_size=4, queue_size="auto") as it:
        for _ in it:
            pass
        st = it.stats()
    assert st["queue_auto"] and 1 <= st["queue_size"] <= 64
    assert st["workspace"]["slots_made"] <= st["queue_size"] + 2 + st["queue_grows"] + st["workspace"]["resizes"] * 8


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(workers=0), ValueError, "workers must be an int"),
    (dict(batch_size=0), ValueError, "batch_size must be a positive int"),
    (dict(queue_size="big"), ValueError, "queue_size must be 'auto' or an int"),
    (dict(memory_budget="lots"), ValueError, "memory_budget must be a size"),
    (dict(start_method="forkserver"), ValueError, "start_method must be 'fork' or 'spawn'"),
    (dict(consumers=2), ValueError, "one consumer"),
    (dict(shuffle="yes"), TypeError, "shuffle must be a bool"),
    (dict(collate=3), TypeError, "collate must be callable"),
    (dict(seed=-1), ValueError, "seed must be a non-negative int"),
    (dict(backend="gpu"), ValueError, "backend must be 'thread' or 'process'"),
])
def test_bad_arguments_are_refused_naming_them(kwargs, error, match):
    kwargs = dict({"backend": "process"}, **kwargs)
    with pytest.raises(error, match=match):
        AsyncIterator(Squares(), **kwargs)


def test_workers_need_the_process_backend_and_a_dataset():
    with pytest.raises(ValueError, match="workers= needs backend='process'"):
        AsyncIterator([numpy.ones(2)], workers=2)
    with pytest.raises(TypeError, match="needs a dataset"):
        AsyncIterator(42, backend="process")
    with pytest.raises(ValueError, match="shuffle=True needs a map-style dataset"):
        AsyncIterator(Stream(4), backend="process", shuffle=True)


def test_spawn_needs_a_picklable_dataset():
    class Local(Squares):
        pass

    it = AsyncIterator(Local(8), backend="process", workers=1, batch_size=2, start_method="spawn")
    try:
        with pytest.raises(TypeError, match="must pickle"):
            next(it)
    finally:
        it.close()


def test_iterable_dataset_resumes_from_its_state():
    with AsyncIterator(Stream(31), backend="process", workers=2, batch_size=3) as it:
        for _ in range(4):
            next(it)
        state = json.loads(json.dumps(it.state_dict()))
        rest = [numpy.asarray(b)[:, 0].astype(int).tolist() for b in it]
    with AsyncIterator(Stream(31), backend="process", workers=2, batch_size=3) as again:
        again.load_state_dict(state)
        assert [numpy.asarray(b)[:, 0].astype(int).tolist() for b in again] == rest
    assert rest and state["position"] == 4


def test_retired_batches_kept_alive_cost_spills_never_wrong_data():
    kept = []
    with AsyncIterator(Squares(48), backend="process", workers=2, batch_size=4) as it:
        for k, batch in enumerate(it):
            ex, ey = expected_squares(range(4 * k, 4 * k + 4))
            assert numpy.array_equal(numpy.asarray(batch[0]), ex)
            assert numpy.array_equal(numpy.asarray(batch[1]), ey)
            kept.append(batch)  # every retired batch stays referenced: their slots' blocks stay live
        assert it.stats()["consumed"] == 12
    with pytest.raises(wsarray.WorkspaceError):
        kept[0][0] + 1


def _unix_listening_inodes():
    inodes = set()
    with open("/proc/net/unix") as f:
        next(f)
        for line in f:
            parts = line.split()
            if int(parts[3], 16) & 0x10000:  # __SO_ACCEPTCON: a listening socket
                inodes.add(parts[6])
    for name in ("tcp", "tcp6"):
        try:
            with open(f"/proc/net/{name}") as f:
                next(f)
                inodes.update(p.split()[9] for p in f if p.split()[3] == "0A")  # LISTEN
        except OSError:
            pass
    return inodes


def _socket_inodes(pid):
    out = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            out.add(target[8:-1])
    return out


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_no_listening_socket_anywhere(start_method):
    with AsyncIterator(Squares(40), backend="process", workers=2, batch_size=4, start_method=start_method) as it:
        next(it)
        listening = _unix_listening_inodes()
        for pid in [os.getpid()] + it.stats()["worker_pids"]:
            sockets = _socket_inodes(pid)
            assert sockets, pid  # the channels are sockets (a pair), none of them listening
            assert not sockets & listening, pid


def test_timeout_says_which_worker_is_late_and_the_batch_arrives_later():
    with AsyncIterator(Squares(8, delay=0.15), backend="process", workers=1, batch_size=4, timeout=0.2) as it:
        with pytest.raises(TimeoutError, match=r"no batch within timeout=0.2 s \(batch 1: worker 0 \(pid"):
            next(it)
        for _ in range(50):  # still usable: the batch comes once it is built (0.6 s)
            try:
                x, y = next(it)
                break
            except TimeoutError:
                pass
        assert list(numpy.asarray(y)) == [0, 1, 4, 9]
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        AsyncIterator(Squares(), backend="process", timeout=0)
    with pytest.raises(ValueError, match="timeout= needs backend='process'"):
        AsyncIterator([numpy.ones(2)], timeout=1.0)


def test_default_collate_refuses_samples_with_other_keys():
    class Keys(Squares):
        def __getitem__(self, i):
            return {"a": i} if i % 2 else {"b": i}

    with AsyncIterator(Keys(4), backend="process", workers=1, batch_size=2) as it:
        with pytest.raises(ValueError, match="samples with different keys"):
            next(it)


def test_interpreter_exit_with_running_workers_does_not_hang_or_orphan():
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {HERE!r})
        from process_datasets import Squares
        from wsarray.data import AsyncIterator
        it = AsyncIterator(Squares(100000, delay=0.001), backend="process", workers=2, batch_size=8)
        next(it)
        print(*it.stats()["worker_pids"], flush=True)
    """)
    start = time.monotonic()
    out = subprocess.run([sys.executable, "-P", "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert time.monotonic() - start < 30
    pids = [int(p) for p in out.stdout.split()]
    deadline = time.monotonic() + 10
    while any(_running(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_running(p) for p in pids)


def test_close_run_in_a_shielded_call_does_not_wait_for_itself():
    # A finalizer may close an iterator wherever it is collected, inside a shielded call included.
    from wsarray._interrupts import shielded
    it = AsyncIterator(Squares(40), backend="process", workers=2, batch_size=4)
    next(it)
    start = time.monotonic()
    assert shielded(it.close) is True
    assert time.monotonic() - start < 20


def test_a_value_that_cannot_be_pickled_is_raised_at_its_batch_and_the_workers_live_on():
    # A lambda among a batch's values: the owner raises a TypeError naming it at that batch's
    # position (the worker died and only its stderr said why); the other batches arrive.
    with AsyncIterator(Unpicklable(8, bad=5), backend="process", workers=2, batch_size=2) as it:
        got, errors = [], []
        while True:
            try:
                got.append(int(numpy.asarray(next(it)[2])[0]))
            except StopIteration:
                break
            except TypeError as e:
                errors.append(str(e))
        assert got == [0, 2, 6] and len(errors) == 1
        assert "cannot be sent to the owner process" in errors[0] and "lambda" in errors[0]
        assert it.stats()["worker_restarts"] == 0 and it.stats()["errors"] == 1


def test_closing_an_iterator_inherited_by_a_fork_child_leaves_the_parents_workers_alone():
    # The child's copy of a process iterator holds the parent's workers, which only the parent may
    # join: close() there drops its copies quietly, and the parent's iterator goes on.
    it = AsyncIterator(Squares(8), backend="process", workers=2, batch_size=2)
    try:
        next(it)
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child
            status, raised = 1, []
            try:
                threading.excepthook = raised.append  # close() stops the workers on a thread
                it.close()
                status = 0 if not raised else 2
            finally:
                os.write(write, bytes([status]))
                os._exit(0)
        os.close(write)
        assert os.read(read, 1) == bytes([0])
        os.waitpid(pid, 0)
        os.close(read)
        assert int(numpy.asarray(next(it)[1])[0]) == 4
    finally:
        it.close()


FORK_CHILD_EXITS = textwrap.dedent("""
    import os, sys, time
    import numpy
    from wsarray.data import AsyncIterator
    from wsarray.parallel import ParallelInference

    class Squares:
        def __len__(self):
            return 40
        def __getitem__(self, i):
            return numpy.full(3, float(i * i))

    it = AsyncIterator(Squares(), backend="process", workers=2, batch_size=2)
    pi = ParallelInference(lambda x: x * 2.0, workers=1, backend="process")
    threads_it = AsyncIterator([numpy.full(2, float(i)) for i in range(50)])
    next(it), next(threads_it)
    assert numpy.asarray(pi.output(numpy.ones((1, 3)))).tolist() == [[2.0] * 3]
    pids = it.stats()["worker_pids"]
    pid = os.fork()
    if pid == 0:  # the child closes its copies and ends as a script ends: atexit handlers run
        start = time.monotonic()
        ok = it.close() is not False and threads_it.close() is not False
        took = time.monotonic() - start
        sys.exit(0 if ok and took < 1.0 else 3)
    start = time.monotonic()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, os.waitstatus_to_exitcode(status)
    assert time.monotonic() - start < 1.5  # no wait for a producer thread the child does not have
    for p in pids:  # the parent's workers were left alone (the child's exit terminated them)
        with open(f"/proc/{p}/stat") as f:
            assert f.read().rsplit(")", 1)[1].split()[0] != "Z", p
    assert [float(numpy.asarray(next(it))[0][0]) for _ in range(3)] == [4.0, 16.0, 36.0]
    assert it.stats()["worker_restarts"] == 0
    assert numpy.asarray(pi.output(numpy.ones((1, 3)))).tolist() == [[2.0] * 3]
    it.close(), threads_it.close(), pi.shutdown()
    print("ok")
""")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_fork_child_that_exits_normally_leaves_the_parents_workers_alone():
    # multiprocessing's list of children comes along with a fork, and at the child's exit its
    # handler terminated every daemon process on it: the parent's workers and replicas.
    proc = subprocess.run([sys.executable, "-P", "-c", FORK_CHILD_EXITS], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", (proc.stdout[-2000:], proc.stderr[-4000:])


def _sleeper(spec, wid, conn, fdsock, close_fds):
    time.sleep(60)


def test_burying_a_worker_whose_process_still_runs_kills_and_reaps_it():
    # A worker whose channel failed first was forgotten while its process still ran: it exited
    # later and nobody reaped it (zombies after Ctrl-C storms over process training).
    from wsarray.data._processes import WorkerPool
    pool = WorkerPool("test", None, 1, "fork", target=_sleeper, name="wsarray-test-sleeper")
    worker = pool.start(0)
    assert worker.process.is_alive()
    pool.bury(worker)
    assert worker.process.exitcode is not None and pool.workers[0] is None
    assert worker.process not in multiprocessing.active_children()
    with pytest.raises(ProcessLookupError):
        os.kill(worker.pid, 0)  # reaped: no zombie left behind
