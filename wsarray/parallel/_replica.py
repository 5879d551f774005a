"""A model replica in a worker process (the process backend of wsarray.parallel): calls in, results
out, arrays through shared memory.

``main`` runs in the child. Each request names an operation, the region of a shared slot that
holds its input arrays (with the inputs' skeleton, see wsarray/data/_collate.py) and a region for
the result; the replica runs the operation on its model and writes the result's arrays into the
result region (answering "need" when it is too small: the owner hands a larger one). Only the
skeletons and small values cross the pipe. Operations:

* ``call``: ``model.<name>(*inputs)`` (serving: ``predict`` or ``__call__``);
* ``round``: set the parameters (a flat vector, when given), ``fit_batch`` each batch, return
  the scores and the flat parameters (parameter averaging);
* ``share``: apply the messages of the last step (when given), then ``gradients`` on the batch,
  encode the update at threshold tau, return the score and the message (gradient sharing);
* ``apply``: apply the last messages; ``params``: the same, then return the flat parameters.

The worker caps BLAS at ``blas_threads`` threads (threadpoolctl, when installed), ignores SIGINT
(its owner decides when it stops) and exits when its owner is gone.
"""

import traceback

import numpy

from ..data._child import begin, pickled_error, serve
from ..data._collate import Leaf, layout, rebuild, write
from ..data._segments import Segments
from . import _sharing
from ._blas import cap_worker_process

class Spec:
    def __init__(self, model, owner_pid, blas_threads, max_segments):
        self.model, self.owner_pid = model, owner_pid
        self.blas_threads, self.max_segments = blas_threads, max_segments


def main(spec, wid, conn, fdsock, close_fds):
    begin(close_fds)
    cap_worker_process(spec.blas_threads)
    serve(conn, spec.owner_pid, _Replica(spec, fdsock).handle,
          lambda reply, error, text: ("error", pickled_error(error), text))


class _Replica:
    def __init__(self, spec, fdsock):
        self.model = spec.model
        self.segments = Segments(fdsock, spec.max_segments)
        self.layout = self.sharer = None
        self.pending = None  # (skeleton, writes, nbytes) waiting for a larger result region

    def handle(self, message):
        if message[0] == "forget":  # segments whose memory the owner gave back: no answer
            self.segments.forget(message[2])
            return None
        try:
            if message[0] == "region":
                return self._write(*self.pending, message[1])
            _, op, region, skeleton, out, extra = message
            inputs = rebuild(skeleton, lambda leaf: self._view(region, leaf), (Leaf,))
            result = getattr(self, "_" + op)(inputs, extra)
            skeleton, writes, nbytes = layout(result)
            if out is None or nbytes > out[3]:
                self.pending = (skeleton, writes, nbytes)
                return ("need", nbytes)
            return self._write(skeleton, writes, nbytes, out)
        except BaseException as e:  # noqa: BLE001 - the owner raises it
            self.pending = None
            return ("error", pickled_error(e), traceback.format_exc())

    def _view(self, region, leaf):
        key, length, offset, size = region
        return numpy.ndarray(leaf.shape, leaf.dtype, buffer=self.segments.get(key, length),
                             offset=offset + leaf.offset)

    def _write(self, skeleton, writes, nbytes, out):
        self.pending = None
        if writes:
            key, length, offset, size = out
            write(writes, self.segments.get(key, length), offset)
        return ("done", skeleton, nbytes)

    # -- operations ------------------------------------------------------------------------------

    def _call(self, inputs, name):
        return getattr(self.model, name)(*inputs)

    def _round(self, inputs, extra):
        flat, batches = inputs
        if flat is not None:
            self._layout().unflatten_into(flat, self.model.params)
        scores = [float(self.model.fit_batch(x, y)) for x, y in batches]
        return scores, self._flat_params()

    def _share(self, inputs, tau):
        messages, (x, y) = inputs
        self._apply_messages(messages)
        result = self.model.gradients(x, y)
        if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], dict)):
            raise TypeError("model.gradients(x, y) must return (score, update) with update a dict of "
                            f"name -> array, got {type(result).__name__}")
        if self.sharer is None:
            self.sharer = _sharing.Sharer(self._layout())
        self.sharer.take(result[1])
        m = self.sharer.encode_flat(tau)
        return float(result[0]), m.kind, m.count, m.tau, m.payload

    def _params(self, inputs, extra):
        self._apply_messages(inputs)
        return self._flat_params()

    def _apply(self, inputs, extra):
        self._apply_messages(inputs)

    def _apply_messages(self, messages):
        if not messages:
            return
        layout = self._layout()
        decoded = [_sharing.Message(kind, payload, count, tau) for kind, count, tau, payload in messages]
        update = layout.unflatten(_sharing.total_update(decoded, layout))
        _sharing.apply_update(self.model, update)

    def _layout(self):
        if self.layout is None:
            self.layout = _sharing.Layout(self.model.params)
        return self.layout

    def _flat_params(self):
        layout = self._layout()
        return layout.flatten(self.model.params, numpy.empty(layout.size, dtype=layout.dtype))

