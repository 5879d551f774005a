import numpy as np
import os
import tempfile

_tmp = tempfile.mkdtemp()
data = np.arange(12, dtype=float).reshape(4, 3) / 7
_path = os.path.join(_tmp, "data.txt")
np.savetxt(_path, data, fmt="%.5f", delimiter=",", header="a,b,c")
with open(_path) as f:
    print(f.read())
back = np.loadtxt(_path, delimiter=",")
print(back, back.dtype, back.shape)
_csv = os.path.join(_tmp, "t._csv")
with open(_csv, "w") as f:
    f.write("x,y\n1,2.5\n3,4.5\n5,6.5\n")
xy = np.loadtxt(_csv, delimiter=",", skiprows=1)
print(xy, xy[:, 1].sum())
cols = np.genfromtxt(_csv, delimiter=",", names=True)
print(cols["x"], cols["y"])
_npy = os.path.join(_tmp, "a.npy")
np.save(_npy, data)
loaded = np.load(_npy)
print(np.array_equal(loaded, data), loaded.dtype)
_npz = os.path.join(_tmp, "b.npz")
np.savez(_npz, first=data, second=np.arange(3))
with np.load(_npz) as z:
    print(sorted(z.files), z["second"], z["first"].shape)
np.savez_compressed(_npz, m=np.eye(2))
z = np.load(_npz)
print(z["m"])
z.close()
ints = np.loadtxt(_csv, delimiter=",", skiprows=1, usecols=0, dtype=int)
print(ints, ints.dtype)
