"""What type checkers see of wsarray's arrays and namespace functions (the runtime is unchanged).

``Array`` is the compiled core's class at run time, a subclass of ``numpy.ndarray``; for a type
checker it is declared here as one too, with
wsarray's own methods (``detach``, ``leverage``, ...) and operators that return ``Array``, so
``(w - lr * g).detach()`` type-checks. The namespace functions are built at import time from NumPy's
(``Function(numpy.zeros, "zeros")``); ``array_function`` types the array API standard's as returning
an ``Array`` (any arguments), ``numpy_typed`` gives one NumPy's own signature and result types
(used for NumPy's names beyond the standard and the standard's functions returning tuples, dtypes
or Python objects). tests/package/test_typing.py keeps the declared methods in step with the class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

import numpy as _np

from ._native import Function as _Function

__all__ = ["Array", "ArrayFunction", "array_function", "numpy_typed"]

_FuncT = TypeVar("_FuncT")

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    from numpy.typing import ArrayLike, DTypeLike
    from typing_extensions import Self

    from ._device import Device

    _ShapeT_co = TypeVar("_ShapeT_co", bound=tuple[Any, ...], covariant=True)
    _DTypeT_co = TypeVar("_DTypeT_co", bound=_np.dtype[Any], covariant=True)

    class Array(_np.ndarray[_ShapeT_co, _DTypeT_co]):
        """wsarray.Array: a NumPy array whose memory may come from a workspace."""

        # wsarray's own methods (the compiled core's)
        def detach(self) -> Self: ...
        def is_attached(self) -> bool: ...
        def is_in_scope(self) -> bool: ...
        def leverage(self) -> Self: ...
        def leverage_to(self, name: str) -> Self: ...
        @property
        def workspace(self) -> str | None: ...
        @property
        def device(self) -> Device: ...  # type: ignore[override]

        # Operators and array-returning methods give wsarray arrays (dtype left to NumPy's rules).
        def __getitem__(self, key: Any, /) -> _AnyArray: ...  # type: ignore[override]
        def __add__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __radd__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __sub__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __rsub__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __mul__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __rmul__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __truediv__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __rtruediv__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __floordiv__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __rfloordiv__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __mod__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __rmod__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __pow__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __rpow__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __matmul__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __rmatmul__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __and__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __rand__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __or__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __ror__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __xor__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __rxor__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __lt__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __le__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __gt__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __ge__(self, other: ArrayLike, /) -> _AnyArray: ...  # type: ignore[override]
        def __eq__(self, other: object, /) -> _AnyArray: ...  # type: ignore[override]
        def __ne__(self, other: object, /) -> _AnyArray: ...  # type: ignore[override]
        def __neg__(self) -> Self: ...
        def __pos__(self) -> Self: ...
        def __abs__(self) -> Self: ...  # type: ignore[override]
        def __invert__(self) -> Self: ...
        @property
        def T(self) -> Self: ...  # noqa: N802
        @property
        def mT(self) -> Self: ...  # noqa: N802
        def reshape(self, *shape: Any, **kwargs: Any) -> _AnyArray: ...  # type: ignore[override]
        def astype(self, dtype: DTypeLike, *args: Any, **kwargs: Any) -> _AnyArray: ...  # type: ignore[override]
        def copy(self, order: Any = ...) -> Self: ...  # type: ignore[override]
        def transpose(self, *axes: Any) -> Self: ...  # type: ignore[override]
        def ravel(self, order: Any = ...) -> _AnyArray: ...  # type: ignore[override]
        def flatten(self, order: Any = ...) -> _AnyArray: ...  # type: ignore[override]
        def squeeze(self, axis: Any = ...) -> _AnyArray: ...  # type: ignore[override]
        def dot(self, b: ArrayLike, out: Any = ...) -> _AnyArray: ...  # type: ignore[override]

    _AnyArray = Array[tuple[Any, ...], _np.dtype[Any]]

    class ArrayFunction(Protocol):
        """A namespace function of the array API standard: any arguments, a wsarray array back."""

        def __call__(self, *args: Any, **kwargs: Any) -> _AnyArray: ...

    def array_function(func: Callable[..., Any], name: str, numpy_func: Any = None) -> ArrayFunction: ...
    def numpy_typed(func: _FuncT, name: str, numpy_func: Any = None) -> _FuncT: ...

else:
    from ._native import Array

    ArrayFunction = _Function
    # The same constructor at run time; the names only tell a type checker what comes back.
    # (wsarray.Array[shape, dtype] at run time is numpy.ndarray's __class_getitem__, inherited.)
    array_function = numpy_typed = _Function
