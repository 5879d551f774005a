"""``wsarray.show_config()``: the environment report users paste into bug reports.

wsarray's version and NumPy's, the build of the compiled core (compiler, build type, sanitizers,
the instruction set its kernels run), its thread pool, the optional extras and whether each is
importable (CuPy and the CUDA devices it sees, Dask, tqdm, matplotlib), and the memory the process
may still use. Optional packages are looked up, not imported, except CuPy, asked for its devices.
"""
import importlib.metadata as _metadata
import importlib.util as _util
import json as _json
import os as _os
import platform as _platform
import sys as _sys
from typing import Any, Literal, overload

__all__ = ["show_config"]

# extra -> the distributions it installs (pyproject.toml's optional-dependencies).
EXTRAS = {
    "cuda12": ["cupy-cuda12x"],
    "cuda13": ["cupy-cuda13x"],
    "dask": ["dask", "distributed"],
    "progress": ["tqdm"],
    "plot": ["matplotlib"],
    "parallel": ["threadpoolctl"],
}
_IMPORT_NAMES = {"cupy-cuda12x": "cupy", "cupy-cuda13x": "cupy"}


def _version(dist):
    try:
        return _metadata.version(dist)
    except _metadata.PackageNotFoundError:
        return None


def _cuda_devices():
    """CuPy's view of the GPUs: (count, message). Never raises."""
    if _util.find_spec("cupy") is None:
        return 0, "CuPy not installed"
    try:
        import cupy

        n = cupy.cuda.runtime.getDeviceCount()
        return n, f"{n} device(s)"
    except Exception as e:  # noqa: BLE001 - no driver / no device: reported, not raised
        return 0, f"CuPy installed, no usable device ({type(e).__name__}: {e})"


def _report():
    from importlib.metadata import version as dist_version

    from . import _native

    build = _native._build_info()
    extras = {}
    for extra, dists in EXTRAS.items():
        found = {}
        for dist in dists:
            version = _version(dist)
            importable = _util.find_spec(_IMPORT_NAMES.get(dist, dist)) is not None
            found[dist] = version if version and importable else None
        extras[extra] = found
    count, cuda = _cuda_devices() if any(extras[e][d] for e in ("cuda12", "cuda13")
                                         for d in extras[e]) else (0, "CuPy not installed")
    return {
        "wsarray": {"version": dist_version("wsarray"), "location": _os.path.dirname(__file__)},
        "numpy": {"version": _version("numpy"), "blas": _blas()},
        "python": {"version": _sys.version.split()[0], "platform": _platform.platform()},
        "build": {k: build[k] for k in ("compiler", "cxx_standard", "build_type", "sanitizers",
                                        "kernels", "nanobind")},
        "threads": {"pool": build["threads"],
                    "WSARRAY_NUM_THREADS": _os.environ.get("WSARRAY_NUM_THREADS")},
        "extras": extras,
        "cuda": {"devices": count, "status": cuda},
        "memory": {"available_bytes": build["available_memory"]},
    }


def _blas():
    try:
        import numpy

        cfg = numpy.show_config(mode="dicts")
        blas = cfg.get("Build Dependencies", {}).get("blas", {})
        return f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
    except Exception:  # noqa: BLE001 - a report never fails on a missing detail
        return "?"


@overload
def show_config(mode: Literal["stdout"] = "stdout") -> None: ...
@overload
def show_config(mode: Literal["dicts"]) -> dict[str, Any]: ...
def show_config(mode: Literal["stdout", "dicts"] = "stdout") -> dict[str, Any] | None:
    """Print wsarray's environment report (``mode="stdout"``) or return it (``mode="dicts"``).

    Paste the printed text into bug reports. ``python -m wsarray --info`` prints the same.
    """
    if mode not in ("stdout", "dicts"):
        raise ValueError(f"wsarray.show_config(): mode must be 'stdout' or 'dicts', not {mode!r}")
    report = _report()
    if mode == "dicts":
        return report
    print(_format(report))
    return None


def _format(r):
    gib = r["memory"]["available_bytes"] / 2**30
    lines = [
        f"wsarray {r['wsarray']['version']}  ({r['wsarray']['location']})",
        f"numpy {r['numpy']['version']}  (BLAS: {r['numpy']['blas']})",
        f"python {r['python']['version']}  on {r['python']['platform']}",
        "build:",
    ]
    lines += [f"  {k:<13}{v}" for k, v in r["build"].items()]
    env = r["threads"]["WSARRAY_NUM_THREADS"]
    lines.append(f"thread pool:   {r['threads']['pool']} threads"
                 + (f" (WSARRAY_NUM_THREADS={env})" if env else ""))
    lines.append("extras (pip install \"wsarray[<extra>]\"):")
    for extra, found in r["extras"].items():
        shown = ", ".join(f"{d} {v}" if v else f"{d} missing" for d, v in found.items())
        lines.append(f"  {extra:<13}{shown}")
    lines.append(f"cuda:          {r['cuda']['status']}")
    lines.append(f"memory:        {gib:.1f} GiB available to this process")
    return "\n".join(lines)


def _json_report():
    return _json.dumps(_report(), indent=2)
