import numpy as np

with np.errstate(divide="ignore", invalid="ignore"):
    r = np.array([1.0, 0.0, -1.0]) / 0.0
print(r, np.isinf(r), np.isnan(r))
old = np.seterr(all="ignore")
print(np.log(np.array([0.0, -1.0, 1.0])))
np.seterr(**old)
print(np.geterr()["divide"])
print(np.finfo(np.float64).eps, np.finfo(np.float32).max, np.finfo(float).tiny)
print(np.iinfo(np.int32).max, np.iinfo(np.uint8).min, np.iinfo(np.int64).bits)
print(np.inf > 1e308, -np.inf, np.nan == np.nan, np.isnan(np.nan), np.pi, np.e)
x = np.array([1.0, np.nan, 3.0, np.inf])
print(np.nan_to_num(x), np.isfinite(x), np.nansum(x[:3]), np.nanmin(x))
print(np.nanargmax(np.array([1.0, np.nan, 3.0])), np.nanmedian(x[:3]), np.nanpercentile(x[:3], 50))
with np.errstate(over="raise"):
    try:
        np.exp(np.array([1000.0]))
    except FloatingPointError:
        print("FloatingPointError")
try:
    np.ones((2, 3)) + np.ones((4,))
except ValueError:
    print("ValueError broadcast")
try:
    np.arange(6).reshape(4, 2)
except ValueError:
    print("ValueError reshape")
try:
    np.zeros(3)[5]
except IndexError:
    print("IndexError")
try:
    np.array([1, 2]) @ np.array([1, 2, 3])
except ValueError:
    print("ValueError matmul")
try:
    float(np.array([1.0, 2.0]))
except TypeError:
    print("TypeError float")
try:
    if np.array([1, 2]) > 0:
        pass
except ValueError:
    print("ValueError truth")
print(np.array([1, 2], dtype=np.int8) * 100)
print(np.uint8(250) + np.uint8(10) if False else np.array([250], dtype=np.uint8) + 10)
