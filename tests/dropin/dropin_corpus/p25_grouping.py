import numpy as np

cats = np.array(["b", "a", "c", "a", "b", "a"])
vals = np.array([10.0, 1.0, 5.0, 3.0, 20.0, 2.0])
keys, inv = np.unique(cats, return_inverse=True)
sums = np.bincount(inv, weights=vals)
counts = np.bincount(inv)
for k, s, c in zip(keys, sums, counts):
    print(k, s, c, s / c)
means = {k: vals[cats == k].mean() for k in keys}
print(means)
table = {}
for c, v in zip(cats, vals):
    table.setdefault(c, []).append(v)
print({k: sum(v) for k, v in table.items()})
scores = np.array([88, 92, 79, 65, 95, 70])
grades = np.select([scores >= 90, scores >= 80, scores >= 70], ["A", "B", "C"], default="F")
print(grades, dict(zip(*np.unique(grades, return_counts=True))))
xs = np.array([-2.0, 0.5, 3.0])
print(np.piecewise(xs, [xs < 0, xs >= 0], [0, lambda x: x ** 2]))
