/// src/python/workspaces/cycle_end.cpp -- what runs when a workspace cycle ends (see cycle_end.h): the auto
/// GC window and the cycle listeners.
#include "workspaces/cycle_end.h"

#include "allocation/cycle_sites.h"
#include "allocation/numpy_alloc.h"

#include "common/errors.h"

#include "memory/workspace.h"

#include <chrono>
#include <pythread.h>
#include <string>
#include <vector>

namespace wsa_py {

namespace {

// ---- garbage-collection knobs -------------------------------------------------------------------
// Python meaning (documented in wsarray/memory.py): "periodic GC" is Python's automatic cyclic
// collector (gc.enable/disable); the "auto GC window" makes wsarray call gc.collect() when a
// workspace cycle ends, at most once per window.
/// The longest window the clock can measure: milliseconds that still fit in steady_clock's
/// nanoseconds (a larger window would overflow and collect at every cycle).
constexpr long long kMaxGcWindowMs =
    std::chrono::steady_clock::duration::max().count() / (std::chrono::steady_clock::period::den / 1000) - 1;

/// The auto GC window and wsarray's own collections.
struct GcState {
    long long window_ms = 0;
    std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
    std::size_t collections = 0;
    nb::handle collect;  // gc.collect, never released
};
GcState gc_state;

/// gc.collect() now, counted; returns what it returns (the number of unreachable objects).
nb::object collect_now() {
    nb::object r = gc_state.collect();
    ++gc_state.collections;
    gc_state.last = std::chrono::steady_clock::now();
    return r;
}

/// Collect if the auto GC window has passed since wsarray's last collection (0: never).
void maybe_collect() {
    if (gc_state.window_ms <= 0) return;
    auto now = std::chrono::steady_clock::now();
    if (now - gc_state.last >= std::chrono::milliseconds(gc_state.window_ms)) collect_now();
}

// ---- cycle listeners ---------------------------------------------------------------------------
// What runs when a workspace cycle ends (Workspace.__exit__, a batch slot retired), in order: the
// GC window (maybe_collect), then the Python callables added with wsarray.memory.add_cycle_listener
// (the performance listener, the data pipeline's accounting), as CuPy's memory hooks do. They run
// on the thread that ended the cycle, after it ended; a listener that raises is reported through
// sys.unraisablehook and never breaks the loop it watches -- except KeyboardInterrupt and
// SystemExit: Ctrl-C lands in whatever Python code runs, a listener included, and belongs to the
// loop, so it propagates from the cycle's end (the cycle has ended already; the listeners after
// it are skipped this time).
std::vector<nb::object> *g_listeners = nullptr;  // kept forever (listeners may run at exit)

} // namespace

void notify_cycle_end(const wsa::Workspace &ws) {
    maybe_collect();
    report_chunk_maps();  // a cycle's end may have trimmed or released chunks (queued only while traced)
    // This cycle's allocation sites (counted only while tracemalloc traces): taken either way, so
    // that they never pile up when no listener wants them.
    nb::object sites = take_sites(ws);
    if (!g_listeners || g_listeners->empty()) return;
    wsa::Stats st = ws.stats();
    nb::dict event;
    event["workspace"] = ws.name();
    event["cycle"] = st.cycles;
    event["peak_cycle_bytes"] = st.peak_cycle_bytes;
    event["spilled_cycle_bytes"] = st.spilled_cycle_bytes;
    event["capacity"] = st.capacity;
    event["used"] = st.used;
    event["thread"] = (unsigned long long) PyThread_get_thread_ident();
    event["sites"] = sites;  // None unless tracemalloc traced this cycle's blocks
    std::vector<nb::object> now = *g_listeners;  // a listener may add or remove listeners
    for (nb::object &f : now) {
        PyObject *r = PyObject_CallOneArg(f.ptr(), event.ptr());
        if (r) {
            Py_DECREF(r);
            continue;
        }
        if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt) || PyErr_ExceptionMatches(PyExc_SystemExit))
            throw nb::python_error();
        PyErr_WriteUnraisable(f.ptr());
    }
}

void export_cycle_end(nb::module_ &m) {
    gc_state.collect = nb::module_::import_("gc").attr("collect").inc_ref();
    g_listeners = new std::vector<nb::object>();
    m.def("_add_cycle_listener", [](nb::handle f) {
        if (!PyCallable_Check(f.ptr()))
            raise(PyExc_TypeError, "wsarray.memory.add_cycle_listener(): the listener must be callable, not " +
                                       std::string(Py_TYPE(f.ptr())->tp_name));
        g_listeners->push_back(nb::borrow(f));
    }, nb::sig("def _add_cycle_listener(listener: collections.abc.Callable[[dict[str, typing.Any]], object]) -> None"));
    m.def("_remove_cycle_listener", [](nb::handle f) {
        for (auto it = g_listeners->begin(); it != g_listeners->end(); ++it)
            if (it->is(f)) {
                nb::object gone = std::move(*it);  // released after the erase: its release may run Python
                g_listeners->erase(it);
                return;
            }
        raise(PyExc_ValueError, "wsarray.memory.remove_cycle_listener(): this listener was not added");
    }, nb::sig("def _remove_cycle_listener(listener: object) -> None"));
    m.def("_cycle_listeners", []() {
        nb::list out;
        for (auto &f : *g_listeners) out.append(f);
        return out;
    }, nb::sig("def _cycle_listeners() -> list[collections.abc.Callable[[dict[str, typing.Any]], object]]"));
    m.def("_set_gc_window", [](long long ms) {
        if (ms < 0)
            raise(PyExc_ValueError, "wsarray.memory.set_auto_gc_window(): the window must be >= 0 ms (0 turns it off)");
        if (ms > kMaxGcWindowMs)
            raise(PyExc_ValueError, "wsarray.memory.set_auto_gc_window(): the window must be at most " +
                                        std::to_string(kMaxGcWindowMs) + " ms (about 292 years)");
        gc_state.window_ms = ms;
        gc_state.last = std::chrono::steady_clock::now();
    }, nb::sig("def _set_gc_window(ms: int) -> None"));
    m.attr("_MAX_GC_WINDOW_MS") = kMaxGcWindowMs;
    m.def("_get_gc_window", []() { return gc_state.window_ms; });
    m.def("_gc_collections", []() { return gc_state.collections; });
    m.def("_collect", []() { return collect_now(); }, nb::sig("def _collect() -> int"));
}

} // namespace wsa_py
