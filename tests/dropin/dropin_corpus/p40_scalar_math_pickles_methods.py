import numpy as np
import copy
import json
import pickle
import warnings

# Scalar maths with np functions (physics-style scripts), JSON of the results.
g, length, theta = 9.81, 2.0, 0.3
period = 2 * np.pi * np.sqrt(length / g)
height = length * (1 - np.cos(theta))
speed = np.sqrt(2 * g * height)
print(type(period), type(np.exp(-1.0)), type(np.sum([1, 2, 3])), type(np.maximum(2, 3.5)))
print(json.dumps({"period": period, "speed": speed, "log10": np.log10(1000.0)}, sort_keys=True))

# Functions kept in configs: printed, copied, pickled.
config = {"activation": np.tanh, "loss": np.square, "combine": np.add}
print(config)
clone = copy.deepcopy(config)
print(all(clone[k] is config[k] for k in config), pickle.loads(pickle.dumps(np.mean)) is np.mean)
reducer = pickle.loads(pickle.dumps(np.add.reduce))
x = np.arange(12.0)
print(reducer(x), type(reducer(x)))

# Array methods a training loop calls per batch.
batch = x.reshape(3, 4)
flat = batch.ravel()
cols = batch.T.copy()
half = batch.astype(np.float32) / 2
print(batch.shape, flat.base is x or flat.base is batch or flat.base is not None, cols.flags.c_contiguous)
print(half.dtype, half.sum(axis=0), batch.mean(axis=1), batch.max(), batch.argmax(), batch.item(5))

# Bad inputs answer as NumPy does.
errors = []
for attempt in (lambda: batch.__imatmul__(np.ones(4)), lambda: np.zeros(3, dtype=int).__setitem__(0, [1, 2]),
                lambda: np.zeros(3).__setitem__(Ellipsis, [[1.0]]), lambda: np.sum(x) @ np.float64(2.0)):
    try:
        attempt()
        errors.append(None)
    except (TypeError, ValueError) as e:
        errors.append(type(e).__name__)
print(errors)

# out= given a NumPy array, NumPy's subclasses, overflow warnings.
out = np.zeros(4)
result = np.add(np.arange(4.0), 1.0, out=out)
print(result is out, out)
masked = np.ma.array([3.0, 1.0, 2.0, 5.0], mask=[0, 1, 0, 0])
print(np.sort(masked), np.argsort(masked), np.clip(masked, 0, 2))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    big = np.exp(np.array([100.0], dtype=np.float32))
messages = [str(w.message) for w in caught]
del caught
print(big, messages)
same = (x[1] < x[2]) is (x[0] < x[3])
print(same, bool(x[1] < x[2]))
