import numpy as np

def attempt(label, fn):
    try:
        fn()
    except Exception as e:
        print(f"{label}: {type(e).__name__}: {e}")

a = np.arange(6)
attempt("reshape", lambda: a.reshape(4, 4))
attempt("broadcast", lambda: a + np.ones(4))
attempt("index", lambda: a[10])
attempt("axis", lambda: a.sum(axis=3))
attempt("matmul", lambda: np.ones((2, 3)) @ np.ones((2, 3)))
attempt("inv", lambda: np.linalg.inv(np.ones((2, 2))))
attempt("concat", lambda: np.concatenate([np.ones((2, 2)), np.ones((3, 3))]))
attempt("float", lambda: float(np.ones(3)))
attempt("truth", lambda: bool(np.ones(3)))
attempt("astype", lambda: np.array(["x"]).astype(float))
attempt("choice", lambda: np.random.choice(3, 5, replace=False))
attempt("solve", lambda: np.linalg.solve(np.ones((2, 3)), np.ones(2)))
attempt("stack", lambda: np.stack([np.ones(2), np.ones(3)]))
attempt("loadtxt", lambda: np.loadtxt(["1,2", "3"], delimiter=","))
print("done")
