/// src/python/numpy_alloc.h -- routes NumPy's own data allocations into the current workspace.
///
/// A NEP 49 data memory handler is installed in each thread's context the first time that thread
/// runs a routed wsarray operation. While a `RouteGuard` with a workspace is alive on a thread,
/// every array buffer NumPy allocates on that thread comes from that workspace; otherwise the
/// handler passes everything to NumPy's default handler, so plain NumPy code is never routed.
#pragma once
#include <Python.h>
#include <cstdint>
#include <memory>
#include <string>

namespace wsa {
class Workspace;
}

namespace wsa_py {

/// Import NumPy's C API and create the handler capsule. Call once from module init.
void init_numpy_alloc();

/// Make sure this context's NumPy allocations pass through our handler.
void ensure_handler_installed();

/// Route NumPy allocations on this thread into `target` (null: NumPy's default) for a scope. The
/// guard owns the workspace for its lifetime: a Python callback that destroys it mid-call makes
/// allocations fail with WorkspaceError, never use freed memory.
class RouteGuard {
public:
    explicit RouteGuard(wsa::Workspace *target);
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

/// If a routed allocation failed since the last call, the workspace's message (else empty), and
/// clear it. `misuse`: the workspace could not allocate at all (destroyed), not out of memory.
std::string take_allocation_error(bool *misuse = nullptr);
/// The same, when the message is not wanted (no string copy when there is none).
void clear_allocation_error();

/// The workspace of the last block route_alloc() handed out on this thread since the innermost
/// RouteGuard (or forget_routed_allocation()) began, if `p` is that block and it was not freed on
/// this thread since; else null. Lets the engine know the owner of a fresh result without the
/// registry lookup (the result holds the block, so it cannot have been reused).
void forget_routed_allocation();
wsa::Workspace *routed_owner_of(const void *p);

/// Data pointer of a NumPy ndarray (null if `o` is not an ndarray).
void *ndarray_data(PyObject *o);
/// Number of dimensions of a NumPy ndarray (-1 if `o` is not an ndarray).
int ndarray_ndim(PyObject *o);
/// The base object of a NumPy ndarray (borrowed; null if none or if `o` is not an ndarray).
PyObject *ndarray_base(PyObject *o);
bool is_ndarray(PyObject *o);
bool is_ndarray_exact(PyObject *o);
/// A NumPy scalar that wsarray wraps as a 0-d Array (numbers, bools, datetimes; not str/bytes/void).
bool is_numpy_scalar(PyObject *o);
/// A 0-d ndarray holding a NumPy scalar (allocated under the current route).
PyObject *scalar_to_ndarray(PyObject *scalar);
/// The NumPy scalar a 0-d ndarray holds (as nd[()] gives it, without the indexing machinery).
PyObject *ndarray_to_scalar(PyObject *nd);
/// The dtype of a NumPy scalar (new reference).
PyObject *scalar_dtype(PyObject *scalar);
/// ndarray attributes, as NumPy's getters give them (new references).
PyObject *ndarray_shape(PyObject *o);
PyObject *ndarray_dtype(PyObject *o);
Py_ssize_t ndarray_size(PyObject *o);
/// Does the ndarray's dtype have fields (a structured dtype)?
bool ndarray_structured(PyObject *o);
/// Is the ndarray's dtype a void dtype (structured, or raw bytes such as V24)?
bool ndarray_void(PyObject *o);
bool ndarray_writeable(PyObject *o);

} // namespace wsa_py
