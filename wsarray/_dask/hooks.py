"""Registration without a call: what Dask's entry points run.

``on_dask_import`` is wsarray's ``dask.sizeof`` entry point, which Dask runs in every process
while ``import dask`` executes (before ``dask.tokenize`` and ``dask.array`` exist, so nothing of
them may be imported here). It registers ``sizeof`` for wsarray arrays at once, and arranges for
the token function and ``wsarray.dask.register()`` to run as soon as ``dask.tokenize`` and
``dask.array`` have been imported (at once if they already are): a one-shot import hook on
``sys.meta_path`` that lets the normal finders load the module and calls back after it executed.
A failing registration warns and never breaks the user's import. The ``"wsarray"`` creation
backend is also found through Dask's ``dask.array.backends`` entry point (``backend.py``).
"""
import importlib.abc
import sys
import threading
import warnings

_lock = threading.RLock()


def _warn_failure(what, error):
    warnings.warn(f"wsarray.dask: registering wsarray with {what} failed ({type(error).__name__}: "
                  f"{error}); call wsarray.dask.register() to see the error", RuntimeWarning,
                  stacklevel=2)


def _register_token():
    from .registry import _register_token as register_token

    register_token()


def _register_array():
    from .registry import register

    register()


def _register_serialization():
    from .registry import _register_serialization as register_serialization

    register_serialization()


def on_dask_import(sizeof):
    """Entry point ``dask.sizeof``: called with Dask's ``sizeof`` dispatch during ``import dask``."""
    from .._native import Array
    from .registry import _sizeof

    sizeof.register(Array, _sizeof)
    after_import("dask.tokenize", _register_token)
    after_import("dask.array", _register_array)
    after_import("distributed.protocol", _register_serialization)


def after_import(name, callback):
    """Call ``callback()`` once module ``name`` is imported: now if it is, else right after it
    executes (a failure warns)."""
    with _lock:
        module = sys.modules.get(name)
        spec = getattr(module, "__spec__", None)
        loaded = module is not None and not getattr(spec, "_initializing", False)
        if not loaded:
            for finder in sys.meta_path:
                if isinstance(finder, _AfterImport) and finder.name == name:
                    finder.callbacks.append(callback)
                    return
            sys.meta_path.insert(0, _AfterImport(name, callback))
            return
    _call(name, callback)


def _call(name, callback):
    try:
        callback()
    except Exception as e:  # noqa: BLE001 - reported as a warning; the import goes on
        _warn_failure(name, e)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds module ``name`` through the other finders and wraps its loader (once)."""

    def __init__(self, name, callback):
        self.name = name
        self.callbacks = [callback]

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        with _lock:
            if self not in sys.meta_path:
                return None
            sys.meta_path.remove(self)
        for finder in list(sys.meta_path):
            find_spec = getattr(finder, "find_spec", None)
            if find_spec is None:
                continue
            spec = find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _CallbackLoader(spec.loader, self)
        return spec


class _CallbackLoader(importlib.abc.Loader):
    """The module's own loader, then the callbacks; puts the original loader back on the module."""

    def __init__(self, loader, hook):
        self._loader = loader
        self._hook = hook

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        try:
            self._loader.exec_module(module)
        finally:
            module.__loader__ = self._loader
            if getattr(module, "__spec__", None) is not None:
                module.__spec__.loader = self._loader
        for callback in self._hook.callbacks:
            _call(self._hook.name, callback)

    def __getattr__(self, attr):
        return getattr(self._loader, attr)
