import numpy as np

names = np.array(["alice", "Bob", "carol", "dave"])
print(names, names.dtype, names[0], names[1].upper(), len(names[2]))
print(np.char.upper(names), np.char.capitalize(names), np.char.str_len(names))
print(np.char.add(names, "!"), np.char.startswith(names, "c"), np.char.replace(names, "a", "4"))
mask = np.char.str_len(names) > 3
print(names[mask], np.sort(names), np.argsort(names))
words = "the quick brown fox jumps over the lazy dog the end".split()
arr = np.array(words)
vals, counts = np.unique(arr, return_counts=True)
top = vals[np.argsort(-counts, kind="stable")][:3]
print(top, counts.max(), dict(zip(vals.tolist(), counts.tolist()))["the"])
print(np.strings.find(arr, "o")[:4], np.strings.zfill(np.array(["7", "42"]), 4))
for w in arr[:3]:
    print(w, w.capitalize(), w[::-1])
label = {name: i for i, name in enumerate(names)}
print(label["Bob"], sorted(label))
print(np.where(arr == "the")[0], (arr == "the").sum(), np.isin(arr, ["fox", "dog"]).nonzero()[0])
print(np.emath.sqrt(-4), np.emath.log(-1).imag.round(6))
