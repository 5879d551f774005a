"""``sort`` and ``argsort`` with the standard's ``descending``/``stable`` and NumPy's
``kind``/``order``.

The standard makes sorting stable by default; NumPy's stable sort of floats is several times
slower than its default one. Where stability cannot be observed the fast sort is used instead:
``sort`` of integers and booleans (equal values are indistinguishable), ``sort`` of floats whose
zeros all have the same sign (only -0.0 and +0.0 compare equal while differing), and ``argsort``
of floats whose sorted values have no ties (checked after a fast argsort, with a stable one only
if ties exist).
"""
import numpy as _np

from . import method_of_duck

__all__ = ["argsort", "sort"]


def _kind(fn, kind, stable):
    """NumPy's ``kind`` for the arguments; "auto": stable, but fast where stability is moot."""
    if kind is not None:
        if not isinstance(kind, str):  # NumPy's check (before stable's) and its message
            getattr(_np, fn)(_np.zeros(1), kind=kind)
        if stable is not None:  # NumPy's check and message
            raise ValueError("`kind` and keyword parameters can't be provided at the same time. Use only "
                             "one of them.")
        return kind
    if stable is None or stable:
        return "auto"
    return None


def _stability_moot(a):
    """True if no two elements of ``a`` compare equal while being distinguishable."""
    if a.dtype.kind in "biu":
        return True
    if a.dtype.kind != "f":
        return False
    if _np.count_nonzero(_np.isnan(a)) > 1:  # NaNs of another sign or payload: a stable sort keeps their order
        return False
    zeros = a == 0
    if not zeros.any():
        return True
    negative = _np.signbit(a[zeros])
    return bool(negative.all() or not negative.any())  # only one sign of zero


def _numpys_verdict(run, a, kind):
    """``run(kind)``; for object arrays whose elements cannot all be compared (None among str),
    NumPy's default sort compares other pairs than the stable one: its error (or its result) is
    what a NumPy program sees, so an unorderable object array gets NumPy's default sort's answer."""
    if a.dtype.kind != "O" or kind not in ("stable", "mergesort"):
        return run(kind)
    try:
        return run(kind)
    except TypeError:
        pass
    return run(None)  # outside the handler: NumPy's error alone, not chained to the stable sort's


def _sort_values(a, axis, kind, order):
    if kind == "auto":
        kind = None if order is None and _stability_moot(a) else "stable"
    return _numpys_verdict(lambda k: _np.sort(a, axis=axis, kind=k, order=order), a, kind)


def _argsort_values(a, axis, kind, order):
    if kind != "auto":
        return _np.argsort(a, axis=axis, kind=kind, order=order)
    if order is not None or a.dtype.kind != "f" or a.ndim == 0 or type(a) is not _np.ndarray:
        return _numpys_verdict(lambda k: _np.argsort(a, axis=axis, kind=k, order=order), a, "stable")
    idx = _np.argsort(a, axis=axis)
    s = _np.moveaxis(_np.take_along_axis(a, idx, axis=axis), axis, -1)
    # Ties (NaNs among them: each sorts as equal to the others, but never compares equal) must
    # keep their original order.
    if (s[..., 1:] == s[..., :-1]).any() or (_np.isnan(s[..., 1:]) & _np.isnan(s[..., :-1])).any():
        return _np.argsort(a, axis=axis, kind="stable")
    return idx


# stable=None: the standard's default (stable) when not given; given with NumPy's kind, NumPy's error.
def sort(a, axis=-1, kind=None, order=None, *, descending=False, stable=None):
    """Sorted copy of ``a``; stable unless ``stable=False``; ``descending=True`` keeps equal
    elements in their original order."""
    a = _np.asanyarray(a)  # np.ma / np.matrix sort as NumPy sorts them
    kind = _kind("sort", kind, stable)
    if axis is None:
        a, axis = a.ravel(), -1
    if not descending:
        return _sort_values(a, axis, kind, order)
    # Sorting the reversed array and reversing back keeps equal elements in their original order.
    return _np.flip(_sort_values(_np.flip(a, axis), axis, kind, order), axis)


def argsort(a, axis=-1, kind=None, order=None, *, descending=False, stable=None):
    """Indices that sort ``a``; stable unless ``stable=False`` (NumPy's default is not stable)."""
    if method_of_duck(a, "argsort") and not descending and stable is None:  # a pandas Series
        return _np.argsort(a, axis=axis, kind=kind, order=order)
    a = _np.asanyarray(a)  # np.ma / np.matrix sort as NumPy sorts them
    kind = _kind("argsort", kind, stable)
    if axis is None:
        a, axis = a.ravel(), -1
    if not descending:
        return _argsort_values(a, axis, kind, order)
    n = a.shape[axis] if a.ndim else 1
    idx = _argsort_values(_np.flip(a, axis), axis, kind, order)
    return n - 1 - _np.flip(idx, axis)
