import numpy as np

def sigmoid(z):
    return 1 / (1 + np.exp(-z))

rng = np.random.default_rng(0)
n = 200
X = np.vstack([rng.normal(-1, 1, (n // 2, 2)), rng.normal(1, 1, (n // 2, 2))])
y = np.hstack([np.zeros(n // 2), np.ones(n // 2)])
w = np.zeros(2)
b = 0.0
lr = 0.1
for epoch in range(100):
    p = sigmoid(X @ w + b)
    grad_w = X.T @ (p - y) / n
    grad_b = np.sum(p - y) / n
    w -= lr * grad_w
    b -= lr * grad_b
    if epoch % 25 == 0:
        loss = -np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))
        print(epoch, round(float(loss), 6))
pred = (sigmoid(X @ w + b) > 0.5).astype(int)
acc = (pred == y).mean()
print("weights", w, "bias", b)
print("accuracy", acc)
print(pred[:10], pred.dtype)
