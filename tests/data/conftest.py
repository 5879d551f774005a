import threading
import time

import pytest

THREAD_PREFIX = "wsarray-data"


def data_threads():
    return [t for t in threading.enumerate() if t.name.startswith(THREAD_PREFIX)]


def wait_for_no_data_threads(seconds=10.0):
    """True once no producer thread is left (threads stopping in the background get ``seconds``)."""
    deadline = time.monotonic() + seconds
    while data_threads() and time.monotonic() < deadline:
        time.sleep(0.01)
    return not data_threads()


@pytest.fixture(autouse=True)
def _no_thread_left_behind():
    """Every test of wsarray.data ends with no producer thread alive."""
    assert wait_for_no_data_threads(), "an earlier test left producer threads behind"
    yield
    import gc

    gc.collect()
    assert wait_for_no_data_threads(), f"threads left behind: {[t.name for t in data_threads()]}"
