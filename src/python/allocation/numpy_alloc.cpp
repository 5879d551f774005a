/// src/python/allocation/numpy_alloc.cpp -- the NEP 49 handler and RouteGuard (see numpy_alloc.h); this file
/// also defines and imports the module's table of NumPy's C API (numpy_api.h).
#define WSARRAY_DEFINE_NUMPY_API
#include "numpy_access/numpy_api.h"

#include "allocation/numpy_alloc.h"

#include "allocation/block_descriptions.h"
#include "allocation/cycle_sites.h"
#include "common/context_change.h"
#include "common/errors.h"

#include "memory/workspace.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace wsa_py {

static thread_local wsa::Workspace *tl_route = nullptr;
static thread_local std::string tl_error;
static thread_local bool tl_error_misuse = false;
static thread_local void *tl_last = nullptr;              // last block route_alloc handed out
static thread_local wsa::Workspace *tl_last_ws = nullptr;  // ... and its workspace
static thread_local NumpyAllocationCounts tl_counts;        // what this thread's handler calls did
static PyDataMem_Handler *g_default = nullptr;  // NumPy's own handler, for everything not routed
static PyObject *g_capsule = nullptr;            // our handler, as NumPy wants it
static PyObject *g_default_capsule = nullptr;    // NumPy's, as it was at import
constexpr unsigned kNumpyTraceDomain = 389047;   // NumPy's tracemalloc domain (NPY_TRACE_DOMAIN)
// wsarray's: every block a workspace hands out for an array, as long as it lives
// (wsarray.memory.TRACEMALLOC_DOMAIN). tracemalloc ignores the calls unless it is tracing.
constexpr unsigned kWorkspaceTraceDomain = 0x77736100;
// Blocks counted by line per cycle (cycle_sites.h): from this size on. Counting walks the Python
// frames and costs microseconds; blocks this large are what a cycle's peak is made of, and their
// operations take long enough that the count stays a fraction of them.
constexpr std::size_t kSiteMinBytes = 256 << 10;
// tracemalloc's C API, looked up at import: CPython 3.11's tracemalloc.h declares it without
// extern "C", so a C++ call would name a mangled symbol. Null: not found, not traced.
static int (*g_trace_track)(unsigned, std::uintptr_t, std::size_t) = nullptr;
static int (*g_trace_untrack)(unsigned, std::uintptr_t) = nullptr;

// ---- chunk maps in tracemalloc -------------------------------------------------------------------
// The core tells of each map and release with its lock held, where the GIL cannot be waited for:
// the observer only queues the event; the next allocation or free through the handler, cycle end
// or snapshot (all under the GIL) hands the queue to tracemalloc, in order.
constexpr unsigned kChunkTraceDomain = 0x77736101;  // wsarray.memory.TRACEMALLOC_CHUNK_DOMAIN
struct MapEvent {
    const void *address;
    std::size_t size;
    bool mapped;
};
static std::atomic<bool> g_trace_chunks{false};   // tracemalloc traced at the last look (note_block)
static std::atomic<bool> g_map_events_pending{false};
static std::mutex g_map_events_mutex;             // a leaf lock: nothing is called while it is held
static std::vector<MapEvent> *g_map_events = new std::vector<MapEvent>();  // never destroyed

static void observe_mapping(const void *address, std::size_t size, bool mapped) {
    if (!g_trace_chunks.load(std::memory_order_relaxed)) return;
    try {
        std::lock_guard<std::mutex> lock(g_map_events_mutex);
        g_map_events->push_back({address, size, mapped});
        g_map_events_pending.store(true, std::memory_order_release);
    } catch (...) {  // out of memory: the event is lost, the map itself is not affected
    }
}

void report_chunk_maps() {
    if (!g_map_events_pending.load(std::memory_order_acquire) || !g_trace_track) return;
    std::vector<MapEvent> events;
    {
        std::lock_guard<std::mutex> lock(g_map_events_mutex);
        events.swap(*g_map_events);
        g_map_events_pending.store(false, std::memory_order_relaxed);
    }
    for (const MapEvent &e : events) {
        if (e.mapped) g_trace_track(kChunkTraceDomain, (std::uintptr_t) e.address, e.size);
        else g_trace_untrack(kChunkTraceDomain, (std::uintptr_t) e.address);
    }
}

void trace_chunk_maps(bool on) {
    g_trace_chunks.store(on, std::memory_order_relaxed);
    if (!on) report_chunk_maps();  // releases queued before now still untrack their maps
}

/// A workspace block just handed out: to tracemalloc when a program traces (the block under
/// wsarray's domain, and the chunk maps queued meanwhile), and while record_history(stacks=True)
/// records, the block's record (block_descriptions.h) and, for a large one, its cycle's site.
static void note_block(wsa::Workspace &ws, void *p, std::size_t n) {
    // PyTraceMalloc_Track answers 0 while tracemalloc traces: that answer also turns the queueing
    // of chunk maps on and off, so a program that does not trace pays nothing per spill.
    const bool traced = g_trace_track && g_trace_track(kWorkspaceTraceDomain, (std::uintptr_t) p, n) == 0;
    if (traced != g_trace_chunks.load(std::memory_order_relaxed))
        g_trace_chunks.store(traced, std::memory_order_relaxed);
    if (traced) report_chunk_maps();
    if (g_block_frames && PyGILState_Check()) {
        note_new_block(ws, p, n);
        if (n >= kSiteMinBytes) note_site(&ws, p, n);
    }
}

static void *route_alloc(std::size_t n, bool zero) {
    try {
        void *p = tl_route->allocate(n ? n : 1, zero);
        note_block(*tl_route, p, n);
        ++tl_counts.routed;
        tl_last = p;
        tl_last_ws = tl_route;
        return p;
    } catch (const wsa::WorkspaceMisuse &e) {
        if (tl_error.empty()) {
            tl_error = e.what();
            tl_error_misuse = true;
        }
    } catch (const std::exception &e) {
        if (tl_error.empty()) {
            tl_error = e.what();
            tl_error_misuse = false;
        }
    }
    return nullptr;
}

static void *ws_malloc(void *, std::size_t n) {
    if (tl_route) return route_alloc(n, false);
    ++tl_counts.outside;
    return g_default->allocator.malloc(g_default->allocator.ctx, n);
}

static void *ws_calloc(void *, std::size_t nelem, std::size_t elsize) {
    if (tl_route) {
        if (elsize && nelem > SIZE_MAX / elsize) return nullptr;
        // Cleared by the workspace only where its memory was used before: np.zeros(5e8) touches
        // no fresh page, as calloc does.
        return route_alloc(nelem * elsize, true);
    }
    ++tl_counts.outside;
    return g_default->allocator.calloc(g_default->allocator.ctx, nelem, elsize);
}

static void ws_free(void *, void *p, std::size_t size) {
    if (!p) return;
    if (p == tl_last) tl_last = nullptr;
    if (g_recorded_blocks) forget_block(p);
    if (wsa::Workspace::free_if_owned(p)) {
        if (g_trace_untrack) g_trace_untrack(kWorkspaceTraceDomain, (std::uintptr_t) p);
        if (g_map_events_pending.load(std::memory_order_relaxed) && PyGILState_Check()) report_chunk_maps();
        return;
    }
    g_default->allocator.free(g_default->allocator.ctx, p, size);
}

static void *ws_realloc(void *, void *p, std::size_t n) {
    if (!p) return ws_malloc(nullptr, n);
    std::size_t old = wsa::Workspace::owned_size(p);
    if (old == wsa::Workspace::kNotOwned) {  // NumPy's own block: let NumPy grow it where it lives
        ++tl_counts.outside;
        return g_default->allocator.realloc(g_default->allocator.ctx, p, n);
    }
    if (!tl_route) ++tl_counts.outside;
    void *q = tl_route ? route_alloc(n, false) : g_default->allocator.malloc(g_default->allocator.ctx, n);
    if (!q) return nullptr;
    std::memcpy(q, p, old < n ? old : n);
    if (g_recorded_blocks) forget_block(p);
    if (wsa::Workspace::free_if_owned(p) && g_trace_untrack) g_trace_untrack(kWorkspaceTraceDomain, (std::uintptr_t) p);
    return q;
}

NumpyAllocationCounts numpy_allocation_counts() { return tl_counts; }

PyObject *block_traceback(const void *data) {
    if (PyObject *frames = recorded_frames(data)) return frames;  // record_history(stacks=True)'s
    using Lookup = PyObject *(*)(unsigned int, std::uintptr_t);
    static Lookup lookup = (Lookup) dlsym(RTLD_DEFAULT, "_PyTraceMalloc_GetTraceback");
    if (!lookup || !data) return nullptr;
    PyObject *tb = lookup(kWorkspaceTraceDomain, (std::uintptr_t) data);
    if (!tb || tb == Py_None || !PyTuple_Check(tb) || PyTuple_GET_SIZE(tb) == 0) {
        Py_XDECREF(tb);
        PyErr_Clear();
        return nullptr;
    }
    return tb;
}

static PyDataMem_Handler g_handler = {
    "wsarray_workspace_allocator",
    1,
    {nullptr, ws_malloc, ws_calloc, ws_realloc, ws_free},
};

static int do_import_array() {
    import_array1(-1);
    return 0;
}

void init_numpy_alloc() {
    if (do_import_array() < 0) throw std::runtime_error("wsarray: cannot import NumPy's C API");
    PyObject *current = PyDataMem_GetHandler();
    if (!current) throw std::runtime_error("wsarray: NumPy has no data memory handler");
    g_default = (PyDataMem_Handler *) PyCapsule_GetPointer(current, "mem_handler");
    if (!g_default) throw std::runtime_error("wsarray: cannot read NumPy's default memory handler");
    // `current` stays referenced forever: g_default points into it.
    g_default_capsule = current;
    g_trace_track = (decltype(g_trace_track)) dlsym(RTLD_DEFAULT, "PyTraceMalloc_Track");
    g_trace_untrack = (decltype(g_trace_untrack)) dlsym(RTLD_DEFAULT, "PyTraceMalloc_Untrack");
    if (g_trace_track && g_trace_untrack) wsa::set_mapping_observer(&observe_mapping);
    g_capsule = PyCapsule_New(&g_handler, "mem_handler", nullptr);
    if (!g_capsule) throw std::runtime_error("wsarray: cannot create the memory handler capsule");
}

/// Make sure this context's NumPy allocations pass through our handler.
static void ensure_handler_installed() {
    // The handler lives in a context variable. CPython bumps the thread's context_ver whenever a
    // context is entered or left or any context variable is set, so while (context, version) is
    // what it was after the last check, the handler is still installed: skip the lookup.
    static thread_local const PyObject *checked_context = nullptr;
    static thread_local std::uint64_t checked_version = 0;
    PyThreadState *ts = PyThreadState_Get();
    if (ts->context && ts->context == checked_context && ts->context_ver == checked_version) return;
    PyObject *current = PyDataMem_GetHandler();
    if (current != g_capsule) {
        Py_XDECREF(current);
        PyObject *old;
        {
            ContextChange change;  // NumPy keeps the handler in a context variable
            old = PyDataMem_SetHandler(g_capsule);
        }
        if (!old) throw std::runtime_error("wsarray: cannot install the workspace memory handler");
        Py_DECREF(old);
    } else {
        Py_DECREF(current);
    }
    checked_context = ts->context;
    checked_version = ts->context_ver;
}

/// The handler capsule that NumPy's allocations outside workspaces go to in this context, when
/// they end in NumPy's default allocator (its own handler, or ours with no route up); null if the
/// context has a handler of its own. Looked up again only when the context or its version changed.
static PyObject *plain_handler_here() {
    static thread_local const PyObject *checked_context = nullptr;
    static thread_local std::uint64_t checked_version = 0;
    static thread_local PyObject *plain = nullptr;  // g_capsule, g_default_capsule or null
    PyThreadState *ts = PyThreadState_Get();
    if (ts->context && ts->context == checked_context && ts->context_ver == checked_version) return plain;
    PyObject *current = PyDataMem_GetHandler();
    if (!current) {
        PyErr_Clear();
        return nullptr;
    }
    Py_DECREF(current);  // both candidates are kept alive for the process
    plain = current == g_capsule || current == g_default_capsule ? current : nullptr;
    checked_context = ts->context;
    checked_version = ts->context_ver;
    return plain;
}

void *new_array_data(wsa::Workspace *target, std::size_t size, bool zeroed, PyObject **handler) {
    // Data from NumPy's default allocator is NumPy's default handler's to free, whichever of the
    // two plain handlers the context has.
    *handler = target ? g_capsule : plain_handler_here() ? g_default_capsule : nullptr;
    if (!*handler) return nullptr;
    if (target) {
        try {
            void *data = target->allocate(size, zeroed);
            note_block(*target, data, size);
            return data;
        } catch (const std::exception &) {  // NumPy's path reports it (route_alloc's message)
            return nullptr;
        }
    }
    const PyDataMemAllocator &a = g_default->allocator;
    void *data = zeroed ? a.calloc(a.ctx, size, 1) : a.malloc(a.ctx, size);
    // As NumPy's PyDataMem_UserNEW (which ignores a failure to trace).
    if (data && g_trace_track) g_trace_track(kNumpyTraceDomain, (std::uintptr_t) data, size);
    return data;
}

bool free_array_data(PyObject *handler, void *data, std::size_t nbytes) {
    if (handler != g_capsule && handler != g_default_capsule) return false;
    if (g_trace_untrack) g_trace_untrack(kNumpyTraceDomain, (std::uintptr_t) data);
    if (handler == g_capsule) ws_free(nullptr, data, nbytes);
    else g_default->allocator.free(g_default->allocator.ctx, data, nbytes);
    return true;
}

RouteGuard::RouteGuard(wsa::Workspace *target) : prev_(tl_route) {
    if (target) {
        ensure_handler_installed();
        hold_ = target->shared_from_this();
        serial_ = target->cycle_serial();
    }
    tl_route = target;
    tl_last = nullptr;  // routed_owner_of() answers for blocks allocated within this guard only
}

RouteGuard::RouteGuard(wsa::Workspace *target, NoCallbacks) : prev_(tl_route) {
    if (target) ensure_handler_installed();
    tl_route = target;
    tl_last = nullptr;
}

RouteGuard::~RouteGuard() {
    tl_route = prev_;
    tl_last = nullptr;  // this guard's workspace may go with hold_: never answer with it later
}

std::string RouteGuard::lost() const {
    if (!hold_) return "";
    const wsa::Workspace &ws = *hold_;
    if (!ws.alive())
        return "workspace '" + ws.name() +
               "' was destroyed while this call ran (by Python code it "
               "called back: a callback, an object's method, __del__); its results went with it";
    if (ws.cycle_serial() != serial_ || !ws.cycle_open())
        return "the cycle of workspace '" + ws.name() +
               "' ended while this call ran (by Python code "
               "it called back); its results went with it";
    return "";
}

bool routing_active() { return tl_route != nullptr; }

void clear_allocation_error() {
    if (!tl_error.empty()) tl_error.clear();
}

void forget_routed_allocation() { tl_last = nullptr; }

wsa::Workspace *routed_owner_of(const void *p) { return p && p == tl_last ? tl_last_ws : nullptr; }

std::string take_allocation_error(bool *misuse) {
    std::string e;
    e.swap(tl_error);
    if (misuse) *misuse = tl_error_misuse;
    return e;
}

void raise_if_lost(const RouteGuard &route, const char *name) {
    std::string lost = route.lost();
    if (!lost.empty()) raise(WorkspaceError, "wsarray." + std::string(name) + "(): " + lost);
}

void raise_routed_error(const char *name) {
    bool misuse = false;
    std::string err = take_allocation_error(&misuse);
    if (!err.empty() && PyErr_ExceptionMatches(PyExc_MemoryError)) {
        PyErr_Clear();
        if (misuse) raise(WorkspaceError, "wsarray." + std::string(name) + "(): " + err);
        raise(WorkspaceMemoryError, with_memory_report("wsarray." + std::string(name) + "(): " + err));
    }
    name_error_for(name);
    throw nb::python_error();
}

} // namespace wsa_py
