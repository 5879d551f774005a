"""Arrays used after their cycle ended (or their workspace was destroyed) raise WorkspaceError."""
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
    "str": str,
    "format": lambda a: format(a, ""),
    "len": len,
    "iter": list,
    "bool": lambda a: bool(a[0]),
    "float": lambda a: float(a),
    "shape": lambda a: a.shape,
    "dtype": lambda a: a.dtype,
    "method": lambda a: a.sum(),
    "attribute": lambda a: a.strides,
    "__array__": np.asarray,
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
