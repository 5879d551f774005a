/// src/python/workspaces/cycle_end.h -- what runs when a workspace cycle ends: the garbage-collection knobs
/// (the auto GC window) and the cycle listeners (wsarray.memory.add_cycle_listener).
#pragma once
#include <nanobind/nanobind.h>

namespace wsa {
class Workspace;
}

namespace wsa_py {

/// After `ws`'s cycle ended on this thread: collect if the auto GC window has passed, then call
/// the listeners with the cycle's event (KeyboardInterrupt and SystemExit propagate; other errors
/// are reported as unraisable). Under the GIL.
void notify_cycle_end(const wsa::Workspace &ws);

/// Define _set_gc_window, _get_gc_window, _MAX_GC_WINDOW_MS, _gc_collections, _collect,
/// _add_cycle_listener, _remove_cycle_listener, _cycle_listeners.
void export_cycle_end(nanobind::module_ &m);

} // namespace wsa_py
