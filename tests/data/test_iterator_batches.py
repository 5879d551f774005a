"""AsyncIterator: what a batch holds, how long it is valid, where its memory lives."""
import collections
import re
import threading
import time

import numpy
import pytest

import wsarray as wnp
from wsarray.data import AsyncIterator, detach, shield

Pair = collections.namedtuple("Pair", "features labels")


def make_batches(n=7, rows=4):
    rng = numpy.random.default_rng(0)
    return [(rng.standard_normal((rows, 3)).astype("f4"), rng.integers(0, 9, rows)) for _ in range(n)]


def as_numpy(batch):
    return [numpy.array(numpy.asarray(a)) for a in batch]


@pytest.mark.parametrize("use_workspace", [True, False])
@pytest.mark.parametrize("shielded", [False, True])
def test_batches_equal_the_source(use_workspace, shielded):
    src = make_batches()
    source = shield(src) if shielded else src
    with AsyncIterator(source, queue_size=2, use_workspace=use_workspace) as it:
        seen = [as_numpy(b) for b in it]
        assert it.is_async is not shielded
    assert len(seen) == len(src)
    for got, want in zip(seen, src):
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            numpy.testing.assert_array_equal(g, w)


def test_structures_and_other_values_are_kept():
    x = numpy.arange(6.0).reshape(2, 3)
    batches = [
        Pair(x, x + 1),
        {"features": x, "mask": None, "id": 7, "nested": [x * 2, ("name", x * 3)]},
        [x, x],
        x,
    ]
    with AsyncIterator(batches) as it:
        pair = next(it)
        assert type(pair) is Pair and type(pair.features) is wnp.Array
        numpy.testing.assert_array_equal(numpy.asarray(pair.labels), x + 1)
        d = next(it)
        assert d["mask"] is None and d["id"] == 7 and d["nested"][1][0] == "name"
        numpy.testing.assert_array_equal(numpy.asarray(d["nested"][1][1]), x * 3)
        lst = next(it)
        assert isinstance(lst, list) and lst[0] is lst[1]  # one array twice: copied once, shared
        single = next(it)
        assert type(single) is wnp.Array and single.is_attached()


def test_a_batch_is_retired_when_the_next_is_requested():
    src = make_batches(5)
    with AsyncIterator(src, queue_size=2, name="train") as it:
        x0, y0 = next(it)
        assert float(x0.sum()) == pytest.approx(float(src[0][0].sum()))
        kept = detach((x0, y0))
        x1, _ = next(it)
        with pytest.raises(wnp.WorkspaceError) as info:
            x0.sum()
        message = str(info.value)
        assert "wsarray.data.AsyncIterator 'train'" in message
        assert "wsarray.data.detach(batch)" in message
        with pytest.raises(wnp.WorkspaceError):
            numpy.sum(y0)
        with pytest.raises(wnp.WorkspaceError):
            detach((x0, y0))
        numpy.testing.assert_array_equal(numpy.asarray(kept[0]), src[0][0])
        assert not kept[0].is_attached()
        float(x1.sum())  # the current batch is fine
    numpy.testing.assert_array_equal(numpy.asarray(kept[1]), src[0][1])  # survives close()


@pytest.mark.parametrize("shielded", [False, True])
def test_the_message_names_the_batch(shielded):
    """The stale message gives the slot's cycle and the formula for the batch number; it is right
    across epochs (an epoch's end also counts a number) and after the ring grew."""
    sizes = [3, 3, 3, 5000, 3, 3, 3]
    src = [numpy.full(n, float(i)) for i, n in enumerate(sizes)]
    with AsyncIterator(shield(src) if shielded else src, queue_size=1) as it:
        previous = previous_number = None
        for _ in range(3):
            for current in it:
                number = it.batch_number
                if previous is not None:
                    with pytest.raises(wnp.WorkspaceError) as info:
                        previous[0] + 1
                    message = str(info.value)
                    cycle = int(re.search(r"made in cycle (\d+)", message).group(1))
                    n, first = map(int, re.search(r"is batch (\d+)\*\(c-1\)\+(\d+)", message).groups())
                    assert n == it.ring_size
                    assert n * (cycle - 1) + first == previous_number
                previous, previous_number = current, number
        assert it.batch_number == 3 * 8 - 1  # 7 batches and an end per epoch
        assert it.stats()["workspace"]["resizes"] >= 1


def test_shielded_source_runs_in_the_callers_thread_with_the_same_rule():
    threads = []

    def source():
        for i in range(3):
            threads.append(threading.get_ident())
            yield numpy.full(2, i)

    it = AsyncIterator(shield(source()))
    a = next(it)
    b = next(it)
    with pytest.raises(wnp.WorkspaceError, match="slot 1 of its ring of 2"):
        a.sum()
    assert int(b.sum()) == 2
    assert threads == [threading.get_ident()] * 2
    it.close()
    with pytest.raises(wnp.WorkspaceError):
        b.sum()


def test_plain_mode_copies_and_never_retires():
    buffer = numpy.zeros(3)

    def reused_buffer():  # a source that reuses one buffer: the iterator's copy protects the batch
        for i in range(4):
            buffer[:] = i
            yield buffer

    with AsyncIterator(reused_buffer(), queue_size=2, use_workspace=False) as it:
        batches = list(it)
        assert it.stats()["workspace"] is None
    assert [float(b[0]) for b in batches] == [0.0, 1.0, 2.0, 3.0]
    assert not batches[0].is_attached()


def test_a_source_that_allocates_only_its_batch_fills_the_slot_without_a_copy():
    made = []

    class Source:
        allocates_batch_only = True

        def __init__(self):
            self.base = numpy.arange(12.0)  # built once, in the constructor

        def __iter__(self):
            for i in range(4):
                a = wnp.asarray(self.base) * i  # made by wsarray inside next(): in the slot
                made.append(numpy.asarray(a).ctypes.data)
                yield a

    with AsyncIterator(Source(), queue_size=1) as it:
        for i, batch in enumerate(it):
            assert numpy.asarray(batch).ctypes.data == made[i]
            assert ":slot" in batch.workspace
            assert float(batch.sum()) == 66.0 * i


def test_the_sources_working_memory_stays_out_of_the_slots():
    class Heavy:
        def __iter__(self):
            for i in range(8):
                big = wnp.ones((50, 10_000))  # 4 MB of temporaries per batch
                t = big * 2 + i
                yield t.sum(axis=1)[:10] - 2 * 10_000  # a batch of 80 bytes

    with AsyncIterator(Heavy(), queue_size=2) as it:
        values = [float(b[0]) for b in it]
        ws = it.stats()["workspace"]
    assert values == [10_000.0 * i for i in range(8)]
    assert ws["capacity"] < 4 * 65536  # four small slots: no room for the 4 MB temporaries
    assert ws["spilled_bytes"] < 1000  # only the first, tiny batch (learning)


def test_a_source_keeping_an_array_of_an_earlier_batch_is_told_why():
    class Leaky:
        def __init__(self):
            self.cache = None

        def __iter__(self):
            return self

        def __next__(self):
            if self.cache is None:
                self.cache = wnp.ones(4)  # made in next(): retired with the first batch
            return self.cache + 1

    it = AsyncIterator(Leaky(), queue_size=1)
    next(it)
    with pytest.raises(wnp.WorkspaceError) as info:
        for _ in range(5):
            next(it)
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "constructor" in notes and "not in next()" in notes
    it.close()


@pytest.mark.parametrize("fills_slot", [False, True])
def test_variable_batches_grow_the_ring_without_touching_live_batches(fills_slot):
    sizes = [1000, 1000, 1000, 1000, 50_000, 1000, 80_000, 1000, 1000, 1000, 1000, 1000, 1000]
    src = [numpy.full(n, float(i)) for i, n in enumerate(sizes)]
    source = shield(src) if fills_slot else src  # a shielded source is built in its slot
    with AsyncIterator(source, queue_size=2) as it:
        for i, batch in enumerate(it):
            assert batch.shape == (sizes[i],)
            time.sleep(0.01)  # the producer builds the larger batches ahead meanwhile
            assert float(batch.min()) == float(batch.max()) == float(i)
        ws = it.stats()["workspace"]
    assert ws["slot_size"] >= 80_000 * 8 * 1.3 and ws["resizes"] == 2
    if fills_slot:  # measured after the fill: the first and the two larger batches spilled once
        assert (1000 + 50_000 + 80_000) * 8 <= ws["spilled_bytes"] <= (1000 + 50_000 + 80_000) * 8 + 3 * 128
    else:  # known before the copy: nothing spills
        assert ws["spilled_bytes"] == 0


def test_a_stale_array_still_held_costs_a_counted_spill_not_corruption():
    src = [numpy.full(10_000, float(i)) for i in range(15)]
    with AsyncIterator(src, queue_size=1) as it:
        next(it)
        spilled_before = it.stats()["workspace"]["spilled_bytes"]  # the first batch's (learning)
        kept_stale = []  # the user keeps every retired batch alive: their blocks stay taken
        for i, batch in enumerate(it, start=1):
            assert float(batch.min()) == float(batch.max()) == float(i)
            kept_stale.append(batch)
        spilled_after = it.stats()["workspace"]["spilled_bytes"]
    assert spilled_after > spilled_before
    for a in kept_stale:
        with pytest.raises(wnp.WorkspaceError):
            a.sum()


def test_slots_hold_the_batch_times_1_3():
    src = [numpy.ones(100_000) for _ in range(8)]
    with AsyncIterator(src, queue_size=3) as it:
        for _ in it:
            pass
        ws = it.stats()["workspace"]
    assert ws["slots_made"] == 5 and ws["spilled_bytes"] == 0
    assert ws["slot_size"] == int((800_000 + 128) * 1.3)
    for s in ws["per_slot"]:  # a chunk of the slot size (rounded to pages), not twice the batch
        assert ws["slot_size"] <= s["capacity"] < ws["slot_size"] + 65536


def test_figures():
    src = make_batches(6)
    with AsyncIterator(src, queue_size=2) as it:
        list(it)
        s = it.stats()
    assert s["consumed"] == 6 and s["queued"] == 6 and s["errors"] == 0 and s["dropped"] == 0
    assert s["built"] == 7  # the batches and the end
    assert s["consumer_wait_s"] >= s["last_wait_s"] >= 0
    assert s["workspace"]["cycles"] == 7
    assert s["ring_size"] == 4 and s["queue_size"] == 2


def test_bad_arguments():
    with pytest.raises(ValueError, match="queue_size must be an int of at least 1"):
        AsyncIterator([], queue_size=0)
    with pytest.raises(ValueError, match="consumers"):
        AsyncIterator([], consumers=0)
    with pytest.raises(TypeError, match="iterable of batches"):
        AsyncIterator(3)
    with pytest.raises(TypeError, match="use_workspace must be a bool"):
        AsyncIterator([], use_workspace="yes")
    with pytest.raises(ValueError, match="block_left"):
        AsyncIterator([], workspace_config=wnp.WorkspaceConfig(reset="end_of_buffer"))
    with pytest.raises(TypeError, match="WorkspaceConfig"):
        AsyncIterator([], workspace_config={"initial_size": 10})


def test_len_and_repr():
    it = AsyncIterator(make_batches(3), name="val")
    assert len(it) == 3
    assert "'val'" in repr(it)
    it.close()


@pytest.mark.parametrize("shielded", [False, True])
def test_numpy_subclass_batches_keep_their_class_and_mask(shielded):
    # A masked array's mask and a matrix's multiplication are part of the batch's meaning.
    masked = numpy.ma.array([[1.0, -999.0], [3.0, -999.0]], mask=[[0, 1], [0, 1]])
    matrix = numpy.matrix([[1.0, 2.0], [3.0, 4.0]])
    source = [(masked, matrix), (masked * 2, matrix * 2)]
    with AsyncIterator(shield(source) if shielded else source, queue_size=1) as it:
        got = [detach(b) for b in it]
    for (m, x), (want_m, want_x) in zip(got, source):
        assert type(m) is numpy.ma.MaskedArray and type(x) is numpy.matrix
        assert m.mean() == want_m.mean() and m.mask.tolist() == want_m.mask.tolist()
        assert (x * x).tolist() == (want_x * want_x).tolist()  # matrix product, not elementwise


def test_absurd_sizes_are_refused_at_once_naming_the_parameter():
    for kwargs, name in (({"queue_size": 2**40}, "queue_size"), ({"consumers": 2**40}, "consumers")):
        with pytest.raises(ValueError, match=rf"AsyncIterator\(\): {name} must be at most 1024, got {2**40}"):
            AsyncIterator([numpy.ones(2)], **kwargs)
