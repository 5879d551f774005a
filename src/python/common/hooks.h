/// src/python/common/hooks.h -- what the compiled core asks of the Python package, handed over by the
/// package at import (wsarray/__init__.py: _native._set_hook(name, value)). The core never imports
/// a wsarray module by name: the package above it decides what answers, and the core has no
/// import-order assumptions about it.
#pragma once
#include <nanobind/nanobind.h>

namespace wsa_py {

namespace nb = nanobind;

enum class Hook {
    Namespace,     ///< the wsarray module: __array_namespace__, pickling's rebuild functions
    HostToDevice,  ///< host_to_device(array, device, fn): Array.to_device()
    ConfigDevice,  ///< config_device(device, fn) -> '' or the device's name: WorkspaceConfig(device=)
    Cpu,           ///< wsarray.Device('cpu'): Array.device
    DeviceError,   ///< numpy_device_error(message, fn) -> an exception or None: NumPy's device= error
    DeviceWorkspace,  ///< device_workspace(name, config) -> the device workspace, or None (a host one)
    MemoryReport,  ///< memory_report() -> what the current workspace holds, for an out-of-memory error
    MadeAt,        ///< made_at(frames) -> ' (made at file:line)' for a stale-array error, or ''

    Count
};

/// The value registered for `h` (borrowed, kept for the process); RuntimeError naming the hook
/// when the package has not registered it (the core used before `import wsarray` finished).
nb::handle hook(Hook h);
/// The value registered for `h`, or null (no error set): for error paths that keep the error
/// they have when the package cannot say more.
PyObject *hook_or_null(Hook h);

/// Define _native._set_hook(name, value).
void export_hooks(nb::module_ &m);

} // namespace wsa_py
