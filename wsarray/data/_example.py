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


# Each layer pass is a function run by mgr.run_in("working_memory", ...): its temporaries die
# when it returns, before the working memory's cycle ends (see WorkspaceManager).

def _forward_layer(mgr, x, w, b, last):
    z = x @ w
    z += b
    a = z if last else wnp.maximum(z, 0)
    return mgr.leverage_to("activations", a)


def _loss_grad(mgr, logits, labels):
    shifted = logits - logits.max(axis=1, keepdims=True)
    p = wnp.exp(shifted)
    p /= p.sum(axis=1, keepdims=True)
    n = logits.shape[0]
    rows = wnp.arange(n)
    loss = -float(wnp.log(p[rows, labels] + 1e-12).mean())
    p[rows, labels] -= 1
    p /= n
    return loss, mgr.leverage_to("activation_grad", p)


def _update(w, b, grad_w, grad_b, lr):
    w -= lr * grad_w
    b -= lr * grad_b


def _backward_layer(mgr, x, g, w, b, lr, first):
    grad_w = x.T @ g
    grad_b = g.sum(axis=0)
    g_in = None
    if not first:
        g_in = g @ w.T
        g_in *= x > 0  # the ReLU of the layer below
        g_in = mgr.leverage_to("activation_grad", g_in)
    mgr.run_in("updater", _update, w, b, grad_w, grad_b, lr)
    return g_in


def _train_step(mgr, params, features, labels, lr):
    acts = [features.reshape(features.shape[0], -1)]
    for i, (w, b) in enumerate(params):
        acts.append(mgr.run_in("working_memory", _forward_layer, mgr, acts[-1], w, b,
                               last=i == len(params) - 1))
    loss, g = mgr.run_in("working_memory", _loss_grad, mgr, acts[-1], labels)
    for i in range(len(params) - 1, -1, -1):
        w, b = params[i]
        g = mgr.run_in("working_memory", _backward_layer, mgr, acts[i], g, w, b, lr, first=i == 0)
    return loss


def train_step(mgr, params, features, labels, lr=0.05):
    """One SGD step on a batch; returns the loss (a float)."""
    return mgr.run_step(_train_step, mgr, params, features, labels, lr)


class AugmentedImages:
    """A synthetic image data set whose batches need real ETL work: uint8 images made once, in the
    constructor (as a source should), and per batch a random sample decoded to float32, randomly
    cropped and flipped, blurred (a 3x3 box filter), brightness-jittered and normalized. Written
    with wsarray, so under AsyncIterator its temporaries live in the batch's slot; every step is a
    NumPy kernel on arrays of megabytes, which releases the GIL. Re-iterable: each iteration is an
    epoch of ``batches`` batches (a new random order per epoch).
    """

    def __init__(self, batches=24, batch=128, size=72, crop=64, n_images=512, classes=10, seed=0,
                 blur=True):
        rng = numpy.random.default_rng(seed)
        self.images = rng.integers(0, 256, (n_images, size, size, 3), dtype=numpy.uint8)
        self.labels = rng.integers(0, classes, n_images)
        self.mean = numpy.float32(127.5)
        self.inv_std = numpy.float32(1 / 73.9)
        self.batches, self.batch, self.size, self.crop = batches, batch, size, crop
        self.blur = blur
        self._seed, self._epoch = seed, 0

    def __len__(self):
        return self.batches

    def __iter__(self):
        self._epoch += 1
        rng = numpy.random.default_rng((self._seed, self._epoch))
        for _ in range(self.batches):
            yield self.make_batch(rng)

    def make_batch(self, rng):
        n, c = self.batch, self.crop
        idx = rng.integers(0, len(self.images), n)
        oy, ox = rng.integers(0, self.size - c - 1, 2)  # the crop plus its blur border fits
        raw = wnp.take(self.images, wnp.asarray(idx), axis=0)  # "decode": gather the samples
        x = raw[:, oy:oy + c + 2, ox:ox + c + 2, :].astype(numpy.float32)
        if self.blur:  # a 3x3 box blur: nine shifted adds
            acc = x[:, 1:-1, 1:-1, :].copy()
            for dy in (0, 1, 2):
                for dx in (0, 1, 2):
                    if (dy, dx) != (1, 1):
                        acc += x[:, dy:dy + c, dx:dx + c, :]
            acc *= numpy.float32(1 / 9)
            x = acc
        else:
            x = wnp.ascontiguousarray(x[:, 1:-1, 1:-1, :])
        flip = wnp.asarray(rng.random(n) < 0.5)
        x[flip] = x[flip][:, :, ::-1, :]
        gain = wnp.asarray(rng.uniform(0.8, 1.2, n).astype(numpy.float32))
        x *= gain[:, None, None, None]
        x -= self.mean
        x *= self.inv_std
        return x, wnp.asarray(self.labels[idx])
