import numpy as np

np.random.seed(42)
X = 2 * np.random.rand(100, 1)
y = 4 + 3 * X + np.random.randn(100, 1)
Xb = np.c_[np.ones((100, 1)), X]
theta = np.random.randn(2, 1)
eta = 0.1
for iteration in range(200):
    gradients = 2 / 100 * Xb.T.dot(Xb.dot(theta) - y)
    theta = theta - eta * gradients
    if iteration % 50 == 0:
        loss = np.mean((Xb @ theta - y) ** 2)
        print(f"iter {iteration}: loss={loss:.6f}")
print(theta)
theta_best = np.linalg.inv(Xb.T.dot(Xb)).dot(Xb.T).dot(y)
print(theta_best)
X_new = np.array([[0], [2]])
X_new_b = np.c_[np.ones((2, 1)), X_new]
print(X_new_b.dot(theta_best))
