/// src/python/results/ndarray_pool.h -- dead NumPy ndarray objects kept for the next fast-path result.
///
/// A small result is two objects: the wsarray.Array (array_pool.h keeps those) and the ndarray
/// under it. NumPy builds an ndarray with PyArray_NewFromDescr (object allocation, the shape and
/// strides buffer, flag computation: ~370 instructions) and takes it apart in array_dealloc (~150).
/// When an Array dies holding the only reference to a plain ndarray that owns its data (or is a
/// view, holding only its base), the data is freed exactly as array_dealloc frees it (the base
/// released), and the object itself -- with its shape buffer, now an array of no data that owns
/// nothing, holding a private descriptor -- is kept here; new_owned_array() and the fast views
/// (fast_indexing.cpp) fill it in again for the next result or view of the same number of
/// dimensions. A kept ndarray is always a valid object: releasing it (at exit) is NumPy's ordinary
/// dealloc of a dataless array. Under the GIL only.
#pragma once
#include <Python.h>
#include <nanobind/nanobind.h>

#include <cstddef>

namespace wsa {
class Workspace;
}

struct _PyArray_Descr;
struct tagPyArrayObject;

namespace wsa_py {

/// Take `nd` (an Array's ndarray, about to be released by that Array) into the pool if nothing
/// else can see it: an exact ndarray, one reference, no weak reference or exported buffer, a
/// builtin numeric dtype, and either owning its data under a known handler (no base) or a view
/// holding its base. True: its data is freed (a view's base released) and the pool owns the
/// reference (the caller must not release it).
bool retire_ndarray(PyObject *nd);

/// A kept ndarray of `nd` dimensions made into a new C-ordered array of `descr` (borrowed) over
/// `data`, owned under `handler` (borrowed), with the flags PyArray_NewFromDescr + OWNDATA give;
/// null if the pool has none of that rank.
tagPyArrayObject *reuse_ndarray(_PyArray_Descr *descr, int nd, const Py_ssize_t *dims, void *data, PyObject *handler);

/// A kept ndarray of `nd` dimensions made into a view of `data` with these dimensions, strides
/// and (the parent's) flags, as PyArray_NewFromDescr makes it, its base still to be set (by
/// PyArray_SetBaseObject, as NumPy does); null if the pool has none of that rank.
tagPyArrayObject *reuse_ndarray_view(_PyArray_Descr *descr, int nd, const Py_ssize_t *dims, const Py_ssize_t *strides,
                                     char *data, int flags);

/// Start pooling (module init, after NumPy's C API is imported); releases the pool at exit.
/// Adds _ndarray_pool_counts() to `m` (the tests read it).
/// A new C-ordered array of `descr` (a builtin dtype; borrowed) whose data comes straight
/// from `target`, or outside workspaces from NumPy's default allocator: the array owns its data
/// under the handler that frees it, as if NumPy had allocated it, without NumPy's per-array handler
/// lookup (a context variable and a capsule, ~120 instructions of a small array's ~1,500).
/// `zeroed`: cleared as calloc would. An empty array gets one byte of ordinary memory, as NumPy
/// gives it. Null with no error set where this path does not apply (a context with a handler of
/// its own, a size NumPy refuses, allocation failed): NumPy's path then decides.
tagPyArrayObject *new_owned_array(wsa::Workspace *target, _PyArray_Descr *descr, int nd, const Py_ssize_t *dims,
                                  bool zeroed);

void init_ndarray_pool(nanobind::module_ &m);

} // namespace wsa_py
