import numpy as np

A = np.array([[4.0, -2.0, 1.0], [-2.0, 4.0, -2.0], [1.0, -2.0, 4.0]])
b = np.array([11.0, -16.0, 17.0])
x = np.linalg.solve(A, b)
print(x, np.allclose(A @ x, b))
print(np.linalg.inv(A))
print(np.linalg.det(A), round(np.linalg.det(A), 6))
w, v = np.linalg.eigh(A)
print(w)
print(np.abs(v))
ev = np.linalg.eigvals(np.array([[2.0, 0.0], [0.0, 3.0]]))
print(ev)
U, s, Vt = np.linalg.svd(A)
print(s, U.shape, Vt.shape)
print(np.linalg.norm(b), np.linalg.norm(A), np.linalg.norm(A, ord=1), np.linalg.norm(A, axis=0))
M = np.vstack([np.arange(5.0), np.ones(5)]).T
y = 2 * np.arange(5.0) + 1
coef, res, rank, sv = np.linalg.lstsq(M, y, rcond=None)
print(coef.round(8), rank)
q, r = np.linalg.qr(A)
print(np.allclose(q @ r, A))
print(np.linalg.matrix_rank(A), np.linalg.matrix_power(A, 2))
L = np.linalg.cholesky(A)
print(L)
print(np.dot(A, b), A.dot(b), np.trace(A), np.linalg.cond(A))
try:
    np.linalg.inv(np.zeros((2, 2)))
except np.linalg.LinAlgError as e:
    print("LinAlgError")
