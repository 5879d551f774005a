/// src/python/memory_manager.h -- what wsarray.memory calls (workspaces of this thread, the GC
/// knobs, cycle listeners), and what runs when a workspace cycle ends.
#pragma once
#include <nanobind/nanobind.h>

namespace wsa {
class Workspace;
}

namespace wsa_py {

/// After a cycle of `ws` ended (Workspace.__exit__, a batch slot retired), on the thread that
/// ended it: the auto GC window's collection if due, then the cycle listeners (a listener that
/// raises goes to sys.unraisablehook).
void notify_cycle_end(const wsa::Workspace &ws);

/// Define the functions wsarray.memory calls (_destroy, _statistics, _set_gc_window, ...).
void export_memory_manager(nanobind::module_ &m);

} // namespace wsa_py
