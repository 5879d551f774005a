"""Realistic loop bodies: a 2-D heat-equation step, an MLP training step, a k-means iteration.

`setup(engine, ...)` builds the state for one engine and returns it with the step function. The
NumPy code is written once with `xp` (it runs unchanged on numpy and wsarray); PyTorch and
numexpr get the same computation in their own idiom.
"""

import numpy

# The NumPy-style loop bodies are the demo's (python -m wsarray), so both measure the same code.
from wsarray._demo import heat_step, mlp_step

__all__ = ["LOOPS", "setup"]


# ---- heat equation: u_new = u + 0.1 * laplacian(u) on the interior -----------------------------

def heat_state(xp, n):
    u = numpy.zeros((n, n))
    u[n // 4: n // 2, n // 4: n // 2] = 100.0
    if xp.__name__ == "torch":
        return {"u": xp.from_numpy(u), "nxt": xp.zeros((n, n), dtype=xp.float64)}
    return {"u": xp.asarray(u), "nxt": xp.zeros((n, n))}


def heat_step_numexpr(ne, s):
    u = s["u"]
    ne.evaluate("c + 0.1 * (a + b + d + e - 4.0 * c)",
                local_dict={"c": u[1:-1, 1:-1], "a": u[2:, 1:-1], "b": u[:-2, 1:-1],
                            "d": u[1:-1, 2:], "e": u[1:-1, :-2]},
                out=s["nxt"][1:-1, 1:-1])
    s["u"], s["nxt"] = s["nxt"], s["u"]


# ---- MLP: forward and backward pass of a 2-layer network, SGD update in place -------------------

def mlp_state(xp, batch, d_in, d_hidden=256, d_out=10):
    rng = numpy.random.default_rng(0)
    arrays = {
        "x": rng.standard_normal((batch, d_in)),
        "y": numpy.eye(d_out)[rng.integers(0, d_out, batch)],
        "w1": rng.standard_normal((d_in, d_hidden)) * 0.05,
        "w2": rng.standard_normal((d_hidden, d_out)) * 0.05,
    }
    conv = xp.from_numpy if xp.__name__ == "torch" else xp.asarray
    return {k: conv(v) for k, v in arrays.items()}


def mlp_step_torch(torch, s):
    x, y, w1, w2 = s["x"], s["y"], s["w1"], s["w2"]
    h = torch.clamp_min(x @ w1, 0.0)
    logits = h @ w2
    p = torch.exp(logits - logits.amax(dim=1, keepdim=True))
    p /= p.sum(dim=1, keepdim=True)
    g_logits = (p - y) / x.shape[0]
    g_w2 = h.T @ g_logits
    g_h = (g_logits @ w2.T) * (h > 0)
    g_w1 = x.T @ g_h
    w1 -= 0.1 * g_w1
    w2 -= 0.1 * g_w2


# ---- k-means: assign points to the nearest centre, move each centre to its points' mean ---------

def kmeans_state(xp, n, d=32, k=16):
    rng = numpy.random.default_rng(1)
    x = rng.standard_normal((n, d))
    c = x[:k].copy()
    if xp.__name__ == "torch":
        return {"X": xp.from_numpy(x), "C": xp.from_numpy(c), "ks": xp.arange(k)}
    return {"X": xp.asarray(x), "C": xp.asarray(c), "ks": xp.arange(k)}


def kmeans_step(xp, s):
    x, c = s["X"], s["C"]
    d2 = (x * x).sum(axis=1, keepdims=True) - 2.0 * (x @ c.T) + (c * c).sum(axis=1)
    labels = d2.argmin(axis=1)
    onehot = (labels[:, None] == s["ks"]).astype(x.dtype)
    counts = onehot.sum(axis=0)
    c[...] = (onehot.T @ x) / xp.maximum(counts, 1.0)[:, None]


def kmeans_step_torch(torch, s):
    x, c = s["X"], s["C"]
    d2 = (x * x).sum(dim=1, keepdim=True) - 2.0 * (x @ c.T) + (c * c).sum(dim=1)
    labels = d2.argmin(dim=1)
    onehot = (labels[:, None] == s["ks"]).to(x.dtype)
    counts = onehot.sum(dim=0)
    c.copy_((onehot.T @ x) / torch.clamp_min(counts, 1.0)[:, None])


def check(s):
    """A number summarising the state (compared between NumPy and wsarray)."""
    return float(sum(float(abs(v).sum()) for v in s.values()))


# name: (state builder, its size arguments, {engine: step}); engines absent here skip the loop.
LOOPS = {
    "heat 1024x1024": (heat_state, (1024,), {"numpy": heat_step, "wsarray": heat_step,
                                             "torch": heat_step, "numexpr": heat_step_numexpr}),
    "MLP 512x256": (mlp_state, (512, 256), {"numpy": mlp_step, "wsarray": mlp_step,
                                            "torch": mlp_step_torch}),
    "k-means 20000x32 k=16": (kmeans_state, (20000,), {"numpy": kmeans_step, "wsarray": kmeans_step,
                                                       "torch": kmeans_step_torch}),
}


def setup(loop, engine, modules):
    """(state, body) of `loop` for `engine`, where body() runs one step; None when the engine has
    no version of the loop. "wsarray+ws" runs the wsarray step; numexpr works on NumPy arrays."""
    make, args, steps = LOOPS[loop]
    base = "wsarray" if engine == "wsarray+ws" else engine
    if base not in steps:
        return None
    step, mod = steps[base], modules[base]
    state = make(modules["numpy"] if base == "numexpr" else mod, *args)
    return state, lambda: step(mod, state)
