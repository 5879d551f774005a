/// src/python/results/array_object.h -- the wsarray.Array object: an instance of a real subclass of
/// numpy.ndarray.
///
/// An Array is two things in one object. Its ndarray fields (data, shape, strides, dtype, flags)
/// describe the memory of the ndarray it holds, as a NumPy view does, and name that ndarray as
/// their base: NumPy's C code (PyArray_Check, numpy.asarray, Cython, BLAS wrappers) takes the
/// Array as the ndarray it is, and a view NumPy takes of it names the held ndarray as its base (so
/// the memory lives as long as anything looks at it). After the fields comes the Array record
/// (array_record.h): the held ndarray, the workspace cycle, the view's base Array. wsarray's own
/// code computes with the held ndarray; the fields are kept equal to it (resync_array_object()
/// after NumPy changed it in place).
///
/// An Array NumPy's own code made (a subclass view or copy: `x.view(wsarray.ndarray)`,
/// `numpy.array(a, subok=True)`) starts with an empty record; it is adopted on first use: given an
/// ndarray of its own over the same memory (taking over the data's ownership when it owned it).
///
/// Dead Arrays are kept (up to 16 per number of dimensions, with their shape buffers) and filled in
/// again for the next result: a small result costs no object allocation. Under the GIL only.
#pragma once
#include "allocation/block_descriptions.h"
#include "results/array_record.h"

#include <Python.h>
#include <nanobind/nanobind.h>

#include <cstddef>
#include <new>

namespace wsa_py {

/// The Python type object of wsarray.Array (set by export_array).
extern PyTypeObject *ArrayType;
/// Where the Array record lies in an Array object (the same for every Array).
extern std::ptrdiff_t g_array_offset;

/// The size of an Array object: NumPy's ndarray fields, then the record.
Py_ssize_t array_object_size();

/// A new Array object (new reference) whose ndarray fields view the exact ndarray `nd` (borrowed;
/// the fields' base takes a reference), its record still to be constructed by the caller (its
/// memory is zero). Null with a Python error set on failure.
PyObject *new_array_object(PyObject *nd);

/// Make the ndarray fields of Array `o` describe its record's ndarray again, after NumPy changed
/// that ndarray in place (a.shape = ..., a.dtype = ..., a.resize(), a.setflags()).
void resync_array_object(PyObject *o);

/// Where NumPy's flags lie in an ndarray object (offsetof(PyArrayObject_fields, flags)).
extern std::ptrdiff_t g_ndarray_flags_offset;
inline int ndarray_flags_of(PyObject *o) { return *(const int *) ((const char *) o + g_ndarray_flags_offset); }
/// NumPy's NPY_ARRAY_WRITEABLE and its private NPY_ARRAY_WARN_ON_WRITE (checked in array_object.cpp).
constexpr int kWriteableFlag = 0x0400;
constexpr int kWarnOnWriteFlag = (int) (1u << 31);

/// Whether the Array's fields and its held ndarray disagree on being writeable, or its fields
/// were marked to warn on the first write (a.flags._warn_on_write = True): sync_view_flags() then.
inline bool view_flags_differ(PyObject *o, PyObject *nd) {
    int mine = ndarray_flags_of(o);
    return (mine & kWarnOnWriteFlag) || ((mine ^ ndarray_flags_of(nd)) & kWriteableFlag);
}
/// The held ndarray decides whether the Array is writeable (a.setflags() and a.flags.writeable go
/// to it); a warning due on the first write moves from the fields to the held ndarray, through
/// which wsarray writes.
void sync_view_flags(PyObject *o);

/// Give an Array NumPy's own code made (its record empty) an ndarray of its own over the same
/// memory, and the workspace cycle of that memory. Throws nb::python_error on failure.
void adopt_array_object(PyObject *o);

/// The type's deallocator: the record destroyed, then the object kept for the next result or
/// released as NumPy's ndarray deallocator releases an ndarray.
void array_dealloc(PyObject *o);

/// Start keeping dead Arrays (module init, once the type exists); empties the pool at exit. Adds
/// _array_pool_counts() to `m` (the tests read it).
void init_array_objects(nanobind::module_ &m);

/// Is `o` a wsarray.Array (the type itself: a subclass's instance is NumPy's, array_subclasses.cpp)?
inline bool is_array(PyObject *o) { return Py_TYPE(o) == ArrayType; }
inline Array &array_of(PyObject *o) { return *reinterpret_cast<Array *>((char *) o + g_array_offset); }

/// Raise WorkspaceError naming `fn` if the array's cycle has ended or its workspace is gone (an
/// Array NumPy made is adopted first, so that a view of a stale Array is stale too).
inline void check_valid(Array &a, const char *fn) {
    if (!a.nd_.is_valid()) a.data();
    if (!token_valid(a.token)) raise_stale(a, fn);
    auto *o = (PyObject *) ((char *) &a - g_array_offset);
    if (view_flags_differ(o, a.nd_.ptr())) sync_view_flags(o);
}

/// A new wsarray.Array (new reference) holding ndarray `nd` (an exact ndarray; a reference is
/// taken). `base`: the Array whose ndarray is `nd`'s base, when known. Every result is made here.
inline PyObject *make_array(PyObject *nd, Token token, PyObject *base = nullptr) {
    PyObject *inst = new_array_object(nd);
    if (!inst) throw nb::python_error();
    // Nothing to read, so nothing to guard: an empty array is never attached (Dask builds graphs
    // around empty `meta` arrays that must outlive the cycle they were made in).
    if (token.ws && ndarray_size(nd) == 0) token = Token{};
    new (&array_of(inst)) Array{nb::borrow(nd), std::move(token), nb::borrow(base)};
    describe_block_if_any(nd);  // while tracemalloc traces large blocks (block_descriptions.h)
    return inst;
}
/// make_array() for an ndarray just allocated in `target` (the current route; null: no
/// workspace), taking over the caller's reference to `nd`: the fast paths' results.
inline PyObject *wrap_new(PyObject *nd, wsa::Workspace *target) {
    nb::object owned = nb::steal(nd);
    return make_array(nd, token_of_target(target));
}

} // namespace wsa_py
