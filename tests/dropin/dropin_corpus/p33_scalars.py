import numpy as np

a = np.array([4, 9, 16])
total = a.sum()
print(total, repr(total), total / 2, repr(total / 2), total // 2, -total, total ** 0.5)
print([0] * a.argmin(), "ab" * a[0], list(range(a.max() - 14)), "xyz"[a.argmax() - 1])
m = a.mean()
print(m, repr(m), round(m, 2), repr(round(m, 2)), int(m), f"{m:.3f}", m.is_integer(), m.item())
print(repr(m.astype(np.float32)), repr(np.float32(m)), repr(a[0].astype(float)), m.dtype, m.shape)
vals = [a.min(), a.max(), a.mean(), a.std()]
print(vals, max(vals), sorted(vals)[0], sum(vals))
d = {a[0]: "four", a[1]: "nine"}
print(d, d[4], a[2] in d, {k: v for k, v in zip(a, ["x", "y", "z"])})
b = np.array([True, False, True])
print(b.sum(), repr(b.any()), repr(b[0]), b.all() or b.any(), repr(np.logical_not(b[1])))
c = np.float64(2.5)
print(c, repr(c), c + a, repr(c * 2), np.sqrt(c), repr(np.int64(7) % 3))
print(np.isscalar(a[0]), np.isscalar(a), np.ndim(a[0]), np.shape(a[0]))
x = 0
for v in a:
    x = x + v
print(x, repr(x), x == 29, x > 20)
print(np.array([a.sum(), a.prod()]), np.array([m, 1.0]).dtype, np.stack([a.max(), a.min()]))
def kind(v):
    if isinstance(v, (int, float, np.number)):
        return "scalar"
    return "array"
print(kind(a.sum()), kind(a), kind(m), isinstance(m, float), isinstance(a[0], np.integer), m.__class__.__name__)
