"""The worker process of AsyncIterator(backend="process"): samples in, a batch in shared memory out.

``main`` runs in the child. It reads tasks from its pipe (only its owner holds the other end: the
pipe was inherited, never named), maps the shared segments whose file descriptors the owner
passes over a second inherited socket (SCM_RIGHTS), builds each batch (``dataset[i]`` for a
map-style dataset, the next samples of its shard of an iterable one), writes it into the region
it was given and answers with the batch's skeleton (``_collate``). A region too small gets a
"need" answer; the owner hands a larger one for that batch. Errors go back with their traceback.

Each batch's random state is seeded from (seed, epoch, batch): a batch is the same whichever
worker builds it and whenever, which is what makes the order deterministic and resume exact.
The worker ignores SIGINT (the owner decides when workers stop) and exits when its owner is gone
(its pipe reaches end of file, or its parent process changed).
"""

import random
import traceback

import numpy

from ._child import begin, pickled_error, serve
from ._collate import layout, plan_stack, write
from ._segments import Segments

class WorkerInfo:
    """What ``wsarray.data.worker_info()`` gives inside a worker process (None elsewhere):
    ``id``, ``num_workers``, ``seed`` (the iterator's), ``dataset`` (this worker's copy),
    ``epoch`` and ``rng`` (a ``numpy.random.Generator`` seeded for the batch being built)."""

    __slots__ = ("id", "num_workers", "seed", "dataset", "epoch", "rng")

    def __init__(self, id, num_workers, seed, dataset):  # noqa: A002 - DataLoader's name
        self.id, self.num_workers, self.seed, self.dataset = id, num_workers, seed, dataset
        self.epoch, self.rng = 0, None

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed}, epoch={self.epoch})"


_info = None


def worker_info():
    """In a worker process of ``AsyncIterator(backend="process")``: its ``WorkerInfo`` (shard an
    iterable dataset with ``info.id`` and ``info.num_workers``); None in any other process."""
    return _info


def batch_seed(seed, epoch, number):
    """The seed of batch ``number`` (counted in its epoch) of epoch ``epoch``."""
    return int(numpy.random.SeedSequence([seed, epoch, number]).generate_state(1, numpy.uint64)[0])


class Spec:
    """What every worker is started with (pickled for the spawn start method)."""

    def __init__(self, dataset, kind, batch_size, drop_last, collate, seed, num_workers,
                 worker_init_fn, owner_pid, max_segments):
        self.dataset, self.kind, self.batch_size, self.drop_last = dataset, kind, batch_size, drop_last
        self.collate, self.seed, self.num_workers = collate, seed, num_workers
        self.worker_init_fn, self.owner_pid, self.max_segments = worker_init_fn, owner_pid, max_segments


def main(spec, wid, conn, fdsock, close_fds):
    global _info
    begin(close_fds)
    _info = WorkerInfo(wid, spec.num_workers, spec.seed, spec.dataset)
    state = _State(spec, wid, fdsock)
    if spec.worker_init_fn is not None:
        try:
            spec.worker_init_fn(wid)
        except BaseException as e:  # noqa: BLE001 - reported at the first batch
            state.init_error = e
    serve(conn, spec.owner_pid, state.handle,
          lambda reply, error, text: ("error", reply[1], pickled_error(error), text))


class _State:
    def __init__(self, spec, wid, fdsock):
        self.spec, self.wid, self.fdsock = spec, wid, fdsock
        self.segments = Segments(fdsock, spec.max_segments)
        self.pending = {}                          # number -> (skeleton, writes, bytes)
        self.stream = None                         # iterable: (epoch, next local batch, iterator)
        self.init_error = None

    def handle(self, message):
        kind, number = message[0], message[1]
        try:
            if kind == "forget":
                self.segments.forget(message[2])
                return None
            if kind == "drop":
                self.pending.pop(number, None)
                return None
            if kind == "region":
                return self._write(number, *self.pending.pop(number), message[2])
            _, number, epoch, position, indices, region, seed = message
            if self.init_error is not None:
                raise self.init_error
            _info.seed = seed
            seed = batch_seed(seed, epoch, position)
            _info.epoch = epoch
            _info.rng = numpy.random.default_rng(seed)
            random.seed(seed)
            numpy.random.seed(seed % (1 << 32))
            batch = self._samples(epoch, position, indices)
            if batch is _END:
                return ("end", number)
            skeleton, writes, nbytes = layout(batch)
            if region is None or nbytes > region[3]:
                self.pending[number] = (skeleton, writes, nbytes)
                return ("need", number, nbytes)
            return self._write(number, skeleton, writes, nbytes, region)
        except BaseException as e:  # noqa: BLE001 - the owner raises it at the batch's position
            self.pending.pop(number, None)
            return ("error", number, pickled_error(e), traceback.format_exc())

    def _samples(self, epoch, position, indices):
        spec = self.spec
        if spec.kind == "map":
            samples = [spec.dataset[i] for i in indices]
            return self._collate(samples)
        local = position // spec.num_workers
        if self.stream is None or self.stream[0] != epoch or self.stream[1] != local:
            self.stream = [epoch, 0, iter(spec.dataset)]
            while self.stream[1] < local and self._next_batch() is not _END:
                self.stream[1] += 1
        batch = self._next_batch()
        self.stream[1] += 1
        return batch

    def _next_batch(self):
        spec, it = self.spec, self.stream[2]
        if spec.batch_size is None:
            return next(it, _END)
        samples = []
        for sample in it:
            samples.append(sample)
            if len(samples) == spec.batch_size:
                break
        if not samples or spec.drop_last and len(samples) < spec.batch_size:
            return _END
        return self._collate(samples)

    def _collate(self, samples):
        if self.spec.batch_size is None:
            return samples[0] if isinstance(samples, list) and len(samples) == 1 else samples
        if self.spec.collate is not None:
            return self.spec.collate(samples)
        return plan_stack(samples)

    def _write(self, number, skeleton, writes, nbytes, region):
        key, length, offset, size = region
        write(writes, self._map(key, length), offset)
        return ("done", number, skeleton, nbytes)

    def _map(self, key, length):
        return self.segments.get(key, length)

class _End:
    def __repr__(self):
        return "END"


_END = _End()

