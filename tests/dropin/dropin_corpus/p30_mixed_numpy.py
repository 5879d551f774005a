import numpy as np
import math

v = np.array([1.0, 4.0, 9.0])
print(math.sqrt(v.sum()), math.floor(v.mean()), abs(-v.min()), divmod(int(v.max()), 4))
print(sum(v), list(map(float, v)), [x * 2 for x in v], tuple(v.astype(int)))
print(str(v.dtype), v.shape[0], v.ndim, range(len(v)))
total = 0
for i in range(len(v)):
    total += v[i]
print(total, type(total).__name__ in ("float64", "Array"), total == v.sum())
print(np.sum([1, 2, 3]), np.mean([1, 2, 3, 4]), np.max([3, 7, 1]), np.prod([1, 2, 3, 4]))
print(np.sqrt(2), np.exp(1), np.log10(1000), np.arctan2(1, 1), np.hypot(3, 4))
print(np.array([1, 2, 3]) + 0.5, 2 ** np.arange(4), 10 - np.arange(3), 1 / np.array([2, 4]))
w = np.array([[1, 2], [3, 4]])
print(w * [10, 100], w + [[1], [2]], [1, 1] @ w)
print(np.cumsum(w), np.cumsum(w, axis=0), np.std([1, 2, 3, 4]), np.var([1.0, 2.0]))
print(np.median([3, 1, 2]), np.percentile([1, 2, 3, 4], 50), np.mean(np.array([[1, 2], [3, 4]]), axis=1))
print(np.array(range(5)), np.array((1, 2)), np.fromiter((i * i for i in range(4)), dtype=int))
print(np.asarray([1, 2]).tolist(), np.fromfunction(lambda i, j: i + j, (2, 3)), np.copy(w))
print(np.ascontiguousarray(w.T).flags["C_CONTIGUOUS"], np.shape(w), np.ndim(w), np.size(w))
