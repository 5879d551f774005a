"""Workspace scopes: ``workspace``, ``scope_out``, ``isolated``, ``WorkspaceConfig``, the errors.

Scopes follow the code's context (``contextvars``): every thread, asyncio task and context has its
own stack of open scopes, and a new task starts with its creator's. A generator does not have a
context of its own: a ``with`` block that spans a ``yield`` stays open in the caller's context
until the generator resumes and leaves it (the caller's arrays go into that workspace meanwhile).
``isolated(generator)`` runs every step of a generator in a context of its own instead.
"""
import contextvars as _contextvars
import functools as _functools
import inspect as _inspect
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar, overload

from ._native import (
    Workspace,
    WorkspaceConfig,
    WorkspaceError,
    WorkspaceMemoryError,
    parse_size,
    scope_out,
)
from ._native import workspace as workspace  # one entry for host and device workspaces (hooks.h)
from ._transient import transient_workspace

__all__ = [
    "Workspace",
    "WorkspaceConfig",
    "isolated",
    "WorkspaceError",
    "WorkspaceMemoryError",
    "parse_size",
    "scope_out",
    "transient_workspace",
    "workspace",
]


_T = TypeVar("_T")


class isolated(Generic[_T]):  # noqa: N801  (used as a function and a decorator)
    """Run a generator (or any iterator) in a ``contextvars`` context of its own.

    ``for batch in wsarray.isolated(loader()):`` -- the workspace scopes the generator opens
    (``with wsarray.workspace(...)`` around its ``yield``) stay in its context: the caller's
    allocations never go into them, and the generator's never into the caller's. As a decorator,
    ``@wsarray.isolated`` makes every call of a generator function isolated. The context is a
    copy of the one current when the generator was wrapped (its scopes included).
    """

    @overload
    def __new__(cls, gen: Callable[..., Iterator[_T]]) -> Callable[..., "isolated[_T]"]: ...  # type: ignore[misc]
    @overload
    def __new__(cls, gen: Iterator[_T]) -> "isolated[_T]": ...

    def __new__(cls, gen: Any) -> Any:
        if _inspect.isgeneratorfunction(gen):
            @_functools.wraps(gen)
            def isolated_function(*args, **kwargs):
                return cls(gen(*args, **kwargs))

            return isolated_function
        if not hasattr(gen, "__next__"):
            raise TypeError("wsarray.isolated(): expected a generator, an iterator or a generator "
                            f"function, not {type(gen).__name__}")
        self = super().__new__(cls)
        self._gen = gen
        self._context = _contextvars.copy_context()
        return self

    def __iter__(self) -> "isolated[_T]":
        return self

    def __next__(self) -> _T:
        return self._context.run(next, self._gen)

    def send(self, value: Any) -> _T:
        """Resume the generator with ``value`` (generator.send) in its context."""
        return self._context.run(self._gen.send, value)

    def throw(self, *args: Any) -> _T:
        """Raise an exception in the generator (generator.throw) in its context."""
        return self._context.run(self._gen.throw, *args)

    def close(self) -> None:
        """Close the generator (its ``with`` blocks exit) in its context."""
        close = getattr(self._gen, "close", None)
        if close is not None:
            self._context.run(close)

    def __del__(self) -> None:
        # Garbage collection closes the generator here, in its own context, rather than wherever
        # the collector happens to run.
        try:
            self.close()
        except Exception:  # noqa: BLE001 - a finalizer reports nothing (as generators do)
            pass
