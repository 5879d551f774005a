"""Bad input: every kind of wrong argument gets a Python exception naming the function, with
NumPy's exception class where NumPy raises, and nothing is left half-done."""
import traceback

import numpy as np
import pytest

import wsarray as wnp
from error_helpers import names_function, raises_numpys


def names(exc, fn):
    """True if the exception names wsarray's function `fn`: in its message (wsarray's own errors)
    or in a traceback entry of its own (errors NumPy raised, whose message stays NumPy's)."""
    return str(exc).startswith(f"wsarray.{fn}(): ") or names_function(exc, fn)


def own_or_numpys_message(got, expected, fn):
    """wsarray's own error (its message names the function) or NumPy's message exactly."""
    return str(got).startswith(f"wsarray.{fn}(): ") or str(got) == str(expected)


class Junk:
    """An object NumPy cannot make sense of."""


class BadDLPack:
    def __init__(self, capsule=5, device=(1, 0)):
        self.capsule, self.device = capsule, device

    def __dlpack__(self, **kwargs):
        if isinstance(self.capsule, Exception):
            raise self.capsule
        return self.capsule

    def __dlpack_device__(self):
        return self.device


# (id, name wsarray must give, call with xp = numpy or wsarray). NumPy must raise too; wsarray raises
# the same class.
NAMESPACE_CASES = [
    ("reshape shape", "reshape", lambda xp: xp.reshape(xp.arange(4.0), (3, 5))),
    ("reshape str", "reshape", lambda xp: xp.reshape(xp.arange(4.0), "ab")),
    ("zeros negative", "zeros", lambda xp: xp.zeros(-5)),
    ("zeros 2**62", "zeros", lambda xp: xp.zeros(2**62)),
    ("zeros 2**40 squared", "zeros", lambda xp: xp.zeros((2**40, 2**40))),
    ("ones 2**100", "ones", lambda xp: xp.ones(2**100)),
    ("empty parsecs", "empty", lambda xp: xp.empty("12 parsecs")),
    ("full bad value", "full", lambda xp: xp.full(3, "x", dtype=float)),
    ("zeros bad dtype", "zeros", lambda xp: xp.zeros(3, dtype="float128x")),
    # device="cuda" raises wsarray.cuda.CudaUnavailableError, a ValueError subclass (tests/cuda).
    ("zeros unknown device", "zeros", lambda xp: xp.zeros(3, device="tpu")),
    ("asarray unknown device", "asarray", lambda xp: xp.asarray([1.0], device="gpu")),
    ("arange step 0", "arange", lambda xp: xp.arange(0, 10, 0)),
    ("arange 2**62", "arange", lambda xp: xp.arange(2**62)),
    ("linspace -1", "linspace", lambda xp: xp.linspace(0, 1, -1)),
    ("linspace 2**62", "linspace", lambda xp: xp.linspace(0, 1, 2**62)),
    ("eye 2**62", "eye", lambda xp: xp.eye(2**62)),
    ("full_like negative shape", "full_like", lambda xp: xp.full_like(xp.ones(3), 1, shape=(-1,))),
    ("sum axis out of range", "sum", lambda xp: xp.sum(xp.ones(3), axis=5)),
    ("sum axis -9", "sum", lambda xp: xp.sum(xp.ones((2, 2)), axis=-9)),
    ("sum axis 2**70", "sum", lambda xp: xp.sum(xp.ones(3), axis=2**70)),
    ("sum axis str", "sum", lambda xp: xp.sum(xp.ones(3), axis="x")),
    ("concatenate nothing", "concatenate", lambda xp: xp.concatenate([])),
    ("concatenate int", "concatenate", lambda xp: xp.concatenate(3)),
    ("concatenate ranks", "concatenate", lambda xp: xp.concatenate([xp.ones(2), xp.ones((2, 2))])),
    ("stack axis", "stack", lambda xp: xp.stack([xp.ones(2)], axis=9)),
    ("add str", "add", lambda xp: xp.add(xp.ones(3), "x")),
    ("add shapes", "add", lambda xp: xp.add(xp.ones(3), xp.ones(4))),
    ("add junk", "add", lambda xp: xp.add(xp.ones(3), Junk())),
    ("matmul shapes", "matmul", lambda xp: xp.matmul(xp.ones(3), xp.ones(4))),
    ("transpose repeated axis", "transpose", lambda xp: xp.transpose(xp.ones((2, 2)), (0, 0))),
    ("moveaxis", "moveaxis", lambda xp: xp.moveaxis(xp.ones(4), 3, 0)),
    ("swapaxes", "swapaxes", lambda xp: xp.swapaxes(xp.ones(4), 0, 5)),
    ("broadcast_to", "broadcast_to", lambda xp: xp.broadcast_to(xp.ones(4), (3,))),
    ("split", "split", lambda xp: xp.split(xp.ones(4), 3)),
    ("pad negative", "pad", lambda xp: xp.pad(xp.ones(4), -1)),
    ("repeat negative", "repeat", lambda xp: xp.repeat(xp.ones(4), -1)),
    ("tile negative", "tile", lambda xp: xp.tile(xp.ones(4), -1)),
    ("diag 3-d", "diag", lambda xp: xp.diag(xp.ones((2, 2, 2)))),
    ("sort kind", "sort", lambda xp: xp.sort(xp.ones(4), kind="bogus")),
    ("argsort axis", "argsort", lambda xp: xp.argsort(xp.ones(4), axis=4)),
    ("searchsorted side", "searchsorted", lambda xp: xp.searchsorted(xp.ones(4), 1, side="middle")),
    ("unique axis", "unique", lambda xp: xp.unique(xp.ones(4), axis=3)),
    ("nonzero 0-d", "nonzero", lambda xp: xp.nonzero(xp.asarray(1.0))),
    ("percentile range", "percentile", lambda xp: xp.percentile(xp.ones(4), 200)),
    ("einsum operands", "einsum", lambda xp: xp.einsum("ij,jk", xp.ones((2, 2)))),
    ("einsum int", "einsum", lambda xp: xp.einsum(3)),
    ("fft n=0", "fft.fft", lambda xp: xp.fft.fft(xp.ones(4), n=0)),
    ("linalg.inv singular", "linalg.inv", lambda xp: xp.linalg.inv(xp.zeros((2, 2)))),
    ("linalg.inv 1-d", "linalg.inv", lambda xp: xp.linalg.inv(xp.ones(3))),
    ("linalg.solve shapes", "linalg.solve", lambda xp: xp.linalg.solve(xp.eye(2), xp.ones(3))),
    ("from_dlpack int", "from_dlpack", lambda xp: xp.from_dlpack(3)),
    ("from_dlpack str", "from_dlpack", lambda xp: xp.from_dlpack("x")),
    ("from_dlpack junk capsule", "from_dlpack", lambda xp: xp.from_dlpack(BadDLPack(5))),
    ("from_dlpack raising", "from_dlpack", lambda xp: xp.from_dlpack(BadDLPack(RuntimeError("no")))),
    ("from_dlpack device", "from_dlpack", lambda xp: xp.from_dlpack(BadDLPack(None, (99, 0)))),
    ("from_dlpack device junk", "from_dlpack", lambda xp: xp.from_dlpack(BadDLPack(None, "x"))),
]

# Array methods and operators: (id, name, call with a = a 1-d float array of 4 elements).
ARRAY_CASES = [
    ("getitem float", "ndarray.__getitem__", lambda a: a[1.5]),
    ("getitem out of range", "ndarray.__getitem__", lambda a: a[10]),
    ("getitem step 0", "ndarray.__getitem__", lambda a: a[::0]),
    ("getitem too many", "ndarray.__getitem__", lambda a: a[0, 0]),
    ("getitem str", "ndarray.__getitem__", lambda a: a["x"]),
    ("setitem shape", "ndarray.__setitem__", lambda a: a.__setitem__(slice(0, 2), [1.0, 2.0, 3.0])),
    ("setitem value", "ndarray.__setitem__", lambda a: a.__setitem__(0, "x")),
    ("setitem fancy out of range", "ndarray.__setitem__", lambda a: a.__setitem__([0, 10], 1.0)),
    ("add str", "ndarray.__add__", lambda a: a + "x"),
    ("add junk", "ndarray.__add__", lambda a: a + Junk()),
    ("matmul", "ndarray.__matmul__", lambda a: a @ a[:3]),
    ("divmod str", "ndarray.__divmod__", lambda a: divmod(a, "x")),
    ("int of many", "ndarray.__int__", lambda a: int(a)),
    ("float of many", "ndarray.__float__", lambda a: float(a)),
    ("complex of many", "ndarray.__complex__", lambda a: complex(a)),
    ("index of float", "ndarray.__index__", lambda a: a[:1].__index__()),
    ("bool of many", "ndarray.__bool__", lambda a: bool(a)),
    ("len of 0-d", "ndarray.__len__", lambda a: len(np.asarray(a[0]) if type(a) is np.ndarray else wnp.asarray(a[0]))),
    ("format spec", "ndarray.__format__",
     lambda a: format(np.asarray(a[0]) if type(a) is np.ndarray else wnp.asarray(a[0]), "Q")),
    ("reshape", "ndarray.reshape", lambda a: a.reshape(3, 5)),
    ("sum axis", "ndarray.sum", lambda a: a.sum(axis=3)),
    ("astype", "ndarray.astype", lambda a: a.astype("nope")),
    ("take", "ndarray.take", lambda a: a.take(100)),
    ("fill", "ndarray.fill", lambda a: a.fill("x")),
    ("transpose", "ndarray.transpose", lambda a: a.transpose(1, 0)),
    ("clip junk", "ndarray.clip", lambda a: a.clip(Junk(), 1)),
]


@pytest.mark.parametrize("case", NAMESPACE_CASES, ids=[c[0] for c in NAMESPACE_CASES])
@pytest.mark.parametrize("where", ["plain", "in_workspace"])
def test_namespace_bad_input_raises_numpys_class_naming_the_function(case, where):
    _, fn, call = case
    with pytest.raises(Exception) as expected:
        call(np)
    ws = wnp.workspace("BAD")
    with ws if where == "in_workspace" else wnp.scope_out():
        with pytest.raises(Exception) as got:
            call(wnp)
        assert type(got.value) is type(expected.value)
        assert names(got.value, fn), (str(got.value), traceback.format_tb(got.value.__traceback__))
        assert own_or_numpys_message(got.value, expected.value, fn)
        # the failure left the workspace usable
        assert float(wnp.ones(3).sum()) == 3.0
    del got  # its traceback holds the arguments
    assert ws.stats()["used"] == 0


@pytest.mark.parametrize("case", ARRAY_CASES, ids=[c[0] for c in ARRAY_CASES])
@pytest.mark.parametrize("where", ["plain", "in_workspace"])
def test_array_bad_input_raises_numpys_class_naming_the_method(case, where):
    _, fn, call = case
    n = np.arange(4.0)
    with pytest.raises(Exception) as expected:
        call(n)
    with wnp.workspace("BAD") if where == "in_workspace" else wnp.scope_out():
        a = wnp.arange(4.0)
        with pytest.raises(Exception) as got:
            call(a)
        assert type(got.value) is type(expected.value)
        assert names(got.value, fn), (str(got.value), traceback.format_tb(got.value.__traceback__))
        assert own_or_numpys_message(got.value, expected.value, fn)
        assert a.tolist() == n.tolist() == [0.0, 1.0, 2.0, 3.0]  # nothing half-done


def test_custom_str_exceptions_keep_their_class_and_name_the_function():
    with pytest.raises(np.exceptions.AxisError) as info:
        wnp.sum(wnp.ones(3), axis=5)
    assert type(info.value) is np.exceptions.AxisError
    assert str(info.value) == "axis 5 is out of bounds for array of dimension 1"  # NumPy's message
    assert names_function(info.value, "sum")
    assert info.value.axis == 5 and info.value.ndim == 1
    with pytest.raises(np.exceptions.AxisError) as info:
        wnp.moveaxis(wnp.ones(4), 3, 0)  # AxisError with NumPy's own msg_prefix
    assert str(info.value).startswith("source: axis 3") and names_function(info.value, "moveaxis")
    # a NumPy exception class with its own __str__ keeps it too
    with pytest.raises(TypeError) as info:
        wnp.add(wnp.ones(3), "x")
    with pytest.raises(TypeError) as numpy_info:
        np.add(np.ones(3), "x")
    assert type(info.value) is type(numpy_info.value)
    assert type(info.value).__str__ is not Exception.__str__
    assert names_function(info.value, "add") and str(info.value) == str(numpy_info.value)


@pytest.mark.parametrize("setter", [
    lambda t: t.__setitem__(slice(0, 2), [1, 2, 3]),
    lambda t: t.__setitem__([0, 9], [5, 6]),
    lambda t: t.__setitem__([0, -9], 5),
    lambda t: t.__setitem__(slice(None), [1, 2, "x", 4, 5]),
    lambda t: t.__setitem__(slice(None), [1, 2, 3, 4, 1000]),  # int8 overflow
    lambda t: t.__setitem__((0, 0), 1),
    lambda t: t.__setitem__(slice(None), Junk()),
    lambda t: t.__setitem__(Junk(), 1),
], ids=["shape", "fancy out of range", "fancy negative", "bad element", "overflow", "too many",
        "junk value", "junk key"])
def test_failed_setitem_leaves_the_target_unchanged(setter):
    n = np.arange(5, dtype=np.int8)
    with pytest.raises(Exception) as expected:
        setter(n)  # NumPy itself may have written some elements before failing
    with wnp.workspace("SET"):
        w = wnp.arange(5, dtype=wnp.int8)
        with pytest.raises(type(expected.value)) as got:
            setter(w)
        assert names(got.value, "ndarray.__setitem__")
        assert w.tolist() == [0, 1, 2, 3, 4]


def test_failed_workspace_allocation_leaves_the_workspace_usable():
    cfg = wnp.WorkspaceConfig(initial_size="1MiB", learning="none", spill="fail")
    ws = wnp.workspace("FAIL", cfg)
    with ws:
        a = wnp.ones(1000)
        before = ws.stats()
        with pytest.raises(wnp.WorkspaceMemoryError, match=r"wsarray.ones\(\).*'fail'"):
            wnp.ones(2**20)  # 8 MiB > 1 MiB
        with pytest.raises(MemoryError):
            a + wnp.ones((1024, 1024))
        after = ws.stats()
        assert after["used"] == before["used"] and after["live_arrays"] == before["live_arrays"]
        assert float((a + 1).sum()) == 2000.0
        del a
    assert ws.stats()["used"] == 0 and wnp.memory.workspace_stack() == []
    with ws:
        assert float(wnp.ones(1000).sum()) == 1000.0


def test_max_size_failure_leaves_the_workspace_usable():
    ws = wnp.workspace("CAP", wnp.WorkspaceConfig(max_size="1MB", learning="none", spill="reallocate"))
    with ws:
        with pytest.raises(wnp.WorkspaceMemoryError, match="max_size"):
            wnp.zeros(10**6)
        assert wnp.zeros(1000).sum() == 0.0
    assert ws.stats()["used"] == 0


BAD_CONFIGS = [
    (dict(initial_size="12 parsecs"), ValueError, "unknown unit 'parsecs'"),
    (dict(initial_size=-5), ValueError, "must be >= 0"),
    (dict(max_size="-5MB"), ValueError, "is not a size"),
    (dict(initial_size=2**70), ValueError, "too large"),
    (dict(initial_size="1e400GB"), ValueError, "unknown unit"),
    (dict(initial_size="9" * 400), ValueError, "initial_size"),
    (dict(initial_size=""), ValueError, "is not a size"),
    (dict(initial_size="1.2.3MB"), ValueError, "is not a size"),
    (dict(initial_size=1.5), TypeError, "initial_size must be an int"),
    (dict(initial_size=True), TypeError, "not a bool"),
    (dict(initial_size=None), TypeError, "initial_size"),
    (dict(min_size=[1]), TypeError, "min_size"),
    (dict(learning="sometimes"), ValueError, "'first_loop', 'over_time', 'none'"),
    (dict(spill=3), TypeError, "spill must be a string"),
    (dict(location="gpu"), ValueError, "'ram', 'mmap'"),
    (dict(overallocation_limit=-1), ValueError, "overallocation_limit"),
    (dict(overallocation_limit=float("nan")), ValueError, "overallocation_limit"),
    (dict(overallocation_limit="x"), TypeError, "overallocation_limit"),
    (dict(cycles_before_initialization=-1), ValueError, "cycles_before_initialization"),
    (dict(cycles_before_initialization="3"), TypeError, "cycles_before_initialization"),
    (dict(cycles_before_initialization=2**70), ValueError, "cycles_before_initialization"),
    (dict(initial_size="2MB", max_size="1MB"), ValueError, "exceeds max_size"),
    (dict(temp_file_path="/tmp"), ValueError, "location='mmap'"),
    (dict(temp_file_path=3, location="mmap"), TypeError, "temp_file_path"),
    (dict(initial_sise="1MB"), TypeError, "unexpected keyword 'initial_sise'"),
]


@pytest.mark.parametrize("kwargs,exc,match", BAD_CONFIGS, ids=[repr(c[0])[:40] for c in BAD_CONFIGS])
def test_malformed_configs_are_refused_naming_the_field(kwargs, exc, match):
    with pytest.raises(exc, match=match) as info:
        wnp.WorkspaceConfig(**kwargs)
    assert str(info.value).startswith("wsarray.WorkspaceConfig(): ")


def test_config_is_keyword_only():
    with pytest.raises(TypeError, match=r"wsarray.WorkspaceConfig\(\): .*keyword"):
        wnp.WorkspaceConfig(5)


@pytest.mark.parametrize("text,exc", [("12 parsecs", ValueError), (-5, ValueError), (None, TypeError),
                                      ("", ValueError), (2**64, ValueError), (3.5, TypeError)])
def test_parse_size_rejects_junk(text, exc):
    with pytest.raises(exc, match="wsarray"):
        wnp.parse_size(text)


def test_workspace_api_bad_input():
    with pytest.raises(TypeError, match=r"wsarray.workspace\(\): name"):
        wnp.workspace(3)
    with pytest.raises(TypeError, match=r"wsarray.workspace\(\): config"):
        wnp.workspace("X", "64MB")
    with pytest.raises(wnp.WorkspaceError, match=r"wsarray.workspace\(\): .*non-empty"):
        wnp.workspace("")
    with pytest.raises(wnp.WorkspaceError, match=r"wsarray.memory.destroy_workspace\(\): no workspace"):
        wnp.memory.destroy_workspace("NOPE")
    with pytest.raises(TypeError, match="destroy_workspace"):
        wnp.memory.destroy_workspace(None)
    with pytest.raises(TypeError, match="workspace_exists"):
        wnp.memory.workspace_exists(b"X")
    with pytest.raises(ValueError, match="set_auto_gc_window"):
        wnp.memory.set_auto_gc_window(2**70)
    with pytest.raises(wnp.WorkspaceError, match="Workspace.__exit__"):
        wnp.workspace("NEVER").__exit__(None, None, None)
    a = wnp.ones(3)
    with pytest.raises(wnp.WorkspaceError, match=r"leverage_to\(\): workspace 'NOPE'"):
        a.leverage_to("NOPE")
    with pytest.raises(TypeError, match=r"wsarray.ndarray.leverage_to\(\): .*str"):
        a.leverage_to(3)
    with pytest.raises(ValueError, match=r"wsarray.ndarray.to_device\(\): device 'cuda:0' is not "):
        a.to_device("cuda")
    with pytest.raises(ValueError, match=r"wsarray.ndarray.to_device\(\): unknown device 'tpu'"):
        a.to_device("tpu")
    with pytest.raises(ValueError, match="api_version"):
        a.__array_namespace__(api_version="1999.01")
    assert wnp.memory.workspace_stack() == []


def test_absurd_sizes_inside_a_workspace_fail_cleanly():
    ws = wnp.workspace("ABSURD")
    with ws:
        for size in (2**62, (2**31, 2**31), 2**100):
            with raises_numpys(ValueError, "(array is too big|Maximum allowed dimension)", "zeros"):
                wnp.zeros(size)
        # Larger than the machine, but a valid NumPy size: the workspace refuses, MemoryError.
        with pytest.raises(MemoryError, match=r"wsarray.ones\(\).*available"):
            wnp.ones(2**45)
        assert float(wnp.ones(10).sum()) == 10.0
    assert ws.stats()["used"] == 0
