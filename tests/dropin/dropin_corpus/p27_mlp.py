import numpy as np

np.random.seed(0)
X = np.random.randn(64, 4)
y = (X[:, 0] + X[:, 1] > 0).astype(int)
Y = np.eye(2)[y]
W1 = np.random.randn(4, 8) * 0.5
b1 = np.zeros(8)
W2 = np.random.randn(8, 2) * 0.5
b2 = np.zeros(2)

def softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)

lr = 0.5
for epoch in range(60):
    h = np.maximum(0, X @ W1 + b1)
    p = softmax(h @ W2 + b2)
    loss = -np.sum(Y * np.log(p + 1e-9)) / len(X)
    d2 = (p - Y) / len(X)
    dW2 = h.T @ d2
    db2 = d2.sum(axis=0)
    dh = d2 @ W2.T
    dh[h <= 0] = 0
    dW1 = X.T @ dh
    db1 = dh.sum(axis=0)
    W1 -= lr * dW1
    b1 -= lr * db1
    W2 -= lr * dW2
    b2 -= lr * db2
    if epoch % 20 == 0:
        print(f"epoch {epoch:3d} loss {loss:.5f}")
acc = np.mean(np.argmax(p, axis=1) == y)
print("acc", acc, p.shape, p.dtype)
print(W2.round(4))
