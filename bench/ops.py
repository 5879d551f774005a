"""Single-operation cases: per-call overhead on small arrays, throughput on large ones.

Each case maps an engine to a builder `(module, size) -> body`, where body() runs the operation
once on float64 data made outside the timed region. Engines missing from a case skip it.
"""

import numpy

__all__ = ["LARGE", "SMALL", "SMALL_SIZES", "large_sizes"]


def _data(mod, n, count):
    rng = numpy.random.default_rng(2)
    arrays = [rng.random(n) + 0.5 for _ in range(count)]
    if mod.__name__ == "torch":
        return [mod.from_numpy(a) for a in arrays]
    if mod.__name__ == "numexpr":
        return arrays
    return [mod.asarray(a) for a in arrays]


def _binary(op):
    def build(mod, n):
        a, b = _data(mod, n, 2)
        return lambda: op(a, b)
    return build


def _unary(op):
    def build(mod, n):
        (a,) = _data(mod, n, 1)
        return lambda: op(mod, a)
    return build


def _zeros(mod, n):
    if mod.__name__ == "torch":
        return lambda: mod.zeros(n, dtype=mod.float64)
    return lambda: mod.zeros(n)


_NP_LIKE = ("numpy", "wsarray", "wsarray+ws", "torch")


def _all(build):
    return {e: build for e in _NP_LIKE}


SMALL_SIZES = (1, 64, 1000)

def _creation(name, *extra):
    def build(mod, n):
        f = getattr(mod, name)
        if mod.__name__ == "torch":
            if name == "arange":
                return lambda: f(n, dtype=mod.float64)
            return lambda: f((n,), *extra, dtype=mod.float64)
        return lambda: f(n, *extra)
    return build


def _square(mod, n):
    """A k x k float64 matrix with k*k about n (1, 64 -> 8 x 8, 1000 -> 32 x 32)."""
    k = max(1, round(n ** 0.5))
    (a,) = _data(mod, k * k, 1)
    return a.reshape(k, k)


def _matmul_small(mod, n):
    a, b = _square(mod, n), _square(mod, n)
    return lambda: a @ b


def _getitem_2d(mod, n):
    a = _square(mod, n)
    return lambda: a[0, 0]


def _mask(mod, n):
    (a,) = _data(mod, n, 1)
    m = a > 1.0
    return lambda: a[m]


def _setitem(mod, n):
    (a,) = _data(mod, n, 1)

    def body():
        a[0] = 1.5
    return body


def _element_loop(kind):
    """A Python loop over the elements (naive NumPy code): sum of squares by index or by iteration,
    or a count with a remainder test; the body runs the whole loop once."""
    def build(mod, n):
        (a,) = _data(mod, n, 1)
        if kind == "index":
            def body():
                s = 0.0
                for i in range(len(a)):
                    s += a[i] * a[i]
                return s
        elif kind == "iterate":
            def body():
                s = 0.0
                for v in a:
                    s += v * v
                return s
        else:
            b = (a * 100).astype(int) if mod.__name__ != "torch" else (a * 100).long()

            def body():
                return sum(1 for i in range(len(b)) if b[i] % 3 == 0)
        return body
    return build


# Per-call overhead: what a Python loop over small arrays pays for each operation.
SMALL = {
    "a + b": _all(_binary(lambda a, b: a + b)),
    "a * 2.0": _all(_unary(lambda mod, a: a * 2.0)),
    "a // b": _all(_binary(lambda a, b: a // b)),
    "a % b": _all(_binary(lambda a, b: a % b)),
    "-a": _all(_unary(lambda mod, a: -a)),
    "exp(a)": _all(_unary(lambda mod, a: mod.exp(a))),
    "sqrt(a)": _all(_unary(lambda mod, a: mod.sqrt(a))),
    "abs(a)": _all(_unary(lambda mod, a: mod.abs(a))),
    "sin(a)": _all(_unary(lambda mod, a: mod.sin(a))),
    "log(a)": _all(_unary(lambda mod, a: mod.log(a))),
    "tanh(a)": _all(_unary(lambda mod, a: mod.tanh(a))),
    "a.sum()": _all(_unary(lambda mod, a: a.sum())),
    "a.mean()": _all(_unary(lambda mod, a: a.mean())),
    "a.max()": _all(_unary(lambda mod, a: a.max())),
    "a @ b (k x k)": _all(_matmul_small),
    "a[i] (scalar)": _all(_unary(lambda mod, a: a[0])),
    "a[i, j] (2-D)": _all(_getitem_2d),
    "a[1:] (slice)": _all(_unary(lambda mod, a: a[1:])),
    "a[mask]": _all(_mask),
    "a[i] = v": _all(_setitem),
    "len(a)": _all(_unary(lambda mod, a: len(a))),
    "a.shape": _all(_unary(lambda mod, a: a.shape)),
    "zeros(n)": _all(_zeros),
    "ones(n)": _all(_creation("ones")),
    "empty(n)": _all(_creation("empty")),
    "full(n, 2.0)": _all(_creation("full", 2.0)),
    "arange(n)": _all(_creation("arange")),
    # Whole loops over the n elements (time per loop, not per element).
    "loop: s += a[i] * a[i]": _all(_element_loop("index")),
    "loop: for v in a: s += v * v": _all(_element_loop("iterate")),
    "loop: count a[i] % 3 == 0": _all(_element_loop("remainder")),
}


def _chain(mod, n):
    a, b, c = _data(mod, n, 3)
    if mod.__name__ == "numexpr":
        env = {"a": a, "b": b, "c": c}
        return lambda: mod.evaluate("a * b + c * 2.0 - a / (c + 1.0)", local_dict=env)
    return lambda: a * b + c * 2.0 - a / (c + 1.0)


def _sum_chain(mod, n):
    a, b = _data(mod, n, 2)
    return lambda: (a * b).sum()


def _matmul(mod, n):
    rng = numpy.random.default_rng(3)
    a, b = rng.random((n, n)), rng.random((n, n))
    if mod.__name__ == "torch":
        a, b = mod.from_numpy(a), mod.from_numpy(b)
    else:
        a, b = mod.asarray(a), mod.asarray(b)
    return lambda: a @ b


# Large arrays: (case, builders, sizes for quick mode, sizes for full mode). Sizes are elements
# (matrix order for matmul).
LARGE = {
    "6-op chain a*b+c*2-a/(c+1)": (dict(_all(_chain), numexpr=_chain), (100_000, 8_000_000),
                                   (100_000, 1_000_000, 8_000_000, 30_000_000)),
    "a.sum()": (_all(_unary(lambda mod, a: a.sum())), (8_000_000,), (100_000, 8_000_000, 30_000_000)),
    "(a * b).sum()": (_all(_sum_chain), (8_000_000,), (100_000, 8_000_000, 30_000_000)),
    "a @ b (n x n)": (_all(_matmul), (512,), (256, 1024, 2048)),
}


def large_sizes(case, full):
    return LARGE[case][2 if full else 1]
