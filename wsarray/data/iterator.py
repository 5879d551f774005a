"""wsarray.data.AsyncIterator: prefetch batches on a background thread into a ring of workspaces.

Deeplearning4j's AsyncDataSetIterator / AsyncMultiDataSetIterator for any iterable of batches. A
producer thread pulls from the source and builds up to ``queue_size`` batches ahead, each in a
workspace slot of a ring of ``queue_size + 2`` (the queue, the batch being built included; the
batch the consumer holds; the one it gave back, still referenced while it waits for the next).
A batch is valid until the consumer asks for the next one: at that fixed point of the consumer's
sequence its arrays are retired and any use raises WorkspaceError naming the iterator, the batch
and the fix (``detach(batch)``). ``shield(source)`` iterates synchronously in
the caller's thread under the same rule. The machinery is in ``_pipeline``, the ring in ``_ring``.
"""

import atexit
import itertools
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, Literal, TypeVar

from .._workspaces import WorkspaceConfig
from ._pipeline import Pipeline
from ._process_pipeline import ProcessPipeline
from ._process_setup import load_state_dict as _load_state_dict, process_pipeline, state_dict as _state_dict
from ._ring import Ring

__all__ = ["AsyncIterator", "Shielded", "shield"]

_numbers = itertools.count(1)
# Limits refused at once (ValueError) rather than found out by running out of memory: the ring holds
# queue_size + 2 * consumers batches at once (one workspace slot each).
MAX_QUEUE_SIZE = 1024
MAX_CONSUMERS = 1024
_live: "weakref.WeakSet[Pipeline]" = weakref.WeakSet()  # pipelines stopped at interpreter exit
EXIT_WAIT_S = 2.0

_BatchT = TypeVar("_BatchT")


class Shielded(Generic[_BatchT]):
    """An iterable that nothing wraps in prefetching (``shield()``; Deeplearning4j's
    AsyncShieldDataSetIterator). ``AsyncIterator(shield(x))`` iterates ``x`` synchronously in the
    caller's thread, with the same batch-validity rule; use it to debug a source."""

    async_supported = False

    def __init__(self, iterable: Iterable[_BatchT]) -> None:
        self.iterable = iterable

    def __iter__(self) -> Iterator[_BatchT]:
        return iter(self.iterable)

    def __len__(self) -> int:
        return len(self.iterable)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return f"wsarray.data.shield({self.iterable!r})"


def shield(iterable: Iterable[_BatchT]) -> Shielded[_BatchT]:
    """Mark ``iterable`` so that nothing wraps it in prefetching (AsyncIterator iterates it
    synchronously, in the caller's thread)."""
    return iterable if isinstance(iterable, Shielded) else Shielded(iterable)


class AsyncIterator(Generic[_BatchT]):
    """Prefetch the batches of ``source`` on a background thread into memory owned by the iterator.

    ``AsyncIterator(source, queue_size=4, use_workspace=True, *, name=None, workspace_config=None,
    consumers=1)``

    ``source``: any iterable of batches; a batch is an array (wsarray or NumPy) or a tuple, named
    tuple, list or dict of them (features, labels, masks; other values pass through untouched).
    A source's ``next()`` runs on the producer thread in a workspace cycle of its own (the
    iterator's ETL workspace, whose memory serves every batch), and the batch it returns is copied
    into the slot once, so slots hold batches, not the source's working memory. Whatever ``next()``
    makes with wsarray is retired after that copy: build big, long-lived things in the source's
    constructor, not in ``next()``. A source whose ``next()`` allocates nothing but its batch can
    say so with a class attribute ``allocates_batch_only = True`` (``BatchDirectory`` does): its
    ``next()`` then runs in the slot itself and its arrays are the batch, with no copy. The
    prefetch hides the source's time only where that work releases the GIL (NumPy kernels on
    large arrays, file reads); pure-Python work runs in turn with the consumer.

    ``for batch in it:``: a batch is valid until the consumer asks for the next one (``next()``)
    or closes the iterator; then every array of it raises ``WorkspaceError``; keep one
    with ``wsarray.data.detach(batch)``. Batches live in a ring of ``queue_size + 2`` workspace
    slots (the queue, the batch being built included, plus the batch the consumer holds and the
    one its loop variable still refers to while it asks for the next), sized from the largest
    batch so far times ``1 + overallocation_limit`` (``workspace_config``, default
    ``WorkspaceConfig()``: x1.3, as Deeplearning4j); after a larger batch each slot is replaced
    by a larger one when it is next free, never touching live batches. A stale array the user
    still holds costs a counted spill, never corrupt data.
    ``use_workspace=False`` copies batches into plain memory instead (valid forever, no rule).

    Errors of the source reach the consumer where they happened, after the good batches before
    them, with their original traceback; the thread then stops, and a later ``next()`` goes on
    with the source (a generator that raised is finished). ``reset()`` starts a new epoch (a
    re-iterable source, or an iterator with ``reset()``); a ``for`` loop over a finished iterator
    does it too. ``close()`` (or the ``with`` block, garbage collection, interpreter exit) stops
    the thread and frees the slots. Breaking out of a ``for`` loop stops the thread after the
    batch it is building; nothing is lost: iterating again goes on where the loop stopped.

    One consumer at a time by default (a ``next()`` from any thread retires the previous batch).
    ``consumers=k`` lets k threads share the prefetch: each thread's batch stays valid until that
    thread asks for its next one (or calls ``release()``); the ring gets ``queue_size + 2k``
    slots. A thread that stops taking batches should call ``release()``; a thread that exits
    releases its batch automatically.

    ``stats()`` gives the figures: batches built, queued, consumed, dropped (by reset/close),
    errors; consumer wait (ETL) time, total and last; producer wait for room and build time; the
    ring's workspace statistics.

    ``backend="process"``: ``source`` is a dataset (map-style: ``__len__`` and ``__getitem__``
    returning a sample; or iterable, sharded by ``worker_info()``) and ``workers`` processes
    (default 2) build its batches of ``batch_size`` samples straight into shared-memory slots,
    collated by ``collate`` (default: stacked, as ``default_collate``); ``shuffle``, ``drop_last``
    and ``seed`` fix the plan, ``state_dict()`` / ``load_state_dict()`` resume it exactly;
    ``queue_size`` (default "auto") within ``memory_budget``; ``start_method`` "fork" or "spawn";
    ``worker_init_fn(worker_id)``; ``timeout`` seconds per ``next()``. A map-style dataset's
    next epoch is built ahead while the current one ends (within the queue), and kept when the
    next epoch starts at its beginning (a ``for`` loop over the finished iterator). The batch-validity rule,
    errors at their position, ``close()`` and Ctrl-C behave as above; a dead worker is replaced
    (its batch re-run, or ``WorkerError`` at its position). See the data pipeline page.
    """

    async_supported = False  # wrapping an AsyncIterator in another one iterates it synchronously

    def __init__(self, source: Iterable[_BatchT] | Iterator[_BatchT], queue_size: int | Literal["auto"] | None = None,
                 use_workspace: bool = True, *, name: str | None = None,
                 workspace_config: WorkspaceConfig | None = None, consumers: int = 1,
                 backend: Literal["thread", "process"] = "thread", workers: int | None = None,
                 batch_size: int | None = 1, shuffle: bool = False, drop_last: bool = False,
                 seed: int | None = None, collate: Callable[[list[Any]], Any] | None = None,
                 memory_budget: int | str | None = None, start_method: str | None = None,
                 worker_init_fn: Callable[[int], None] | None = None, timeout: float | None = None) -> None:
        fn = "wsarray.data.AsyncIterator()"
        if backend not in ("thread", "process"):
            raise ValueError(f"{fn}: backend must be 'thread' or 'process', got {backend!r}")
        if backend == "process":
            self._init_process(source, queue_size, use_workspace, name, workspace_config, consumers,
                               dict(workers=workers, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last,
                                    seed=seed, collate=collate, memory_budget=memory_budget,
                                    start_method=start_method, worker_init_fn=worker_init_fn,
                                    timeout=timeout))
            return
        if workers is not None or timeout is not None:
            raise ValueError(f"{fn}: {'workers' if workers is not None else 'timeout'}= needs backend='process' "
                             "(the thread backend has one producer thread)")
        if queue_size is None:
            queue_size = 4
        if isinstance(queue_size, bool) or not isinstance(queue_size, int) or queue_size < 1:
            raise ValueError(f"{fn}: queue_size must be an int of at least 1, got {queue_size!r}")
        if isinstance(consumers, bool) or not isinstance(consumers, int) or consumers < 1:
            raise ValueError(f"{fn}: consumers must be an int of at least 1, got {consumers!r}")
        for param, value, limit in (("queue_size", queue_size, MAX_QUEUE_SIZE),
                                    ("consumers", consumers, MAX_CONSUMERS)):
            if value > limit:
                raise ValueError(f"{fn}: {param} must be at most {limit}, got {value} (the ring would hold "
                                 f"{queue_size + 2 * consumers} batches in memory at once, one workspace slot each)")
        if not isinstance(use_workspace, bool):
            raise TypeError(f"{fn}: use_workspace must be a bool, not {type(use_workspace).__name__}")
        workspace_config = _checked_name_and_config(name, workspace_config, fn)
        if workspace_config.reset != "block_left":
            raise ValueError(f"{fn}: workspace_config.reset must be 'block_left' (a batch is retired "
                             f"when the next one is requested), got {workspace_config.reset!r}")
        if not (hasattr(source, "__iter__") or hasattr(source, "__next__")):
            raise TypeError(f"{fn}: the source must be an iterable of batches, not "
                            f"{type(source).__name__}")
        synchronous = getattr(source, "async_supported", True) is False
        if isinstance(source, Shielded):
            source = source.iterable
        number = next(_numbers)
        self.name = name if name is not None else f"AsyncIterator-{number}"
        self.queue_size = queue_size
        self.consumers = consumers
        self.use_workspace = use_workspace
        who = f"wsarray.data.AsyncIterator '{self.name}'"
        label = f"{self.name}#{number}"
        # Per consumer: the batch it holds and the one its loop variable still refers to while it
        # asks for the next; plus the queue (the batch being built included).
        ring_size = 2 * consumers if synchronous else queue_size + 2 * consumers
        ring = None
        if use_workspace:
            ring = Ring(label, ring_size, workspace_config,
                        lambda k, first: _stale_hint(who, k, first, ring_size, consumers),
                        _ETL_HINT.format(who=who))
        self.ring_size = ring_size if use_workspace else 0
        self._p = Pipeline(who, label, source, queue_size=queue_size, ring=ring, consumers=consumers,
                           synchronous=synchronous)
        self._finalizer = weakref.finalize(self, self._p.close, 0)
        _live.add(self._p)

    def _init_process(self, source, queue_size, use_workspace, name, workspace_config, consumers, options):
        fn = "wsarray.data.AsyncIterator()"
        workspace_config = _checked_name_and_config(name, workspace_config, fn)
        number = next(_numbers)
        self.name = name if name is not None else f"AsyncIterator-{number}"
        self.consumers, self.use_workspace = 1, True
        who = f"wsarray.data.AsyncIterator '{self.name}'"
        self._p = process_pipeline(who, f"{self.name}#{number}", source, queue_size=queue_size,
                                   consumers=consumers, use_workspace=use_workspace,
                                   workspace_config=workspace_config, hint=_PROCESS_HINT.format(who=who),
                                   **options)
        self.queue_size = self._p.queue_limit if queue_size in (None, "auto") else queue_size
        self.ring_size = 0
        self._finalizer = weakref.finalize(self, self._p.close, 0)
        _live.add(self._p)

    # -- iteration ----------------------------------------------------------------------------

    @property
    def is_async(self) -> bool:
        """False when the source is iterated synchronously in the caller's thread (shielded)."""
        return not self._p.synchronous

    def __next__(self) -> _BatchT:
        return self._p.take(self._key())  # type: ignore[no-any-return]

    def _next_unless(self, cancel):
        """``next(self)``, but a wait for a batch ends (StopIteration) once Event ``cancel`` is set."""
        return self._p.take(self._key(), cancel)

    def __iter__(self) -> Iterator[_BatchT]:
        p = self._p
        if p.finished and not p.closed and not p.one_shot():
            self.reset()  # a for loop over a finished iterator starts the next epoch
        return _Loop(self)

    def _key(self):
        return threading.get_ident() if self.consumers > 1 else None

    def release(self) -> None:
        """Retire the batch the calling consumer holds now (it will not ask for another one)."""
        self._p.release(self._key())

    def reset(self) -> None:
        """Start a new epoch: drop the prefetched batches and iterate the source again (with
        ``backend="process"`` and a map-style dataset, the next epoch's batches already built
        once the current epoch ended are kept: they are the same batches).

        Waits for the batch being built to finish. The batch the consumer holds stays valid until
        its next ``next()``. Raises ValueError for a one-shot source (an iterator such as a
        generator, without a ``reset()`` method) that has started.
        """
        p = self._p
        if p.closed:
            raise ValueError(f"{p.who}.reset(): the iterator is closed")
        if p.one_shot():
            raise ValueError(f"{p.who}.reset(): the source ({type(p.source).__name__}) is a one-shot "
                             "iterator, which cannot start again: pass a re-iterable source (a list, "
                             "an object whose __iter__ returns a new iterator, such as "
                             "wsarray.data.BatchDirectory) or an iterator with a reset() method")
        if isinstance(p, ProcessPipeline):
            p.reset_epoch()
            return
        if p.on_producer_thread():  # it would wait for its own build to finish, forever
            raise RuntimeError(f"{p.who}.reset(): called from the source itself (on the producer thread, "
                               "inside the batch being built); reset from the code that iterates")
        with p.build_lock:  # no synchronous build runs meanwhile
            p.reset_epoch()

    def state_dict(self) -> dict[str, Any]:
        """Where the iterator stands, as a JSON-able dict (``backend="process"``): the epoch, the
        batches of it handed out (the one held counts), the plan's settings. A new iterator over
        the same dataset with the same settings continues from there with ``load_state_dict``:
        the same remaining batches, bit for bit, shuffling included (each batch's random state is
        seeded from (seed, epoch, batch), whichever worker builds it)."""
        if not isinstance(self._p, ProcessPipeline):
            raise TypeError("wsarray.data.AsyncIterator.state_dict(): resuming needs backend='process' "
                            "(a dataset whose batches the iterator plans)")
        return _state_dict(self._p)

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Continue from ``state`` (a ``state_dict()``, of this or another process): the batches
        prefetched are dropped, the next ``next()`` gives the batch after the state's position."""
        if not isinstance(self._p, ProcessPipeline):
            raise TypeError("wsarray.data.AsyncIterator.load_state_dict(): resuming needs backend='process'")
        if self._p.closed:
            raise ValueError(f"{self._p.who}.load_state_dict(): the iterator is closed")
        _load_state_dict(self._p, state)

    def close(self, timeout: float = 5.0) -> bool:
        """Stop the producer thread, retire every batch and free the ring's memory.

        Waits up to ``timeout`` seconds for the batch being built; a source whose ``next()`` is
        still running then is left to finish on its (daemon) thread, which frees the memory when it
        returns. Returns True when the thread has stopped. Closing twice is harmless.
        """
        self._finalizer.detach()
        return self._p.close(timeout)

    def __enter__(self) -> "AsyncIterator[_BatchT]":
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        self.close()
        return False

    def __len__(self) -> int:
        p = self._p
        if isinstance(p, ProcessPipeline):
            if p.plan.batches is None:
                raise TypeError(f"{p.who}: an iterable dataset's batch count is not known")
            return p.plan.batches  # type: ignore[no-any-return]
        return len(p.source)

    # -- figures ------------------------------------------------------------------------------

    @property
    def batch_number(self) -> int:
        """Number of the batch handed out last (batches are counted over the iterator's life)."""
        return self._p.last_number

    @property
    def epoch(self) -> int:
        return self._p.epoch

    @property
    def last_wait_s(self) -> float:
        """Seconds the consumer waited for the last batch (its ETL time)."""
        return self._p.figures["last_wait_s"]

    def stats(self) -> dict[str, Any]:
        """The iterator's figures (see the class docstring); ``workspace`` is None without a ring."""
        p = self._p
        if isinstance(p, ProcessPipeline):
            return dict(p.stats(), name=self.name, asynchronous=True, consumers=1)
        with p.lock:
            out = dict(p.figures, name=self.name, asynchronous=not p.synchronous,
                       queue_size=self.queue_size, ring_size=self.ring_size, consumers=self.consumers,
                       ready=len(p.ready), epoch=p.epoch, closed=p.closed,
                       thread_alive=p.running)
        out["workspace"] = p.ring.stats() if p.ring is not None and not p.freed else None
        return out

    def __repr__(self) -> str:
        mode = "async" if self.is_async else "synchronous"
        return (f"<wsarray.data.AsyncIterator '{self.name}' {mode}, queue_size={self.queue_size}, "
                f"ring of {self.ring_size} slots, batch {self.batch_number}>")


class _Loop(Generic[_BatchT]):
    """What a ``for`` loop iterates: when the loop lets go of it early (break, an exception), the
    producer thread stops after the batch it is building; iterating again resumes."""

    __slots__ = ("_it", "_done")

    def __init__(self, it: AsyncIterator[_BatchT]) -> None:
        self._it = it
        self._done = False

    def __iter__(self) -> "_Loop[_BatchT]":
        return self

    def __next__(self) -> _BatchT:
        try:
            return self._it.__next__()
        except StopIteration:
            self._done = True
            raise

    def __del__(self):
        if not self._done:
            self._it._p.pause()


def _checked_name_and_config(name, workspace_config, fn):
    """The iterator's name checked, and its WorkspaceConfig (a default one for None)."""
    if name is not None and not isinstance(name, str):
        raise TypeError(f"{fn}: name must be a str, not {type(name).__name__}")
    if workspace_config is None:
        return WorkspaceConfig()
    if not isinstance(workspace_config, WorkspaceConfig):
        raise TypeError(f"{fn}: workspace_config must be a wsarray.WorkspaceConfig, not "
                        f"{type(workspace_config).__name__}")
    return workspace_config


def _stale_hint(who, k, first, n, consumers):
    which = (f"It belonged to {who}: slot {k} of its ring of {n} holds batches {first}, "
             f"{first + n}, {first + 2 * n}, ... (cycle c of this slot is batch {n}*(c-1)+{first}; "
             "it.batch_number is the batch handed out last)")
    when = ("when the thread that took it asked for its next batch (or called release())"
            if consumers > 1 else "when the next batch was requested")
    return (f"{which}, and was retired {when} (or at close()): a batch is valid until then. "
            "Keep a batch with wsarray.data.detach(batch) (or x.detach() for one array) before "
            "asking for the next one.")


_PROCESS_HINT = ("It was a batch of {who}, built by a worker process in a shared slot; a batch is "
                 "valid until the next one is requested (or close()). Keep a batch with "
                 "wsarray.data.detach(batch) (or x.detach() for one array) before asking for the next one.")

_ETL_HINT = ("It was made by the source's next() in the ETL workspace of {who}, which is reset "
             "after each batch is built (the batch itself is copied into the iterator's ring). "
             "A source should build big, long-lived things (data sets, buffers, tables) in its "
             "constructor, not in next(), or keep them with .detach().")


@atexit.register
def _stop_all_at_exit():
    # Daemon producer threads must not be running NumPy code while the interpreter finalizes.
    pipelines = list(_live)
    for p in pipelines:
        p.pause()
    for p in pipelines:
        p.close(EXIT_WAIT_S / max(len(pipelines), 1))
