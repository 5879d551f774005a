"""``wsarray.cuda``: whether CUDA arrays can be had here, and why not, asked of CuPy lazily.

``import wsarray`` never imports CuPy; the first question about CUDA does (``status()``,
``wsarray.__array_namespace_info__().devices()``, ``np.memory.device_info()``, a ``device="cuda:N"``
argument), and the answer is cached for the process. Three things can be missing, and the error says
which: CuPy itself (``pip install "wsarray[cuda12]"`` or ``"wsarray[cuda13]"``), a CUDA driver (CuPy
imports without one; ``getDeviceCount()`` raising is the real test), or a GPU (the driver reports
none, or fewer than the device number asked for).

With a usable GPU, ``device="cuda:N"`` gives arrays on it (wsarray._devices.array; CuPy is the
engine, wsarray/cuda/engine.py) and workspaces of its memory (wsarray.cuda.allocator.CudaWorkspace,
made by ``wsarray.workspace(name, WorkspaceConfig(device="cuda:N"))``). This module is the CUDA
device kind: importing it registers the kind (wsarray/_devices/kinds.py), which the rest of wsarray
asks; nothing else in wsarray names CUDA.
"""

import importlib
import threading

from .._devices import kinds as _kinds

__all__ = ["CudaUnavailableError", "device_count", "device_info", "require", "status"]

INSTALL_HINT = 'pip install "wsarray[cuda12]" (CUDA 12) or "wsarray[cuda13]" (CUDA 13)'


class CudaUnavailableError(ValueError, RuntimeError):
    """A CUDA device was asked for where it cannot be used; the message says what is missing.
    A ValueError (an unusable ``device=`` argument, as NumPy and the array API raise) and a
    RuntimeError (the environment lacks something)."""


_lock = threading.RLock()
_probe = None  # the cached status() answer


def _import_cupy():
    """CuPy, imported (ImportError when it is not installed). Tests replace this function."""
    return importlib.import_module("cupy")


def status():
    """What CUDA looks like from here, probed once per process (``_reset()`` probes again).

    Returns a dict: ``usable`` (a GPU can be used through CuPy), ``missing`` (``None``, ``"cupy"``,
    ``"driver"`` or ``"device"``), ``devices`` (GPU count), ``cupy`` (CuPy's version or None) and
    ``reason`` (a sentence for messages).
    """
    global _probe
    with _lock:
        if _probe is None:
            _probe = _run_probe()
        return dict(_probe)


def _run_probe():
    try:
        cupy = _import_cupy()
    except ImportError as e:
        return {"usable": False, "missing": "cupy", "devices": 0, "cupy": None,
                "reason": f"CuPy is not installed ({e}); {INSTALL_HINT}"}
    version = getattr(cupy, "__version__", "?")
    try:
        count = int(cupy.cuda.runtime.getDeviceCount())
    except Exception as e:  # noqa: BLE001 - CUDARuntimeError and friends: reported, never raised here
        return {"usable": False, "missing": "driver", "devices": 0, "cupy": version,
                "reason": f"CuPy {version} is installed but no CUDA driver could be used "
                          f"({type(e).__name__}: {e})"}
    if count <= 0:
        return {"usable": False, "missing": "device", "devices": 0, "cupy": version,
                "reason": f"CuPy {version} and a CUDA driver are installed but there is no GPU"}
    return {"usable": True, "missing": None, "devices": count, "cupy": version,
            "reason": f"CuPy {version}, {count} GPU(s)"}


def _reset():
    """Forget the cached probe (tests; a process that gained a driver)."""
    global _probe
    with _lock:
        _probe = None


def device_count():
    """GPUs usable through CuPy (0 when CuPy, a driver or a GPU is missing)."""
    return status()["devices"]


def require(device, fn):
    """Check that CUDA device ``device`` (a ``wsarray.Device``) asked for by ``wsarray.<fn>()`` can be
    used: raise CudaUnavailableError saying what is missing (CuPy, a driver, a GPU, that GPU)."""
    s = status()
    if not s["usable"]:
        raise CudaUnavailableError(f"wsarray.{fn}(): device {str(device)!r} is not available: {s['reason']}")
    if device.index >= s["devices"]:
        raise CudaUnavailableError(f"wsarray.{fn}(): device {str(device)!r} does not exist: {s['reason']} "
                                   f"(cuda:0 to cuda:{s['devices'] - 1})")


def device_info():
    """Free and total memory per usable GPU, and CuPy's pool: a list of dicts (``device``,
    ``free``, ``total``, ``pool_used``, ``pool_total``); empty when no GPU is usable."""
    s = status()
    if not s["usable"]:
        return []
    cupy = _import_cupy()
    pool = cupy.get_default_memory_pool()
    out = []
    for i in range(s["devices"]):
        with cupy.cuda.Device(i):  # memGetInfo and the pool's counts are the current device's
            free, total = cupy.cuda.runtime.memGetInfo()
            out.append({"device": f"cuda:{i}", "free": int(free), "total": int(total),
                        "pool_used": int(pool.used_bytes()), "pool_total": int(pool.total_bytes())})
    return out


class _CudaKind:
    """The device kind "cuda" (wsarray/_devices/kinds.py). Parsing takes any GPU number; whether it
    exists is asked of CuPy where a device is used (``require``)."""

    name = "cuda"
    dlpack_types = (2, 3, 13)  # kDLCUDA, kDLCUDAHost, kDLCUDAManaged

    def accepts(self, index):
        return True

    def usable(self):
        return range(device_count())

    def require(self, device, fn):
        require(device, fn)

    def engine(self, device):
        from .engine import CupyEngine

        return CupyEngine(device)

    def workspace(self, name, config, device):
        from .allocator import CudaWorkspace

        return CudaWorkspace(name, config, device.index)

    def from_dlpack(self, obj, index, copy):
        """An array on GPU ``index`` over ``obj``'s memory (CuPy's from_dlpack: no copy, no trip
        through the host)."""
        from .._devices.dispatch import from_dlpack_on

        return from_dlpack_on(f"cuda:{index}", obj, copy)


_kinds.register(_CudaKind())
