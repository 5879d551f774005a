/// src/python/results/ndarray_pool.cpp -- the pool of dead ndarrays (see ndarray_pool.h): retiring one as
/// NumPy's array_dealloc would free its data, and filling one in as PyArray_NewFromDescr would.
#include "numpy_access/numpy_api.h"

#include "results/ndarray_pool.h"
#include "allocation/numpy_alloc.h"

#include <nanobind/nanobind.h>

#include <cstdint>

namespace wsa_py {

namespace nb = nanobind;

namespace {

/// The descriptor kept ndarrays hold: a private copy, so that NumPy's descriptors' reference
/// counts read as if kept ndarrays had been deallocated (NumPy's tests check them).
PyArray_Descr *g_kept_descr = nullptr;

struct NdarrayPool {
    static constexpr int kMaxRank = 4;   ///< ranks kept: 1..kMaxRank
    static constexpr int kPerRank = 16;  ///< objects kept per rank
    bool enabled = false;
    int count[kMaxRank + 1] = {};
    PyArrayObject_fields *slots[kMaxRank + 1][kPerRank];
};
NdarrayPool g_pool;

/// NumPy's raw_array_is_aligned (what PyArray_UpdateFlags(NPY_ARRAY_ALIGNED) computes).
[[maybe_unused]] bool is_aligned(int nd, const npy_intp *dims, const char *data, const npy_intp *strides,
                                 npy_intp alignment) {
    if (alignment == 1) return true;
    if (alignment < 1) return false;
    std::uintptr_t check = (std::uintptr_t) data;
    for (int i = 0; i < nd; ++i) {
        if (dims[i] > 1) check |= (std::uintptr_t) strides[i];
        else if (dims[i] == 0) return true;
    }
    return (check & (std::uintptr_t) (alignment - 1)) == 0;
}

#ifndef Py_GIL_DISABLED
/// A kept ndarray of `nd` dimensions with `descr` (borrowed) and `data` in place of the private
/// descriptor and no data; its shape, strides and flags are the caller's to fill. Null if none.
PyArrayObject_fields *take_kept(PyArray_Descr *descr, int nd, char *data) {
    NdarrayPool &p = g_pool;
    if (nd < 1 || nd > NdarrayPool::kMaxRank || !p.count[nd]) return nullptr;
    PyArrayObject_fields *fa = p.slots[nd][--p.count[nd]];
    Py_INCREF(descr);
    fa->descr = descr;
    Py_DECREF(g_kept_descr);  // never the last reference (the pool keeps one)
    fa->data = data;
    return fa;
}

/// At interpreter exit: every kept ndarray released (NumPy's dealloc of a dataless array).
void drain() {
    g_pool.enabled = false;
    for (int r = 1; r <= NdarrayPool::kMaxRank; ++r)
        while (g_pool.count[r]) Py_DECREF((PyObject *) g_pool.slots[r][--g_pool.count[r]]);
}
#endif

} // namespace

bool retire_ndarray(PyObject *o) {
#ifdef Py_GIL_DISABLED
    (void) o;
    return false;
#else
    NdarrayPool &p = g_pool;
    if (!p.enabled || Py_TYPE(o) != &PyArray_Type || Py_REFCNT(o) != 1) return false;
    auto *fa = (PyArrayObject_fields *) o;
    int nd = fa->nd;
    if (nd < 1 || nd > NdarrayPool::kMaxRank || p.count[nd] == NdarrayPool::kPerRank) return false;
    if (fa->weakreflist || fa->_buffer_info || (fa->flags & NPY_ARRAY_WRITEBACKIFCOPY)) return false;
    int type = fa->descr->type_num;
    if (!(PyTypeNum_ISNUMBER(type) || PyTypeNum_ISBOOL(type)) || PyDataType_REFCHK(fa->descr)) return false;
    PyObject *base = fa->base;
    if (fa->flags & NPY_ARRAY_OWNDATA) {
        if (base || !fa->data || !fa->mem_handler) return false;
        // As array_dealloc: the data's size (one byte for an empty array) to its handler.
        npy_intp nbytes = PyDataType_ELSIZE(fa->descr);
        for (int i = 0; i < nd; ++i) nbytes *= fa->dimensions[i];  // PyArray_NBYTES, without the API call
        if (!free_array_data(fa->mem_handler, fa->data, nbytes ? (std::size_t) nbytes : 1)) return false;
        Py_CLEAR(fa->mem_handler);
    } else if (!base || fa->mem_handler) {
        return false;  // data owned by nothing NumPy knows of: left to NumPy
    }
    // A view owns nothing and holds its base; either way the object now owns nothing at all, so
    // an ordinary dealloc frees no data.
    PyArray_Descr *descr = fa->descr;
    Py_INCREF(g_kept_descr);
    fa->descr = g_kept_descr;
    Py_DECREF(descr);  // a numeric descriptor: its release runs no Python code
    fa->base = nullptr;
    fa->data = nullptr;
    fa->flags &= ~NPY_ARRAY_OWNDATA;
    if (p.count[nd] == NdarrayPool::kPerRank) Py_DECREF(o);  // filled meanwhile (never, in practice)
    else p.slots[nd][p.count[nd]++] = fa;
    Py_XDECREF(base);  // last: it may run Python code (its own dealloc), which may use the pool
    return true;
#endif
}

PyArrayObject *reuse_ndarray(PyArray_Descr *descr, int nd, const npy_intp *dims, void *data, PyObject *handler) {
#ifdef Py_GIL_DISABLED
    return nullptr;
#else
    PyArrayObject_fields *fa = take_kept(descr, nd, (char *) data);
    if (!fa) return nullptr;
    // The strides and contiguity flags of _array_fill_strides (C order), from NPY_ARRAY_CARRAY.
    npy_intp stride = PyDataType_ELSIZE(descr);
    int not_one = 0;
    bool has_zero = false;
    for (int i = nd - 1; i >= 0; --i) {
        fa->dimensions[i] = dims[i];
        fa->strides[i] = stride;
        if (dims[i]) stride *= dims[i];
        else has_zero = true;
        not_one += dims[i] != 1;
    }
    int flags = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_WRITEABLE;
    if (not_one < 2 || has_zero) flags |= NPY_ARRAY_F_CONTIGUOUS;
    if (is_aligned(nd, fa->dimensions, fa->data, fa->strides, PyDataType_ALIGNMENT(descr))) flags |= NPY_ARRAY_ALIGNED;
    Py_INCREF(handler);
    fa->mem_handler = handler;
    fa->flags = flags | NPY_ARRAY_OWNDATA;
    return (PyArrayObject *) fa;
#endif
}

PyArrayObject *reuse_ndarray_view(PyArray_Descr *descr, int nd, const npy_intp *dims, const npy_intp *strides,
                                  char *data, int flags) {
#ifdef Py_GIL_DISABLED
    return nullptr;
#else
    PyArrayObject_fields *fa = take_kept(descr, nd, data);
    if (!fa) return nullptr;
    for (int i = 0; i < nd; ++i) {
        fa->dimensions[i] = dims[i];
        fa->strides[i] = strides[i];
    }
    // As PyArray_NewFromDescr with data and strides: the given flags less WRITEBACKIFCOPY and
    // OWNDATA, then contiguity and alignment computed by NumPy itself.
    fa->flags = flags & ~(NPY_ARRAY_WRITEBACKIFCOPY | NPY_ARRAY_OWNDATA);
    PyArray_UpdateFlags((PyArrayObject *) fa, NPY_ARRAY_UPDATE_ALL);
    return (PyArrayObject *) fa;
#endif
}

PyArrayObject *new_owned_array(wsa::Workspace *target, PyArray_Descr *descr, int nd, const npy_intp *dims,
                               bool zeroed) {
    npy_intp nbytes = PyDataType_ELSIZE(descr);
    bool overflow = false;
    for (int i = 0; i < nd; ++i) overflow |= dims[i] < 0 || __builtin_mul_overflow(nbytes, dims[i], &nbytes);
    if (overflow || nbytes < 0) return nullptr;  // a negative dimension, a size NumPy refuses: its path
    // An empty array gets one byte, as from NumPy, and never workspace memory (it is never attached).
    if (nbytes == 0) target = nullptr;
    std::size_t size = nbytes ? (std::size_t) nbytes : 1;
    PyObject *handler = nullptr;
    void *data = new_array_data(target, size, zeroed, &handler);
    if (!data) return nullptr;
    if (PyArrayObject *kept = reuse_ndarray(descr, nd, dims, data, handler)) return kept;
    Py_INCREF(descr);  // PyArray_NewFromDescr steals it
    auto *arr = (PyArrayObject *) PyArray_NewFromDescr(&PyArray_Type, descr, nd, const_cast<npy_intp *>(dims), nullptr,
                                                       data, NPY_ARRAY_CARRAY, nullptr);
    if (!arr) {
        PyErr_Clear();
        free_array_data(handler, data, size);
        return nullptr;
    }
    // What NumPy does for an array that owns its data (array_dealloc frees it with this handler).
    Py_INCREF(handler);
    ((PyArrayObject_fields *) arr)->mem_handler = handler;
    PyArray_ENABLEFLAGS(arr, NPY_ARRAY_OWNDATA);
    return arr;
}

void init_ndarray_pool(nb::module_ &m) {
    // For the tests: how many ndarrays of each rank (1..kMaxRank) are kept now.
    m.def("_ndarray_pool_counts", [] {
        nb::list counts;
        for (int r = 1; r <= NdarrayPool::kMaxRank; ++r) counts.append(g_pool.count[r]);
        return counts;
    });
#ifndef Py_GIL_DISABLED
    g_kept_descr = PyArray_DescrNewFromType(NPY_BOOL);  // kept for the process
    if (!g_kept_descr) throw nb::python_error();
    g_pool.enabled = true;
    nb::module_::import_("atexit").attr("register")(nb::cpp_function(drain));
#endif
}

} // namespace wsa_py
