/// src/python/fast/fast_indexing.h -- indexing a wsarray.Array without NumPy's index machinery.
///
/// The keys element loops and stencils use most (a[i], a[i, j], a[1:], a[1:-1, 2:], the row a[i]
/// of a 2-D array, a[i] = v, and the items of iter(a)) are answered straight from the ndarray's
/// shape, strides and dtype, as NumPy's own indexing answers them: the same NumPy scalars, the
/// same views (shape, strides, flags, base), values stored with NumPy's own PyArray_Pack. Each
/// function returns null (or false) with no error set when its case does not fit: other keys
/// (Ellipsis, None, arrays, bools, objects with __index__), out-of-range indices, read-only
/// targets, ndarray subclasses, other dtypes. The caller then takes NumPy's path, which raises
/// NumPy's errors.
#pragma once
#include "results/array_object.h"

struct _PyArray_Descr;
struct tagPyArrayObject;

namespace wsa_py {

/// `d` if it is the canonical descriptor (the builtin singleton, native byte order) of a builtin
/// numeric type (bool ... clongdouble, half), else null. Borrowed.
_PyArray_Descr *canonical_numeric(_PyArray_Descr *d);
/// The canonical descriptor of builtin numeric type `type_num` (borrowed; NumPy keeps it).
_PyArray_Descr *builtin_descr(int type_num);

/// The base-class ndarray of an Array, else null (an ndarray subclass).
tagPyArrayObject *plain_ndarray(Array &a);

/// `a[key]` for an int (1-D) or a tuple of ints (one per axis) selecting one element of a
/// builtin numeric dtype: the NumPy scalar NumPy returns.
PyObject *fast_item(Array &a, PyObject *key);

/// `a[key]` for a key NumPy answers with a view: a slice, an int on an array of 2 or more
/// dimensions, a tuple of ints and slices (ints, None and slices of ints only). The view is made
/// as NumPy makes it (NumPy's descriptor, flags and base) and belongs to `a`'s cycle; its Array
/// names `self` as its base.
PyObject *fast_view(Array &a, PyObject *self, PyObject *key);

/// Largest array whose boolean mask fast_mask() applies (a simple loop; NumPy's own, for larger
/// ones, skips runs of False).
constexpr Py_ssize_t kFastMaskElements = 1 << 14;

/// `a[mask]` for a C-contiguous array of a builtin numeric dtype (native byte order) and a
/// C-contiguous bool mask of the same shape: NumPy's result (the selected elements in C order,
/// 1-D, `a`'s descriptor) with its memory from the current target (an empty one: ordinary memory).
/// Null with no error set otherwise (the general path answers and raises).
PyObject *fast_mask(Array &a, Array &mask);

/// `a[key] = value` for a key selecting one element (as fast_item) of a writeable array of a
/// builtin numeric dtype, and `value` a Python number or a NumPy scalar: stored by NumPy's own
/// PyArray_Pack, as NumPy's assignment stores it (same casts, same errors, raised here). False,
/// with nothing written, when the case does not fit.
bool fast_store(Array &a, PyObject *key, PyObject *value);

/// Item `i` of iter(a) (self: the Array `a`): for a 1-D array of a builtin numeric dtype the
/// NumPy scalar NumPy's iterator yields, for 2 or more dimensions the row view (as fast_view).
PyObject *fast_iter_item(Array &a, PyObject *self, Py_ssize_t i);

} // namespace wsa_py
