"""tests/cuda: CUDA availability and errors (run everywhere, on the CPU, with CuPy faked where
needed) and GPU tests marked ``cuda``, skipped with the reason unless CuPy sees a GPU."""
import pytest

import wsarray.cuda as wcuda


def pytest_collection_modifyitems(config, items):
    gpu = [item for item in items if item.get_closest_marker("cuda")]
    if not gpu:
        return
    s = wcuda.status()
    if not s["usable"]:
        skip = pytest.mark.skip(reason=f"no usable CUDA GPU: {s['reason']}")
        for item in gpu:
            item.add_marker(skip)
