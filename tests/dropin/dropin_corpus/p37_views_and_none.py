import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


class Tagged(np.ndarray):
    def __new__(cls, data, tag="none"):
        obj = np.asarray(data).view(cls)
        obj.tag = tag
        return obj

    def __array_finalize__(self, obj):
        self.tag = getattr(obj, "tag", "none")


t = Tagged(np.arange(5), "five")
print(repr(t), t.tag, t[1:].tag, isinstance(t, np.ndarray), type(t).__name__)
x = np.arange(8.0)
print(isinstance(x, np.ndarray), isinstance(x.sum(), np.ndarray), isinstance(x.sum(), float))
w = np.lib.stride_tricks.sliding_window_view(x, 3)
print(w, w.mean(axis=1))
print(sliding_window_view(np.arange(5), 2).sum(axis=1))
print(x == None, x != None, np.arange(3) == "a")  # noqa: E711
weights = None
if weights is None:
    weights = np.ones_like(x)
print(np.average(x, weights=weights), x.sum() == None)  # noqa: E711
m = np.ndarray((2, 2), dtype=np.int64)
m[:] = 3
print(m, m.dtype)
