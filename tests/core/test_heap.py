"""The chunk allocator under random allocation and free orders: data integrity and invariants."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import wsarray as wnp

ops = st.lists(
    st.one_of(
        st.tuples(st.just("alloc"), st.integers(min_value=0, max_value=40_000)),
        st.tuples(st.just("free"), st.integers(min_value=0, max_value=1000)),
        st.tuples(st.just("cycle"), st.just(0)),
    ),
    min_size=1,
    max_size=120,
)


def assert_intact(live):
    """Nobody's memory was handed to anyone else: every live array still holds its fill value."""
    for arr, value in live:
        a = np.asarray(arr)
        assert a.size == 0 or (a.min() == value and a.max() == value)


@settings(max_examples=80, deadline=None)
@given(ops=ops, circular=st.booleans())
def test_random_alloc_free_keeps_data_and_invariants(ops, circular):
    cfg = wnp.WorkspaceConfig(learning="none", initial_size="1MiB",
                              reset="end_of_buffer" if circular else "block_left")
    ws = wnp.workspace("HEAP", cfg)
    live = []  # (array, fill value), arrays of the open cycle (all of them, if circular)
    counter = 0
    ws.__enter__()
    try:
        for op, arg in ops:
            if op == "alloc":
                counter += 1
                live.append((wnp.full(arg, float(counter)), float(counter)))
            elif op == "free" and live:
                live.pop(arg % len(live))
            elif op == "cycle":
                ws.__exit__(None, None, None)
                if not circular:
                    live.clear()  # stale now; dropping them frees their blocks
                ws.__enter__()
            assert ws._check_heap() == ""
            assert_intact(live)
        ws.__exit__(None, None, None)
        live.clear()
        assert ws._check_heap() == ""
        s = ws.stats()
        assert s["live_arrays"] == 0 and s["used"] == 0
    finally:
        if ws.is_open:
            ws.__exit__(None, None, None)
        wnp.memory.destroy_workspace("HEAP")
