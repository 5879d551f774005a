/// src/python/fast/fast_indexing.cpp -- one element, views, boolean masks and element stores of a
/// wsarray.Array made straight from the ndarray (see fast_indexing.h): the steps NumPy's own
/// indexing takes for these keys, without its general index preparation. Only a mask's result
/// allocates array memory (new_owned_array(): from the current workspace, no route to set up); a
/// view shares its parent's, a NumPy scalar holds its value.
#include "numpy_access/numpy_api.h"

#include "fast/fast_indexing.h"
#include "results/ndarray_pool.h"

#include "calls/engine.h"
#include "allocation/numpy_alloc.h"
#include "workspaces/scopes.h"

#include <numpy/arrayscalars.h>

#include <cstring>

namespace wsa_py {

namespace {

/// Builtin numeric type numbers (bool ... clongdouble, half).
constexpr int kTypeSlots = NPY_HALF + 1;

bool builtin_numeric(int t) { return (t >= NPY_BOOL && t <= NPY_CLONGDOUBLE) || t == NPY_HALF; }

/// The builtin descriptor singletons, fetched once (NumPy keeps them for its lifetime).
PyArray_Descr *const *builtin_descrs() {
    static PyArray_Descr *table[kTypeSlots] = {};
    static bool filled = false;
    if (!filled) {  // under the GIL
        for (int t = 0; t < kTypeSlots; ++t)
            if (builtin_numeric(t)) {
                table[t] = PyArray_DescrFromType(t);  // a reference kept forever
                if (!table[t]) PyErr_Clear();
            }
        filled = true;
    }
    return table;
}

/// A Python int as an index into an axis of length `dim` (negative counts from the end); false
/// when it is out of range or too large (NumPy's path raises its IndexError).
bool axis_index(PyObject *k, npy_intp dim, npy_intp &out) {
    int overflow = 0;
    long long i = PyLong_AsLongLongAndOverflow(k, &overflow);
    if (overflow) return false;  // an exact int sets no error otherwise
    if (i < 0) i += dim;
    if (i < 0 || i >= dim) return false;
    out = (npy_intp) i;
    return true;
}

/// The address of the element `key` selects (an int for 1-D, a tuple of one int per axis), or
/// null when the key is not that.
char *element_address(PyArrayObject *nd, PyObject *key) {
    int ndim = PyArray_NDIM(nd);
    char *p = PyArray_BYTES(nd);
    npy_intp i;
    if (PyLong_CheckExact(key)) {
        if (ndim != 1 || !axis_index(key, PyArray_DIM(nd, 0), i)) return nullptr;
        return p + i * PyArray_STRIDE(nd, 0);
    }
    if (!PyTuple_CheckExact(key) || PyTuple_GET_SIZE(key) != ndim || ndim == 0) return nullptr;
    for (int axis = 0; axis < ndim; ++axis) {
        PyObject *k = PyTuple_GET_ITEM(key, axis);
        if (!PyLong_CheckExact(k) || !axis_index(k, PyArray_DIM(nd, axis), i)) return nullptr;
        p += i * PyArray_STRIDE(nd, axis);
    }
    return p;
}

} // namespace

PyArrayObject *plain_ndarray(Array &a) {
    PyObject *d = a.data().ptr();
    return PyArray_CheckExact(d) ? (PyArrayObject *) d : nullptr;
}

namespace {

template <class Scalar> PyObject *boxed(PyArray_Descr *descr, const char *p) {
    PyObject *s = descr->typeobj->tp_alloc(descr->typeobj, 0);
    if (s) std::memcpy(&((Scalar *) s)->obval, p, sizeof(((Scalar *) s)->obval));
    return s;
}

/// The NumPy scalar of the element at `p` (`descr` canonical numeric): what PyArray_Scalar
/// makes (tp_alloc, then the value copied in; bools are NumPy's two singletons), written out
/// for the common types.
PyObject *numpy_scalar(PyArray_Descr *descr, const char *p, PyArrayObject *base) {
    switch (descr->type_num) {
    case NPY_DOUBLE: return boxed<PyDoubleScalarObject>(descr, p);
    case NPY_FLOAT: return boxed<PyFloatScalarObject>(descr, p);
    case NPY_LONG: return boxed<PyLongScalarObject>(descr, p);
    case NPY_LONGLONG: return boxed<PyLongLongScalarObject>(descr, p);
    case NPY_INT: return boxed<PyIntScalarObject>(descr, p);
    case NPY_BOOL: {
        PyObject *b = *(const npy_bool *) p ? PyArrayScalar_True : PyArrayScalar_False;
        Py_INCREF(b);
        return b;
    }
    default: return PyArray_Scalar((void *) p, descr, (PyObject *) base);
    }
}

/// A slice bound that is None (`none` then) or an exact int that fits; false for anything else
/// (objects with __index__ run Python code, and NumPy's path clamps huge ints: both left to it).
bool slice_part(PyObject *o, Py_ssize_t none, Py_ssize_t &v) {
    if (o == Py_None) {
        v = none;
        return true;
    }
    if (!PyLong_CheckExact(o)) return false;
    v = PyLong_AsSsize_t(o);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
    }
    return true;
}

/// start, step and length of `slice` over an axis of length `dim`, as NumPy's indexing takes
/// them (PySlice_Unpack and PySlice_AdjustIndices, then an empty slice as start 0, step 1); false
/// when the slice is not plain (see slice_part) or its step is 0 (NumPy's error).
bool slice_span(PyObject *slice, npy_intp dim, npy_intp &start, npy_intp &step, npy_intp &len) {
    auto *s = (PySliceObject *) slice;
    Py_ssize_t first, stop, by;
    if (!slice_part(s->step, 1, by) || by == 0) return false;
    if (!slice_part(s->start, by < 0 ? PY_SSIZE_T_MAX : 0, first) ||
        !slice_part(s->stop, by < 0 ? PY_SSIZE_T_MIN : PY_SSIZE_T_MAX, stop))
        return false;
    if (by < -PY_SSIZE_T_MAX) by = -PY_SSIZE_T_MAX;  // as PySlice_Unpack: -step must not overflow
    len = PySlice_AdjustIndices(dim, &first, &stop, by);
    start = first;
    step = by;
    if (len <= 0) {  // as NumPy: an empty view starts at the axis' start, step 1
        len = 0;
        start = 0;
        step = 1;
    }
    return true;
}

/// The view of `nd` that `items` (ints and slices, at most one per axis) select, as NumPy's
/// get_view_from_index makes it; null (no error) when an item is not one of those or an int is
/// out of range.
PyObject *view_of(PyArrayObject *nd, PyObject *const *items, Py_ssize_t n) {
    int ndim = PyArray_NDIM(nd);
    if (n == 0 || n > ndim) return nullptr;  // a[()] and too many indices: NumPy's path
    npy_intp shape[NPY_MAXDIMS], strides[NPY_MAXDIMS];
    char *data = PyArray_BYTES(nd);
    int out = 0;
    for (Py_ssize_t axis = 0; axis < n; ++axis) {
        PyObject *item = items[axis];
        npy_intp dim = PyArray_DIM(nd, (int) axis), stride = PyArray_STRIDE(nd, (int) axis);
        if (PyLong_CheckExact(item)) {
            npy_intp i;
            if (!axis_index(item, dim, i)) return nullptr;
            data += i * stride;
        } else if (PySlice_Check(item)) {
            npy_intp start, step, len;
            if (!slice_span(item, dim, start, step, len)) return nullptr;
            data += start * stride;
            shape[out] = len;
            // A huge step over a short axis (a[::2**62]): NumPy's path decides what stride it gets.
            if (__builtin_mul_overflow(stride, step, &strides[out])) return nullptr;
            ++out;
        } else {
            return nullptr;
        }
    }
    if (n == ndim && out == 0) return nullptr;  // one element, not a view
    for (int axis = (int) n; axis < ndim; ++axis) {
        shape[out] = PyArray_DIM(nd, axis);
        strides[out] = PyArray_STRIDE(nd, axis);
        ++out;
    }
    PyArray_Descr *descr = PyArray_DESCR(nd);
    auto *view = reuse_ndarray_view(descr, out, shape, strides, data, PyArray_FLAGS(nd));  // ndarray_pool.h
    if (!view) {
        Py_INCREF(descr);
        view = (PyArrayObject *) PyArray_NewFromDescr(&PyArray_Type, descr, out, shape, strides, data,
                                                      PyArray_FLAGS(nd), nullptr);
    }
    if (!view) {
        PyErr_Clear();
        return nullptr;
    }
    Py_INCREF(nd);
    if (PyArray_SetBaseObject(view, (PyObject *) nd) < 0) {  // steals the reference
        Py_DECREF(view);
        PyErr_Clear();
        return nullptr;
    }
    return (PyObject *) view;
}

/// The Array of a view of `a`'s memory, in `a`'s cycle. Its base is the Array whose ndarray is
/// the view's base, as NumPy names it: `self` when `a` owns its memory, else (NumPy's base
/// collapses to the owner) `a`'s own base; the engine's lookup in any other case.
PyObject *wrap_view(PyObject *view, Array &a, PyObject *self) {
    nb::object owned = nb::steal(view);
    PyObject *view_base = PyArray_BASE((PyArrayObject *) view);
    PyObject *base = nullptr;
    if (view_base == a.nd_.ptr()) base = self;
    else if (a.base.is_valid() && is_array(a.base.ptr()) && array_of(a.base.ptr()).nd_.ptr() == view_base)
        base = a.base.ptr();
    else return wrap_ndarray(owned, self).release().ptr();
    return make_array(view, a.token, base);
}

} // namespace

PyArray_Descr *canonical_numeric(PyArray_Descr *d) {
    int t = d->type_num;
    if (!builtin_numeric(t)) return nullptr;
    return builtin_descrs()[t] == d ? d : nullptr;
}

PyArray_Descr *builtin_descr(int type_num) { return builtin_numeric(type_num) ? builtin_descrs()[type_num] : nullptr; }

PyObject *fast_item(Array &a, PyObject *key) {
    if (!PyLong_CheckExact(key) && !PyTuple_CheckExact(key)) return nullptr;
    PyArrayObject *nd = plain_ndarray(a);
    if (!nd) return nullptr;
    PyArray_Descr *descr = canonical_numeric(PyArray_DESCR(nd));
    if (!descr) return nullptr;
    const char *p = element_address(nd, key);
    if (!p) return nullptr;
    // NumPy returns its scalar here, and so does this.
    PyObject *value = numpy_scalar(descr, p, nd);
    if (!value) PyErr_Clear();  // the general path reports the failure
    return value;
}

PyObject *fast_view(Array &a, PyObject *self, PyObject *key) {
    bool tuple = PyTuple_CheckExact(key);
    if (!tuple && !PySlice_Check(key) && !PyLong_CheckExact(key)) return nullptr;
    PyArrayObject *nd = plain_ndarray(a);
    if (!nd) return nullptr;
    PyObject *view = tuple ? view_of(nd, &PyTuple_GET_ITEM(key, 0), PyTuple_GET_SIZE(key)) : view_of(nd, &key, 1);
    return view ? wrap_view(view, a, self) : nullptr;
}

namespace {

/// Copy the elements of `src` (n of `size` bytes each) whose `keep` byte is nonzero to `dst`.
[[gnu::always_inline]] inline void compress(char *dst, const char *src, const npy_bool *keep, npy_intp n,
                                            std::size_t size) {
    for (npy_intp i = 0; i < n; ++i)
        if (keep[i]) {
            std::memcpy(dst, src + i * size, size);
            dst += size;
        }
}

/// compress() with the common element sizes as constants (a plain load and store per element).
void compress_any(char *dst, const char *src, const npy_bool *keep, npy_intp n, std::size_t size) {
    switch (size) {
    case 1: return compress(dst, src, keep, n, 1);
    case 2: return compress(dst, src, keep, n, 2);
    case 4: return compress(dst, src, keep, n, 4);
    case 8: return compress(dst, src, keep, n, 8);
    case 16: return compress(dst, src, keep, n, 16);
    default: return compress(dst, src, keep, n, size);
    }
}

} // namespace

PyObject *fast_mask(Array &a, Array &mask) {
    PyArrayObject *nd = plain_ndarray(a), *m = plain_ndarray(mask);
    if (!nd || !m || PyArray_TYPE(m) != NPY_BOOL) return nullptr;
    int ndim = PyArray_NDIM(nd);
    if (ndim == 0 || PyArray_NDIM(m) != ndim || !PyArray_IS_C_CONTIGUOUS(nd) || !PyArray_IS_C_CONTIGUOUS(m))
        return nullptr;
    for (int i = 0; i < ndim; ++i)
        if (PyArray_DIM(nd, i) != PyArray_DIM(m, i)) return nullptr;  // NumPy's IndexError, or broadcasting
    PyArray_Descr *descr = canonical_numeric(PyArray_DESCR(nd));
    npy_intp n = PyArray_SIZE(nd);
    if (!descr || n > kFastMaskElements) return nullptr;
    const auto *keep = (const npy_bool *) PyArray_DATA(m);
    npy_intp count = 0;
    for (npy_intp i = 0; i < n; ++i) count += keep[i] != 0;  // any nonzero byte selects, as in NumPy
    // No element selected: an empty result in ordinary memory (an empty array is never attached).
    wsa::Workspace *target = count ? current_target() : nullptr;
    PyArrayObject *res = new_owned_array(target, descr, 1, &count, false);
    if (!res) return nullptr;
    if (!count) PyArray_STRIDES(res)[0] = 0;  // NumPy's empty selection has stride 0
    compress_any(PyArray_BYTES(res), PyArray_BYTES(nd), keep, n, (std::size_t) PyDataType_ELSIZE(descr));
    return wrap_new((PyObject *) res, target);
}

bool fast_store(Array &a, PyObject *key, PyObject *value) {
    if (!PyFloat_CheckExact(value) && !PyLong_CheckExact(value) && !PyBool_Check(value) &&
        !PyComplex_CheckExact(value) && !is_numpy_scalar(value))
        return false;
    PyArrayObject *nd = plain_ndarray(a);
    // A read-only target: NumPy's path raises its error before it looks at the key.
    if (!nd || !writeable_quietly(nd)) return false;
    PyArray_Descr *descr = canonical_numeric(PyArray_DESCR(nd));
    if (!descr) return false;
    char *p = element_address(nd, key);
    if (!p) return false;
    // NumPy's assignment to one element is exactly this call (its casts, overflow checks, errors).
    if (PyArray_Pack(descr, p, value) < 0) raise_pending("ndarray.__setitem__");
    return true;
}

PyObject *fast_iter_item(Array &a, PyObject *self, Py_ssize_t i) {
    PyArrayObject *nd = plain_ndarray(a);
    if (!nd || PyArray_NDIM(nd) == 0 || i >= PyArray_DIM(nd, 0)) return nullptr;
    if (PyArray_NDIM(nd) == 1) {
        PyArray_Descr *descr = canonical_numeric(PyArray_DESCR(nd));
        if (!descr) return nullptr;
        PyObject *s = numpy_scalar(descr, PyArray_BYTES(nd) + i * PyArray_STRIDE(nd, 0), nd);
        if (!s) PyErr_Clear();
        return s;
    }
    nb::object index = nb::steal(PyLong_FromSsize_t(i));
    if (!index) {
        PyErr_Clear();
        return nullptr;
    }
    PyObject *k = index.ptr();
    PyObject *view = view_of(nd, &k, 1);
    return view ? wrap_view(view, a, self) : nullptr;
}

} // namespace wsa_py
