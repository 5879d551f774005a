"""On a machine with a GPU (marked ``cuda``; skipped with the reason elsewhere): what wsarray
reports about it agrees with CuPy's own view, and CUDA arrays are refused with the error that says
this build has no CUDA array layer yet (issue 17)."""
import pytest

import wsarray as wnp
import wsarray.cuda as wcuda

pytestmark = pytest.mark.cuda


def test_device_info_agrees_with_cupy():
    import cupy

    wcuda._reset()
    info = wnp.memory.device_info()
    assert len(info) == cupy.cuda.runtime.getDeviceCount() == wcuda.device_count()
    for i, d in enumerate(info):
        assert d["device"] == f"cuda:{i}"
        assert 0 < d["free"] <= d["total"]
        assert 0 <= d["pool_used"] <= d["pool_total"]


def test_cuda_arrays_are_refused_clearly():
    with pytest.raises(wcuda.CudaUnavailableError, match="no CUDA array layer yet"):
        wnp.zeros(3, device="cuda:0")
