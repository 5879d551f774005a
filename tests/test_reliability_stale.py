"""Stale arrays, beyond tests/test_stale.py: the remaining ways to touch an array of an ended cycle or
a destroyed workspace, handles captured during the cycle, and what cannot be tracked (raw NumPy
views, buffers, DLPack capsules), which stays memory-safe: their block is never reused under them."""
import copy

import numpy as np
import pytest

import wsarray as wnp

TOUCHES = {
    "T": lambda a: a.reshape(2, 2).T,
    "mT": lambda a: a.reshape(2, 2).mT,
    "ndim": lambda a: a.ndim,
    "size": lambda a: a.size,
    "device": lambda a: a.device,
    "to_device": lambda a: a.to_device("cpu"),
    "__array_namespace__": lambda a: a.__array_namespace__(),
    "hash": lambda a: hash(a),
    "int": lambda a: int(a),
    "index": lambda a: a.__index__(),
    "complex": lambda a: complex(a),
    # Not pickle: an array whose cycle ended still pickles its own (never reused) memory, so that a
    # multiprocessing.Queue feeder thread gets it across (test_reliability_memory_return.py).
    "deepcopy": copy.deepcopy,
    "leverage": lambda a: a.leverage(),
    "leverage_to": lambda a: a.leverage_to("NOW"),
    "__dlpack_device__": lambda a: a.__dlpack_device__(),
    "divmod": lambda a: divmod(a, 2),
    "rdivmod": lambda a: divmod(2, a),
    # Not np.add.reduce / accumulate / reduceat: NumPy 2.4 leaks a reference to the argument when
    # __array_ufunc__ raises for those methods (a pure-Python class shows the same), which would
    # pin the stale array forever. wsarray's own add.reduce is checked below.
    "ufunc.at": lambda a: np.add.at(a, 0, 1),
    "ufunc out=": lambda a: np.add(1.0, 1.0, out=a),
    "numpy copyto": lambda a: np.copyto(a, 1.0),
    "namespace asarray": wnp.asarray,
    "nested list": lambda a: wnp.stack([[a, a]]),
    "as keyword argument": lambda a: wnp.clip(wnp.ones(4), min=a, max=a),
    "in a tuple out=": lambda a: wnp.add(1.0, 1.0, out=(a,)),
    "numpy.array copy": np.array,
    "inside a custom sequence": lambda a: np.asarray(Seq(a)),
    "as an index": lambda a: wnp.arange(10.0)[a],
    "as a setitem value": lambda a: wnp.zeros(4).__setitem__(slice(None), a),
    "ufunc method via namespace": lambda a: wnp.add.reduce(a),
}


class Seq:
    """A sequence NumPy converts element by element."""

    def __init__(self, a):
        self.a = a

    def __len__(self):
        return 1

    def __getitem__(self, i):
        if i:
            raise IndexError(i)
        return self.a


@pytest.fixture(params=["ended", "destroyed"])
def stale(request):
    ws = wnp.workspace("OLD")
    with ws:
        full = wnp.arange(4.0)
        one = wnp.asarray(3)
    if request.param == "destroyed":
        wnp.memory.destroy_workspace("OLD")
    return full, one


SCALAR_TOUCHES = {"hash", "int", "index", "complex"}


@pytest.mark.parametrize("touch", list(TOUCHES), ids=list(TOUCHES))
def test_every_remaining_touch_of_a_stale_array_raises(stale, touch):
    full, one = stale
    target = one if touch in SCALAR_TOUCHES or touch == "as an index" else full
    with wnp.workspace("NOW"):
        with pytest.raises(wnp.WorkspaceError) as info:
            TOUCHES[touch](target)
    assert "'OLD'" in str(info.value) and str(info.value).startswith("wsarray.")


def test_handles_captured_during_the_cycle_are_checked_when_used():
    with wnp.workspace("CAP"):
        a = wnp.arange(6.0)
        method = a.sum  # a bound method
        rows = list(a.reshape(2, 3))  # views of the same cycle
        items = list(a)  # scalar items: values, valid after the cycle
        view = a[1:4]
        t = a.reshape(2, 3).T
        it = iter(a)
    for f in (method, lambda: rows[0] + 1, lambda: view.sum(), lambda: t.copy(), lambda: next(it) + 1):
        with pytest.raises(wnp.WorkspaceError, match="'CAP'"):
            f()
    assert [float(v + 1) for v in items] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]


def test_circular_workspace_arrays_stay_valid_until_destroyed():
    cfg = wnp.WorkspaceConfig(reset="end_of_buffer", initial_size="1MiB")
    ws = wnp.workspace("RING", cfg)
    with ws:
        a = wnp.arange(4.0)
    for _ in range(3):
        with ws:
            wnp.ones(1000)
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0]
    wnp.memory.destroy_workspace("RING")
    with pytest.raises(wnp.WorkspaceError, match="destroyed"):
        a.sum()


def test_untracked_views_never_see_foreign_data():
    """np.asarray(a), memoryview(a) and DLPack capsules hand out the raw memory (zero-copy, as NumPy
    does). wsarray cannot check them later, but the block stays reserved while any of them lives, so
    later cycles never write under them, and a destroyed workspace keeps such a chunk mapped."""
    ws = wnp.workspace("RAW", wnp.WorkspaceConfig(initial_size="1MiB", learning="none"))
    with ws:
        a = wnp.full(1000, 7.0)
        raw = np.asarray(a)
        assert raw.base is not None or raw.flags.owndata  # the ndarray itself, not a copy
        assert np.shares_memory(raw, np.asarray(a))
        buf = memoryview(a)
        via_dlpack = np.from_dlpack(a)
    del a
    for k in range(5):
        with ws:
            b = wnp.full(20000, float(k))  # reuses every free byte of the chunk
            assert float(b.sum()) == 20000.0 * k
            del b
    assert (raw == 7.0).all() and (np.asarray(buf) == 7.0).all() and (via_dlpack == 7.0).all()
    zombies = wnp._core._zombie_bytes()
    wnp.memory.destroy_workspace("RAW")
    assert wnp._core._zombie_bytes() - zombies == 2**20  # the raw views keep their chunk mapped
    assert (raw == 7.0).all()
    del raw, buf, via_dlpack
    assert wnp._core._zombie_bytes() == zombies
