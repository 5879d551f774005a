"""save_batches / BatchDirectory: round trips NumPy can read, bad files, AsyncIterator on top."""
import collections
import json
import os

import numpy
import pytest

import wsarray as wnp
from wsarray.data import AsyncIterator, BatchDirectory, BatchFileError, save_batches
from wsarray.data import _pipeline

Sample = collections.namedtuple("Sample", "x y")

DTYPES = ["f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "?", "c8", "c16",
          "U5", "S3", "M8[s]", "m8[ms]", ">f8", ">i4"]


def sample_array(dtype, shape=(3, 4)):
    raw = numpy.arange(int(numpy.prod(shape))).reshape(shape)
    return (raw % 2 == 0) if dtype == "?" else raw.astype(dtype)


def same(a, b):
    a, b = numpy.asarray(a), numpy.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    numpy.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_round_trips_and_numpy_reads_the_file(tmp_path, dtype):
    a = sample_array(dtype)
    assert save_batches([a, (a, a[:, ::2])], tmp_path) == 2
    bd = BatchDirectory(tmp_path)
    single, pair = list(bd)
    same(single, a)
    same(pair[0], a)
    same(pair[1], a[:, ::2])
    assert type(single) is wnp.Array
    same(numpy.load(bd.files[0]), a)
    with numpy.load(bd.files[1]) as npz:
        same(npz["arr_1"], a[:, ::2])


@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 0, 3), (2, 3, 4)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_shapes_and_orders(tmp_path, shape, order):
    a = numpy.asarray(numpy.arange(int(numpy.prod(shape)), dtype="f8").reshape(shape), order=order)
    save_batches([a], tmp_path)
    (back,) = BatchDirectory(tmp_path)
    same(back, a)
    assert numpy.asarray(back).flags.f_contiguous == a.flags.f_contiguous


def test_structures_round_trip(tmp_path):
    x = numpy.ones((2, 3), "f4")
    batches = [
        Sample(x, numpy.arange(2)),
        {"features": x, "labels": numpy.arange(2), "mask": None, "meta": {"id": 7, "name": "a"}},
        [x, x, [x * 2, 3.5, True]],
        (wnp.asarray(x) + 1, "tag"),
    ]
    save_batches(batches, tmp_path)
    back = list(BatchDirectory(tmp_path))
    assert type(back[0]).__name__ == "Sample" and back[0]._fields == ("x", "y")
    same(back[0].x, x)
    d = back[1]
    assert d["mask"] is None and d["meta"] == {"id": 7, "name": "a"}
    assert list(d) == ["features", "labels", "mask", "meta"]
    same(d["labels"], numpy.arange(2))
    lst = back[2]
    assert lst[0] is lst[1] and lst[2][1:] == [3.5, True]  # a shared array stays shared
    same(lst[2][0], x * 2)
    same(back[3][0], x + 1)
    assert back[3][1] == "tag"
    with numpy.load(BatchDirectory(tmp_path).files[1]) as npz:
        assert sorted(npz.files) == ["features", "labels"]


def test_what_cannot_be_saved(tmp_path):
    with pytest.raises(TypeError, match="object"):
        save_batches([numpy.array([{}, 1], dtype=object)], tmp_path / "a")
    with pytest.raises(TypeError, match="dict keys"):
        save_batches([{1: numpy.ones(2)}], tmp_path / "b")
    with pytest.raises(TypeError, match=r"item \[1\] is a set"):
        save_batches([(numpy.ones(2), {1})], tmp_path / "c")
    assert not os.path.exists(tmp_path / "c" / "index.json")  # no index for a failed run


def test_an_existing_index_is_kept_unless_overwrite(tmp_path):
    save_batches([numpy.ones(2)] * 3, tmp_path)
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        save_batches([numpy.zeros(2)], tmp_path)
    save_batches([numpy.zeros(2)], tmp_path, overwrite=True)
    assert len(BatchDirectory(tmp_path)) == 1
    assert sorted(os.listdir(tmp_path)) == ["batch_000000.npy", "index.json", "notes.txt"]


def test_only_the_indexed_files_count(tmp_path):
    save_batches([numpy.full(2, i) for i in range(3)], tmp_path)
    numpy.save(tmp_path / "batch_000099.npy", numpy.ones(2))
    (tmp_path / "README").write_text("x")
    assert [int(b[0]) for b in BatchDirectory(tmp_path)] == [0, 1, 2]


# -- bad input -------------------------------------------------------------------------------

def three_batches(path):
    save_batches([(numpy.full((4, 3), float(i)), numpy.arange(4) + i) for i in range(3)], path)
    return BatchDirectory(path)


def test_missing_directory_or_index(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        BatchDirectory(tmp_path / "nope")
    with pytest.raises(FileNotFoundError, match="index.json' is missing"):
        BatchDirectory(tmp_path)
    (tmp_path / "index.json").write_text("{not json")
    with pytest.raises(ValueError, match="damaged"):
        BatchDirectory(tmp_path)
    (tmp_path / "index.json").write_text(json.dumps({"format": "wsarray.data.batches", "version": 1,
                                                     "batches": [{"file": "../x"}]}))
    with pytest.raises(ValueError, match="batch 0 is not described fully"):
        BatchDirectory(tmp_path)
    with pytest.raises(ValueError, match="on_error"):
        BatchDirectory(tmp_path, on_error="ignore")


def test_a_missing_file_is_named_and_the_rest_still_reads(tmp_path):
    bd = three_batches(tmp_path)
    os.remove(bd.files[1])
    it = iter(bd)
    same(next(it)[0], numpy.full((4, 3), 0.0))
    with pytest.raises(BatchFileError, match="batch 1 .*batch_000001.npz.*missing") as info:
        next(it)
    assert info.value.path == bd.files[1] and info.value.batch == 1
    same(next(it)[0], numpy.full((4, 3), 2.0))


def test_a_truncated_file(tmp_path):
    bd = three_batches(tmp_path)
    with open(bd.files[0], "r+b") as f:
        f.truncate(os.path.getsize(bd.files[0]) - 10)
    with pytest.raises(BatchFileError, match="truncated"):
        bd[0]
    same(bd[1][1], numpy.arange(4) + 1)


def test_a_corrupted_byte_is_caught_by_the_checksum(tmp_path):
    bd = three_batches(tmp_path)
    offset = json.loads((tmp_path / "index.json").read_text())["batches"][2]["arrays"][0]["offset"]
    with open(bd.files[2], "r+b") as f:
        f.seek(offset + 5)
        byte = f.read(1)
        f.seek(offset + 5)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(BatchFileError, match="'arr_0' is corrupted: its CRC-32"):
        bd[2]
    assert BatchDirectory(tmp_path, verify=False)[2][0].shape == (4, 3)  # unchecked: read as is


def test_a_file_of_another_dtype_or_shape(tmp_path):
    save_batches([numpy.ones((4, 2), "f8"), numpy.ones((4, 2), "f8")], tmp_path)
    bd = BatchDirectory(tmp_path)
    numpy.save(bd.files[0], numpy.ones((4, 2), "i8"))  # same size, other dtype
    numpy.save(bd.files[1], numpy.ones((2, 4), "f8"))  # same size, other shape
    with pytest.raises(BatchFileError, match=r"is int64 of shape \(4, 2\) in the file, but the index says float64"):
        bd[0]
    with pytest.raises(BatchFileError,
                       match=r"shape \(2, 4\) in the file, but the index says float64 of shape \(4, 2\)"):
        bd[1]


def test_a_damaged_header(tmp_path):
    bd = three_batches(tmp_path)
    spec = json.loads((tmp_path / "index.json").read_text())["batches"][0]["arrays"][1]
    with open(bd.files[0], "r+b") as f:
        f.seek(spec["header_offset"])
        f.write(b"JUNK!!")
    with pytest.raises(BatchFileError, match="header of array 'arr_1' is damaged"):
        bd[0]


def test_a_header_whose_dict_is_damaged(tmp_path):
    # One byte of the header's dict changed: NumPy's parser fell back to its tokenizer, whose
    # TokenError came out as it was (and on_error="skip" did not skip it).
    bd = three_batches(tmp_path)
    spec = json.loads((tmp_path / "index.json").read_text())["batches"][0]["arrays"][1]
    with open(bd.files[0], "r+b") as f:
        f.seek(spec["header_offset"])
        head = f.read(256)
        f.seek(spec["header_offset"] + head.index(b"}"))
        f.write(b" ")  # the dict is never closed
    with pytest.raises(BatchFileError, match="header of array 'arr_1' is damaged"):
        bd[0]
    with pytest.warns(RuntimeWarning, match="batch 0"):
        assert len(list(BatchDirectory(tmp_path, on_error="skip"))) == 2


@pytest.mark.parametrize("on_error, expected", [("skip", [0, 2, 3]), ("stop", [0])])
def test_skip_or_stop_on_a_bad_file(tmp_path, on_error, expected):
    save_batches([numpy.full(3, i) for i in range(4)], tmp_path)
    bd = BatchDirectory(tmp_path, on_error=on_error)
    os.remove(bd.files[1])
    with pytest.warns(RuntimeWarning, match="batch 1 .*missing"):
        assert [int(b[0]) for b in bd] == expected


def _damage_index(tmp_path, batch, change):
    index = json.loads((tmp_path / "index.json").read_text())
    change(index["batches"][batch])
    (tmp_path / "index.json").write_text(json.dumps(index))


DAMAGE = {
    # Every kind of damage to one batch is a BatchFileError naming its file and the cause.
    "header offset 10**15 away": (lambda bd, tmp: _damage_index(tmp, 1, lambda e: e["arrays"][0].update(
        header_offset=0, offset=10**15)), "beyond the file's|header"),
    "data beyond the file": (lambda bd, tmp: _damage_index(tmp, 1, lambda e: e["arrays"][0].update(
        nbytes=10**12)), "beyond the file's"),
    "a structure naming a missing array": (lambda bd, tmp: _damage_index(tmp, 1, lambda e: e.update(
        structure={"tuple": [{"array": 7}]})), "IndexError"),
    "a directory in place of the file": (lambda bd, tmp: (os.remove(bd.files[1]), os.mkdir(bd.files[1])),
                                         "not a regular file but a directory"),
    "an unreadable file": (lambda bd, tmp: os.chmod(bd.files[1], 0), "cannot open|"),
}


@pytest.mark.parametrize("damage", list(DAMAGE), ids=list(DAMAGE))
def test_every_kind_of_damage_is_a_batch_file_error_and_skip_skips_it(tmp_path, damage):
    save_batches([numpy.full(3, i) for i in range(4)], tmp_path)
    make, cause = DAMAGE[damage]
    make(BatchDirectory(tmp_path), tmp_path)
    bd = BatchDirectory(tmp_path)
    if damage == "an unreadable file" and os.access(bd.files[1], os.R_OK):
        pytest.skip("running as a user that reads any file (root)")
    with pytest.raises(BatchFileError, match=cause) as info:
        bd[1]
    assert info.value.path == bd.files[1] and info.value.batch == 1 and "batch_000001" in str(info.value)
    with pytest.warns(RuntimeWarning, match="batch 1 .*skipped"):
        assert [int(b[0]) for b in BatchDirectory(tmp_path, on_error="skip")] == [0, 2, 3]
    with pytest.warns(RuntimeWarning, match="batch 1"), AsyncIterator(BatchDirectory(tmp_path, on_error="skip")) as it:
        assert [int(b[0]) for b in it] == [0, 2, 3]


def test_numpy_subclasses_are_refused_by_save_batches(tmp_path):
    for batch in (numpy.ma.array([1.0, 2.0], mask=[0, 1]), numpy.matrix([[1.0, 2.0]])):
        with pytest.raises(TypeError, match="only plain arrays can be saved"):
            save_batches([batch], tmp_path / type(batch).__name__)


def test_shuffle_visits_every_batch_in_a_new_order(tmp_path):
    save_batches([numpy.full(2, i) for i in range(20)], tmp_path)
    bd = BatchDirectory(tmp_path, shuffle=True, seed=3)
    first = [int(b[0]) for b in bd]
    second = [int(b[0]) for b in bd]
    assert sorted(first) == sorted(second) == list(range(20)) and first != second
    assert first == [int(b[0]) for b in BatchDirectory(tmp_path, shuffle=True, seed=3)]


def test_indexing(tmp_path):
    bd = three_batches(tmp_path)
    assert len(bd) == 3
    same(bd[-1][1], numpy.arange(4) + 2)
    with pytest.raises(IndexError):
        bd[3]
    with pytest.raises(TypeError):
        bd["0"]


# -- reading into workspaces, composed with AsyncIterator ----------------------------------------

def test_reading_goes_to_the_callers_workspace(tmp_path):
    bd = three_batches(tmp_path)
    with wnp.workspace("READ"):
        x, y = bd[0]
        assert x.workspace == "READ" and y.workspace == "READ"
    with pytest.raises(wnp.WorkspaceError):
        x.sum()


def test_async_over_a_batch_directory_reads_straight_into_the_slots(tmp_path, monkeypatch):
    bd = three_batches(tmp_path)
    copies = []
    real_copy = _pipeline.copy_into_current_scope
    monkeypatch.setattr(_pipeline, "copy_into_current_scope", lambda leaf: copies.append(1) or real_copy(leaf))
    with AsyncIterator(bd, queue_size=2) as it:
        for i, (x, y) in enumerate(it):
            assert x.workspace.startswith("data:") and y.workspace.startswith("data:")
            same(x, numpy.full((4, 3), float(i)))
        assert it.epoch == 1
        assert [float(b[0][0, 0]) for b in it] == [0.0, 1.0, 2.0]  # re-iterable: a second epoch
    assert copies == []  # no copy: the file's bytes were read into the slot


def test_async_with_mmap_copies_into_the_slots(tmp_path):
    three_batches(tmp_path)
    bd = BatchDirectory(tmp_path, mmap=True)
    plain = bd[1][0]
    assert not plain.is_attached()
    same(plain, numpy.full((4, 3), 1.0))
    with AsyncIterator(bd) as it:
        values = [float(x[0, 0]) for x, _ in it]
        assert values == [0.0, 1.0, 2.0]


def test_async_raises_a_bad_file_at_its_position_and_goes_on(tmp_path):
    bd = three_batches(tmp_path)
    os.remove(bd.files[1])
    with AsyncIterator(bd, queue_size=2) as it:
        same(next(it)[1], numpy.arange(4))
        with pytest.raises(BatchFileError, match="missing"):
            next(it)
        same(next(it)[1], numpy.arange(4) + 2)
        with pytest.raises(StopIteration):
            next(it)
