"""Arrays on a device, over the test-only fake device "fake:0"/"fake:1" (host memory, NumPy as the
engine): results against NumPy, the namespace's dispatch to the engine (and its error for a name the
engine lacks), device= on creation functions, no implicit transfers (numpy.asarray refused, mixing
devices refused), the stale guarantee and memory given back in routed device workspaces, detach /
leverage / leverage_to, DLPack, fuse, and the host path untouched."""
import gc
import pickle
import threading

import numpy
import pytest

import wsarray as wnp
from wsarray._devices import fake

KB = 1024


@pytest.fixture
def devs():
    backends = fake.enable(2)
    yield backends
    wnp.memory.destroy_all_workspaces_for_current_thread()
    gc.collect()
    fake.disable()
    for b in backends:
        assert b.live_allocations == 0  # every block and chunk went back to the device


def cfg(device="fake:0", **kw):
    return wnp.WorkspaceConfig(device=device, initial_size=64 * KB, **kw)


def test_creation_functions_take_device(devs):
    x = numpy.arange(12.0).reshape(3, 4)
    cases = {
        "zeros": (wnp.zeros((2, 3), device="fake:0"), numpy.zeros((2, 3))),
        "ones": (wnp.ones(4, dtype="int32", device="fake:0"), numpy.ones(4, dtype="int32")),
        "empty": (wnp.empty(5, device="fake:0").shape, (5,)),
        "full": (wnp.full(3, 7.5, device="fake:0"), numpy.full(3, 7.5)),
        "arange": (wnp.arange(2, 9, 2, device="fake:0"), numpy.arange(2, 9, 2)),
        "linspace": (wnp.linspace(0, 1, 5, device="fake:0"), numpy.linspace(0, 1, 5)),
        "eye": (wnp.eye(3, k=1, device="fake:0"), numpy.eye(3, k=1)),
        "asarray": (wnp.asarray(x, device="fake:0"), x),
        "asarray(list)": (wnp.asarray([[1, 2], [3, 4]], device="fake:0"), numpy.array([[1, 2], [3, 4]])),
        "zeros_like": (wnp.zeros_like(wnp.asarray(x), device="fake:0"), numpy.zeros_like(x)),
        "full_like": (wnp.full_like(wnp.asarray(x, device="fake:0"), 2.0), numpy.full_like(x, 2.0)),
    }
    for name, (got, want) in cases.items():
        if isinstance(got, tuple):
            assert got == want, name
            continue
        assert type(got) is wnp.DeviceArray and not isinstance(got, (wnp.Array, numpy.ndarray)), name
        assert got.device == "fake:0", name
        host = got.get()
        assert type(host) is numpy.ndarray and host.dtype == want.dtype, name
        numpy.testing.assert_array_equal(host, want, err_msg=name)
    assert fake.device(0).holds(wnp.zeros(3, device="fake:0")._native.ctypes.data)  # in device memory
    assert wnp.zeros(3, device="cpu").device == "cpu" and type(wnp.zeros(3, device="cpu")) is wnp.Array
    assert type(wnp.zeros(3, device=wnp.Device("cpu"))) is wnp.Array
    with pytest.raises(ValueError, match="^Device not understood"):  # NumPy's error for what NumPy refuses
        wnp.zeros(3, device="CPU")
    with pytest.raises(ValueError, match="^Device not understood"):  # not enabled: no device at all
        wnp.zeros(3, device="fake:7")


def test_operators_functions_and_methods_match_numpy(devs):
    rng = numpy.random.default_rng(0)
    a_h, b_h = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    a, b = wnp.asarray(a_h, device="fake:0"), wnp.asarray(b_h, device="fake:0")
    checks = [
        (a + b, a_h + b_h), (a - 2, a_h - 2), (3.0 * a, 3.0 * a_h), (a / b, a_h / b_h), (-a, -a_h),
        (abs(a), abs(a_h)), (a ** 2, a_h ** 2), (a @ b.T, a_h @ b_h.T), (a < b, a_h < b_h),
        (wnp.exp(a), numpy.exp(a_h)), (wnp.sum(a, axis=0), a_h.sum(axis=0)), (wnp.mean(a), a_h.mean()),
        (wnp.matmul(a, b.T), a_h @ b_h.T), (wnp.concat([a, b]), numpy.concatenate([a_h, b_h])),
        (wnp.linalg.norm(a), numpy.linalg.norm(a_h)), (wnp.where(a > 0, a, 0.0), numpy.where(a_h > 0, a_h, 0.0)),
        (wnp.sort(a, axis=1), numpy.sort(a_h, axis=1)), (wnp.pow(a, 2), a_h ** 2),
        (a.sum(axis=1), a_h.sum(axis=1)), (a.reshape(5, 4), a_h.reshape(5, 4)), (a.astype("float32"),
                                                                                  a_h.astype("float32")),
        (a[1:, ::2], a_h[1:, ::2]), (a[a > 0], a_h[a_h > 0]), (a.T, a_h.T), (a.mT, a_h.T),
        (numpy.exp(a), numpy.exp(a_h)), (numpy.sum(a), a_h.sum()),  # NumPy's own functions defer too
    ]
    for got, want in checks:
        assert got.device == "fake:0"
        numpy.testing.assert_allclose(got.get(), want, rtol=1e-12)
    assert a.shape == (4, 5) and a.ndim == 2 and a.size == 20 and a.dtype == numpy.float64
    assert float(wnp.sum(a)) == pytest.approx(a_h.sum()) and len(a) == 4
    assert [r.get().tolist() for r in a] == a_h.tolist()
    lo, hi = wnp.split(a, 2)
    numpy.testing.assert_array_equal(lo.get(), a_h[:2])
    c = wnp.zeros((4, 5), device="fake:0")
    c += a
    c[0] = 1.0
    c[1:2, :] = b[1:2, :]
    expected = a_h.copy()
    expected[0], expected[1] = 1.0, b_h[1]
    numpy.testing.assert_array_equal(c.get(), expected)
    out = wnp.zeros((4, 5), device="fake:0")
    assert wnp.add(a, b, out=out) is out  # out= comes back as the same object, as NumPy returns it
    numpy.testing.assert_array_equal(out.get(), a_h + b_h)
    assert wnp.asarray(a) is a  # already there


def test_no_implicit_transfers(devs):
    a = wnp.ones(3, device="fake:0")
    with pytest.raises(TypeError, match=r"on device 'fake:0'; it is not converted to a NumPy array implicitly"):
        numpy.asarray(a)
    with pytest.raises(wnp.DeviceMismatchError, match=r"wsarray.add\(\): arrays on different devices \('cpu' and "
                                                     r"'fake:0'\)"):
        wnp.add(a, wnp.ones(3))
    with pytest.raises(wnp.DeviceMismatchError, match=r"'fake:0' and 'fake:1'"):
        a + wnp.ones(3, device="fake:1")
    with pytest.raises(wnp.DeviceMismatchError, match=r"different devices"):
        wnp.ones(3) * a  # the host Array's operator defers, then refuses
    with pytest.raises(wnp.DeviceMismatchError):
        numpy.ones(3) + a
    with pytest.raises(wnp.DeviceMismatchError, match=r"wsarray.concatenate\(\)"):
        wnp.concat([a, wnp.ones(3)])
    assert isinstance(wnp.DeviceMismatchError("x"), ValueError) and isinstance(wnp.DeviceMismatchError("x"), TypeError)
    s = wnp.mean(wnp.ones(3))  # a host scalar result mixes freely, as a NumPy scalar does
    numpy.testing.assert_array_equal((a * s).get(), [1.0, 1.0, 1.0])
    numpy.testing.assert_array_equal((a * numpy.float32(2)).get(), [2.0, 2.0, 2.0])


def test_explicit_transfers(devs):
    host = wnp.arange(6.0)
    a = host.to_device("fake:0")
    assert a.device == "fake:0" and host.to_device("cpu") is host
    numpy.testing.assert_array_equal(a.get(), numpy.arange(6.0))
    back = a.to_device("cpu")
    assert type(back) is wnp.Array and back.device == "cpu"
    numpy.testing.assert_array_equal(back, numpy.arange(6.0))
    other = a.to_device("fake:1")
    assert other.device == "fake:1" and a.to_device("fake:0") is a
    numpy.testing.assert_array_equal(wnp.asarray(a, device="cpu"), numpy.arange(6.0))
    numpy.testing.assert_array_equal(wnp.asarray(a, device="fake:1").get(), numpy.arange(6.0))
    assert pickle.loads(pickle.dumps(a)).device == "fake:0"
    f32 = wnp.astype(host, "float32", device="fake:0")
    assert f32.device == "fake:0" and f32.dtype == numpy.float32
    with pytest.raises(ValueError, match=r"wsarray.ndarray.to_device\(\): unknown device 'tpu'"):
        a.to_device("tpu")
    with pytest.raises(wnp.DeviceMismatchError, match=r"wsarray.sum\(\)"):
        wnp.sum(a, device="cpu")  # device= moves data only on creation and conversion functions


def test_an_engine_without_the_function_raises_naming_it(devs, monkeypatch):
    from wsarray._devices.fake import FakeEngine

    real = FakeEngine.function
    monkeypatch.setattr(FakeEngine, "function", lambda self, name: None if name in ("median", "concat") else
                        real(self, name))
    a = wnp.ones(3, device="fake:0")
    with pytest.raises(NotImplementedError, match=r"wsarray.median\(\): .*has no 'median' for arrays on "
                                                  r"'fake:0'.*\.to_device\('cpu'\)"):
        wnp.median(a)  # never a silent trip through the host
    with pytest.raises(NotImplementedError, match=r"wsarray.median\(\)"):
        numpy.median(a)
    calls = []
    b = wnp.full((2, 3), 3.0, device="fake:0")
    monkeypatch.setattr(FakeEngine, "function", lambda self, name: calls.append(name) or (
        None if name == "concat" else real(self, name)))
    numpy.testing.assert_array_equal(wnp.pow(b, 2).get(), numpy.full((2, 3), 9.0))
    assert calls == ["power"]  # the engine's function of the namespace function's name (NumPy's)
    from wsarray._devices.dispatch import call

    assert call("concat", ([b, b],), {}).shape == (4, 3)  # an engine without the standard's name: NumPy's
    assert calls[1:] == ["concat", "concatenate"]


def test_namespace_info_lists_enabled_devices(devs):
    info = wnp.__array_namespace_info__()
    assert info.devices()[:1] == ("cpu",) and {"fake:0", "fake:1"} <= set(info.devices())
    assert info.default_device() == "cpu"
    fake.disable()
    assert "fake:0" not in info.devices()
    with pytest.raises(ValueError, match="unknown device 'fake:0'"):
        wnp.WorkspaceConfig(device="fake:0")
    fake.enable(2)


def test_routed_workspace_stale_guarantee_and_memory_back(devs):
    ws = wnp.workspace("DEV_LOOP", cfg())
    assert wnp.workspace("DEV_LOOP") is ws and wnp.workspace("DEV_LOOP", cfg()) is ws
    with pytest.raises(wnp.WorkspaceError, match="different configuration"):
        wnp.workspace("DEV_LOOP", cfg(max_size=10**9))
    x = wnp.asarray(numpy.arange(100.0), device="fake:0")  # outside: the engine's own memory
    assert not x.is_attached() and x.workspace is None
    kept = []
    for i in range(3):
        with ws:
            y = x * 2 + i
            z = wnp.exp(y[:10])
            assert y.is_attached() and y.workspace == "DEV_LOOP" and y.is_in_scope()
            assert z.workspace == "DEV_LOOP" and y[5:].workspace == "DEV_LOOP"  # views: the base's cycle
            assert wnp.memory.workspace_active("DEV_LOOP")
            kept.append(y.detach())
        assert not y.is_in_scope()
    s = ws.stats()
    assert s["device"] == "fake:0" and s["cycles"] == 3 and s["upstream_bytes"] == 0
    for fn, use in [("ndarray.sum", lambda v: v.sum()), ("ndarray.__add__", lambda v: v + 1),
                    ("ndarray.shape", lambda v: v.shape), ("ndarray.__dlpack__", lambda v: v.__dlpack__()),
                    ("ndarray.get", lambda v: v.get()), ("ndarray.detach", lambda v: v.detach())]:
        with pytest.raises(wnp.WorkspaceError, match=rf"wsarray.{fn}\(\): this array was made in cycle 3 of "
                                                     r"workspace 'DEV_LOOP', and that cycle has ended"):
            use(y)
    with pytest.raises(wnp.WorkspaceError, match=r"wsarray.exp\(\): this array was made in cycle 3"):
        wnp.exp(y)
    for i, k in enumerate(kept):
        numpy.testing.assert_array_equal(k.get(), numpy.arange(100.0) * 2 + i)
        assert not k.is_attached()
    del y, z
    gc.collect()
    assert ws.stats()["live_arrays"] == 0  # every block came back when its array died
    wnp.memory.destroy_workspace("DEV_LOOP")
    assert not wnp.memory.workspace_exists("DEV_LOOP")
    assert wnp.workspace("DEV_LOOP", cfg()) is not ws  # a fresh one after destroy


def test_leverage_and_leverage_to_in_nested_device_workspaces(devs):
    outer, inner = wnp.workspace("DEV_OUTER", cfg()), wnp.workspace("DEV_INNER", cfg())
    host = wnp.workspace("HOST_MID")
    with outer:
        with host:
            with inner:
                a = wnp.ones(4, device="fake:0") * 3
                h = wnp.ones(4)  # a host array inside: the host workspace's
                assert a.workspace == "DEV_INNER" and h.workspace == "HOST_MID"
                up = a.leverage()
                assert up.workspace == "DEV_OUTER"
                assert a.leverage_to("DEV_OUTER").workspace == "DEV_OUTER"
                assert a.leverage_to("DEV_INNER") is a
                with pytest.raises(wnp.WorkspaceError, match="workspace 'HOST_MID' of device 'fake:0' has no open"):
                    a.leverage_to("HOST_MID")
            numpy.testing.assert_array_equal(up.get(), [3.0] * 4)  # valid after the inner cycle
            top = up.leverage()
            assert not top.is_attached()
    numpy.testing.assert_array_equal(top.get(), [3.0] * 4)
    with pytest.raises(wnp.WorkspaceError):
        up.get()
    with pytest.raises(TypeError, match="name must be a str"):
        top.leverage_to(3)


def test_stale_after_destroy_and_for_all_threads(devs):
    ws = wnp.workspace("DEV_GONE", cfg())
    with ws:
        a = wnp.ones(10, device="fake:0")
        err = []
        t = threading.Thread(target=lambda: err.append(float(a.sum())))
        t.start()
        t.join(10)
        assert err == [10.0]  # readable on another thread while its cycle is open
    wnp.memory.destroy_all_workspaces_for_current_thread()
    with pytest.raises(wnp.WorkspaceError, match="which was destroyed"):
        a.sum()
    assert not t.is_alive() and t not in threading.enumerate()


def test_allocations_on_a_foreign_stream_go_upstream(devs):
    dev = devs[0]
    ws = wnp.workspace("DEV_STREAMS", cfg())
    other = dev.stream()
    with ws:
        dev.current = other  # the cycle's home stream is the one current when it began
        try:
            a = wnp.ones(100, device="fake:0")
        finally:
            dev.current = dev.streams[0]
        assert not a.is_attached()  # upstream memory: not the workspace's, valid after the cycle
    assert ws.stats()["foreign_stream_spills"] == 1 and ws.stats()["upstream_bytes"] == 800
    numpy.testing.assert_array_equal(a.get(), numpy.ones(100))


def test_dlpack(devs):
    a = wnp.arange(5.0, device="fake:0")
    assert a.__dlpack_device__() == (1, 0)  # fake memory is host memory
    same = wnp.from_dlpack(a)
    assert same.device == "fake:0" and same._native.ctypes.data == a._native.ctypes.data  # no copy
    viewed = numpy.from_dlpack(a)  # explicit: DLPack is a transfer the caller asks for
    numpy.testing.assert_array_equal(viewed, numpy.arange(5.0))
    copied = wnp.from_dlpack(numpy.arange(3.0), device="fake:1")
    assert copied.device == "fake:1"
    numpy.testing.assert_array_equal(copied.get(), numpy.arange(3.0))
    with pytest.raises(RuntimeError, match="stream=None"):
        a.__dlpack__(stream=1)  # the engine's answer: the CPU has no streams
    torch = pytest.importorskip("torch")
    t = torch.from_dlpack(a)
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    numpy.testing.assert_array_equal(wnp.from_dlpack(t, device="fake:0").get(), numpy.arange(5.0))
    ws = wnp.workspace("DEV_DLPACK", cfg())
    with ws:
        inside = wnp.ones(2, device="fake:0")
    with pytest.raises(wnp.WorkspaceError, match=r"wsarray.ndarray.__dlpack__\(\)"):
        numpy.from_dlpack(inside)  # the stale check comes first


def test_fuse_runs_on_the_device(devs):
    @wnp.fuse
    def f(x, y):
        return wnp.exp(x) * y + 1.0

    x_h = numpy.linspace(0, 1, 50_000)
    got = f(wnp.asarray(x_h, device="fake:0"), wnp.asarray(x_h, device="fake:0"))
    assert got.device == "fake:0"
    numpy.testing.assert_allclose(got.get(), numpy.exp(x_h) * x_h + 1.0)
    numpy.testing.assert_allclose(f(wnp.asarray(x_h), wnp.asarray(x_h)), numpy.exp(x_h) * x_h + 1.0)


def test_stale_arrays_never_reach_numpy_through_the_namespace_hooks(devs):
    ws = wnp.workspace("DEV_HOOKS", cfg())
    with ws:
        a = wnp.ones(3, device="fake:0")
    with pytest.raises(wnp.WorkspaceError):
        numpy.add(a, 1)  # NumPy's own ufunc defers to the array, which checks its cycle
    with pytest.raises(wnp.WorkspaceError):
        a.leverage()
    with pytest.raises(wnp.WorkspaceError, match=r"wsarray.ndarray.__repr__\(\)"):
        repr(a)


def test_a_host_array_is_leveraged_past_device_workspaces(devs):
    # Host arrays go to the innermost host workspace, whatever device workspaces nest around it:
    # leverage() picked the device workspace and failed on an unrelated message (its memory
    # "cannot be cleared"); leverage_to() a device workspace says what to do instead.
    device_ws = wnp.workspace("DEV_LEVERAGE", cfg())
    host_ws = wnp.workspace("HOST_LEVERAGE")
    outer = wnp.workspace("HOST_OUTER")
    with outer:
        with device_ws:
            a = wnp.ones(10)
            with pytest.raises(wnp.WorkspaceError, match="holds memory of device fake:0, and this array is in "
                                                         "host memory: move it with .to_device"):
                a.leverage_to("DEV_LEVERAGE")
            with host_ws:
                h = wnp.arange(10.0)
                up = h.leverage()
                assert up.workspace == "HOST_OUTER" and float(up.sum()) == 45.0
    with device_ws, host_ws:
        h = wnp.arange(4.0)
        assert h.leverage().workspace is None and float(h.leverage()[3]) == 3.0  # nothing host outside
