/// src/python/numpy_access/numpy_access.h -- what the bindings read of NumPy's ndarrays and scalars, for the
/// files that do not include NumPy's C API (numpy_api.h): data pointer, shape, dtype, base, and
/// the conversions between a NumPy scalar and a 0-d ndarray.
#pragma once
#include <Python.h>

namespace wsa_py {

/// Data pointer of a NumPy ndarray (null if `o` is not an ndarray).
void *ndarray_data(PyObject *o);
/// Number of dimensions of a NumPy ndarray (-1 if `o` is not an ndarray).
int ndarray_ndim(PyObject *o);
/// The base object of a NumPy ndarray (borrowed; null if none or if `o` is not an ndarray).
PyObject *ndarray_base(PyObject *o);
/// Is `o` a NumPy ndarray (a subclass included)?
bool is_ndarray(PyObject *o);
/// numpy.ndarray's type object.
PyTypeObject *ndarray_type();
/// Is `o` a NumPy ndarray of the base class itself (no subclass)?
bool is_ndarray_exact(PyObject *o);
/// A NumPy scalar that wsarray wraps as a 0-d Array (numbers, bools, datetimes; not str/bytes/void).
bool is_numpy_scalar(PyObject *o);
/// A 0-d ndarray holding a NumPy scalar (allocated under the current route).
PyObject *scalar_to_ndarray(PyObject *scalar);
/// The NumPy scalar a 0-d ndarray holds (as nd[()] gives it, without the indexing machinery).
PyObject *ndarray_to_scalar(PyObject *nd);
/// The dtype of a NumPy scalar (new reference).
PyObject *scalar_dtype(PyObject *scalar);
/// np.float64(v), np.int64(v) (new references; null with an error set on failure).
PyObject *float64_scalar(double v);
PyObject *int64_scalar(long long v);
/// ndarray attributes, as NumPy's getters give them (new references).
PyObject *ndarray_shape(PyObject *o);
PyObject *ndarray_dtype(PyObject *o);
Py_ssize_t ndarray_size(PyObject *o);
/// Is the ndarray's dtype a void dtype (structured, or raw bytes such as V24)?
bool ndarray_void(PyObject *o);
/// Whether the dtype carries metadata (np.dtype(float, metadata={...})), which buffers lose.
bool ndarray_dtype_metadata(PyObject *o);
/// Is the ndarray writeable?
bool ndarray_writeable(PyObject *o);
/// Does the ndarray own its data (NumPy allocated it for this array)?
bool ndarray_owns_data(PyObject *o);
/// The items of a writeable C-contiguous object ndarray, their count in `*n` (borrowed; null for
/// any other ndarray).
PyObject **ndarray_object_items(PyObject *o, Py_ssize_t *n);

} // namespace wsa_py
