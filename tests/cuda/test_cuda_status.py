"""What wsarray says about CUDA where it cannot be used, tested on the CPU: ``import wsarray``
never imports CuPy, the probe tells the three missing pieces apart (CuPy, a driver, a GPU: CuPy
imports without a driver, so getDeviceCount() raising is the test), and every way of asking for a
CUDA device (WorkspaceConfig, creation functions, to_device, the inspection namespace) raises one
clear error naming the function and what is missing. CuPy is faked by replacing
wsarray.cuda._import_cupy."""
import importlib.util
import subprocess
import sys
import types

import pytest

import wsarray as wnp
import wsarray.cuda as wcuda


class FakeRuntimeError(Exception):
    pass


def fake_cupy(count=None, error=None):
    """A module that looks like CuPy to the probe: getDeviceCount() returns `count` or raises."""
    def get_device_count():
        if error is not None:
            raise error
        return count

    class Device:
        current = 0

        def __init__(self, i):
            self.i = i

        def __enter__(self):
            Device.current = self.i
            return self

        def __exit__(self, *exc):
            Device.current = 0
            return False

    class Pool:
        def used_bytes(self):
            return 1000 * (Device.current + 1)

        def total_bytes(self):
            return 4096 * (Device.current + 1)

    runtime = types.SimpleNamespace(getDeviceCount=get_device_count,
                                    memGetInfo=lambda: ((Device.current + 1) * 2**30, 16 * 2**30))
    pool = Pool()
    return types.SimpleNamespace(__version__="13.9.0", cuda=types.SimpleNamespace(runtime=runtime, Device=Device),
                                 get_default_memory_pool=lambda: pool)


@pytest.fixture
def cupy_is(monkeypatch):
    """cupy_is(module_or_exception): the probe sees that instead of the real CuPy."""
    def install(what):
        def importer():
            if isinstance(what, BaseException):
                raise what
            return what
        monkeypatch.setattr(wcuda, "_import_cupy", importer)
        wcuda._reset()
    yield install
    wcuda._reset()


def test_import_wsarray_never_imports_cupy():
    code = ("import sys, wsarray, wsarray.cuda; wsarray.zeros(3); wsarray.WorkspaceConfig(device='cpu'); "
            "print('cupy' in sys.modules)")
    out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_the_real_probe_matches_this_machine():
    wcuda._reset()
    s = wcuda.status()
    if importlib.util.find_spec("cupy") is None:
        assert s["missing"] == "cupy" and not s["usable"] and s["devices"] == 0
        assert 'wsarray[cuda12]' in s["reason"]
    assert s["usable"] == (s["devices"] > 0) == (s["missing"] is None)
    assert wcuda.device_count() == s["devices"]


@pytest.mark.parametrize("what, missing, words", [
    (ImportError("No module named 'cupy'"), "cupy", ["CuPy is not installed", 'pip install "wsarray[cuda12]"']),
    (fake_cupy(error=FakeRuntimeError("cudaErrorInsufficientDriver")), "driver",
     ["CuPy 13.9.0 is installed but no CUDA driver", "FakeRuntimeError: cudaErrorInsufficientDriver"]),
    (fake_cupy(count=0), "device", ["a CUDA driver are installed but there is no GPU"]),
])
def test_each_missing_piece_is_named(cupy_is, what, missing, words):
    cupy_is(what)
    s = wcuda.status()
    assert s["missing"] == missing and not s["usable"] and s["devices"] == 0
    calls = [
        ("WorkspaceConfig", lambda: wnp.WorkspaceConfig(device="cuda")),
        ("zeros", lambda: wnp.zeros(3, device="cuda:0")),
        ("asarray", lambda: wnp.asarray([1.0], device="cuda")),
        ("ndarray.to_device", lambda: wnp.ones(2).to_device("cuda:0")),
        (r"__array_namespace_info__\(\).dtypes", lambda: wnp.__array_namespace_info__().dtypes(device="cuda")),
    ]
    for fn, call in calls:
        expected = rf"^wsarray\.{fn}\(\): device 'cuda:0' is not available"
        with pytest.raises(wcuda.CudaUnavailableError, match=expected) as info:
            call()
        for w in words:
            assert w in str(info.value)
        assert isinstance(info.value, ValueError) and isinstance(info.value, RuntimeError)
    assert wnp.__array_namespace_info__().devices() == ("cpu",)
    assert wnp.memory.device_info() == []


def test_a_usable_gpu_is_reported_and_accepted(cupy_is):
    cupy_is(fake_cupy(count=2))
    s = wcuda.status()
    assert s == {"usable": True, "missing": None, "devices": 2, "cupy": "13.9.0", "reason": "CuPy 13.9.0, 2 GPU(s)"}
    assert wnp.WorkspaceConfig(device="cuda:1").device == "cuda:1"  # made by wsarray.workspace() (CuPy)
    assert wnp.WorkspaceConfig(device="cuda:1") != wnp.WorkspaceConfig()
    assert "device='cuda:1'" in repr(wnp.WorkspaceConfig(device="cuda:1"))
    assert wnp.__array_namespace_info__().devices() == ("cpu", "cuda:0", "cuda:1")
    assert "float64" in wnp.__array_namespace_info__().dtypes(device="cuda:1")
    missing = r"wsarray.zeros\(\): device 'cuda:2' does not exist.*cuda:0 to cuda:1"
    with pytest.raises(wcuda.CudaUnavailableError, match=missing):
        wnp.zeros(3, device="cuda:2")
    assert wnp.workspace is wnp._native.workspace  # one entry makes host and device workspaces
    info = wnp.memory.device_info()
    assert info == [
        {"device": "cuda:0", "free": 2**30, "total": 16 * 2**30, "pool_used": 1000, "pool_total": 4096,
         "workspace_bytes": 0},
        {"device": "cuda:1", "free": 2 * 2**30, "total": 16 * 2**30, "pool_used": 2000, "pool_total": 8192,
         "workspace_bytes": 0},
    ]


def test_the_probe_runs_once_and_is_cached(cupy_is, monkeypatch):
    calls = []
    cupy = fake_cupy(count=1)
    monkeypatch.setattr(wcuda, "_import_cupy", lambda: calls.append(1) or cupy)
    wcuda._reset()
    for _ in range(3):
        assert wcuda.device_count() == 1
    assert len(calls) == 1


def test_cpu_device_arguments_and_other_errors_are_unchanged():
    assert wnp.WorkspaceConfig(device="cpu").device == "cpu"
    assert wnp.WorkspaceConfig().device == "cpu"
    assert wnp.zeros(2, device="cpu").device == "cpu"
    with pytest.raises(ValueError, match="^Device not understood"):  # not a device wsarray knows: NumPy's
        wnp.zeros(2, device="gpu")
    with pytest.raises(ValueError, match=r"wsarray.WorkspaceConfig\(\): unknown device 'tpu'"):
        wnp.WorkspaceConfig(device="tpu")
