/// src/python/fast/fast_numpy.cpp -- lean paths through NumPy's own loops (see fast_numpy.h): a 1-input
/// ufunc or a small reduction run as NumPy's strided loop on a workspace output, and creation
/// functions allocating straight in the workspace.
#include "common/gil.h"
#include "numpy_access/numpy_api.h"

#include "fast/fast_numpy.h"

#include "compute/kernels.h"
#include "fast/fast_indexing.h"
#include "results/ndarray_pool.h"
#include "allocation/numpy_alloc.h"
#include "numpy_access/numpy_loops.h"
#include "workspaces/scopes.h"

#include <cstring>

namespace wsa_py {

namespace {

/// Builtin numeric type numbers (bool ... clongdouble, half) index the per-dtype caches.
constexpr int kTypeSlots = NPY_HALF + 1;

/// NumPy releases the GIL around loops of more elements than this (NPY_BEGIN_THREADS_THRESHOLDED).
constexpr npy_intp kReleaseGil = 500;

/// A new, uninitialised C-ordered array in `target`; null with no error set if allocation failed
/// (the general path then reports it). Steals a reference to `descr`.
PyArrayObject *new_array_in(wsa::Workspace *target, PyArray_Descr *descr, int nd, npy_intp *dims, bool zeroed = false) {
    if (PyArrayObject *r = new_owned_array(target, descr, nd, dims, zeroed)) {
        Py_DECREF(descr);
        return r;
    }
    auto make = [&] {
        return zeroed ? PyArray_Zeros(nd, dims, descr, 0)
                      : PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims, nullptr, nullptr, 0, nullptr);
    };
    return (PyArrayObject *) routed_new_array(target, make);  // builtin dtypes only (dtype_of)
}

} // namespace

struct UfuncCache::Entry {
    enum State : char { Unknown, Usable, Unusable } state = Unknown;
    nb::object capsule;  ///< keeps the loop, its context and auxdata alive
    UfuncCallInfo *info = nullptr;
    PyArray_Descr *out = nullptr;  ///< canonical builtin result descriptor (borrowed singleton)
};

UfuncCache::~UfuncCache() { delete[] entries; }

namespace {

/// Ask NumPy for the strided inner loop of `capsule` (a call context from
/// _resolve_dtypes_and_context) with these fixed strides; on success fill e.capsule and e.info.
/// False if NumPy refuses or the loop needs the Python API.
bool fetch_strided_loop(UfuncCache::Entry &e, PyObject *ufunc, const nb::object &capsule, const nb::object &strides) {
    nb::object get_loop = nb::steal(PyObject_GetAttrString(ufunc, "_get_strided_loop"));
    if (!get_loop) return false;
    nb::dict kw;
    kw["fixed_strides"] = strides;
    nb::object done = nb::steal(PyObject_Call(get_loop.ptr(), nb::make_tuple(capsule).ptr(), kw.ptr()));
    if (!done) return false;
    auto *info = (UfuncCallInfo *) PyCapsule_GetPointer(capsule.ptr(), "numpy_1.24_ufunc_call_info");
    if (!info || !info->strided_loop || info->requires_pyapi) return false;
    e.capsule = capsule;
    e.info = info;
    return true;
}

/// The ndarray of Array `x` (checked for staleness) when it is a C-contiguous, aligned base-class
/// ndarray; null otherwise (not an Array included).
PyArrayObject *contiguous_ndarray(PyObject *x, const char *fn) {
    if (!is_array(x)) return nullptr;
    Array &a = array_of(x);
    check_valid(a, fn);
    PyObject *d = a.data().ptr();
    if (!PyArray_CheckExact(d)) return nullptr;
    auto *nd = (PyArrayObject *) d;
    if (!PyArray_IS_C_CONTIGUOUS(nd) || !PyArray_ISALIGNED(nd)) return nullptr;
    // A size-1 view with a negative stride (x[::-1]) counts as contiguous, but NumPy runs another
    // loop on it (its last bit may differ): leave it to NumPy.
    for (int i = 0; i < PyArray_NDIM(nd); ++i)
        if (PyArray_STRIDES(nd)[i] < 0) return nullptr;
    return nd;
}

/// The cache entry for input dtype `in`, resolved with `resolve` on first use; null when NumPy's
/// loop for it cannot be called directly.
template <class Resolve> UfuncCache::Entry *cached_loop(UfuncCache &cache, PyArray_Descr *in, Resolve resolve) {
    if (!cache.entries) cache.entries = new UfuncCache::Entry[kTypeSlots];
    UfuncCache::Entry &e = cache.entries[in->type_num];
    if (e.state == UfuncCache::Entry::Unknown) {
        bool ok = resolve(e);
        if (!ok) PyErr_Clear();
        e.state = ok ? UfuncCache::Entry::Usable : UfuncCache::Entry::Unusable;
    }
    return e.state == UfuncCache::Entry::Usable ? &e : nullptr;
}

/// Ask NumPy for the loop `ufunc` runs when each of its `nin` inputs is of dtype `in`: a 1-input
/// ufunc's loop on contiguous arrays (`contiguous`), or a loop whose strides come with each call
/// (matmul, a generalized ufunc: its core strides follow the outer ones). False (no error set)
/// when NumPy would cast an input, the result is not a builtin numeric type, or the loop needs the
/// Python API.
bool resolve_loop(UfuncCache::Entry &e, PyObject *ufunc, PyArray_Descr *in, int nin, bool contiguous) {
    nb::object dtypes_in = nb::steal(PyTuple_New(nin + 1));
    if (!dtypes_in) return false;
    for (int i = 0; i < nin; ++i) PyTuple_SET_ITEM(dtypes_in.ptr(), i, nb::handle((PyObject *) in).inc_ref().ptr());
    PyTuple_SET_ITEM(dtypes_in.ptr(), nin, nb::none().release().ptr());
    nb::object resolved = nb::steal(PyObject_CallMethod(ufunc, "_resolve_dtypes_and_context", "(O)", dtypes_in.ptr()));
    if (!resolved || !PyTuple_Check(resolved.ptr()) || PyTuple_GET_SIZE(resolved.ptr()) != 2) return false;
    PyObject *dtypes = PyTuple_GET_ITEM(resolved.ptr(), 0);
    if (!PyTuple_Check(dtypes) || PyTuple_GET_SIZE(dtypes) != nin + 1) return false;
    for (int i = 0; i < nin; ++i)
        if (PyTuple_GET_ITEM(dtypes, i) != (PyObject *) in) return false;  // NumPy would cast the input first
    PyObject *d_out = PyTuple_GET_ITEM(dtypes, nin);
    if (!PyArray_DescrCheck(d_out)) return false;
    PyArray_Descr *out = canonical_numeric((PyArray_Descr *) d_out);
    if (!out) return false;
    nb::object capsule = nb::borrow(PyTuple_GET_ITEM(resolved.ptr(), 1));
    nb::object strides = contiguous ? nb::make_tuple(nb::int_(PyDataType_ELSIZE(in)), nb::int_(PyDataType_ELSIZE(out)))
                                    : nb::make_tuple(nb::none(), nb::none(), nb::none());
    if (!fetch_strided_loop(e, ufunc, capsule, strides)) return false;
    e.out = out;
    return true;
}

/// Run NumPy's loop `info`; without the GIL (as NumPy's loops run) when `work` exceeds
/// kReleaseGil, holding the operands' ndarrays `a` and `b` (may be null) meanwhile: another thread
/// destroying their workspace makes their Arrays let go of them. The loop's return code.
int run_loop(const UfuncCallInfo *info, char *const *data, const npy_intp *dims, const npy_intp *strides, npy_intp work,
             PyArrayObject *a, PyArrayObject *b = nullptr) {
    if (work <= kReleaseGil) return info->strided_loop(info->context, data, dims, strides, info->auxdata);
    nb::object keep_a = nb::borrow((PyObject *) a), keep_b = nb::borrow((PyObject *) b);
    GilReleased unlocked;
    return info->strided_loop(info->context, data, dims, strides, info->auxdata);
}

} // namespace

PyObject *fast_matmul_2d(PyObject *ufunc, PyArrayObject *a, PyArrayObject *b) {
    if (PyArray_NDIM(a) != 2 || PyArray_NDIM(b) != 2 || !PyArray_ISALIGNED(a) || !PyArray_ISALIGNED(b)) return nullptr;
    PyArray_Descr *in = canonical_numeric(PyArray_DESCR(a));
    if (!in || PyArray_DESCR(b) != in) return nullptr;
    npy_intp m = PyArray_DIM(a, 0), n = PyArray_DIM(a, 1), p = PyArray_DIM(b, 1);
    if (PyArray_DIM(b, 0) != n || !m || !n || !p) return nullptr;  // NumPy's error, or an empty product
    static UfuncCache *cache = new UfuncCache;  // kept for the process (its entries hold Python objects)
    UfuncCache::Entry *entry =
        cached_loop(*cache, in, [&](UfuncCache::Entry &e) { return resolve_loop(e, ufunc, in, 2, false); });
    if (!entry) return nullptr;
    wsa::Workspace *target = current_target();
    npy_intp shape[2] = {m, p};
    PyArrayObject *res = new_owned_array(target, entry->out, 2, shape, false);
    if (!res) return nullptr;
    nb::object guard = nb::steal((PyObject *) res);
    char *data[3] = {PyArray_BYTES(a), PyArray_BYTES(b), PyArray_BYTES(res)};
    // One outer iteration; then the core dimensions (m, n, p) and strides (a: m, n; b: n, p;
    // out: m, p), as NumPy's gufunc machinery passes them.
    npy_intp dims[4] = {1, m, n, p};
    npy_intp strides[9] = {0,
                           0,
                           0,
                           PyArray_STRIDE(a, 0),
                           PyArray_STRIDE(a, 1),
                           PyArray_STRIDE(b, 0),
                           PyArray_STRIDE(b, 1),
                           PyArray_STRIDE(res, 0),
                           PyArray_STRIDE(res, 1)};
    const UfuncCallInfo *info = entry->info;
    bool check_fp = !info->no_floatingpoint_errors;
    if (check_fp) fp_clear();
    if (run_loop(info, data, dims, strides, m * p * n, a, b) < 0) {
        PyErr_Clear();
        return nullptr;  // the general path runs it again and raises NumPy's error
    }
    if (check_fp && fp_raised()) return nullptr;  // recomputed there, reported as NumPy reports it
    return wrap_new(guard.release().ptr(), target);
}

PyObject *fast_ufunc1(UfuncCache &cache, PyObject *ufunc, bool real_only, PyObject *x, const char *fn) {
    PyArrayObject *nd = contiguous_ndarray(x, fn);
    // 0-d: NumPy takes another path (float16 casts through float32 and reports underflow there).
    if (!nd || PyArray_NDIM(nd) == 0) return nullptr;
    npy_intp n = PyArray_SIZE(nd);
    if (n == 0) return nullptr;
    PyArray_Descr *in = canonical_numeric(PyArray_DESCR(nd));
    if (!in || (real_only && PyTypeNum_ISCOMPLEX(in->type_num))) return nullptr;
    UfuncCache::Entry *entry =
        cached_loop(cache, in, [&](UfuncCache::Entry &e) { return resolve_loop(e, ufunc, in, 1, true); });
    if (!entry) return nullptr;
    UfuncCache::Entry &e = *entry;
    wsa::Workspace *target = current_target();
    Py_INCREF(e.out);
    PyArrayObject *res = new_array_in(target, e.out, PyArray_NDIM(nd), PyArray_DIMS(nd));
    if (!res) return nullptr;
    nb::object guard = nb::steal((PyObject *) res);
    char *data[2] = {PyArray_BYTES(nd), PyArray_BYTES(res)};
    npy_intp strides[2] = {PyDataType_ELSIZE(in), PyDataType_ELSIZE(e.out)};
    const UfuncCallInfo *info = e.info;
    bool check_fp = !info->no_floatingpoint_errors;
    if (check_fp) fp_clear();
    if (run_loop(info, data, &n, strides, n, nd) < 0) raise_pending(fn);
    // A flag raised: let the general path recompute, so that np.errstate reports it as NumPy does.
    if (check_fp && fp_raised()) return nullptr;
    return wrap_new(guard.release().ptr(), target);
}

namespace {

/// The loop NumPy's ufunc.reduce runs for a contiguous array of `in` reduced to one value
/// (strides out 0, in itemsize, out 0), when the result has the input's dtype.
bool resolve_reduce_loop(UfuncCache::Entry &e, PyObject *ufunc, PyArray_Descr *in) {
    nb::object resolve = nb::steal(PyObject_GetAttrString(ufunc, "_resolve_dtypes_and_context"));
    if (!resolve) return false;
    nb::dict kw;
    kw["reduction"] = nb::bool_(true);
    nb::object dtypes_in = nb::make_tuple(nb::none(), nb::handle((PyObject *) in), nb::none());
    nb::object resolved = nb::steal(PyObject_Call(resolve.ptr(), nb::make_tuple(dtypes_in).ptr(), kw.ptr()));
    if (!resolved || !PyTuple_Check(resolved.ptr()) || PyTuple_GET_SIZE(resolved.ptr()) != 2) return false;
    PyObject *dtypes = PyTuple_GET_ITEM(resolved.ptr(), 0);
    if (!PyTuple_Check(dtypes) || PyTuple_GET_SIZE(dtypes) != 3) return false;
    for (int i = 0; i < 3; ++i)
        if (PyTuple_GET_ITEM(dtypes, i) != (PyObject *) in) return false;
    nb::object capsule = nb::borrow(PyTuple_GET_ITEM(resolved.ptr(), 1));
    npy_intp size = PyDataType_ELSIZE(in);
    nb::object strides = nb::make_tuple(nb::int_(0), nb::int_(size), nb::int_(0));
    if (!fetch_strided_loop(e, ufunc, capsule, strides)) return false;
    e.out = in;
    return true;
}

} // namespace

PyObject *fast_reduce_all(UfuncCache &cache, PyObject *ufunc, PyObject *x, const char *fn) {
    PyArrayObject *nd = contiguous_ndarray(x, fn);
    if (!nd) return nullptr;
    npy_intp n = PyArray_SIZE(nd);
    // Empty: NumPy's error. Above one buffer of NumPy's reduction iterator (8192 elements) NumPy
    // may split the loop; one call would then order equal values (0.0, -0.0) differently.
    if (n == 0 || n > 8192) return nullptr;
    PyArray_Descr *in = canonical_numeric(PyArray_DESCR(nd));
    if (!in || PyTypeNum_ISCOMPLEX(in->type_num)) return nullptr;
    UfuncCache::Entry *entry =
        cached_loop(cache, in, [&](UfuncCache::Entry &e) { return resolve_reduce_loop(e, ufunc, in); });
    if (!entry) return nullptr;
    UfuncCache::Entry &e = *entry;
    // The result is a NumPy scalar: the value is reduced into a buffer here, then boxed.
    alignas(16) char value[32];
    npy_intp size = PyDataType_ELSIZE(in);
    if (size > (npy_intp) sizeof value) return nullptr;
    // As NumPy's reduce without identity: the first element, then the loop over the others.
    std::memcpy(value, PyArray_DATA(nd), (std::size_t) size);
    npy_intp rest = n - 1;
    if (rest > 0) {
        const UfuncCallInfo *info = e.info;
        bool check_fp = !info->no_floatingpoint_errors;
        if (check_fp) fp_clear();
        char *data[3] = {value, PyArray_BYTES(nd) + size, value};
        npy_intp strides[3] = {0, size, 0};
        if (info->strided_loop(info->context, data, &rest, strides, info->auxdata) < 0) raise_pending(fn);
        if (check_fp && fp_raised()) return nullptr;  // the general path reports it as NumPy does
    }
    PyObject *r = PyArray_Scalar(value, in, nullptr);  // NumPy returns a scalar
    if (!r) PyErr_Clear();  // the general path reports the failure
    return r;
}

namespace {

/// An int or a tuple of ints (each >= 0) as array dimensions.
bool dims_of(PyObject *shape, npy_intp *dims, int &nd) {
    auto one = [](PyObject *o, npy_intp &v) {
        if (!PyLong_CheckExact(o)) return false;
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (overflow || x < 0 || (x == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return false;
        }
        v = (npy_intp) x;
        return true;
    };
    if (PyLong_CheckExact(shape)) {
        nd = 1;
        return one(shape, dims[0]);
    }
    if (!PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) > 8) return false;
    nd = (int) PyTuple_GET_SIZE(shape);
    for (int i = 0; i < nd; ++i)
        if (!one(PyTuple_GET_ITEM(shape, i), dims[i])) return false;
    return true;
}

/// A builtin numeric descriptor for a dtype argument (None: float64). Borrowed; null if not one.
PyArray_Descr *dtype_of(PyObject *dtype) {
    if (!dtype || dtype == Py_None) return builtin_descr(NPY_DOUBLE);
    PyArray_Descr *d = nullptr;
    if (!PyArray_DescrConverter2(dtype, &d) || !d) {
        PyErr_Clear();
        return nullptr;
    }
    PyArray_Descr *c = canonical_numeric(d);
    Py_DECREF(d);  // a canonical descriptor is a singleton NumPy keeps alive
    return c;
}

template <class T> void fill_as(void *data, npy_intp n, T v) {
    T *p = (T *) data;
    for (npy_intp i = 0; i < n; ++i) p[i] = v;
}
template <> void fill_as<double>(void *data, npy_intp n, double v) {
    wsa::fill_f64((double *) data, (std::size_t) n, v);
}

/// Fill with one: the value NumPy's ones() writes (1 cast to the type).
bool fill_one(PyArrayObject *arr, npy_intp n) {
    void *p = PyArray_DATA(arr);
    switch (PyArray_TYPE(arr)) {
    case NPY_BOOL: fill_as<npy_bool>(p, n, 1); return true;
    case NPY_BYTE: fill_as<npy_byte>(p, n, 1); return true;
    case NPY_UBYTE: fill_as<npy_ubyte>(p, n, 1); return true;
    case NPY_SHORT: fill_as<npy_short>(p, n, 1); return true;
    case NPY_USHORT: fill_as<npy_ushort>(p, n, 1); return true;
    case NPY_INT: fill_as<npy_int>(p, n, 1); return true;
    case NPY_UINT: fill_as<npy_uint>(p, n, 1); return true;
    case NPY_LONG: fill_as<npy_long>(p, n, 1); return true;
    case NPY_ULONG: fill_as<npy_ulong>(p, n, 1); return true;
    case NPY_LONGLONG: fill_as<npy_longlong>(p, n, 1); return true;
    case NPY_ULONGLONG: fill_as<npy_ulonglong>(p, n, 1); return true;
    case NPY_HALF: fill_as<npy_half>(p, n, 0x3C00); return true;
    case NPY_FLOAT: fill_as<float>(p, n, 1.0f); return true;
    case NPY_DOUBLE: fill_as<double>(p, n, 1.0); return true;
    case NPY_LONGDOUBLE: fill_as<long double>(p, n, 1.0L); return true;
    default: return false;  // complex: the general path
    }
}

} // namespace

namespace {

/// arange(stop) or arange(start, stop) with Python ints: NumPy's default integer, start + i.
PyObject *fast_arange(PyObject *const *args, Py_ssize_t nargs, PyObject *kwargs) {
    if (nargs < 1 || nargs > 2 || (kwargs && PyDict_GET_SIZE(kwargs))) return nullptr;
    long long bounds[2] = {0, 0};
    for (Py_ssize_t i = 0; i < nargs; ++i) {
        if (!PyLong_CheckExact(args[i])) return nullptr;
        int overflow = 0;
        bounds[i] = PyLong_AsLongLongAndOverflow(args[i], &overflow);
        if (overflow || (bounds[i] == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return nullptr;
        }
    }
    long long start = nargs == 2 ? bounds[0] : 0, stop = nargs == 2 ? bounds[1] : bounds[0];
    // Empty ranges and ranges near the integer limits: NumPy's path.
    if (stop <= start || start < -(1LL << 62) || stop > (1LL << 62)) return nullptr;
    long long span;
    if (__builtin_sub_overflow(stop, start, &span)) return nullptr;  // past 2**63 elements: NumPy's error
    npy_intp n = (npy_intp) span;
    PyArray_Descr *descr = PyArray_DescrFromType(NPY_INTP);  // NumPy's default integer
    if (!descr) {
        PyErr_Clear();
        return nullptr;
    }
    wsa::Workspace *target = current_target();
    PyArrayObject *res = new_array_in(target, descr, 1, &n);  // steals descr
    if (!res) return nullptr;
    auto *p = (npy_intp *) PyArray_DATA(res);
    if constexpr (sizeof(npy_intp) == sizeof(std::int64_t)) {
        wsa::iota_i64((std::int64_t *) p, (std::size_t) n, (std::int64_t) start);  // vectorised (-O3)
    } else {
        for (npy_intp i = 0, count = n; i < count; ++i) p[i] = (npy_intp) start + i;
    }
    return wrap_new((PyObject *) res, target);
}

} // namespace

PyObject *fast_create(Creation kind, PyObject *const *args, Py_ssize_t nargs, PyObject *kwargs) {
    if (kind == Creation::Arange) return fast_arange(args, nargs, kwargs);
    Py_ssize_t first_dtype = kind == Creation::Full ? 2 : 1;  // positional index of dtype
    if (nargs < first_dtype || nargs > first_dtype + 1) return nullptr;
    PyObject *dtype = nargs > first_dtype ? args[first_dtype] : nullptr;
    if (kwargs && PyDict_GET_SIZE(kwargs)) {
        PyObject *kw_dtype = PyDict_GetItemString(kwargs, "dtype");  // borrowed, no error
        if (PyDict_GET_SIZE(kwargs) != 1 || !kw_dtype || dtype) return nullptr;
        dtype = kw_dtype;
    }
    npy_intp dims[8];
    int nd = 0;
    if (!dims_of(args[0], dims, nd)) return nullptr;
    PyArray_Descr *descr;
    double fill = 0;
    if (kind == Creation::Full) {
        // full(shape, fill) with a Python number and no dtype: NumPy takes the fill's own dtype.
        if (dtype && dtype != Py_None) return nullptr;
        PyObject *v = args[1];
        if (PyFloat_CheckExact(v)) {
            descr = PyArray_DescrFromType(NPY_DOUBLE);
            fill = PyFloat_AS_DOUBLE(v);
        } else {
            return nullptr;
        }
        Py_DECREF(descr);  // singleton
    } else {
        descr = dtype_of(dtype);
        if (!descr) return nullptr;
    }
    npy_intp n = 1;
    for (int i = 0; i < nd; ++i) {
        if (dims[i] && n > NPY_MAX_INTP / dims[i]) return nullptr;  // NumPy raises: general path
        n *= dims[i];
    }
    // Empty arrays: NumPy's functions give them strides of their own; the general path keeps them.
    if (n == 0 || n > NPY_MAX_INTP / PyDataType_ELSIZE(descr)) return nullptr;
    if (kind == Creation::Ones && PyTypeNum_ISCOMPLEX(descr->type_num)) return nullptr;
    wsa::Workspace *target = current_target();
    Py_INCREF(descr);
    PyArrayObject *res = new_array_in(target, descr, nd, dims, kind == Creation::Zeros);
    if (!res) return nullptr;
    if (kind == Creation::Ones) fill_one(res, n);
    else if (kind == Creation::Full) fill_as<double>(PyArray_DATA(res), n, fill);
    return wrap_new((PyObject *) res, target);
}

} // namespace wsa_py
