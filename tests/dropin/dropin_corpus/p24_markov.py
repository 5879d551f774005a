import numpy as np

P = np.array([[0.9, 0.075, 0.025], [0.15, 0.8, 0.05], [0.25, 0.25, 0.5]])
state = np.array([1.0, 0.0, 0.0])
for i in range(50):
    state = state @ P
print(state.round(6))
print(np.linalg.matrix_power(P, 100)[0].round(6))
vals, vecs = np.linalg.eig(P.T)
i = np.argmin(np.abs(vals - 1))
stat = np.real(vecs[:, i])
stat = stat / stat.sum()
print(stat.round(6), np.allclose(stat @ P, stat))
print(P.sum(axis=1), np.all(np.isclose(P.sum(axis=1), 1)))
