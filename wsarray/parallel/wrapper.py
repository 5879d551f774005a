"""``ParallelWrapper``: data-parallel training with a replica of the model per worker thread.

Deeplearning4j's ParallelWrapper on threads: each worker trains its own copy of the model on its
own batches, taken from one shared prefetching iterator (``wsarray.data.AsyncIterator`` with a
consumer per worker), each step in the worker's workspaces (``workspace_mode``, as
``wsarray.data.WorkspaceManager``); every ``averaging_frequency`` iterations the workers meet, the
caller's thread averages the replicas' parameters and gives the average back to every replica.
The model passed in ends with the averaged parameters.

Rounds are driven from the caller's thread: it tells each worker to train up to
``averaging_frequency`` batches, waits for every report (on a Gate, so Ctrl-C works and cannot
break it: wsarray/_interrupts.py), then averages. A worker's exception stops the fit and is raised
again in the caller with a note naming the worker; every thread is joined before ``fit`` returns
or raises (a worker waiting for a batch stops waiting, without closing an iterator the caller
owns). Interrupted anywhere, a fit still stops its workers: the first thing it does on the way out
is one call no Ctrl-C can pre-empt (opening the workers' stop gate), and they stop on their own,
the last one closing the iterator the fit made.
"""

import collections
import copy
import itertools
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

import numpy

from .._native import Array
from .._workspaces import scope_out
from .._interrupts import Gate, GateEvent, shielded
from ..data import AsyncIterator, WorkspaceManager, WorkspaceMode
from ..data._pipeline import is_one_shot
from . import _blas, _sharing
from . import _process_training
from ._setup import backend_and_start_method, cap_blas

__all__ = ["ParallelWrapper"]

WHO = "wsarray.parallel.ParallelWrapper()"
_WAIT_S = 0.05
_CLOSE_WAIT_S = 1.0  # how long a fit that ends waits for its own iterator's producer
_STOP_WAIT_S = 30.0  # how long a fit that stops waits for its workers, all together
_numbers = itertools.count(1)
_MODES = {"none": WorkspaceMode.NONE, "single": WorkspaceMode.SINGLE, "separate": WorkspaceMode.SEPARATE}


class ParallelWrapper:
    """Train ``model`` data-parallel on ``workers`` threads, averaging parameters periodically.

    ``ParallelWrapper(model, workers=2, prefetch_buffer=8, averaging_frequency=5,
    report_score_after_averaging=False, workspace_mode="single", *, blas_threads="auto",
    listener=None, training_mode="averaging", threshold="adaptive", backend="thread",
    start_method=None)``

    The model protocol: ``model.params``, a dict of name -> floating array (wsarray or NumPy;
    complex too when averaging; ``fit`` refuses other dtypes, which an in-place mean would
    truncate), and
    ``model.fit_batch(x, y)``, one training step on a batch that returns the score (a number or a
    0-d array); the model must survive ``copy.deepcopy``. ``fit_batch`` may update the parameters
    in place or assign new arrays; arrays it assigns inside the step's workspace are detached
    after the step, so parameters never go stale.

    ``fit(data, epochs=1)``: ``data`` is an iterable of ``(x, y)`` batches (re-iterable for more
    than one epoch) or an ``AsyncIterator`` made with ``consumers >= workers``; anything else is
    wrapped in ``AsyncIterator(data, queue_size=prefetch_buffer * workers, consumers=workers)``.
    At the end of an epoch the last, shorter round is averaged too (over the workers that trained
    in it). ``workers=1`` gives the same parameters as plain serial training, bit for bit.

    ``training_mode="shared_gradients"`` (Deeplearning4j's gradient sharing, after Strom 2015):
    every step, each worker computes its update with ``model.gradients(x, y)``, which returns
    ``(score, update)``, ``update`` a dict name -> array holding what a plain step would subtract
    (the learning rate applied); the worker adds it to its residual, sends the elements at or above
    the threshold as +/- threshold (indices and signs, or a 2-bit bitmap when more than 1/16 go)
    and keeps the rest; every replica then applies the sum of all workers' messages, in worker
    order, through ``model.apply(update)`` if the model has it, else ``params[name] -= update[name]``.
    ``threshold="adaptive"`` (default) is Deeplearning4j's AdaptiveThresholdAlgorithm with its
    defaults (start 1e-4, keep the fraction sent within [1e-4, 1e-2], x0.5 ** (1/20) per step
    outside it); ``AdaptiveThreshold(initial=...)`` changes them, a number fixes it, and 0 sends
    updates exactly (``workers=1`` is then serial SGD, bit for bit). ``stats()`` adds
    ``bytes_exchanged`` (messages as they would travel), ``dense_bytes`` (the same updates sent
    dense) and ``threshold``. ``averaging_frequency`` is not used in this mode.

    ``backend="process"``: the workers are processes (``start_method`` "fork", the default where
    the platform has it, or "spawn", where the model must pickle), each with its own copy of the
    model, its own GIL and ``blas_threads`` BLAS threads; batches, parameters and encoded updates
    travel through shared memory, never pickled. The caller's thread hands batches out (worker 0
    the first ones), so ``data`` is any iterable of batches. Both training modes, scores,
    evaluation and ``stats()`` are the thread backend's; an exception in a worker is raised with
    a note naming it, a worker that dies raises ``wsarray.data.WorkerError``, and the processes are
    stopped before ``fit`` returns or raises.

    Scores: ``report_score_after_averaging=True`` reports one score per round (the mean of the
    workers' last scores), else every iteration's score; ``listener(iteration, epoch, score)`` is
    called on the caller's thread with each; ``score`` is the last one. ``blas_threads``: cap on
    BLAS threads while fitting (``"auto"``: cores // workers; None: leave BLAS alone).
    ``stats()``: iterations, rounds, batches per worker, epochs, seconds.
    """

    def __init__(self, model: Any, workers: int = 2, prefetch_buffer: int = 8, averaging_frequency: int = 5,
                 report_score_after_averaging: bool = False,
                 workspace_mode: WorkspaceMode | Literal["none", "single", "separate"] = "single", *,
                 blas_threads: int | Literal["auto"] | None = "auto",
                 listener: Callable[[int, int, Any], object] | None = None,
                 training_mode: Literal["averaging", "shared_gradients"] = "averaging",
                 threshold: float | Literal["adaptive"] | Any = "adaptive",
                 backend: Literal["thread", "process"] = "thread", start_method: str | None = None) -> None:
        for name, value in (("workers", workers), ("prefetch_buffer", prefetch_buffer),
                            ("averaging_frequency", averaging_frequency)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{WHO}: {name} must be an int, not {type(value).__name__}")
            if value < 1:
                raise ValueError(f"{WHO}: {name} must be at least 1, got {value}")
        from ..data.iterator import MAX_QUEUE_SIZE
        from .inference import MAX_WORKERS
        if workers > MAX_WORKERS:
            raise ValueError(f"{WHO}: workers must be at most {MAX_WORKERS}, got {workers} (each worker is a "
                             "thread with a replica of the model and workspaces of its own)")
        if prefetch_buffer * workers > MAX_QUEUE_SIZE:
            raise ValueError(f"{WHO}: prefetch_buffer * workers must be at most {MAX_QUEUE_SIZE}, got "
                             f"{prefetch_buffer * workers} (batches prefetched in memory at once)")
        if not isinstance(getattr(model, "params", None), dict) or not callable(getattr(model, "fit_batch", None)):
            raise TypeError(f"{WHO}: the model must have a dict of arrays 'params' and a method "
                            f"'fit_batch(x, y)' returning the score; {type(model).__name__} has not")
        if isinstance(workspace_mode, WorkspaceMode):
            mode = workspace_mode
        elif isinstance(workspace_mode, str) and workspace_mode.lower() in _MODES:
            mode = _MODES[workspace_mode.lower()]
        else:
            raise ValueError(f"{WHO}: workspace_mode must be one of 'none', 'single', 'separate' "
                             f"(or a wsarray.WorkspaceMode), got {workspace_mode!r}")
        if listener is not None and not callable(listener):
            raise TypeError(f"{WHO}: listener must be callable, not {type(listener).__name__}")
        if training_mode not in ("averaging", "shared_gradients"):
            raise ValueError(f"{WHO}: training_mode must be 'averaging' or 'shared_gradients', got {training_mode!r}")
        if training_mode == "shared_gradients" and not callable(getattr(model, "gradients", None)):
            raise TypeError(f"{WHO}: training_mode='shared_gradients' needs model.gradients(x, y) returning "
                            f"(score, update): {type(model).__name__} has no gradients method")
        self.start_method = backend_and_start_method(backend, start_method, WHO)
        self.backend = backend
        self.training_mode = training_mode
        self._threshold = _sharing.threshold_algorithm(threshold, WHO)
        self.model = model
        self.workers = workers
        self.prefetch_buffer = prefetch_buffer
        self.averaging_frequency = averaging_frequency
        self.report_score_after_averaging = bool(report_score_after_averaging)
        self.workspace_mode = mode
        self.blas_threads = blas_threads
        self.listener = listener
        self.score: Any = None
        self._number = next(_numbers)
        self._manager = WorkspaceManager(mode, prefix=f"ParallelWrapper-{self._number}")
        self._evaluation = None
        self.evaluations: list[dict[str, Any]] = []
        self._stats = {"iterations": 0, "rounds": 0, "epochs": 0, "seconds": 0.0,
                       "batches_per_worker": [0] * workers, "bytes_exchanged": 0, "dense_bytes": 0,
                       "threshold": self._threshold.value if training_mode == "shared_gradients" else None}

    def stats(self) -> dict[str, Any]:
        """Figures of every fit so far (a copy)."""
        s = dict(self._stats)
        s["batches_per_worker"] = list(s["batches_per_worker"])
        return s

    def fit(self, data: Iterable[Any], epochs: int = 1, *, eval_data: Iterable[Any] | None = None,
            metrics: Sequence[Any] = (), evaluate_every: int | None = None,
            eval_listener: Any = None) -> "ParallelWrapper":
        """Train on ``data`` for ``epochs`` epochs; returns self (the model holds the average).

        With ``eval_data`` (re-iterable batches, as ``wsarray.evaluation.evaluate`` takes them) and
        ``metrics`` (``wsarray.evaluation`` metrics), the averaged model is evaluated between rounds,
        on the caller's thread: after every ``evaluate_every`` iterations (at the end of the round
        that reaches them), or at the end of each epoch when ``evaluate_every`` is None. Each
        evaluation fills fresh copies of ``metrics``, kept in ``evaluations`` ({iteration, epoch,
        metrics}); the metrics passed in end with the last one's results. ``eval_listener`` (an
        object with ``evaluation(iteration, epoch, metrics)``, such as a ``PerformanceListener``, or
        a callable taking those) and the wrapper's ``listener``, if it has ``evaluation``, get each.
        The model predicts through ``output``, ``predict_proba``, ``predict`` or ``__call__``."""
        fn = f"{WHO[:-2]}.fit()"
        if isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 1:
            raise ValueError(f"{fn}: epochs must be an int of at least 1, got {epochs!r}")
        if epochs > 1 and _one_shot(data):  # both backends: refused before any epoch trains
            raise ValueError(f"{fn}: data is a one-shot iterator ({type(data).__name__}) and epochs={epochs}: it "
                             "cannot start a second epoch; pass a re-iterable source (a list, an object whose "
                             "__iter__ returns a new iterator, such as wsarray.data.BatchDirectory) or an iterator "
                             "with a reset() method")
        _check_params(self.model.params, self.training_mode, fn)
        self._evaluation = _evaluation_plan(self.model, eval_data, metrics, evaluate_every, eval_listener, fn)
        if self.backend == "process":
            start = time.perf_counter()
            try:
                return _process_training.fit(self, data, epochs, WHO[:-2], self.start_method)  # type: ignore
            finally:
                self._stats["seconds"] += time.perf_counter() - start
        with scope_out():  # replicas and averages outlive any workspace the caller is in
            replicas = _replicas(self.model, self.workers, fn)
            sharers = None
            if self.training_mode == "shared_gradients":
                layout = _sharing.Layout(self.model.params)
                sharers = [_sharing.Sharer(layout) for _ in replicas]
        owned = not isinstance(data, AsyncIterator)
        if owned:
            it = AsyncIterator(data, queue_size=self.prefetch_buffer * self.workers, consumers=self.workers,
                               name=f"ParallelWrapper-{self._number}")
        elif data.consumers < self.workers:
            raise ValueError(f"{fn}: the AsyncIterator serves {data.consumers} consumer(s); "
                             f"{self.workers} workers need consumers >= {self.workers}")
        else:
            it = data

        start = time.perf_counter()
        token = cap_blas(self.blas_threads, self.workers, WHO)
        crew = _Crew(self, it, replicas, close_iterator=owned, sharers=sharers)  # threads start in the try
        try:
            crew.start()
            for epoch in range(epochs):
                if epoch:
                    it.reset()
                self._epoch(crew, epoch)
                self._stats["epochs"] += 1
            with scope_out():
                _assign(self.model.params, replicas[0].params)
        finally:
            crew.stop_gate.set()  # first, and one call: the workers stop even if what follows is cut short
            crew.stop()
            if owned:  # a producer still inside the source's next() finishes on its own (daemon)
                it.close(timeout=_CLOSE_WAIT_S)
            if token is not None:
                _blas.release_blas_cap(token)
            _blas.settle()
            self._stats["seconds"] += time.perf_counter() - start
        return self

    def _epoch(self, crew, epoch):
        done = [False] * self.workers
        while not all(done):
            reports = crew.round([k for k in range(self.workers) if not done[k]])
            trained = [k for k, (scores, exhausted) in reports.items() if scores]
            for k, (scores, exhausted) in reports.items():
                done[k] = done[k] or exhausted
                self._stats["batches_per_worker"][k] += len(scores)
            if not trained:
                break
            if crew.sharers is not None:
                reports = self._share(crew, reports, trained)
            else:
                with scope_out():
                    _average([crew.replicas[k].params for k in trained],
                             [r.params for r in crew.replicas])
            self._stats["rounds"] += 1
            self._report(reports, trained, epoch)
            plan = self._evaluation
            if plan and plan["every"] and self._stats["iterations"] - plan["last"] >= plan["every"]:
                self._evaluate(crew, epoch)
        if self._evaluation and not self._evaluation["every"]:
            self._evaluate(crew, epoch)

    def _share(self, crew, reports, trained):
        """Every replica applies the sum of the workers' encoded updates (worker order); the
        threshold adapts to the fraction sent. Returns the reports with scores only."""
        messages = [m for k in trained for _, m in reports[k][0]]
        layout = crew.sharers[0].layout
        with scope_out():
            update = layout.unflatten(_sharing.total_update(messages, layout))
            for replica in crew.replicas:
                _sharing.apply_update(replica, update)
        self._note_shared(messages, layout)
        return {k: ([score for score, _ in scores], exhausted) for k, (scores, exhausted) in reports.items()}

    def _note_shared(self, messages, layout):
        """Adapt the threshold to the fraction sent; count the bytes (both backends)."""
        sent = [m.count / layout.size if m.kind != "bitmap" else _sharing.DENSE_FRACTION for m in messages]
        self._stats["threshold"] = self._threshold.update(sum(sent) / len(sent))
        self._stats["bytes_exchanged"] += sum(m.nbytes for m in messages)
        self._stats["dense_bytes"] += len(messages) * layout.size * layout.dtype.itemsize

    def _evaluate(self, crew, epoch):
        from ..evaluation._evaluate import evaluate, predictor
        plan = self._evaluation
        plan["last"] = iteration = self._stats["iterations"]
        fresh = [m.empty_like() for m in plan["metrics"]]
        model = crew.replicas[0]  # every replica holds the average now; the workers wait
        evaluate(predictor(model, "evaluation"), plan["data"], *fresh)
        self.evaluations.append({"iteration": iteration, "epoch": epoch, "metrics": fresh})
        for given, result in zip(plan["metrics"], fresh):
            given.reset().merge(result)
        for target in (plan["listener"], self.listener):
            report = getattr(target, "evaluation", None)
            if callable(report):
                report(iteration, epoch, fresh)
            elif target is plan["listener"] and callable(target):
                target(iteration, epoch, fresh)

    def _report(self, reports, trained, epoch):
        if self.report_score_after_averaging:
            scores = [reports[k][0][-1] for k in trained]
            self._stats["iterations"] += sum(len(reports[k][0]) for k in trained)
            self._emit(sum(scores) / len(scores), epoch)
            return
        for k in trained:  # in worker order, each worker's iterations in order
            for score in reports[k][0]:
                self._stats["iterations"] += 1
                self._emit(score, epoch)

    def _emit(self, score, epoch):
        self.score = score
        if self.listener is not None:
            self.listener(self._stats["iterations"], epoch, score)

    def __repr__(self) -> str:
        return (f"ParallelWrapper(workers={self.workers}, averaging_frequency={self.averaging_frequency}, "
                f"workspace_mode={self.workspace_mode.name.lower()!r})")


class _Crew:
    """The worker threads of one fit: a command deque each, one report deque, each with a Gate."""

    def __init__(self, wrapper, it, replicas, *, close_iterator, sharers=None):
        self.wrapper, self.it, self.replicas = wrapper, it, replicas
        self.sharers = sharers  # shared_gradients: each worker's residual and encoder
        self.close_iterator = close_iterator  # the last worker to stop closes the fit's own iterator
        self.reports = collections.deque()
        self.reported = Gate()
        self.commands = [collections.deque() for _ in replicas]
        self.commanded = [Gate() for _ in replicas]
        self.stop_gate = Gate()
        self.stopping = GateEvent(self.stop_gate)  # what the iterator's wait looks at (is_set)
        self._lock = threading.RLock()
        self._running = len(replicas)
        self.threads = [threading.Thread(target=self._work, args=(k,), daemon=True,
                                         name=f"wsarray-parallel-wrapper-{wrapper._number}-{k}")
                        for k in range(len(replicas))]

    def start(self):
        """Start the workers (on the interrupt shield: a Ctrl-C cannot leave one half started;
        one that lands meanwhile still lets the caller's ``finally`` stop them)."""
        shielded(_start_all, self.threads)

    def round(self, ks):
        """Each worker in ``ks`` trains up to averaging_frequency batches: {k: (scores, exhausted)}."""
        count = 1 if self.sharers is not None else self.wrapper.averaging_frequency
        for k in ks:
            self.commands[k].append(count)
            self.commanded[k].set()
        got = {}
        while len(got) < len(ks):
            self.reported.clear()  # before looking: a report after this opens it
            if not self.reports:
                if not self.reported.wait(_WAIT_S):
                    dead = [k for k in ks if k not in got and not self.threads[k].is_alive()]
                    if dead:
                        raise RuntimeError(f"{WHO}: worker {dead[0]} stopped without reporting")
                continue
            k, scores, exhausted, error = self.reports.popleft()
            if error is not None:
                error.add_note(f"raised by {WHO[:-2]} worker {k} (thread "
                               f"{self.threads[k].name}) in model.fit_batch")
                raise error
            got[k] = (scores, exhausted)
        return got

    def _next_command(self, k):
        """The next command for worker ``k``; None to stop (waits on its Gate)."""
        while not self.stop_gate.is_set():
            self.commanded[k].clear()
            if self.commands[k]:
                return self.commands[k].popleft()
            self.commanded[k].wait(_WAIT_S)
        return None

    def _work(self, k):
        model, mgr, it = self.replicas[k], self.wrapper._manager, self.it
        try:
            while True:
                count = self._next_command(k)
                if count is None:
                    return
                scores, exhausted, error = [], False, None
                try:
                    for _ in range(count):
                        if self.stop_gate.is_set():
                            break
                        try:
                            batch = it._next_unless(self.stopping)  # a stop ends a wait for a batch
                        except StopIteration:
                            exhausted = not self.stop_gate.is_set()
                            break
                        if self.sharers is None:
                            scores.append(mgr.run_step(_step, model, batch))
                        else:
                            sharer = self.sharers[k]
                            score = mgr.run_step(_gradient_step, model, batch, sharer)
                            # encoded outside the step's workspace: the message outlives it
                            scores.append((score, sharer.encode_flat(self.wrapper._threshold.value)))
                except BaseException as e:  # noqa: BLE001 - every failure reaches the caller
                    error = e
                self.reports.append((k, scores, exhausted, error))
                self.reported.set()
        finally:
            if it.consumers > 1:
                try:
                    it.release()  # this thread takes no more batches
                except Exception:  # noqa: BLE001 - a closed iterator has nothing to release
                    pass
            with self._lock:
                self._running -= 1
                last = self._running == 0
            if last and self.close_iterator and self.stop_gate.is_set():
                it.close(timeout=_CLOSE_WAIT_S)

    def stop(self):
        self.stop_gate.set()
        for gate in self.commanded:
            gate.set()
        deadline = time.monotonic() + _STOP_WAIT_S
        for t in self.threads:
            if t.ident is not None:  # started (a start that failed left the others to stop)
                t.join(timeout=max(0.0, deadline - time.monotonic()))
        left = [t.name for t in self.threads if t.is_alive()]
        if left:  # a thread cannot be stopped from outside: say so rather than hang or stay silent
            warnings.warn(f"{WHO[:-2]}.fit(): worker thread(s) {', '.join(left)} still inside the model's "
                          f"fit_batch {_STOP_WAIT_S:g} s after the fit stopped; they end when it returns (daemon "
                          "threads: they do not keep the interpreter alive)", RuntimeWarning, stacklevel=3)


def _start_all(threads):
    for t in threads:
        t.start()


def _step(model, batch):
    """One fit_batch inside the step's workspaces; parameters made there are detached."""
    if not isinstance(batch, (tuple, list)) or len(batch) != 2:
        raise TypeError(f"{WHO}: a batch must be a pair (x, y), got {type(batch).__name__}"
                        + (f" of {len(batch)}" if isinstance(batch, (tuple, list)) else ""))
    score = model.fit_batch(batch[0], batch[1])
    params = model.params
    for name, value in params.items():
        if type(value) is Array and value.is_attached():
            params[name] = value.detach()
    return float(score)


def _gradient_step(model, batch, sharer):
    """``model.gradients(x, y)`` inside the step's workspaces; its update is copied out (flat)."""
    if not isinstance(batch, (tuple, list)) or len(batch) != 2:
        raise TypeError(f"{WHO}: a batch must be a pair (x, y), got {type(batch).__name__}")
    result = model.gradients(batch[0], batch[1])
    if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], dict)):
        raise TypeError(f"{WHO}: model.gradients(x, y) must return (score, update) with update a dict of "
                        f"name -> array, got {type(result).__name__}")
    sharer.take(result[1])
    return float(result[0])


def _average(sources, targets):
    """targets[j][name][...] = the mean over sources of [name] (in place; one source: a copy)."""
    for name in sources[0]:
        total = sources[0][name].copy()
        for params in sources[1:]:
            total += params[name]
        if len(sources) > 1:
            total /= len(sources)
        for params in targets:
            params[name][...] = total


def _assign(params, averaged):
    for name, value in averaged.items():
        current = params.get(name)
        if current is not None and getattr(current, "shape", None) == value.shape and \
                getattr(current, "flags", None) is not None and current.flags.writeable:
            current[...] = value
        else:
            params[name] = value.copy()


def _check_params(params, training_mode, fn):
    """Parameters the mode can average or update: arrays of floating dtypes (complex too when
    averaging; the gradient sharing's threshold encoding needs real numbers). An integer
    parameter would be truncated without a word by the in-place mean."""
    if not params:
        raise ValueError(f"{fn}: model.params is empty: there is nothing to train")
    kinds = "f" if training_mode == "shared_gradients" else "fc"
    for name, value in params.items():
        if not isinstance(value, (Array, numpy.ndarray)):
            raise TypeError(f"{fn}: model.params[{name!r}] must be an array (wsarray or NumPy), "
                            f"not {type(value).__name__}")
        if value.dtype.kind not in kinds:
            need = "a real floating dtype" if kinds == "f" else "a floating or complex dtype"
            raise TypeError(f"{fn}: model.params[{name!r}] has dtype {value.dtype}; training_mode="
                            f"{training_mode!r} needs {need} (its parameters are averaged or updated "
                            "by fractions in place)")


def _replicas(model, workers, fn):
    try:
        return [copy.deepcopy(model) for _ in range(workers)]
    except Exception as e:
        raise TypeError(f"{fn}: each worker trains a copy.deepcopy() of the model, and it failed: "
                        f"{type(e).__name__}: {e}") from e


def _one_shot(data):
    """Data that cannot start a second epoch (a generator), as the pipeline would find it."""
    try:
        return is_one_shot(data, iter(data))
    except TypeError:
        return False  # not iterable at all: the pipeline says so


def _evaluation_plan(model, data, metrics, every, listener, fn):
    """What fit() evaluates, checked before anything starts (None: no evaluation)."""
    metrics = tuple(metrics)
    if data is None:
        if metrics or every is not None:
            raise ValueError(f"{fn}: metrics and evaluate_every need eval_data (the batches to evaluate on)")
        return None
    from ..evaluation._evaluate import check_metrics, predictor
    check_metrics(metrics, fn)
    predictor(model, fn)
    try:
        if iter(data) is data:
            raise TypeError(f"{fn}: eval_data must be re-iterable (a list, a BatchDirectory), not a one-pass "
                            f"iterator ({type(data).__name__}): it is evaluated more than once")
    except TypeError as e:
        if "re-iterable" in str(e):
            raise
        raise TypeError(f"{fn}: eval_data must be iterable (batches), not {type(data).__name__}") from None
    if every is not None and (isinstance(every, bool) or not isinstance(every, int) or every < 1):
        raise ValueError(f"{fn}: evaluate_every must be a positive int of iterations (or None: each epoch), "
                         f"not {every!r}")
    if listener is not None and not (callable(getattr(listener, "evaluation", None)) or callable(listener)):
        raise TypeError(f"{fn}: eval_listener must have an evaluation(iteration, epoch, metrics) method or be "
                        f"callable, not {type(listener).__name__}")
    return {"data": data, "metrics": metrics, "every": every, "listener": listener, "last": 0}

