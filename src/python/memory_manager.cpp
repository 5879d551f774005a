/// src/python/memory_manager.cpp -- what wsarray.memory calls: destroying and listing this thread's
/// workspaces (the garbage-collection knobs and the cycle listeners: cycle_end.cpp).
#include "memory_manager.h"

#include "array_object.h"
#include "numpy_access.h"
#include "numpy_alloc.h"
#include "scopes.h"
#include "workspaces.h"

namespace wsa_py {

namespace {} // namespace

void export_memory_manager(nb::module_ &m) {
    m.def("_destroy_all", []() {
        auto &tw = wsa::ThreadWorkspaces::current();
        named("memory.destroy_all_workspaces_for_current_thread", [&] { tw.destroy_all(); });
    }, nb::sig("def _destroy_all() -> None"));
    m.def("_destroy", [](nb::handle name) {
        destroy_named(name_of(name, "memory.destroy_workspace"), "memory.destroy_workspace");
    }, nb::sig("def _destroy(name: str) -> None"));
    m.def("_exists", [](nb::handle name) {
        return (bool) wsa::ThreadWorkspaces::current().find(name_of(name, "memory.workspace_exists"));
    }, nb::sig("def _exists(name: str) -> bool"));
    m.def("_active", [](nb::handle name) {
        auto ws = wsa::ThreadWorkspaces::current().find(name_of(name, "memory.workspace_active"));
        return ws && ws->cycle_open();
    }, nb::sig("def _active(name: str) -> bool"));
    m.def("_current", []() -> nb::object {
        wsa::Workspace *t = current_target();
        if (!t) return nb::none();
        return nb::str(t->name().c_str());
    }, nb::sig("def _current() -> str | None"));
    m.def("_statistics", []() {
        nb::dict d;
        for (auto &ws : wsa::ThreadWorkspaces::current().all()) d[ws->name().c_str()] = stats_dict(*ws);
        return d;
    }, nb::sig("def _statistics() -> dict[str, dict[str, typing.Any]]"));
    m.def("_stack", []() {
        nb::list out;
        for (const wsa::Frame *f : wsa::live_frames(current_stack())) {
            const char *kind = f->kind == wsa::FrameKind::Cycle    ? "cycle"
                               : f->kind == wsa::FrameKind::Borrow ? "borrow"
                               : f->kind == wsa::FrameKind::Fill   ? "fill"
                                                                   : "scope_out";
            out.append(nb::make_tuple(kind, f->ws ? nb::object(nb::str(f->ws->name().c_str())) : nb::none()));
        }
        return out;
    }, nb::sig("def _stack() -> list[tuple[str, str | None]]"));
    m.def("_set_spill_everything", [](bool on, bool this_thread_only) {
        if (this_thread_only) wsa::set_thread_spill_everything(on ? 1 : 0);
        else wsa::set_spill_everything(on);
    }, nb::arg("on"), nb::arg("this_thread_only"), "Debug mode spill_everything (wsarray.memory.set_debug).");
    m.def("_clear_thread_spill_everything", [] { wsa::set_thread_spill_everything(-1); },
          "This thread follows the process's spill_everything setting again.");
    m.def("_spilling_everything", &wsa::spilling_everything, "Whether spill_everything applies on this thread.");
    m.def("_block_traceback", [](std::uintptr_t address) -> nb::object {
        PyObject *tb = block_traceback((const void *) address);
        return tb ? nb::steal(tb) : nb::none();
    }, "tracemalloc's frames ((filename, lineno), most recent first) of the workspace block at `address`, or None.");
    m.def("_array_block_traceback", [](nb::handle array) -> nb::object {
        // Also for a stale array (debug mode escapes looks at them): reads only the held
        // ndarray's data pointer, never the data.
        if (!is_array(array.ptr())) return nb::none();
        Array &a = array_of(array.ptr());
        PyObject *tb = a.nd_.is_valid() ? block_traceback(ndarray_data(a.nd_.ptr())) : nullptr;
        return tb ? nb::steal(tb) : nb::none();
    }, "tracemalloc's frames of a wsarray.Array's block (see _block_traceback), or None.");
    m.def("_numpy_allocation_counts", []() {
        NumpyAllocationCounts c = numpy_allocation_counts();
        return nb::make_tuple(c.routed, c.outside);
    }, "(into workspaces, outside) NumPy data allocations of this thread through wsarray's handler.");
    m.def("_zombie_bytes", []() { return wsa::Workspace::zombie_bytes(); });
}

} // namespace wsa_py
