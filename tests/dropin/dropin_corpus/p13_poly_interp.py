import numpy as np

x = np.linspace(0, 10, 11)
y = 2 * x ** 2 - 3 * x + 1
coeffs = np.polyfit(x, y, 2)
print(np.round(coeffs, 8))
print(np.polyval(coeffs, [0, 1, 2.5]).round(8))
p = np.poly1d(np.round(coeffs, 6))
print(p(3.0), p.order)
print(np.interp([0.5, 2.5, 11], x, y))
print(np.interp(2.5, [1, 2, 3], [3, 2, 0]))
print(np.trapezoid(y, x), np.gradient(y, x)[:4])
print(np.roots([1, -3, 2]), np.polyder([1, 2, 3]), np.polyint([3, 2, 1]))
print(np.polyadd([1, 2], [1, 2, 3]), np.polymul([1, 1], [1, -1]))
xs = np.array([1, 2, 3, 4, 5])
ys = np.array([2.2, 4.1, 6.2, 7.9, 10.1])
m, c = np.polyfit(xs, ys, 1)
print(f"slope={m:.4f}, intercept={c:.4f}")
print(np.cumsum(xs), np.cumprod(xs), np.diff(ys), np.ediff1d(xs))
