"""NumPy's names that wsarray does not define itself are NumPy's own objects.

The rule, for ``wsarray`` and every submodule that stands for a NumPy module (``linalg``, ``fft``,
``random``, ``testing``, ``lib`` and its modules, ``char``, ``strings``, ``polynomial``,
``ctypeslib``, ``typing``, ``dtypes``, ``exceptions``): an attribute of NumPy's module that the
wsarray module does not define resolves to NumPy's object itself, private and deprecated names
included (``np._NoValue``, ``np.linalg._linalg.EigResult``, ``np.core``, ``np.lib.math``), with the
deprecation warnings NumPy gives for them. Libraries read such names at import time; one missing
attribute would take the whole library down. What wsarray defines (the routed functions, its own
classes) wins; a name NumPy lacks too raises NumPy's AttributeError, naming wsarray's module.
Special module attributes (``__path__``, ``__file__``, ...) stay the wsarray module's own.

``import wsarray.<path>`` for a module wsarray does not have imports ``numpy.<path>`` and binds
that very module under the wsarray name (``import wsarray.linalg._linalg``, ``wsarray.rec``,
``wsarray.lib.mixins``): the classes in it are NumPy's, never a second copy.
"""

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

__all__ = ["numpy_module_getattr", "install_import_fallback"]


def numpy_module_getattr(module_name, numpy_module_name):
    """A module ``__getattr__`` for ``module_name`` that falls back to ``numpy_module_name``."""

    def __getattr__(name):  # noqa: N807  (the module attribute Python looks up)
        if not (name.startswith("__") and name.endswith("__")):
            numpy_module = importlib.import_module(numpy_module_name)
            try:
                return vars(numpy_module)[name]
            except KeyError:
                pass
            try:
                return _numpy_module_getattr(numpy_module, name)
            except AttributeError as e:
                message = str(e).replace(f"module '{numpy_module_name}'", f"module '{module_name}'")
                raise AttributeError(message) from None
        raise AttributeError(f"module '{module_name}' has no attribute '{name}'")

    return __getattr__


def _numpy_module_getattr(numpy_module, name):
    """NumPy's module ``__getattr__`` (its deprecated aliases), its warnings pointing at the line
    that read the name, as NumPy's do (not at this file)."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            return getattr(numpy_module, name)
    finally:  # NumPy warns before it raises too (np.bytes: FutureWarning, then AttributeError)
        if caught:
            # The reader: the first frame outside wsarray's __getattr__ functions (wsarray's own
            # __getattr__ adds one over a submodule's).
            level, frame = 1, sys._getframe()
            while frame is not None and frame.f_globals.get("__name__", "").startswith("wsarray._numpy"):
                frame, level = frame.f_back, level + 1
            for warning in caught:
                warnings.warn(warning.message, stacklevel=level)


class _NumpyModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``wsarray.<path>`` as NumPy's ``numpy.<path>`` when no other finder has it. First in
    ``sys.meta_path``: below a module that is NumPy's (``wsarray.testing._private``) the other
    finders would load a second copy of NumPy's file under the wsarray name; below wsarray's own
    modules the other finders are asked first."""

    def __init__(self):
        self._numpy_specs = {}  # wsarray name -> the NumPy module's own spec, put back after the import

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("wsarray."):
            return None
        numpy_name = "numpy." + fullname[len("wsarray."):]
        parent_name = fullname.rpartition(".")[0]
        parent = sys.modules.get(parent_name)
        if parent is None or getattr(parent, "__name__", None) == parent_name:  # wsarray's own
            for finder in sys.meta_path:
                if finder is not self and getattr(finder, "find_spec", None) is not None:
                    if finder.find_spec(fullname, path, target) is not None:
                        return None
        try:
            if importlib.util.find_spec(numpy_name) is None:
                return None
        except (ImportError, ValueError):  # a parent NumPy does not have either
            return None
        return importlib.util.spec_from_loader(fullname, self, origin=numpy_name)

    def create_module(self, spec):
        module = importlib.import_module(spec.origin)  # NumPy's module itself
        self._numpy_specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module):
        # NumPy executed it already (sys.modules binds it under the wsarray name too); the import
        # system set the module's __spec__ to the wsarray name's: NumPy's own goes back.
        for name, spec in list(self._numpy_specs.items()):
            if spec is not None and spec.name == module.__name__:
                module.__spec__ = spec
                del self._numpy_specs[name]


_finder = _NumpyModules()


def install_import_fallback():
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
