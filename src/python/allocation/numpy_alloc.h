/// src/python/allocation/numpy_alloc.h -- routes NumPy's own data allocations into the current workspace.
///
/// A NEP 49 data memory handler is installed in each thread's context the first time that thread
/// runs a routed wsarray operation. While a `RouteGuard` with a workspace is alive on a thread,
/// every array buffer NumPy allocates on that thread comes from that workspace; otherwise the
/// handler passes everything to NumPy's default handler, so plain NumPy code is never routed.
#pragma once
#include <Python.h>
#include <nanobind/nanobind.h>
#include <cstdint>
#include <memory>
#include <string>

namespace wsa {
class Workspace;
}
struct _PyArray_Descr;     // NumPy's PyArray_Descr
struct tagPyArrayObject;  // NumPy's PyArrayObject

namespace wsa_py {

/// Import NumPy's C API (numpy_api.h) and create the handler capsule. Call once from module init,
/// before anything else.
void init_numpy_alloc();

/// Route NumPy allocations on this thread into `target` (null: NumPy's default) for a scope. The
/// guard owns the workspace for its lifetime: a Python callback that destroys it mid-call makes
/// allocations fail with WorkspaceError, never use freed memory.
class RouteGuard {
public:
    explicit RouteGuard(wsa::Workspace *target);
    /// For a call that runs no Python code while the guard is up (NumPy making an array of a
    /// builtin dtype, which allocates no garbage-collected object): nothing can destroy `target`
    /// meanwhile, so the guard does not hold it (two atomic reference-count updates less per small
    /// result) and lost() is always empty. The caller keeps `target` alive (current_target()'s
    /// cache does).
    struct NoCallbacks {};
    RouteGuard(wsa::Workspace *target, NoCallbacks);
    ~RouteGuard();
    RouteGuard(const RouteGuard &) = delete;
    RouteGuard &operator=(const RouteGuard &) = delete;
    /// The workspace was destroyed, or its cycle ended, while the guard was up (by a callback into
    /// Python during the call): results made in it are already invalid. Its message, else empty.
    std::string lost() const;

private:
    wsa::Workspace *prev_;
    std::shared_ptr<wsa::Workspace> hold_;
    std::uint64_t serial_ = 0;
};

/// `size` bytes for a result array's data: from `target`, or outside workspaces from NumPy's
/// default allocator; `*handler` is the NumPy memory handler (a capsule kept for the process) that
/// frees them (free_array_data), as if NumPy had allocated them. Null where this path does not
/// apply (a context with a handler of its own, allocation failed): NumPy's path then decides.
void *new_array_data(wsa::Workspace *target, std::size_t size, bool zeroed, PyObject **handler);

/// Free the data an ndarray owns under `handler` as NumPy's array_dealloc does (its
/// PyDataMem_UserFREE, which NumPy does not export: tracemalloc forgets it, the handler frees it).
/// False, nothing done, for a handler other than ours and NumPy's default.
bool free_array_data(PyObject *handler, void *data, std::size_t nbytes);

/// NumPy data allocations made on this thread through wsarray's handler (installed in a thread's
/// context by its first routed call): into a workspace, and to NumPy's own allocator.
struct NumpyAllocationCounts {
    std::uint64_t routed = 0;
    std::uint64_t outside = 0;
};
NumpyAllocationCounts numpy_allocation_counts();

/// The frames that made the workspace block at `data` (a tuple of (filename, lineno), most recent
/// first): its record (record_history(stacks=True), block_descriptions.h), else tracemalloc's when
/// a program traces; null with no error set when neither has it.
PyObject *block_traceback(const void *data);

/// Is a RouteGuard with a workspace up on this thread (NumPy's allocations going to a workspace)?
bool routing_active();

/// If a routed allocation failed since the last call, the workspace's message (else empty), and
/// clear it. `misuse`: the workspace could not allocate at all (destroyed), not out of memory.
std::string take_allocation_error(bool *misuse = nullptr);
/// The same, when the message is not wanted (no string copy when there is none).
void clear_allocation_error();

/// Start a new call: routed_owner_of() forgets the blocks handed out before.
void forget_routed_allocation();
/// The workspace of the last block route_alloc() handed out on this thread since the innermost
/// RouteGuard (or forget_routed_allocation()) began, if `p` is that block and it was not freed on
/// this thread since; else null. Lets the engine know the owner of a fresh result without the
/// registry lookup (the result holds the block, so it cannot have been reused).
wsa::Workspace *routed_owner_of(const void *p);

/// Report workspace chunk and spill maps (and their releases) queued while tracemalloc traced to
/// tracemalloc, under wsarray.memory.TRACEMALLOC_CHUNK_DOMAIN, if any are queued. Under the GIL.
void report_chunk_maps();
/// Tell whether tracemalloc traces (maps are queued only then; each block the allocator hands
/// out tells it too, from tracemalloc's answer). Under the GIL.
void trace_chunk_maps(bool on);

/// Throw the pending error of a NumPy call made under a RouteGuard (above): a failed
/// workspace allocation becomes WorkspaceMemoryError (WorkspaceError for a destroyed workspace),
/// anything else is named after `name` as name_error_for() does.
[[noreturn]] void raise_routed_error(const char *name);

/// A callback into Python destroyed the call's workspace or ended its cycle while `route` was up:
/// the results are already invalid, so the call fails with WorkspaceError naming `name`.
void raise_if_lost(const RouteGuard &route, const char *name);

// The routed calls: the one way wsarray runs NumPy code with NumPy's allocations going into a
// workspace. `call` returns a new reference, or null with a Python error set. RouteGuard is made
// here and nowhere else (tests/package/test_architecture.py).

/// Run `call` routed into `target` (null: NumPy's memory) and hand its result to `finish` while the
/// route is still up (routed_owner_of() answers for the blocks the call made). A failed call raises
/// raise_routed_error(name); a workspace lost during the call, WorkspaceError. `finish` takes the
/// borrowed result and returns the nb::object the caller gets.
template <class Call, class Finish>
nanobind::object routed_call(const char *name, wsa::Workspace *target, Call &&call, Finish &&finish) {
    clear_allocation_error();
    nanobind::object result;
    {
        RouteGuard route(target);
        PyObject *r = call();
        if (r) {
            nanobind::object raw = nanobind::steal(r);
            raise_if_lost(route, name);
            result = finish(r);
        }
    }
    if (!result.is_valid()) raise_routed_error(name);
    return result;
}
/// routed_call() returning NumPy's result itself.
template <class Call> nanobind::object routed_call(const char *name, wsa::Workspace *target, Call &&call) {
    return routed_call(name, target, static_cast<Call &&>(call), [](PyObject *r) { return nanobind::borrow(r); });
}

/// routed_call() for a fast path with a general path behind it: `accept(result)` (under the route)
/// returns what the caller gets, or null to leave it to the general path. Null with no error set
/// when the call failed, the workspace was lost, or `accept` declined: the general path then
/// decides and reports. `target` null: no route is set up when none is up already.
template <class Call, class Accept> PyObject *try_routed_call(wsa::Workspace *target, Call &&call, Accept &&accept) {
    clear_allocation_error();
    if (!target && !routing_active()) {  // NumPy's memory already: no route to set up and restore
        nanobind::object r = nanobind::steal(call());
        if (r.is_valid()) return accept(r.ptr());
    } else {
        RouteGuard route(target);
        nanobind::object r = nanobind::steal(call());
        if (r.is_valid() && route.lost().empty()) return accept(r.ptr());
    }
    PyErr_Clear();
    clear_allocation_error();
    return nullptr;
}

/// A new array of a builtin dtype made by `make` (NumPy's array constructors: no Python code runs,
/// RouteGuard::NoCallbacks) with its data in `target`. Null with no error set when the allocation
/// failed: the general path then reports it.
template <class Make> PyObject *routed_new_array(wsa::Workspace *target, Make &&make) {
    PyObject *r;
    if (!target && !routing_active()) {
        r = make();  // NumPy's own memory already: no route to set up and restore
    } else {
        RouteGuard route(target, RouteGuard::NoCallbacks{});
        r = make();
    }
    if (!r) {
        PyErr_Clear();
        clear_allocation_error();
    }
    return r;
}

} // namespace wsa_py
