"""How wsarray names the function in an error that NumPy raised: NumPy's class and message are
kept as they are, and a PEP 678 note says which wsarray function raised it."""
import re


def note_names(exc, fn):
    """True if `exc` carries the note "raised by wsarray.<fn>()"."""
    return f"raised by wsarray.{fn}()" in getattr(exc, "__notes__", [])


def assert_numpys_error(got, want, fn):
    """`got` (wsarray's) is `want` (NumPy's) for class and message, and names wsarray.<fn>()."""
    assert type(got) is type(want), (type(got), type(want))
    assert str(got) == str(want)
    assert note_names(got, fn), getattr(got, "__notes__", None)


def numpys_message(start, fn):
    """A pytest.raises(match=...) pattern: NumPy's message beginning with the regex `start`, then
    the note naming wsarray.<fn>() (pytest matches the message and its notes, one per line)."""
    return rf"(?s)^{start}.*\nraised by wsarray\.{re.escape(fn)}\(\)$"
