"""The engines a benchmark case runs on, and how each one is timed.

An engine is a name plus a way to build the callable for a case: NumPy (the baseline), wsarray
outside any workspace ("wsarray"), wsarray with a workspace cycle entered and left around every
iteration ("wsarray+ws"), and the peers a user would pick instead where they are installed:
PyTorch (CPU) and numexpr.
"""

import importlib
import resource
import time

__all__ = ["available_engines", "in_workspace", "measure", "hwm_kb", "peers_info", "rss_peak_reset",
           "rss_kb"]


def _try_import(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def available_engines():
    """{engine name: module} for every engine importable here (numpy and wsarray always)."""
    import numpy

    import wsarray

    engines = {"numpy": numpy, "wsarray": wsarray, "wsarray+ws": wsarray}
    torch = _try_import("torch")
    if torch is not None:
        engines["torch"] = torch
    numexpr = _try_import("numexpr")
    if numexpr is not None:
        engines["numexpr"] = numexpr
    return engines


def peers_info():
    """Versions, thread counts and the BLAS kernel NumPy runs (threadpoolctl, when installed)."""
    import os

    import numpy

    import wsarray

    info = {"numpy": numpy.__version__, "wsarray": wsarray.__wsarray_version__,
            "wsarray_threads": os.environ.get("WSARRAY_NUM_THREADS", "default (CPU count, at most 8)"),
            "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
            "OPENBLAS_L2_SIZE": os.environ.get("OPENBLAS_L2_SIZE"), "cpus": os.cpu_count()}
    torch = _try_import("torch")
    if torch is not None:
        info["torch"] = torch.__version__
        info["torch_threads"] = torch.get_num_threads()
    numexpr = _try_import("numexpr")
    if numexpr is not None:
        info["numexpr"] = numexpr.__version__
        info["numexpr_threads"] = numexpr.get_num_threads()
    threadpoolctl = _try_import("threadpoolctl")
    if threadpoolctl is not None:
        info["threadpools"] = [
            {k: p.get(k) for k in ("internal_api", "version", "num_threads", "architecture", "prefix")}
            for p in threadpoolctl.threadpool_info()]
    return info


def in_workspace(ws, body):
    """`body` run inside one cycle of workspace `ws` (entered and left every call)."""
    def run():
        with ws:
            body()
    return run


def rss_kb():
    """Current resident set size in KiB (Linux /proc)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def rss_peak_reset():
    """Reset the kernel's peak-RSS mark (VmHWM) so that the next peak belongs to the next run.
    Returns False where /proc/self/clear_refs is not writable (then peaks are process-wide)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def hwm_kb():
    """Peak resident set size in KiB since the last rss_peak_reset() (Linux /proc)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def measure(fn, number, around=None):
    """Run `fn` `number` times (inside the context manager `around`, when given): (seconds per
    call, minor page faults per call, peak RSS KiB above the RSS at the start)."""
    base = rss_kb() if rss_peak_reset() else None
    f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    t0 = time.perf_counter()
    if around is None:
        for _ in range(number):
            fn()
    else:
        with around:
            for _ in range(number):
                fn()
    dt = time.perf_counter() - t0
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0
    peak = hwm_kb() - base if base is not None else None
    return dt / number, faults / number, peak
