import numpy as np

# Views and copies, as the tutorials teach them (from-python-to-numpy, scipy-lectures).
Z = np.zeros((5, 5))
Z1 = Z[:3, :]
Z2 = Z[[0, 1, 2], :]
print(Z1.base is Z, Z2.base is Z, Z2.base is None)
print(Z.ravel().base is Z, Z[::2, ::2].ravel().base is Z, Z.flatten().base is Z)
A = np.arange(10)
B = A[1:-1:2]
print(B.base is A, B[1:].base is A, np.may_share_memory(A, B))
B[0] = 99
print(A)

# Reinterpreting bytes (scipy-lectures, advanced NumPy).
x = np.array([1, 2, 3, 4], dtype=np.uint8)
x.dtype = "<i2"
print(x, x.dtype)
y = x.view("<i4")
print(y, y.base is x)

# Arrays refuse item deletion; np.delete makes a copy instead.
a = np.arange(6)
try:
    del a[2:4]
except ValueError as e:
    print("ValueError:", str(e).split(": ")[-1])
print(np.delete(a, [2, 3]))

# Polynomials (scipy-lectures, numpy-tutorials): class, fit, roots, evaluation.
p = np.polynomial.Polynomial([-1, 2, 3])
print(p(0), p.roots(), p.degree())
print(p)
t = np.linspace(-1, 1, 50)
fit = np.polynomial.Polynomial.fit(t, np.cos(t), 4)
values = fit(t)
print(np.round(fit.convert().coef, 6), np.abs(values - np.cos(t)).max() < 1e-3)
q = np.polynomial.Polynomial([-16, 0, 0, 0, 15, 0, 0, 0, 1])
print(repr(q.deriv()))
c = np.polynomial.polynomial.polyfit(t, 2 * t ** 2 + 1, 2)
print(np.round(c, 8))

# Machine limits as printed in the user guide; pinv of an integer matrix (handson-ml2).
print(np.iinfo(np.int32))
print(repr(np.finfo(np.float32)))
m3 = np.array([[1, 2, 3], [5, 7, 11], [21, 29, 31]])
pinv = np.linalg.pinv(m3)
print(np.round(pinv, 6), np.allclose(m3 @ pinv, np.eye(3)))
print(np.abs.__name__, [f.__name__ for f in (np.abs, np.sqrt, np.exp)])
