"""On a machine with a GPU (marked ``cuda``; skipped with the reason elsewhere; run with
``python -P -m pytest tests -m cuda``): what wsarray reports agrees with CuPy; the workspace suite on
``device="cuda:0"`` against plain CuPy; a block freed after a busy kernel on one stream and reused on
another; DLPack round trips with CuPy and torch; 100,000 cycles with ``memGetInfo`` flat.
Not run yet: no GPU was available where this was written (2026-11-25)."""
import gc

import numpy
import pytest

import wsarray as wnp
import wsarray.cuda as wcuda

pytestmark = pytest.mark.cuda
MB = 1 << 20


@pytest.fixture
def cp():
    import cupy

    yield cupy
    wnp.memory.destroy_all_workspaces_for_current_thread()
    gc.collect()
    cupy.cuda.Device(0).synchronize()


def gpu_config(**kw):
    return wnp.WorkspaceConfig(device="cuda:0", initial_size=64 * MB, **kw)


def test_device_info_agrees_with_cupy(cp):
    wcuda._reset()
    info = wnp.memory.device_info()
    assert len(info) == cp.cuda.runtime.getDeviceCount() == wcuda.device_count()
    for i, d in enumerate(info):
        assert d["device"] == f"cuda:{i}"
        assert 0 < d["free"] <= d["total"]
        assert 0 <= d["pool_used"] <= d["pool_total"]
    assert "cuda:0" in wnp.__array_namespace_info__().devices()


def mlp_step(xp, x, w1, w2, y):
    h = xp.tanh(x @ w1)
    out = h @ w2
    err = out - y
    g2 = h.T @ err / len(x)
    g1 = x.T @ ((err @ w2.T) * (1 - h * h)) / len(x)
    return float(xp.mean(err * err)), g1, g2


def test_workspace_suite_matches_plain_cupy(cp):
    rng = numpy.random.default_rng(0)
    host = [rng.standard_normal(s) for s in ((256, 64), (64, 32), (32, 4), (256, 4))]
    ref = [cp.asarray(h) for h in host]
    x, w1, w2, y = (wnp.asarray(h, device="cuda:0") for h in host)
    assert x.device == "cuda:0" and type(x) is wnp.DeviceArray and x.__dlpack_device__() == (2, 0)
    ws = wnp.workspace("GPU_MLP", gpu_config())
    for _ in range(5):
        with ws:
            loss, g1, g2 = mlp_step(wnp, x, w1, w2, y)
            assert g1.workspace == "GPU_MLP"
            w1 = (w1 - 0.1 * g1).detach()
            w2 = (w2 - 0.1 * g2).detach()
        ref_loss, r1, r2 = mlp_step(cp, *ref[:3], ref[3])
        ref[1], ref[2] = ref[1] - 0.1 * r1, ref[2] - 0.1 * r2
        assert loss == pytest.approx(ref_loss, rel=1e-12)
    cp.testing.assert_allclose(cp.asarray(w1.get()), ref[1], rtol=1e-12)
    with pytest.raises(wnp.WorkspaceError, match=r"wsarray.ndarray.sum\(\): this array was made in cycle 5"):
        g1.sum()
    del g1, g2
    gc.collect()
    s = ws.stats()
    assert s["device"] == "cuda:0" and s["cycles"] == 5 and s["live_arrays"] == 0 and s["syncs"] == 0
    with pytest.raises(TypeError, match="not converted to a NumPy array implicitly"):
        numpy.asarray(x)
    with pytest.raises(wnp.DeviceMismatchError):
        x + wnp.ones((256, 64))


def test_a_block_freed_after_a_busy_kernel_is_reused_safely_on_another_stream(cp):
    ws = wnp.workspace("GPU_STREAMS", gpu_config())
    s1, s2 = cp.cuda.Stream(non_blocking=True), cp.cuda.Stream(non_blocking=True)
    n = 1 << 22
    with s1:
        with ws:
            a = wnp.ones(n, device="cuda:0")
            for _ in range(50):  # keep s1 busy writing into a's block
                a *= 1.0000001
            address = a._native.data.ptr
            del a
    with s2:
        with ws:  # begins on another stream: waits on the last cycle's event, no host sync
            b = wnp.zeros(n, device="cuda:0")
            assert b._native.data.ptr == address  # the same block, reused
            b += 2.0
            total = float(b.sum())
    assert total == 2.0 * n  # s1's late writes did not land over b
    assert ws.stats()["syncs"] == 0


def test_dlpack_round_trips_with_cupy_and_torch(cp):
    c = cp.arange(10, dtype=cp.float32)
    a = wnp.from_dlpack(c)
    assert a.device == "cuda:0" and a._native.data.ptr == c.data.ptr  # no copy
    back = cp.from_dlpack(a)
    assert back.data.ptr == c.data.ptr
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    t = torch.arange(6, device="cuda", dtype=torch.float64)
    w = wnp.from_dlpack(t)
    assert w.device == "cuda:0" and w._native.data.ptr == t.data_ptr()
    t2 = torch.from_dlpack(w * 2)
    assert t2.device.type == "cuda" and t2.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]


def test_100000_cycles_leave_device_memory_flat(cp):
    ws = wnp.workspace("GPU_FLAT", gpu_config())
    x = wnp.ones(1024, device="cuda:0")
    for _ in range(100):  # warm up: learning, CuPy's kernel cache
        with ws:
            (x * 2 + 1).sum()
    cp.cuda.Device(0).synchronize()
    free_before = cp.cuda.runtime.memGetInfo()[0]
    for _ in range(100_000):
        with ws:
            (x * 2 + 1).sum()
    cp.cuda.Device(0).synchronize()
    assert cp.cuda.runtime.memGetInfo()[0] == free_before
    assert ws.stats()["live_arrays"] == 0
