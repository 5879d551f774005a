import numpy as np

data = np.arange(1, 13, dtype=float).reshape(4, 3)
mu = data.mean(axis=0)
sd = data.std(axis=0)
z = (data - mu) / sd
print(z.round(6), z.mean(axis=0).round(12), z.std(axis=0))
minmax = (data - data.min(0)) / (data.max(0) - data.min(0))
print(minmax)
rows = data / data.sum(axis=1, keepdims=True)
print(rows.round(5), rows.sum(axis=1))
pts = np.array([[0, 0], [3, 4], [6, 8]])
D = np.sqrt(((pts[:, np.newaxis, :] - pts[np.newaxis, :, :]) ** 2).sum(-1))
print(D)
cos = (pts @ pts.T) / (np.linalg.norm(pts, axis=1)[:, None] * np.linalg.norm(pts, axis=1)[None, :] + 1e-12)
print(cos.round(6))
data -= mu
data *= 2
data /= 4
print(data)
onehot = (np.arange(3) == np.array([2, 0, 1, 2])[:, None]).astype(float)
print(onehot)
