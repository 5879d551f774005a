"""NumPy-level implementations behind wsarray functions that differ from a plain NumPy call.

Everything here takes and returns NumPy arrays; the public modules wrap these functions in
``wsarray._native.Function``, so they run through the engine (Array arguments unwrapped, every
allocation routed into the current workspace, results wrapped). Keeping them apart from the
modules that hold the Function objects also keeps Function -> function -> module globals ->
Function reference cycles out of the namespace.
"""

import numpy


def method_of_duck(a, name):
    """NumPy's ``_wrapfunc`` rule: ``np.clip(x)`` / ``np.argsort(x)`` call ``x.clip`` /
    ``x.argsort`` when ``x`` is neither a NumPy array, a NumPy scalar nor a list or tuple but has
    that method (a pandas Series stays a Series). True when NumPy would call it."""
    if isinstance(a, (numpy.ndarray, numpy.generic, list, tuple)):
        return False
    return callable(getattr(a, name, None))
