/// src/python/workspaces/device_source.h -- a core device source whose alloc/free are Python callables.
#pragma once
#include <nanobind/nanobind.h>

namespace wsa_py {

/// Define _native._config_with_device_source() (how the device layers, wsarray/_devices, give a
/// workspace device memory).
void export_device_source(nanobind::module_ &m);

} // namespace wsa_py
