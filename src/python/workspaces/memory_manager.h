/// src/python/workspaces/memory_manager.h -- what wsarray.memory calls about this thread's workspaces
/// (destroy, exists, statistics, the scope stack) and where an array lies in a shared workspace's
/// memory (_shared_segment); the GC knobs and the cycle listeners are cycle_end.h's.
#pragma once
#include <nanobind/nanobind.h>

namespace wsa_py {

/// Define the functions wsarray.memory calls (_destroy, _statistics, _stack, ...) and _shared_segment.
void export_memory_manager(nanobind::module_ &m);

} // namespace wsa_py
