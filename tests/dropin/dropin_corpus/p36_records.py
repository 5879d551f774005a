import numpy as np

people = np.zeros(4, dtype={"names": ("name", "age", "weight"), "formats": ("U10", "i4", "f8")})
people["name"] = ["Alice", "Bob", "Cathy", "Doug"]
people["age"] = [25, 45, 37, 19]
people["weight"] = [55.0, 85.5, 68.0, 61.5]
print(people)
print(people["name"], people[0], people[-1]["name"], repr(people[-1]["age"]))
print(people[people["age"] < 30]["name"], people["weight"].mean())
for p in people[:2]:
    print(p["name"], p["age"], p["weight"])
order = np.argsort(people["age"])
print(people[order]["name"], np.sort(people, order="weight")["name"])
people["age"] += 1
print(people["age"], people.dtype.names, people.dtype["weight"], people.shape, people.itemsize)
points = np.array([(1, 2.0), (3, 4.5)], dtype=[("x", "i8"), ("y", "f8")])
print(points, points["y"].sum(), points[1], points.tolist())
