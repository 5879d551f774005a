"""The house's rules, checked from the code's own import and #include lines (issue 35):

* no import circle among wsarray's Python modules (a package importing its own submodules aside;
  imports inside functions count too);
* no module of a sub-package imports names from the package root ``wsarray/__init__.py`` (it
  imports them from the modules that define them; importing a submodule, ``from .. import memory``,
  is fine);
* no pair of C++ units (a ``.h`` with its ``.cpp``) that include each other;
* no C++ line imports a wsarray Python module by name: the package registers hooks instead
  (src/python/common/hooks.h);
* NumPy code runs routed into a workspace only through the routed calls of
  src/python/allocation/numpy_alloc.h (routed_call, try_routed_call, routed_new_array): nothing
  else makes a RouteGuard;
* the bindings' folders are layers (``BINDING_LAYERS``, lowest first): a file includes bindings
  headers of its own layer or of layers below it, never above (main.cpp, at the root, sees all).
"""

import ast
import os
import re

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE = os.path.join(REPO, "wsarray")
EXTENSIONS = {"wsarray._native"}  # compiled modules (no .py file)

# Programs that use the public namespace as a user would (`import wsarray as wnp`): the demo and
# the worked example the README, the demo and the tests share.
PROGRAMS = {"wsarray._demo", "wsarray.data._example"}

# Pairs known and left, each with its reason (none now: the block cache reaches a workspace only
# through its CacheShare, src/core/memory/block_cache.h).
KNOWN_CPP_PAIRS = set()

# src/python's folders, lowest first (README "Layout" says what each holds).
BINDING_LAYERS = ["common", "numpy_access", "allocation", "results", "workspaces", "calls", "fast", "types"]


def _modules():
    found = {}
    for folder, _, files in os.walk(PACKAGE):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                name = os.path.relpath(path, REPO)[:-3].replace(os.sep, ".")
                found[name.removesuffix(".__init__")] = path
    return found


def _imports(modules):
    """module -> modules it imports (resolved), and the names sub-package modules take from the root."""
    edges, root_names = {m: set() for m in modules}, []
    for module, path in modules.items():
        is_package = path.endswith("__init__.py")
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = module.split(".") if is_package else module.split(".")[:-1]
                    base = parts[: len(parts) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if not target.startswith("wsarray"):
                    continue
                submodules = [f"{target}.{a.name}" for a in node.names
                              if f"{target}.{a.name}" in modules or f"{target}.{a.name}" in EXTENSIONS]
                names = [a.name for a in node.names if f"{target}.{a.name}" not in submodules]
                edges[module].update(s for s in submodules if s in modules)
                if names and target in modules:
                    edges[module].add(target)
                if target == "wsarray" and names and module != "wsarray":
                    root_names.append((module, names))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in modules:
                        edges[module].add(alias.name)
                        if alias.name == "wsarray" and module != "wsarray" and module not in PROGRAMS:
                            root_names.append((module, ["(the package itself)"]))
    for module, path in modules.items():  # a package importing its own submodules is no circle
        if path.endswith("__init__.py"):
            edges[module] = {t for t in edges[module] if not t.startswith(module + ".")}
    return edges, root_names


def _circles(edges):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def _cpp_files():
    for folder, _, files in os.walk(os.path.join(REPO, "src")):
        for f in files:
            if f.endswith((".h", ".cpp")):
                path = os.path.join(folder, f)
                yield os.path.relpath(path, REPO), path


def test_no_python_import_circle_and_no_imports_from_the_package_root():
    edges, root_names = _imports(_modules())
    assert len(edges) > 100  # the walk found the package
    assert _circles(edges) == []
    assert root_names == []


def test_no_cpp_units_include_each_other():
    headers = {os.path.basename(rel): rel for rel, _ in _cpp_files() if rel.endswith(".h")}
    includes = {}
    for rel, path in _cpp_files():
        unit = rel.rsplit(".", 1)[0]
        with open(path, encoding="utf-8") as f:
            for target in re.findall(r'#include "([^"]+)"', f.read()):
                resolved = os.path.normpath(os.path.join(os.path.dirname(rel), target))
                if not os.path.exists(os.path.join(REPO, resolved)):
                    resolved = headers.get(os.path.basename(target), resolved)
                other = resolved.rsplit(".", 1)[0]
                if other != unit:
                    includes.setdefault(unit, set()).add(other)
    pairs = {tuple(sorted((a, b))) for a, targets in includes.items() for b in targets
             if a in includes.get(b, ())}
    assert len(includes) > 30
    assert pairs == KNOWN_CPP_PAIRS


def test_no_cpp_imports_a_wsarray_module_by_name():
    found = []
    for rel, path in _cpp_files():
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if re.search(r'import_\("wsarray|PyImport_ImportModule\("wsarray|PyImport_Import\w*\("wsarray', line):
                    found.append(f"{rel}:{number}: {line.strip()}")
    assert found == []


def test_binding_folders_are_layers():
    bindings = os.path.join(REPO, "src", "python")
    folders = sorted(d for d in os.listdir(bindings) if os.path.isdir(os.path.join(bindings, d)))
    assert folders == sorted(BINDING_LAYERS)
    rank = {layer: i for i, layer in enumerate(BINDING_LAYERS)}
    upward, checked = [], 0
    for rel, path in _cpp_files():
        parts = rel.split(os.sep)
        if parts[:2] != ["src", "python"] or len(parts) != 4:
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
            upward += [f"{rel} includes {t} (name its folder)" for t in re.findall(r'#include "([^"/]+)"', text)]
            for target in re.findall(r'#include "([^"/]+)/[^"]+"', text):
                if target in rank:
                    checked += 1
                    if rank[target] > rank[parts[2]]:
                        upward.append(f"{rel} includes {target}/")
    assert checked > 100
    assert upward == []


def test_only_the_routed_calls_make_a_route_guard():
    makers = []
    for rel, path in _cpp_files():
        if rel.startswith(os.path.join("src", "python", "allocation")):
            continue
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                code = line.split("//")[0]
                if re.search(r"\bRouteGuard\b", code):
                    makers.append(f"{rel}:{number}: {line.strip()}")
    assert makers == []
