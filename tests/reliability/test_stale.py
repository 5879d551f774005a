"""Arrays used after their cycle ended (or their workspace was destroyed) raise WorkspaceError:
every way to touch one (operators, methods, attributes, protocols, as an argument anywhere),
handles captured during the cycle, and what cannot be tracked (raw NumPy views, buffers, DLPack
capsules), which stays memory-safe: their block is never reused under them."""
import copy
import operator

import numpy as np
import pytest

import wsarray as wnp

TOUCHES = {
    "add": lambda a: a + 1,
    "radd": lambda a: 1 + a,
    "iadd": lambda a: operator.iadd(a, 1),
    "neg": lambda a: -a,
    "compare": lambda a: a < 2,
    "matmul": lambda a: a @ a,
    "getitem": lambda a: a[0],
    "setitem": lambda a: a.__setitem__(0, 5.0),
    "format": lambda a: format(a, ""),
    "len": len,
    "iter": list,
    "bool": lambda a: bool(a[0]),
    "float": lambda a: float(a),
    "shape": lambda a: a.shape,
    "dtype": lambda a: a.dtype,
    "method": lambda a: a.sum(),
    "attribute": lambda a: a.strides,
    "__array__": lambda a: a.__array__(),
    "numpy ufunc": np.sqrt,
    "numpy function": np.sum,
    "namespace function": wnp.sum,
    "as argument in a list": lambda a: wnp.concatenate([a, a]),
    "as out=": lambda a: wnp.add(1.0, 1.0, out=a),
    "buffer": memoryview,
    "dlpack": lambda a: a.__dlpack__(),
    "from_dlpack": np.from_dlpack,
    "detach": lambda a: a.detach(),
    "copy": copy.copy,
    "contains": lambda a: 1.0 in a,
}


@pytest.fixture(params=["ended", "destroyed", "later_cycle"])
def stale(request):
    ws = wnp.workspace("OLD")
    with ws:
        a = wnp.arange(4.0)
    if request.param == "destroyed":
        wnp.memory.destroy_workspace("OLD")
    elif request.param == "later_cycle":
        ws.__enter__()
    yield request.param, a
    if request.param == "later_cycle":
        ws.__exit__(None, None, None)


def test_str_and_repr_of_a_stale_array_say_so_without_reading_it(stale):
    # One rule for both: print, logging, debuggers and containers' reprs keep working.
    kind, a = stale
    expected = {"ended": "<wsarray.ndarray stale: cycle 1 of 'OLD' ended>",
                "later_cycle": "<wsarray.ndarray stale: cycle 1 of 'OLD' ended>",
                "destroyed": "<wsarray.ndarray stale: workspace 'OLD' was destroyed>"}[kind]
    assert str(a) == repr(a) == expected
    assert repr([a]) == f"[{expected}]" and f"{a!s}" == expected


@pytest.mark.parametrize("touch", list(TOUCHES), ids=list(TOUCHES))
def test_every_touch_of_a_stale_array_raises(stale, touch):
    kind, a = stale
    with pytest.raises(wnp.WorkspaceError) as info:
        TOUCHES[touch](a)
    msg = str(info.value)
    assert "'OLD'" in msg and msg.startswith("wsarray.")
    if kind == "destroyed":
        assert "destroyed" in msg
    else:
        assert "cycle 1" in msg and ".detach()" in msg and "leverage_to" in msg


# NumPy's C conversions of an ndarray (a wsarray.Array is one) call nothing back in Python: they
# cannot be checked. What they give is the stale array's own data (its block is never reused while
# the Array lives), as a raw view handed out during the cycle does; never another array's data.
UNCHECKED = {
    "numpy.asarray": np.asarray,
    "numpy.array copy": np.array,
    "inside a custom sequence": lambda a: np.asarray(Seq(a))[0],
}


@pytest.mark.parametrize("convert", list(UNCHECKED), ids=list(UNCHECKED))
def test_numpys_c_conversions_of_a_stale_array_see_its_own_data(stale, convert):
    kind, a = stale

    def convert_after_reuse():
        for _ in range(3):
            wnp.full(4, 7.0)  # arrays of the same size made and freed (in OLD's next cycle)
        return UNCHECKED[convert](a)

    if kind == "ended":
        with wnp.workspace("OLD"):
            raw = convert_after_reuse()
    else:  # later_cycle: inside OLD's next cycle; destroyed: outside every workspace
        raw = convert_after_reuse()
    assert type(raw) is np.ndarray and raw.tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(wnp.WorkspaceError):
        a.sum()


def test_membership_queries_work_on_stale_arrays():
    with wnp.workspace("OLD"):
        a = wnp.ones(3)
        assert a.is_attached() and a.is_in_scope()
    assert a.is_attached() and not a.is_in_scope() and a.workspace == "OLD"


def test_detach_keeps_the_data():
    with wnp.workspace("W"):
        a = wnp.arange(5.0) * 3
        kept = a.detach()
        assert not kept.is_attached() and kept.workspace is None
    assert kept.tolist() == [0.0, 3.0, 6.0, 9.0, 12.0]


def test_leverage_and_leverage_to():
    with wnp.workspace("OUTER"):
        with wnp.workspace("MID"):
            with wnp.workspace("INNER"):
                a = wnp.arange(3.0)
                up = a.leverage()
                far = a.leverage_to("OUTER")
                assert a.leverage_to("INNER") is a
                assert (up.workspace, far.workspace) == ("MID", "OUTER")
                with pytest.raises(wnp.WorkspaceError, match="'NOPE' has no open cycle"):
                    a.leverage_to("NOPE")
            assert up.tolist() == [0.0, 1.0, 2.0]
        with pytest.raises(wnp.WorkspaceError):
            up.tolist()
        assert far.tolist() == [0.0, 1.0, 2.0]
    with wnp.workspace("ONLY"):
        lone = wnp.ones(2).leverage()  # no outer workspace: detached
    assert not lone.is_attached() and lone.tolist() == [1.0, 1.0]
    plain = wnp.ones(2)
    assert plain.leverage() is plain


def test_memory_is_reused_but_stale_arrays_never_see_new_data():
    """A stale array's block stays reserved while the array lives, so no view sees foreign data."""
    ws = wnp.workspace("R")
    with ws:
        a = wnp.full(1000, 7.0)
        raw = np.asarray(a)  # a raw NumPy view: wsarray cannot check it later
    with ws:
        b = wnp.full(1000, 9.0)
        assert b.tolist()[0] == 9.0
    np.testing.assert_array_equal(raw, 7.0)


MORE_TOUCHES = {
    "T": lambda a: a.reshape(2, 2).T,
    "mT": lambda a: a.reshape(2, 2).mT,
    "ndim": lambda a: a.ndim,
    "size": lambda a: a.size,
    "device": lambda a: a.device,
    "to_device": lambda a: a.to_device("cpu"),
    "__array_namespace__": lambda a: a.__array_namespace__(),
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
def stale_pair(request):
    ws = wnp.workspace("OLD")
    with ws:
        full = wnp.arange(4.0)
        one = wnp.asarray(3)
    if request.param == "destroyed":
        wnp.memory.destroy_workspace("OLD")
    return full, one


SCALAR_TOUCHES = {"int", "index", "complex"}


@pytest.mark.parametrize("touch", list(MORE_TOUCHES), ids=list(MORE_TOUCHES))
def test_every_other_touch_of_a_stale_array_raises(stale_pair, touch):
    full, one = stale_pair
    target = one if touch in SCALAR_TOUCHES or touch == "as an index" else full
    with wnp.workspace("NOW"):
        with pytest.raises(wnp.WorkspaceError) as info:
            MORE_TOUCHES[touch](target)
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
    zombies = wnp._native._zombie_bytes()
    wnp.memory.destroy_workspace("RAW")
    assert wnp._native._zombie_bytes() - zombies == 2**20  # the raw views keep their chunk mapped
    assert (raw == 7.0).all()
    del raw, buf, via_dlpack
    assert wnp._native._zombie_bytes() == zombies
