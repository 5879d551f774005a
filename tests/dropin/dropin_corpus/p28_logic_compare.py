import numpy as np

a = np.array([1.0, 2.0, 3.0])
b = a + 1e-10
print(np.allclose(a, b), np.array_equal(a, b), np.array_equal(a, a.copy()), np.isclose(a, b))
if a.sum() == 6:
    print("sum is six")
if a[0] < a[1]:
    print("ordered")
if np.any(a > 2) and not np.all(a > 2):
    print("some")
x = a.max()
d = {a[0]: "one", a[1]: "two"}
print(d[1.0], d.get(2.0), a[2] in d)
lookup = {int(v): i for i, v in enumerate(a)}
print(lookup)
print(np.logical_or(a < 1.5, a > 2.5), np.logical_not(a > 2), (a > 1) & (a < 3), ~(a > 1))
print(np.where(a > 1.5)[0], np.where(np.array([[0, 1], [1, 0]])), np.flatnonzero(a > 1))
print(a == 2, (a == 2).any(), list(a == 2), bool((a > 0).all()))
cnt = 0
for v in a:
    if v > 1.5:
        cnt += 1
print(cnt, len(a[a > 1.5]), max(a), sorted(a, reverse=True))
m = np.array([[1, 0], [0, 1]])
print(np.array_equal(m, np.eye(2)), (m == np.eye(2)).all(), m.any(axis=0), np.isin(m, [1]).sum())
print(np.maximum(a, 2), np.minimum(a, [0, 5, 1]), np.clip(a, 1.5, 2.5), np.sign(a - 2))
