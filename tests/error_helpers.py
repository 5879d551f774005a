"""How wsarray names the function in an error that NumPy raised: NumPy's class and message are
kept as they are, and the traceback has an entry of its own for the wsarray function
(File "<wsarray>", line 1, in wsarray.reshape), as a Python function would."""
import contextlib
import traceback

import pytest


def names_function(exc, fn):
    """True if the traceback of `exc` has wsarray's entry for wsarray.<fn>."""
    return any(entry.filename == "<wsarray>" and entry.name == f"wsarray.{fn}"
               for entry in traceback.extract_tb(exc.__traceback__))


def assert_numpys_error(got, want, fn):
    """`got` (wsarray's) is `want` (NumPy's) for class and message, and names wsarray.<fn>."""
    assert type(got) is type(want), (type(got), type(want))
    assert str(got) == str(want)
    assert names_function(got, fn), traceback.format_tb(got.__traceback__)


@contextlib.contextmanager
def raises_numpys(kind, start, fn):
    """pytest.raises(kind) whose message (NumPy's) begins with the regex `start` and whose
    traceback names wsarray.<fn>."""
    with pytest.raises(kind, match=f"^{start}") as info:
        yield info
    assert names_function(info.value, fn), traceback.format_tb(info.value.__traceback__)
