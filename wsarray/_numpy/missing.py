"""NumPy names wsarray does not provide, and the submodules it imports on first use.

``wsarray.<name>`` for a NumPy name that is in none of wsarray's modules is not silently forwarded:
it raises an ``AttributeError`` saying that wsarray does not provide it and why. The list of such
names is NOT_PROVIDED_BY_DESIGN below (tests compare it with ``numpy.__all__``).
"""

import numpy as _np

__all__ = ["NOT_PROVIDED_BY_DESIGN", "__getattr__"]

_LAZY_SUBMODULES = ("ctypeslib", "polynomial", "random", "testing", "typing")


# NumPy's public names (numpy.__all__) that wsarray does not provide, each with the reason; the
# module __getattr__ below says so when one is asked for.
_MODULE = ("wsarray does not wrap this NumPy module; call numpy's functions on numpy.asarray(x) "
           "(their results are plain NumPy arrays outside every workspace)")
NOT_PROVIDED_BY_DESIGN = {
    "core": _MODULE, "f2py": _MODULE,
    "test": "run numpy.test() for NumPy's own test suite",
}


def __getattr__(name):
    """Module ``__getattr__`` of wsarray: the submodules imported on first use, else a clear error
    for NumPy names wsarray does not provide. Names NumPy itself lacks get NumPy's own message (e.g.
    ``float_``, removed in NumPy 2)."""
    if name in _LAZY_SUBMODULES:  # imported on first use, as NumPy does (numpy.testing is heavy)
        import importlib

        return importlib.import_module(f"wsarray.{name}")
    if name.startswith("_"):
        raise AttributeError(f"module 'wsarray' has no attribute '{name}'")
    if name == "chararray":  # NumPy's deprecated alias, with NumPy's warning
        import warnings

        warnings.warn("`np.chararray` is deprecated and will be removed from the main namespace in the "
                      "future. Use an array with a string or bytes dtype instead.", DeprecationWarning,
                      stacklevel=2)
        from .. import char

        return char.chararray
    try:
        getattr(_np, name)
    except AttributeError as e:
        raise AttributeError(str(e).replace("module 'numpy'", "module 'wsarray'")) from None
    reason = NOT_PROVIDED_BY_DESIGN.get(name, "it is not wrapped by wsarray; call numpy." + name +
                               " on numpy.asarray(x) if a plain NumPy result is acceptable")
    raise AttributeError(f"module 'wsarray' has no attribute '{name}': wsarray does not provide "
                         f"numpy.{name} ({reason})")
