import threading
import time

import pytest

WORKER_PREFIX = "wsarray-parallel"


def parallel_threads():
    return [t for t in threading.enumerate() if t.name.startswith(WORKER_PREFIX)]


def wait_for_no_parallel_threads(seconds=10.0):
    """True once no worker thread is left (threads stopping in the background get ``seconds``)."""
    deadline = time.monotonic() + seconds
    while parallel_threads() and time.monotonic() < deadline:
        time.sleep(0.01)
    return not parallel_threads()


@pytest.fixture(autouse=True)
def _no_thread_left_behind():
    """Every test of wsarray.parallel ends with no worker thread alive."""
    assert wait_for_no_parallel_threads(), "an earlier test left worker threads behind"
    yield
    assert wait_for_no_parallel_threads(), \
        f"worker threads left behind: {[t.name for t in parallel_threads()]}"
