"""Rewrites one of NumPy's test files to run against wsarray, as a new user would port it.

``import numpy as np``, ``import numpy``, ``from numpy import ...``, ``import numpy.linalg as LA``,
``from numpy.linalg import ...`` (any public module path) become the wsarray module of the same
path where wsarray offers it (probed by importing it: ``wsarray.ma``, which *is* ``numpy.ma``,
counts, but the submodules of such a NumPy module do not). ``numpy.testing`` stays NumPy's in the
form ``"numpy"``; in the form ``"wsarray"`` it becomes ``wsarray.testing`` for the names that
module has. Private modules and names (any path component starting with ``_``: ``numpy._core``,
``numpy.lib._function_base_impl``, ``numpy.testing._private.utils``) and the modules wsarray does
not offer stay NumPy's, and so does attribute access through a rewritten alias that reaches a
private part (``np._core.umath`` becomes ``numpy._core.umath``) or, in the ``"numpy"`` form,
``np.testing``. Line numbers are kept, so tracebacks point at the original lines.
"""

import ast
import importlib
import importlib.util
import sys

REFERENCE = "_numpy_reference"  # the name the rewritten file binds NumPy itself to
FORMS = ("numpy", "wsarray")  # whose assertions the rewritten file uses

_offered_cache = {}
_module_cache = {}


def _is_private(path):
    return any(part.startswith("_") and not part.startswith("__") for part in path.split("."))


def wsarray_module(numpy_path):
    """The wsarray module path that stands for the public NumPy module ``numpy_path``, or None."""
    if numpy_path != "numpy" and not numpy_path.startswith("numpy."):
        return None
    if _is_private(numpy_path):
        return None
    if numpy_path not in _offered_cache:
        _offered_cache[numpy_path] = _probe("wsarray" + numpy_path[len("numpy"):])
    return _offered_cache[numpy_path]


def _probe(candidate):
    parent, _, _ = candidate.rpartition(".")
    if parent:
        # Below a module that is NumPy's own object (wsarray.ma is numpy.ma), importing would
        # load a second copy of NumPy's submodule under a wsarray name: not offered.
        parent_module = sys.modules.get(parent) or _import(parent)
        if parent_module is None or not parent_module.__name__.startswith("wsarray"):
            return None
    return candidate if _import(candidate) is not None else None


def _import(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _is_module(path):
    """Is ``path`` (``numpy.lib.recfunctions``) a module of NumPy's, rather than a name in one?"""
    if path not in _module_cache:
        try:
            _module_cache[path] = importlib.util.find_spec(path) is not None
        except (ImportError, ValueError):
            _module_cache[path] = False
    return _module_cache[path]


def _has_name(module_path, name):
    module = _import(module_path)
    return module is not None and hasattr(module, name)


class _Rewriter:
    def __init__(self, source, form):
        if form not in FORMS:
            raise ValueError(f"form must be one of {FORMS}, not {form!r}")
        self.source = source
        self.form = form
        self.lines = source.splitlines(keepends=True)
        self.edits = []  # (start (line, col), end (line, col), text); lines 1-based
        self.aliases = {}  # name bound to a wsarray module -> the NumPy module path it replaced

    def target(self, numpy_path):
        """Where an import of the NumPy module ``numpy_path`` goes, in this form."""
        if numpy_path == "numpy.testing" or numpy_path.startswith("numpy.testing."):
            if self.form == "wsarray" and numpy_path == "numpy.testing":
                return "wsarray.testing"
            return None
        return wsarray_module(numpy_path)

    def rewrite(self):
        tree = ast.parse(self.source)
        chains = {}  # id(Name node) -> (Name node, longest attribute chain read from it)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                self._import(node)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                self._import_from(node)
            elif isinstance(node, ast.Attribute):
                chain, base = [node.attr], node.value
                while isinstance(base, ast.Attribute):
                    chain.append(base.attr)
                    base = base.value
                if isinstance(base, ast.Name) and len(chain) > len(chains.get(id(base), (None, ()))[1]):
                    chains[id(base)] = (base, chain[::-1])
        self._attributes(chains.values())
        self._reference_binding(tree)
        return self._apply()

    def _import(self, node):
        parts, changed = [], False
        for alias in node.names:
            target = self.target(alias.name)
            if target is None:
                parts.append(_alias_text(alias.name, alias.asname))
            elif alias.asname:
                parts.append(f"{target} as {alias.asname}")
                self.aliases[alias.asname] = alias.name
                changed = True
            elif "." not in alias.name:  # import numpy: the name numpy now stands for wsarray
                parts.append(f"{target} as {alias.name}")
                self.aliases[alias.name] = alias.name
                changed = True
            else:  # import numpy.linalg binds the name numpy: keep NumPy's (the path is NumPy's)
                parts.append(alias.name)
        if changed:
            self._replace(node, "import " + ", ".join(parts))

    def _import_from(self, node):
        target = self.target(node.module)
        if target is None:
            return
        ours, numpy_names = [], []
        for alias in node.names:
            private = alias.name.startswith("_") and not alias.name.startswith("__")
            keep_numpy = private or alias.name == "*"
            if target == "wsarray.testing" and not _has_name(target, alias.name):
                keep_numpy = True  # names wsarray.testing lacks come from numpy.testing
            module = f"{node.module}.{alias.name}"
            if _is_module(module) and wsarray_module(module) is None:
                keep_numpy = True  # a NumPy module wsarray does not offer (numpy.lib.recfunctions)
            (numpy_names if keep_numpy else ours).append(_alias_text(alias.name, alias.asname))
            if not keep_numpy:
                if wsarray_module(module) is not None:
                    self.aliases[alias.asname or alias.name] = module
        statements = []
        if ours:
            statements.append(f"from {target} import ({', '.join(ours)})")
        if numpy_names:
            statements.append(f"from {node.module} import ({', '.join(numpy_names)})")
        self._replace(node, "; ".join(statements))

    def _replace(self, node, text):
        # Keep the line count: pad inside the last statement's parentheses, or with continuations.
        extra = node.end_lineno - node.lineno
        if extra:
            text = text[:-1] + "\n" * extra + ")" if text.endswith(")") else text + " \\\n" * extra
        self.edits.append((self._ast_position(node.lineno, node.col_offset),
                           self._ast_position(node.end_lineno, node.end_col_offset), text))

    def _ast_position(self, line, byte_col):
        """ast columns count UTF-8 bytes; edits count characters."""
        return line, len(self.lines[line - 1].encode()[:byte_col].decode())

    def _attributes(self, chains):
        """``alias.<chain>`` reaching a private part (or, in the numpy form, ``alias.testing``) goes
        to NumPy: the alias is replaced by the NumPy module it stood for."""
        for name, chain in chains:
            numpy_path = self.aliases.get(name.id)
            if numpy_path is None:
                continue
            reaches_numpy = _is_private(".".join(chain))
            if self.form == "numpy" and f"{numpy_path}.{chain[0]}".startswith("numpy.testing"):
                reaches_numpy = True
            if reaches_numpy:
                self.edits.append((self._ast_position(name.lineno, name.col_offset),
                                   self._ast_position(name.end_lineno, name.end_col_offset),
                                   REFERENCE + numpy_path[len("numpy"):]))

    def _reference_binding(self, tree):
        """Bind NumPy to ``REFERENCE`` on the line of the first top-level import (no line shift)."""
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                end = self._ast_position(node.end_lineno, node.end_col_offset)
                self.edits.append((end, end, f"; import numpy as {REFERENCE}"))
                return
        self.edits.append(((1, 0), (1, 0), f"import numpy as {REFERENCE}\n"))

    def _apply(self):
        offsets = [0]
        for line in self.lines:
            offsets.append(offsets[-1] + len(line))

        def position(line_col):
            line, col = line_col
            return offsets[line - 1] + col

        out = self.source
        for start, end, text in sorted(self.edits, key=lambda e: (position(e[0]), position(e[1])),
                                       reverse=True):
            out = out[:position(start)] + text + out[position(end):]
        return out


def _alias_text(name, asname):
    return f"{name} as {asname}" if asname else name


def rewrite(source, form):
    """``source`` (a NumPy test file) rewritten for wsarray; ``form`` picks the assertions'
    module: ``"numpy"`` (numpy.testing) or ``"wsarray"`` (wsarray.testing where it has the name)."""
    return _Rewriter(source, form).rewrite()
