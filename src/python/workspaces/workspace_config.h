/// src/python/workspaces/workspace_config.h -- wsarray.WorkspaceConfig and wsarray.parse_size.
#pragma once
#include <nanobind/nanobind.h>

namespace wsa_py {

/// Define wsarray.WorkspaceConfig (the core's wsa::Config) and wsarray.parse_size().
void export_workspace_config(nanobind::module_ &m);

} // namespace wsa_py
