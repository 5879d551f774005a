/// src/python/workspaces/memory_manager.cpp -- what wsarray.memory calls: destroying and listing this thread's
/// workspaces (the garbage-collection knobs and the cycle listeners: cycle_end.cpp), and where a
/// shared workspace's array lies in its shared memory (_shared_segment).
#include "workspaces/memory_manager.h"

#include "results/array_object.h"
#include "numpy_access/numpy_access.h"
#include "allocation/block_descriptions.h"
#include "allocation/numpy_alloc.h"
#include "workspaces/scopes.h"
#include "workspaces/workspaces.h"

namespace wsa_py {

namespace {

/// The data address of `array` (a wsarray.Array, stale ones refused with WorkspaceError, or a NumPy
/// array: its data pointer, the first byte of a view).
const void *array_data_for_segment(nb::handle array) {
    PyObject *o = array.ptr();
    if (is_array(o)) {
        Array &a = array_of(o);
        const void *data = ndarray_data(a.data().ptr());
        if (!token_valid(a.token)) raise_stale(a, "_shared_segment");
        return data;
    }
    if (!is_ndarray(o))
        raise(PyExc_TypeError, "wsarray._shared_segment: expected an array, not " + std::string(Py_TYPE(o)->tp_name));
    return ndarray_data(o);
}

/// wsarray._native._shared_segment(array): (fd, offset, length) of the shared memory holding it.
nb::tuple shared_segment(nb::handle array) {
    const void *data = array_data_for_segment(array);
    wsa::Mapping m;
    std::size_t offset = 0;
    if (!data || !wsa::Workspace::mapping_of(data, m, offset) || m.source != wsa::Source::Shared)
        raise(PyExc_ValueError, "wsarray._shared_segment: the array's memory is not in a shared workspace "
                                "(WorkspaceConfig(location='shared'))");
    if (m.fd < 0)
        raise(PyExc_ValueError, "wsarray._shared_segment: the array's memory is this process's private "
                                "copy-on-write view of a shared workspace inherited through os.fork(); it is "
                                "not shared any more (memory the workspace maps from now on is)");
    return nb::make_tuple(m.fd, offset, m.size);
}

} // namespace

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
        close_orphans_of_this_thread();  // a scope another thread handed over is closed first
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
    m.def("_trace_chunk_maps", &trace_chunk_maps, nb::arg("on"),
          "Whether tracemalloc traces: workspace chunk maps are queued for it (TRACEMALLOC_CHUNK_DOMAIN) only then.");
    m.def("_report_chunk_maps", &report_chunk_maps, "Hand the queued chunk maps and releases to tracemalloc now.");
    m.def("_record_blocks", &record_blocks, nb::arg("frames"),
          "Record each new workspace block with this many Python frames (0: stop; at most 16).");
    m.def("_recording_blocks", [] { return g_block_frames; }, "Frames new blocks record (0: not recording).");
    m.def("_recorded_blocks", &recorded_blocks,
          "The live recorded workspace blocks: a list of (address, bytes, workspace, cycle, dtype str\n"
          "or None, shape or None, frames ((filename, lineno), innermost first)).");
    m.def("_numpy_allocation_counts", []() {
        NumpyAllocationCounts c = numpy_allocation_counts();
        return nb::make_tuple(c.routed, c.outside);
    }, "(into workspaces, outside) NumPy data allocations of this thread through wsarray's handler.");
    m.def("_zombie_bytes", []() { return wsa::Workspace::zombie_bytes(); });
    m.def("_shared_segment", &shared_segment, nb::arg("array"),
          nb::sig("def _shared_segment(array: object) -> tuple[int, int, int]"),
          "_shared_segment(array) -> (fd, offset, length): the shared memory holding an array of a\n"
          "WorkspaceConfig(location='shared') workspace (its chunk or spill): its file descriptor, the\n"
          "offset of the array's first data byte in it, and its size. Another process maps it with\n"
          "mmap.mmap(fd, length) (pass the fd to it: subprocess's pass_fds, socket.send_fds) and sees\n"
          "and writes the same bytes. The fd belongs to the workspace: it stays open while the array\n"
          "(any live array in that memory) does and is closed when the memory is given back;\n"
          "os.dup() it to keep it longer, or to hand it to a child made by fork() (os.fork(),\n"
          "multiprocessing's 'fork', subprocess with preexec_fn or user=): there the child closes its\n"
          "copy of the workspace's own fd and its view of the memory becomes private copy-on-write.\n"
          "ValueError for memory not in a shared workspace (or a forked child's private view of one);\n"
          "WorkspaceError for a stale array.");
}

} // namespace wsa_py
