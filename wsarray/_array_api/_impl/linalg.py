"""Linear algebra where NumPy differs from the standard: complex ``eig``/``eigvals``, ``pinv``'s
default tolerance."""
import numpy as _np
import numpy.linalg as _la

__all__ = ["eig", "eigvals", "pinv"]


def _complex_dtype(x):
    return _np.complex64 if x.dtype in (_np.float32, _np.complex64) else _np.complex128


def eig(a):
    """Eigenvalues and right eigenvectors; always complex, as the standard requires (NumPy returns
    real arrays when every eigenvalue is real)."""
    res = _la.eig(a)
    ct = _complex_dtype(_np.asarray(a))
    return res._replace(eigenvalues=res.eigenvalues.astype(ct, copy=False),
                        eigenvectors=res.eigenvectors.astype(ct, copy=False))


def eigvals(a):
    """Eigenvalues; always complex (see eig)."""
    return _la.eigvals(a).astype(_complex_dtype(_np.asarray(a)), copy=False)


def pinv(a, rcond=None, hermitian=False, *, rtol=None):
    """Pseudo-inverse. Without ``rcond`` the cutoff is the standard's ``rtol`` (default
    ``max(M, N) * eps``; NumPy's own default is 1e-15); NumPy's ``rcond`` still works."""
    if rcond is not None:
        return _la.pinv(a, rcond, hermitian)
    if rtol is None:
        # The standard's default, also for integer input (computed in float64, as NumPy's
        # pinv does; NumPy's rtol=None path asks finfo() of the integer dtype and fails).
        a = _np.asarray(a)
        eps = _np.finfo(a.dtype if _np.issubdtype(a.dtype, _np.inexact) else _np.float64).eps
        rtol = max(a.shape[-2:], default=1) * eps
    return _la.pinv(a, hermitian=hermitian, rtol=rtol)
