import numpy as np

print(np.r_[1:4, 0, 4, np.array([7, 8])])
print(np.r_[0:1:5j])
print(np.c_[np.array([1, 2, 3]), np.array([4, 5, 6])])
print(np.r_['0,2', [1, 2], [3, 4]])
xx, yy = np.mgrid[0:3, 0:2]
print(xx, yy)
print(np.mgrid[0:1:3j])
ox, oy = np.ogrid[0:3, 0:4]
print(ox.shape, oy.shape, (ox + oy))
X, Y = np.meshgrid(np.arange(3), np.arange(2))
print(X, Y, X.shape)
Xi, Yi = np.meshgrid(np.linspace(0, 1, 3), np.linspace(0, 1, 2), indexing="ij")
print(Xi.shape, Yi)
a = np.arange(12).reshape(3, 4)
print(a[np.ix_([0, 2], [1, 3])])
print(np.s_[1:3], a[np.s_[::2, 1]])
print(np.indices((2, 3)))
print(np.unravel_index(7, (3, 4)), np.ravel_multi_index((1, 2), (3, 4)))
r, c = np.triu_indices(3, k=1)
print(r, c, np.tril_indices(2))
print(np.diag_indices(3))
m = np.zeros((3, 3))
np.fill_diagonal(m, 5)
print(m)
for idx in np.ndindex(2, 2):
    print(idx, end=" ")
print()
for idx, v in np.ndenumerate(np.array([[1, 2], [3, 4]])):
    print(idx, v)
