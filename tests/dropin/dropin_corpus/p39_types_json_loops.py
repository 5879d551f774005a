import numpy as np
import json
import io

# What tutorials print: types of results, JSON of metrics, element loops, odd corners.
a = np.array([1.5, 2.5, 4.0, 8.0])
print(type(a.sum()), type(a.mean()), type(a.max()), type(a.argmax()), type(np.dot(a, a)))
print(type(np.median(a)), type(np.linalg.norm(a)), type(next(iter(a))), [type(v) for v in a[:2]])
metrics = {"mean": a.mean(), "std": a.std(), "max": a.max(), "norm": np.linalg.norm(a)}
print(json.dumps(metrics, sort_keys=True))
print(isinstance(a.sum(), float), isinstance(np.add, np.ufunc), isinstance(np.floor_divide, np.ufunc))

total, squares, evens = 0.0, 0.0, 0
for i in range(len(a)):
    total += a[i]
for v in a:
    squares += v * v
b = np.arange(20)
for i in range(len(b)):
    if b[i] % 2 == 0:
        evens += 1
print(total, repr(squares), evens, list(reversed(a)), [r.tolist() for r in reversed(b.reshape(4, 5))])


class Eye:
    """A class whose __array__ uses np (the swapped module in the wsarray run)."""

    def __init__(self, n, v):
        self.n, self.v = n, v

    def __array__(self, dtype=None, copy=None):
        return self.v * np.eye(self.n, dtype=dtype)


e = Eye(3, 2.0)
print(np.asarray(e), np.multiply(e, 3).sum(), np.asarray(e, dtype=np.float32).dtype)
rec = np.rec.array(np.array([(1, 2.5), (2, 3.5)], dtype=[("id", "i8"), ("w", "f8")]))
print(rec.w, rec[1].id, a.__array_interface__["typestr"], a.__array_interface__["shape"])
buf = io.BytesIO()
np.lib.format.write_array(buf, a)
buf.seek(0)
print(np.lib.format.read_array(buf), np.lib.format.MAGIC_PREFIX)
try:
    np.sort(np.array(["b", None, "a"], dtype=object))
except TypeError as err:
    print("TypeError", str(err).split("): ")[-1])
