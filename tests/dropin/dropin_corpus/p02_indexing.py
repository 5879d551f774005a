import numpy as np

a = np.arange(20).reshape(4, 5)
print(a[1], a[:, 2], a[1:3, ::2], a[-1, -1])
mask = a % 3 == 0
print(mask)
print(a[mask])
a[mask] = -1
print(a)
b = a.copy()
b[b < 0] = 0
b[0, :] += 100
b[:, 1] *= 2
print(b)
print(np.where(b > 50))
print(np.where(b > 50, b, 0))
print(np.argwhere(b == 0))
print(np.nonzero(b[0]))
print(b[[0, 2], [1, 3]])
print(b[np.array([True, False, True, False])])
idx = np.argsort(b[:, 1])
print(idx, b[idx])
c = np.arange(6)
c[c > 2] += 10
print(c, c[..., None].shape, c[np.newaxis, :].shape)
for row in a[:2]:
    print(row, row.sum())
for v in np.arange(3):
    print(v, v * 2)
print(a.flatten(), a.ravel()[3], list(a.flat)[:4])
e = np.zeros(5)
e.fill(3.0)
e[1:3] = [7, 8]
print(e)
print(3 in c, 13 in c)
