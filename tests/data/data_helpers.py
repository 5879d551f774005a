"""Helpers of the wsarray.data tests: the producer threads alive now."""
import threading
import time

THREAD_PREFIX = "wsarray-data"


def data_threads():
    return [t for t in threading.enumerate() if t.name.startswith(THREAD_PREFIX)]


def wait_for_no_data_threads(seconds=10.0):
    """True once no producer thread is left (threads stopping in the background get ``seconds``)."""
    deadline = time.monotonic() + seconds
    while data_threads() and time.monotonic() < deadline:
        time.sleep(0.01)
    return not data_threads()
