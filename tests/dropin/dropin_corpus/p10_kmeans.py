import numpy as np

np.random.seed(3)
pts = np.concatenate([np.random.randn(30, 2) + [0, 0], np.random.randn(30, 2) + [5, 5], np.random.randn(30, 2) + [0, 5]])
k = 3
centers = pts[np.random.choice(len(pts), k, replace=False)]
for it in range(10):
    d = np.linalg.norm(pts[:, None, :] - centers[None, :, :], axis=2)
    labels = np.argmin(d, axis=1)
    new = np.array([pts[labels == j].mean(axis=0) for j in range(k)])
    if np.allclose(new, centers):
        print("converged at", it)
        break
    centers = new
order = np.argsort(centers[:, 0] + 10 * centers[:, 1])
print(np.round(centers[order], 4))
print(np.bincount(labels), labels.shape, labels.dtype)
inertia = sum(((pts[labels == j] - centers[j]) ** 2).sum() for j in range(k))
print(f"inertia {inertia:.4f}")
