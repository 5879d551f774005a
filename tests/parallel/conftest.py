import multiprocessing
import signal
import threading
import time

import pytest

from wsarray.parallel import _blas

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
    """Every test of wsarray.parallel ends with no worker thread alive and BLAS thread counts as
    they were (the pools' caps are restored)."""
    assert wait_for_no_parallel_threads(), "an earlier test left worker threads behind"
    blas_before = _blas.blas_thread_counts()
    yield
    assert wait_for_no_parallel_threads(), \
        f"worker threads left behind: {[t.name for t in parallel_threads()]}"
    assert _blas.blas_thread_counts() == blas_before, "a pool left BLAS threads capped"


@pytest.fixture(autouse=True)
def _no_worker_process_left():
    """Every test ends with no worker process of its own alive (the process backends')."""
    yield
    deadline = time.monotonic() + 10
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not multiprocessing.active_children(), multiprocessing.active_children()


@pytest.fixture
def sigint_raises_keyboard_interrupt():
    """Ctrl-C raises KeyboardInterrupt in the test (the default handler), whatever pytest set."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals go to the main thread")
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
