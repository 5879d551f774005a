"""The module ``__getattr__`` of wsarray: the submodules it imports on first use, and NumPy's own
objects for every other name NumPy has (wsarray/_numpy/fallback.py states the rule)."""

from .fallback import numpy_module_getattr

__all__ = ["__getattr__"]

_LAZY_SUBMODULES = ("ctypeslib", "polynomial", "random", "testing", "typing")


def __getattr__(name):
    """Module ``__getattr__`` of wsarray: the submodules imported on first use, else NumPy's own
    object for a name wsarray does not define (wsarray/_numpy/fallback.py: ``np._NoValue``,
    ``np.core`` with NumPy's deprecation warning, ...); a name NumPy lacks too gets NumPy's own
    message (``float_``, removed in NumPy 2), naming wsarray."""
    if name in _LAZY_SUBMODULES:  # imported on first use, as NumPy does (numpy.testing is heavy)
        import importlib

        return importlib.import_module(f"wsarray.{name}")
    if name == "chararray":  # NumPy's deprecated alias, with NumPy's warning, of wsarray's class
        import warnings

        warnings.warn("`np.chararray` is deprecated and will be removed from the main namespace in the "
                      "future. Use an array with a string or bytes dtype instead.", DeprecationWarning,
                      stacklevel=2)
        from .. import char

        return char.chararray
    return _numpy_getattr(name)


_numpy_getattr = numpy_module_getattr("wsarray", "numpy")
