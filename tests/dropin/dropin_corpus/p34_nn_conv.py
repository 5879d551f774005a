import numpy as np

rng = np.random.default_rng(7)
img = rng.random((6, 6))
k = np.array([[1, 0, -1], [2, 0, -2], [1, 0, -1]], dtype=float)

def conv2d(x, w):
    h, wd = x.shape[0] - w.shape[0] + 1, x.shape[1] - w.shape[1] + 1
    out = np.zeros((h, wd))
    for i in range(h):
        for j in range(wd):
            out[i, j] = np.sum(x[i:i + 3, j:j + 3] * w)
    return out

fm = conv2d(img, k)
relu = np.maximum(fm, 0)
pool = relu.reshape(2, 2, 2, 2).max(axis=(1, 3))
print(fm.round(4), pool.round(4), pool.shape)
flat = pool.flatten()
W = rng.normal(0, 0.1, (4, 3))
logits = flat @ W
probs = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
print(probs.round(6), probs.argmax(), probs.sum().round(12))
batch = rng.random((5, 4))
mean, var = batch.mean(0), batch.var(0)
bn = (batch - mean) / np.sqrt(var + 1e-5)
print(bn.mean(0).round(10), bn.std(0).round(4))
drop = (rng.random(batch.shape) > 0.5) / 0.5
print((batch * drop).round(3))
