import numpy as np

np.random.seed(2024)
n = 100000
x = np.random.rand(n)
y = np.random.rand(n)
inside = (x ** 2 + y ** 2) <= 1.0
pi_est = 4 * inside.sum() / n
print(f"pi ~ {pi_est:.5f}", inside.dtype, inside.mean())
walk = np.cumsum(np.random.choice([-1, 1], size=1000))
print(walk[-1], walk.max(), walk.min(), np.abs(walk).argmax())
dice = np.random.randint(1, 7, size=(1000, 2)).sum(axis=1)
vals, counts = np.unique(dice, return_counts=True)
for v, c in zip(vals, counts):
    print(v, c)
prices = 100 * np.exp(np.cumsum(np.random.normal(0, 0.01, 250)))
returns = np.diff(prices) / prices[:-1]
print(round(prices[-1], 4), returns.std().round(6), np.percentile(returns, 5).round(6))
