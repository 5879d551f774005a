import gc

import pytest
from data_helpers import data_threads, wait_for_no_data_threads


@pytest.fixture(autouse=True)
def _no_thread_left_behind():
    """Every test of wsarray.data ends with no producer thread alive."""
    assert wait_for_no_data_threads(), "an earlier test left producer threads behind"
    yield
    gc.collect()
    assert wait_for_no_data_threads(), f"threads left behind: {[t.name for t in data_threads()]}"
