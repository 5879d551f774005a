"""MkDocs hook: the API reference page (api.md), generated at build time from the installed wsarray's
docstrings, so it cannot drift from the code. wsarray's own API only: NumPy's names are NumPy's
(see numpy.org/doc), the array API standard's are the standard's."""

import inspect

from mkdocs.structure.files import File

SECTIONS = [
    ("Workspaces", "wsarray", ["workspace", "transient_workspace", "Workspace", "WorkspaceConfig", "scope_out",
                               "isolated", "parse_size", "WorkspaceError", "WorkspaceMemoryError", "Array",
                               "DeviceArray", "Device", "fuse", "show_config"]),
    ("The memory manager and seeing memory", "wsarray.memory", None),
    ("The data pipeline", "wsarray.data", None),
    ("Parallel inference and training", "wsarray.parallel", None),
    ("Evaluation", "wsarray.evaluation", None),
    ("Dask", "wsarray.dask", None),
    ("CUDA", "wsarray.cuda", None),
]


def _signature(obj):
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        doc = inspect.getdoc(obj) or ""
        first = doc.splitlines()[0] if doc else ""
        return first[first.index("("):] if "(" in first and first.split("(")[0].isidentifier() else "(...)"


def _entry(module_name, name, obj):
    kind = "class" if inspect.isclass(obj) else "function" if callable(obj) else "value"
    head = f"{name}{_signature(obj)}" if kind != "value" else f"{name} = {obj!r}"
    doc = inspect.getdoc(obj) if kind != "value" else ""
    lines = [f"### `{module_name}.{name}`", "", "```text", head, "```", ""]
    if doc:
        lines += [doc, ""]
    return lines


def render():
    import importlib
    out = ["# API reference", "",
           "wsarray's own names, generated from their docstrings. Everything else in `wsarray` is "
           "NumPy's API ([numpy.org/doc](https://numpy.org/doc/stable/reference/)) or the array API "
           "standard's ([data-apis.org](https://data-apis.org/array-api/)).", ""]
    for title, module_name, names in SECTIONS:
        module = importlib.import_module(module_name)
        names = names or sorted(getattr(module, "__all__", []))
        out += [f"## {title}: `{module_name}`", ""]
        for name in names:
            obj = getattr(module, name, None)
            if obj is None:
                continue
            out += _entry(module_name, name, obj)
    return "\n".join(out) + "\n"


def on_files(files, config):
    files.append(File.generated(config, "api.md", content=render()))
    return files
