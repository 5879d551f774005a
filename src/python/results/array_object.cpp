/// src/python/results/array_object.cpp -- the wsarray.Array object (see array_object.h): its ndarray fields
/// made to view the held ndarray, kept equal to it, adopted when NumPy made the object, and the
/// pool of dead objects.
#include "numpy_access/numpy_api.h"

#include "results/array_object.h"

#include <new>

namespace wsa_py {

PyTypeObject *ArrayType = nullptr;

namespace {

constexpr std::size_t align_up(std::size_t n, std::size_t a) { return (n + a - 1) / a * a; }
/// The record follows NumPy's fields, aligned for it.
constexpr std::size_t kRecordOffset = align_up(sizeof(PyArrayObject_fields), alignof(Array));

static_assert(kWriteableFlag == NPY_ARRAY_WRITEABLE, "NumPy's flag values");
static_assert((unsigned) kWarnOnWriteFlag == kNumpyWarnOnWrite, "NumPy's private flag (numpy_api.h)");

/// Flags the fields never take from the held ndarray: it owns the memory, not the view of it; and
/// the warning due on a first write is the held ndarray's, through which wsarray writes.
constexpr int kNotViewed = NPY_ARRAY_OWNDATA | NPY_ARRAY_WRITEBACKIFCOPY | kWarnOnWriteFlag;

/// NumPy's ndarray deallocator: releases the fields' base, data the fields own, the shape buffer
/// and the descriptor, then frees the object.
destructor g_ndarray_dealloc = nullptr;

/// Dead Arrays, by number of dimensions, each with its shape buffer and a private descriptor (so
/// that NumPy's descriptors' reference counts read as if they had been deallocated).
struct Pool {
    static constexpr int kMaxRank = 4;
    static constexpr int kPerRank = 16;
    bool enabled = false;
    int count[kMaxRank + 1] = {};
    PyArrayObject_fields *slots[kMaxRank + 1][kPerRank];
};
Pool g_pool;
PyArray_Descr *g_kept_descr = nullptr;

/// A shape and strides buffer for `nd` dimensions, allocated as NumPy allocates its own
/// (npy_alloc_cache_dim: PyMem_RawMalloc, at least two entries), so that NumPy may free it.
npy_intp *new_shape_buffer(int nd) {
    std::size_t n = nd < 1 ? 2 : 2 * (std::size_t) nd;
    return (npy_intp *) PyMem_RawMalloc(n * sizeof(npy_intp));
}

/// Copy the held ndarray's geometry into fields whose shape buffer fits its rank.
void copy_geometry(PyArrayObject_fields *fa, const PyArrayObject_fields *src) {
    fa->data = src->data;
    fa->nd = src->nd;
    if (src->nd > 0) {
        fa->strides = fa->dimensions + src->nd;
        for (int i = 0; i < src->nd; ++i) {
            fa->dimensions[i] = src->dimensions[i];
            fa->strides[i] = src->strides[i];
        }
    } else {
        fa->strides = fa->dimensions;
    }
    fa->flags = src->flags & ~kNotViewed;
}

void set_descr(PyArrayObject_fields *fa, PyArray_Descr *descr) {
    Py_INCREF(descr);
    PyArray_Descr *old = fa->descr;
    fa->descr = descr;
    Py_XDECREF(old);  // may run code: a descriptor with metadata releases its dict
}

#ifndef Py_GIL_DISABLED
/// At interpreter exit: every kept Array released as NumPy releases a dataless array.
void drain() {
    g_pool.enabled = false;
    for (int r = 0; r <= Pool::kMaxRank; ++r)
        while (g_pool.count[r]) g_ndarray_dealloc((PyObject *) g_pool.slots[r][--g_pool.count[r]]);
}
#endif

} // namespace

std::ptrdiff_t g_array_offset = (std::ptrdiff_t) kRecordOffset;
std::ptrdiff_t g_ndarray_flags_offset = (std::ptrdiff_t) offsetof(PyArrayObject_fields, flags);

void sync_view_flags(PyObject *o) {
    auto *fa = (PyArrayObject_fields *) o;
    Array &a = array_of(o);
    if (!a.nd_.is_valid() || fa->base != a.nd_.ptr()) return;
    auto *held = (PyArrayObject_fields *) a.nd_.ptr();
    if (fa->flags & kWarnOnWriteFlag) {
        held->flags |= kWarnOnWriteFlag;
        fa->flags &= ~kWarnOnWriteFlag;
    }
    fa->flags = (fa->flags & ~NPY_ARRAY_WRITEABLE) | (held->flags & NPY_ARRAY_WRITEABLE);
}

Py_ssize_t array_object_size() { return (Py_ssize_t) (kRecordOffset + sizeof(Array)); }

PyObject *new_array_object(PyObject *nd) {
    auto *src = (PyArrayObject_fields *) nd;
    PyArrayObject_fields *fa = nullptr;
#ifndef Py_GIL_DISABLED
    if (src->nd <= Pool::kMaxRank && g_pool.count[src->nd]) {
        fa = g_pool.slots[src->nd][--g_pool.count[src->nd]];
        Py_SET_REFCNT((PyObject *) fa, 1);
        Py_INCREF(ArrayType);  // what the type's allocation takes
    }
#endif
    if (!fa) {
        npy_intp *dims = new_shape_buffer(src->nd);
        if (!dims) return PyErr_NoMemory();
        fa = (PyArrayObject_fields *) ArrayType->tp_alloc(ArrayType, 0);  // zeroed
        if (!fa) {
            PyMem_RawFree(dims);
            return nullptr;
        }
        fa->dimensions = dims;
    }
    copy_geometry(fa, src);
    set_descr(fa, src->descr);
    Py_INCREF(nd);
    fa->base = nd;
    return (PyObject *) fa;
}

void resync_array_object(PyObject *o) {
    auto *fa = (PyArrayObject_fields *) o;
    Array &a = array_of(o);
    if (!a.nd_.is_valid() || fa->base != a.nd_.ptr()) return;  // not a view of it (NumPy rebuilt the fields)
    auto *src = (PyArrayObject_fields *) a.nd_.ptr();
    if (src->nd != fa->nd) {
        npy_intp *dims = new_shape_buffer(src->nd);
        if (!dims) throw std::bad_alloc();
        PyMem_RawFree(fa->dimensions);
        fa->dimensions = dims;
    }
    copy_geometry(fa, src);
    set_descr(fa, src->descr);
}

void adopt_record(Array &a) { adopt_array_object((PyObject *) ((char *) &a - g_array_offset)); }

void adopt_array_object(PyObject *o) {
    auto *fa = (PyArrayObject_fields *) o;
    Array &a = array_of(o);
    if (a.nd_.is_valid()) return;
    if (fa->flags & NPY_ARRAY_WRITEBACKIFCOPY)
        raise(PyExc_TypeError, "wsarray.ndarray: NumPy made this array to write its values back into another one "
                               "(WRITEBACKIFCOPY); it is not usable as a wsarray array");
    PyObject *old_base = fa->base;  // the fields' reference, handed over below
    Py_INCREF(fa->descr);
    nb::object nd = nb::steal(PyArray_NewFromDescr(&PyArray_Type, fa->descr, fa->nd, fa->dimensions, fa->strides,
                                                   fa->data, fa->flags & ~kNotViewed, nullptr));
    if (!nd) throw nb::python_error();
    auto *held = (PyArrayObject_fields *) nd.ptr();
    if (fa->flags & NPY_ARRAY_OWNDATA) {
        // The held ndarray takes over the data: it frees it, under the same handler.
        held->flags |= NPY_ARRAY_OWNDATA;
        held->mem_handler = fa->mem_handler;
        fa->mem_handler = nullptr;
        fa->flags &= ~NPY_ARRAY_OWNDATA;
    }
    // A view of an Array belongs to that Array's cycle (a stale Array's view stays stale) and
    // names it as its base; any other memory is found by address.
    Token token = old_base && is_array(old_base) ? array_of(old_base).token : Token{};
    nb::object base_array = old_base && is_array(old_base) ? nb::borrow(old_base) : nb::object();
    if (old_base) {
        Py_INCREF(old_base);
        if (PyArray_SetBaseObject((PyArrayObject *) nd.ptr(), old_base) < 0) throw nb::python_error();  // steals
    }
    if (!token.ws) token = token_for(nd.ptr());
    if (ndarray_size(nd.ptr()) == 0) token = Token{};  // nothing to read, nothing to guard (make_array)
    fa->base = nd.inc_ref().ptr();
    Py_XDECREF(old_base);  // the held ndarray holds it now
    a.nd_ = std::move(nd);
    a.token = std::move(token);
    a.base = std::move(base_array);
}

void array_dealloc(PyObject *o) {
    auto *fa = (PyArrayObject_fields *) o;
    PyTypeObject *type = Py_TYPE(o);
    if (fa->weakreflist) PyObject_ClearWeakRefs(o);  // callbacks see a whole object
    Array &a = array_of(o);
    // The fields' reference to the held ndarray goes first: the record's is then the last one,
    // and a held ndarray nothing else sees is retired with the record (ndarray_pool.h).
    bool viewing = fa->base && fa->base == a.nd_.ptr();
    if (viewing) {
        Py_DECREF(fa->base);  // never the last reference: the record holds one
        fa->base = nullptr;
    }
    a.~Array();  // may run Python code (an object array's elements)
#ifndef Py_GIL_DISABLED
    Pool &p = g_pool;
    if (viewing && p.enabled && type == ArrayType && fa->nd <= Pool::kMaxRank && p.count[fa->nd] < Pool::kPerRank &&
        !(fa->flags & NPY_ARRAY_OWNDATA) && !fa->mem_handler && !fa->_buffer_info && !fa->weakreflist) {
        set_descr(fa, g_kept_descr);  // may run code (a dtype's metadata), which may fill the pool
        fa->data = nullptr;
        fa->flags = 0;
        if (p.count[fa->nd] < Pool::kPerRank) {
            p.slots[fa->nd][p.count[fa->nd]++] = fa;
            Py_DECREF(type);
            return;
        }
    }
#endif
    g_ndarray_dealloc(o);
    Py_DECREF(type);
}

void init_array_objects(nb::module_ &m) {
    g_ndarray_dealloc = PyArray_Type.tp_dealloc;
    // For the tests: how many dead Arrays of each rank (0..4) are kept now.
    m.def("_array_pool_counts", [] {
        nb::list counts;
        for (int r = 0; r <= Pool::kMaxRank; ++r) counts.append(g_pool.count[r]);
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
