/// src/python/numpy_access/numpy_access.cpp -- ndarray and NumPy scalar accessors over NumPy's C API (see
/// numpy_access.h).
#include "numpy_access/numpy_api.h"

#include "numpy_access/numpy_access.h"

#include <numpy/arrayscalars.h>

namespace wsa_py {

void *ndarray_data(PyObject *o) { return PyArray_Check(o) ? PyArray_DATA((PyArrayObject *) o) : nullptr; }
PyObject *ndarray_base(PyObject *o) { return PyArray_Check(o) ? PyArray_BASE((PyArrayObject *) o) : nullptr; }
int ndarray_ndim(PyObject *o) { return PyArray_Check(o) ? PyArray_NDIM((PyArrayObject *) o) : -1; }
PyTypeObject *ndarray_type() { return &PyArray_Type; }
bool is_ndarray(PyObject *o) { return PyArray_Check(o); }
bool is_ndarray_exact(PyObject *o) { return PyArray_CheckExact(o); }
// Flexible scalars (np.str_, np.bytes_ and np.void records) stay as they are: str_/bytes_ are
// Python str/bytes, and record["field"] must give the field's scalar as in NumPy.
bool is_numpy_scalar(PyObject *o) { return PyArray_IsScalar(o, Generic) && !PyArray_IsScalar(o, Flexible); }
PyObject *scalar_to_ndarray(PyObject *scalar) { return PyArray_FromScalar(scalar, nullptr); }
PyObject *scalar_dtype(PyObject *scalar) { return (PyObject *) PyArray_DescrFromScalar(scalar); }
PyObject *float64_scalar(double v) {
    PyObject *s = PyArrayScalar_New(Double);
    if (s) PyArrayScalar_ASSIGN(s, Double, v);
    return s;
}
PyObject *int64_scalar(long long v) {
    static_assert(sizeof(long) == sizeof(long long), "NumPy's int64 is C long here (NPY_LONG)");
    PyObject *s = PyArrayScalar_New(Long);
    if (s) PyArrayScalar_ASSIGN(s, Long, v);
    return s;
}
PyObject *ndarray_to_scalar(PyObject *nd) {
    return PyArray_ToScalar(PyArray_DATA((PyArrayObject *) nd), (PyArrayObject *) nd);
}
PyObject *ndarray_shape(PyObject *o) {
    auto *a = (PyArrayObject *) o;
    int nd = PyArray_NDIM(a);
    PyObject *t = PyTuple_New(nd);
    if (!t) return nullptr;
    for (int i = 0; i < nd; ++i) {
        // PyLong_FromLong where npy_intp fits a long: CPython 3.11's PyLong_FromSsize_t has no
        // fast path for one-digit values (shape (1000,): 70 instructions against 40).
        npy_intp v = PyArray_DIM(a, i);
        PyObject *d = sizeof(long) >= sizeof(npy_intp) ? PyLong_FromLong((long) v) : PyLong_FromSsize_t(v);
        if (!d) {
            Py_DECREF(t);
            return nullptr;
        }
        PyTuple_SET_ITEM(t, i, d);
    }
    return t;
}
PyObject *ndarray_dtype(PyObject *o) {
    PyObject *d = (PyObject *) PyArray_DESCR((PyArrayObject *) o);
    Py_INCREF(d);
    return d;
}
Py_ssize_t ndarray_size(PyObject *o) {  // PyArray_SIZE without the call through NumPy's API table
    auto *a = (PyArrayObject *) o;
    Py_ssize_t n = 1;
    for (int i = 0; i < PyArray_NDIM(a); ++i) n *= PyArray_DIMS(a)[i];
    return n;
}
bool ndarray_void(PyObject *o) { return PyArray_DESCR((PyArrayObject *) o)->type_num == NPY_VOID; }
bool ndarray_dtype_metadata(PyObject *o) { return PyDataType_METADATA(PyArray_DESCR((PyArrayObject *) o)) != nullptr; }
bool ndarray_writeable(PyObject *o) { return PyArray_ISWRITEABLE((PyArrayObject *) o); }
bool ndarray_owns_data(PyObject *o) { return PyArray_CHKFLAGS((PyArrayObject *) o, NPY_ARRAY_OWNDATA); }
PyObject **ndarray_object_items(PyObject *o, Py_ssize_t *n) {
    auto *a = (PyArrayObject *) o;
    if (PyArray_DESCR(a)->type_num != NPY_OBJECT || !PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISWRITEABLE(a))
        return nullptr;
    *n = PyArray_SIZE(a);
    return (PyObject **) PyArray_DATA(a);
}

} // namespace wsa_py
