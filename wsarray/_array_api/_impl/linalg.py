"""Linear algebra where NumPy differs from the standard: ``pinv``'s default tolerance. (``eig`` and
``eigvals`` are NumPy's: real results for real eigenvalues, where the standard says complex;
README, "Where the standard and NumPy disagree".)"""
import numpy as _np
import numpy.linalg as _la

__all__ = ["pinv"]


def pinv(a, rcond=None, hermitian=False, *, rtol=None):
    """Pseudo-inverse. Without ``rcond`` the cutoff is the standard's ``rtol`` (default
    ``max(M, N) * eps``; NumPy's own default is 1e-15); NumPy's ``rcond`` still works."""
    if rcond is not None:
        if rtol is not None:
            raise ValueError("`rtol` and `rcond` can't be both set.")  # NumPy's check and message
        return _la.pinv(a, rcond, hermitian)
    if rtol is None:
        # The standard's default, also for integer input (computed in float64, as NumPy's
        # pinv does; NumPy's rtol=None path asks finfo() of the integer dtype and fails).
        a = _np.asarray(a)
        eps = _np.finfo(a.dtype if _np.issubdtype(a.dtype, _np.inexact) else _np.float64).eps
        rtol = max(a.shape[-2:], default=1) * eps
    return _la.pinv(a, hermitian=hermitian, rtol=rtol)
