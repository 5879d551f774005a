"""Which function a line of a program's source belongs to, for allocation sites (tracemalloc
records a frame's file and line, not its function): read from the file's source with ``ast``,
once per file (again when the file changes)."""

import ast
import linecache
import os

_MAX_FILES = 512
_cache = {}  # filename -> (mtime, [(first line, last line, qualified name)] outer before inner)


def function_at(filename, lineno):
    """The qualified name of the innermost function or class whose lines hold ``lineno`` of
    ``filename`` (``Model.step``, ``main.<locals>.body``), ``<module>`` outside any, and '' when the
    source cannot be read or parsed (``python -c``, a file gone)."""
    try:
        mtime = os.stat(filename).st_mtime
    except (OSError, ValueError):
        mtime = None
    entry = _cache.get(filename)
    if entry is None or entry[0] != mtime:
        spans = None
        if mtime is not None:
            linecache.checkcache(filename)  # linecache keeps a changed file's old lines otherwise
        lines = linecache.getlines(filename) if mtime is not None else []
        if lines:
            try:
                spans = list(_spans(ast.parse("".join(lines)), ""))
            except (SyntaxError, ValueError, RecursionError, MemoryError):  # too deep for the parser
                spans = None
        if len(_cache) >= _MAX_FILES:
            _cache.clear()
        entry = _cache[filename] = (mtime, spans)
    spans = entry[1]
    if spans is None:
        return ""
    name = "<module>"
    for first, last, qualname in spans:  # a nested definition comes after its parent
        if first <= lineno <= last:
            name = qualname
    return name


def _spans(tree, prefix):
    """(first line, last line, qualified name) of every definition, each parent before what it
    holds; iterative: generated code nests statements deeper than Python's recursion limit."""
    stack = [(tree, prefix)]
    while stack:
        node, prefix = stack.pop()
        children = []
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                yield first, child.end_lineno, name
                children.append((child, name + ("." if isinstance(child, ast.ClassDef) else ".<locals>.")))
            else:
                children.append((child, prefix))
        stack.extend(reversed(children))
