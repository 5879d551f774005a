/// src/python/workspaces/workspaces.h -- wsarray.Workspace, wsarray.workspace(), Scope (borrow, scope_out) and
/// the data pipeline's batch slots; what wsarray.memory's functions (memory_manager.cpp) share.
#pragma once
#include "common/errors.h"

#include "memory/workspace.h"

#include <string>

namespace wsa_py {

/// A workspace's statistics as the dict Workspace.stats() returns.
nb::dict stats_dict(const wsa::Workspace &ws);

/// Destroy the workspace `name` of this thread (its chunks go back to the OS, but for the pages of
/// blocks Arrays still hold, until those Arrays die); errors name `fn`.
void destroy_named(const std::string &name, const char *fn);

/// A workspace name argument (str, valid Unicode) for `fn`.
inline std::string name_of(nb::handle v, const char *fn) { return text_arg(v, fn, "name"); }

/// Define wsarray.Workspace, wsarray.workspace(), wsarray.Scope, wsarray.scope_out() and _Slot.
void export_workspaces(nb::module_ &m);

} // namespace wsa_py
