"""Workspace modes of a training step: which workspace each kind of array goes to.

Deeplearning4j's WorkspaceMode and LayerWorkspaceMgr. A step's arrays come in kinds: ``input``,
``activations`` and ``activation_grad`` live for the whole step; ``working_memory`` (a layer's
temporaries) and ``updater`` (the optimizer's temporaries) live for one ``scope``. The manager maps
kinds to workspaces by mode: NONE, no workspaces (plain allocations); SINGLE, one workspace for
everything in a step (no copies between kinds: faster; every kind's memory in one arena for the
whole step); SEPARATE, one workspace per kind, the working memory a new cycle per scope (per
layer), so what a layer needs only while it runs is reused by the next layer (less memory, a copy
per result that outlives the layer). Workspaces are per thread, so one manager serves any number
of worker threads, each getting its own workspaces of the same names.
"""

from __future__ import annotations

import contextlib
import enum
import itertools
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, get_args

from .._native import Array
from .._workspaces import WorkspaceConfig, WorkspaceError
from .._numpy.creation import array as _wsarray_array
from .._array_api.creation import empty as _wsarray_empty
from .. import memory as _memory
from .._workspaces import scope_out, workspace
from .._array_api.creation import zeros as _wsarray_zeros

__all__ = ["KINDS", "Kind", "WorkspaceManager", "WorkspaceMode"]

# A kind is checked by type checkers too: mgr.scope("workng_memory") is reported before it runs.
Kind = Literal["input", "activations", "activation_grad", "working_memory", "updater"]
KINDS: tuple[Kind, ...] = get_args(Kind)
# Open for the whole step(), in this order: arrays made in a step outside any scope() go to the
# innermost, the activations.
STEP_KINDS = ("input", "activation_grad", "activations")
SCOPED_KINDS = ("working_memory", "updater")              # a cycle per scope() (SEPARATE)
SINGLE_KEY = "all"

_numbers = itertools.count(1)
_T = TypeVar("_T")

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, DTypeLike

    from .._native import Scope, Workspace
    from ..typing import NDArray


class WorkspaceMode(enum.Enum):
    """NONE: no workspaces. SINGLE: one workspace per step for every kind. SEPARATE: one per kind,
    the working memory reset per scope (layer)."""

    NONE = "none"
    SINGLE = "single"
    SEPARATE = "separate"


class WorkspaceManager:
    """Route the arrays of a training step to workspaces by kind (Deeplearning4j's
    LayerWorkspaceMgr).

    ``WorkspaceManager(mode="separate", configs=None, *, prefix=None)``. ``configs`` maps a kind
    (or ``"all"``, the SINGLE workspace) to a ``WorkspaceConfig``; the default is
    ``WorkspaceConfig()`` (learns its size from the first step). Workspace names are
    ``f"{prefix}/{kind}"`` (``prefix`` defaults to one unique per manager).

    ``with mgr.step():`` one training iteration: opens the cycles of the step-long kinds; arrays
    made in it outside any ``scope`` go to the activations.
    ``with mgr.scope(kind):`` allocations inside go to ``kind``'s workspace (a new cycle for
    ``working_memory``/``updater`` in SEPARATE mode: arrays made in it are retired at its end;
    keep a result with ``leverage_to``). ``mgr.create(kind, shape, dtype)`` (zeros),
    ``mgr.create_uninitialized(...)``, ``mgr.leverage_to(kind, x)`` (x itself when already
    there, else a copy there), ``mgr.check(kind, x)`` (raises unless x is where ``kind`` goes).
    Write each layer as a function and run it with ``mgr.run_in("working_memory", layer, ...)``
    (and the step with ``mgr.run_step(step, ...)``): the function's local arrays die when it
    returns, before the cycle ends. A ``with`` block inside a function ends while its locals
    still refer to their arrays: the workspace then counts them as outliving the cycle and learns
    room for them on top of its peak (about twice the memory), and a temporary still referenced
    when the next cycle starts keeps its block (that cycle spills).
    """

    def __init__(self, mode: WorkspaceMode | Literal["none", "single", "separate"] = WorkspaceMode.SEPARATE,
                 configs: Mapping[Kind | Literal["all"], WorkspaceConfig] | None = None, *,
                 prefix: str | None = None) -> None:
        fn = "wsarray.data.WorkspaceManager()"
        try:
            self.mode = WorkspaceMode(mode.lower() if isinstance(mode, str) else mode)
        except ValueError:
            raise ValueError(f"{fn}: mode must be a WorkspaceMode or 'none', 'single' or "
                             f"'separate', got {mode!r}") from None
        configs: dict[str, WorkspaceConfig] = dict(configs or {})
        allowed = (SINGLE_KEY,) + KINDS
        for key, config in configs.items():
            if key not in allowed:
                raise ValueError(f"{fn}: unknown kind {key!r} in configs; the kinds are "
                                 f"{', '.join(allowed)}")
            if not isinstance(config, WorkspaceConfig):
                raise TypeError(f"{fn}: configs[{key!r}] must be a wsarray.WorkspaceConfig, not "
                                f"{type(config).__name__}")
        if prefix is None:
            prefix = f"WorkspaceManager-{next(_numbers)}"
        elif not isinstance(prefix, str) or not prefix:
            raise TypeError(f"{fn}: prefix must be a non-empty str")
        self.prefix = prefix
        self.configs = configs

    # -- names ------------------------------------------------------------------------------

    def workspace_name(self, kind: Kind) -> str | None:
        """The workspace ``kind`` goes to (None in NONE mode)."""
        self._check_kind(kind, "workspace_name")
        if self.mode is WorkspaceMode.NONE:
            return None
        if self.mode is WorkspaceMode.SINGLE:
            return f"{self.prefix}/{SINGLE_KEY}"
        return f"{self.prefix}/{kind}"

    def _workspace(self, kind: Kind) -> Workspace:
        key = SINGLE_KEY if self.mode is WorkspaceMode.SINGLE else kind
        return workspace(self.workspace_name(kind), self.configs.get(key) or WorkspaceConfig())

    def _check_kind(self, kind, method):
        if kind not in KINDS:
            raise ValueError(f"wsarray.data.WorkspaceManager.{method}(): unknown kind {kind!r}; the "
                             f"kinds are {', '.join(KINDS)}")

    # -- scopes -----------------------------------------------------------------------------

    @contextlib.contextmanager
    def step(self) -> Iterator[WorkspaceManager]:
        """One training iteration: the step-long kinds' workspaces are open inside."""
        if self.mode is WorkspaceMode.NONE:
            with scope_out():
                yield self
            return
        kinds = ("input",) if self.mode is WorkspaceMode.SINGLE else STEP_KINDS
        with contextlib.ExitStack() as stack:
            for kind in kinds:
                stack.enter_context(self._workspace(kind))
            yield self

    def scope(self, kind: Kind) -> Workspace | Scope:
        """A ``with`` block whose allocations go to ``kind``'s workspace."""
        self._check_kind(kind, "scope")
        if self.mode is WorkspaceMode.NONE:
            return scope_out()
        if self.mode is WorkspaceMode.SEPARATE and kind in SCOPED_KINDS:
            return self._workspace(kind)  # a cycle of its own
        return self._borrow(kind, "scope")

    def run_step(self, fn: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        """``fn(*args, **kwargs)`` inside ``step()``: its local arrays are gone before the step's
        cycles end, so the workspaces learn the step's own size (see the class docstring)."""
        with self.step():
            return fn(*args, **kwargs)

    def run_in(self, kind: Kind, fn: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        """``fn(*args, **kwargs)`` inside ``scope(kind)`` (a layer's forward or backward pass)."""
        with self.scope(kind):
            return fn(*args, **kwargs)

    def _borrow(self, kind, method):
        name = self.workspace_name(kind)
        if not _memory.workspace_active(name):
            where = "mgr.step()" if self.mode is WorkspaceMode.SINGLE or kind in STEP_KINDS \
                else f"mgr.scope({kind!r})"
            raise WorkspaceError(f"wsarray.data.WorkspaceManager.{method}(): the workspace of "
                                 f"{kind!r} ('{name}') is not open on this thread: call it inside "
                                 f"'with {where}:'")
        return self._workspace(kind).borrow()

    def _allocation_scope(self, kind, method):
        if self.mode is WorkspaceMode.NONE:
            return scope_out()
        return self._borrow(kind, method)

    # -- arrays -----------------------------------------------------------------------------

    def create(self, kind: Kind, shape: int | tuple[int, ...], dtype: DTypeLike = float) -> NDArray[Any]:
        """A zero-filled array in ``kind``'s workspace."""
        self._check_kind(kind, "create")
        with self._allocation_scope(kind, "create"):
            return _wsarray_zeros(shape, dtype=dtype)

    def create_uninitialized(self, kind: Kind, shape: int | tuple[int, ...],
                             dtype: DTypeLike = float) -> NDArray[Any]:
        """An uninitialized array in ``kind``'s workspace."""
        self._check_kind(kind, "create_uninitialized")
        with self._allocation_scope(kind, "create_uninitialized"):
            return _wsarray_empty(shape, dtype=dtype)

    def leverage_to(self, kind: Kind, x: ArrayLike) -> NDArray[Any]:
        """``x`` in ``kind``'s workspace: ``x`` itself when it is there already, else a copy there
        (NONE mode: ``x`` when it is outside every workspace, else a detached copy)."""
        self._check_kind(kind, "leverage_to")
        if self._is_in(kind, x):
            return x
        with self._allocation_scope(kind, "leverage_to"):
            return _wsarray_array(x, copy=True)

    def check(self, kind: Kind, x: object) -> None:
        """Raise WorkspaceError unless ``x`` is in the workspace ``kind`` goes to
        (Deeplearning4j's validateArrayLocation)."""
        self._check_kind(kind, "check")
        if not self._is_in(kind, x):
            where = getattr(x, "workspace", None) if type(x) is Array else None
            want = self.workspace_name(kind)
            raise WorkspaceError(
                f"wsarray.data.WorkspaceManager.check(): the array should be in "
                f"{'no workspace' if want is None else repr(want)} for kind {kind!r}, but it is in "
                f"{'no workspace' if where is None else repr(where)}")

    def _is_in(self, kind, x):
        if type(x) is not Array:
            return False  # NumPy arrays and other inputs are always copied
        if self.mode is WorkspaceMode.NONE:
            return not x.is_attached()
        return x.workspace == self.workspace_name(kind) and x.is_in_scope()

    # -- figures and clean-up (this thread) -------------------------------------------------

    def names(self) -> list[str]:
        """The workspace names this manager uses."""
        if self.mode is WorkspaceMode.NONE:
            return []
        if self.mode is WorkspaceMode.SINGLE:
            return [f"{self.prefix}/{SINGLE_KEY}"]
        return [f"{self.prefix}/{kind}" for kind in KINDS]

    def stats(self) -> dict[str, dict[str, Any]]:
        """{workspace name: stats()} of this thread's workspaces of this manager."""
        all_stats = _memory.allocation_statistics()
        return {name: all_stats[name] for name in self.names() if name in all_stats}

    def destroy(self) -> None:
        """Destroy this thread's workspaces of this manager (their memory goes back to the OS)."""
        for name in self.names():
            if _memory.workspace_exists(name):
                _memory.destroy_workspace(name)

    def __repr__(self) -> str:
        return f"wsarray.data.WorkspaceManager({self.mode.name}, prefix={self.prefix!r})"
