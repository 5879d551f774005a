"""A NumPy MLP trained with wsarray.data: the worked example of the README, the demo, the benchmarks
and the tests. Each layer is a function whose working-memory scope ends before it returns (see
WorkspaceManager); the weights live outside every workspace and are updated in place.
"""

import numpy

import wsarray as wnp


def init_mlp(sizes, seed=0, dtype="float32"):
    """Weights and biases of an MLP with layer widths ``sizes`` (plain arrays, no workspace)."""
    rng = numpy.random.default_rng(seed)
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        w = rng.standard_normal((n_in, n_out)).astype(dtype) * numpy.sqrt(2.0 / n_in).astype(dtype)
        params.append([wnp.asarray(w), wnp.zeros(n_out, dtype=dtype)])
    return params


def _forward_layer(mgr, x, w, b, last):
    with mgr.scope("working_memory"):
        z = x @ w
        z += b
        a = z if last else wnp.maximum(z, 0)
        return mgr.leverage_to("activations", a)


def _loss_grad(mgr, logits, labels):
    with mgr.scope("working_memory"):
        shifted = logits - logits.max(axis=1, keepdims=True)
        p = wnp.exp(shifted)
        p /= p.sum(axis=1, keepdims=True)
        n = logits.shape[0]
        loss = -float(wnp.log(p[wnp.arange(n), labels] + 1e-12).mean())
        p[wnp.arange(n), labels] -= 1
        p /= n
        return loss, mgr.leverage_to("activation_grad", p)


def _backward_layer(mgr, x, g, w, b, lr, first):
    with mgr.scope("working_memory"):
        grad_w = x.T @ g
        grad_b = g.sum(axis=0)
        g_in = None
        if not first:
            g_in = g @ w.T
            g_in *= x > 0  # the ReLU of the layer below
            g_in = mgr.leverage_to("activation_grad", g_in)
        with mgr.scope("updater"):
            w -= lr * grad_w
            b -= lr * grad_b
        return g_in


def train_step(mgr, params, features, labels, lr=0.05):
    """One SGD step on a batch; returns the loss (a float)."""
    with mgr.step():
        x = features.reshape(features.shape[0], -1)
        acts = [x]
        for i, (w, b) in enumerate(params):
            acts.append(_forward_layer(mgr, acts[-1], w, b, last=i == len(params) - 1))
        loss, g = _loss_grad(mgr, acts[-1], labels)
        for i in range(len(params) - 1, -1, -1):
            w, b = params[i]
            g = _backward_layer(mgr, acts[i], g, w, b, lr, first=i == 0)
        return loss
