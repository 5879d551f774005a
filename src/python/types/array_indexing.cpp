/// src/python/types/array_indexing.cpp -- a[key], a[key] = value, del a[key], len(a), iter(a) and
/// `value in a` on wsarray.Array: type slots (no method lookup, no argument dispatch per call), a
/// lean path for one element of a numeric array, basic indexing straight to the ndarray, and
/// assignments that never leave the target half-written.
#include "types/array_internal.h"

#include "calls/engine.h"
#include "fast/fast_indexing.h"
#include "numpy_access/numpy_access.h"
#include "allocation/numpy_alloc.h"
#include "numpy_access/numpy_api.h"
#include "workspaces/scopes.h"

#include <new>
#include <optional>
#include <string>

namespace wsa_py {

namespace {

/// An int, a slice, `...` or None: an index NumPy answers without an array.
bool is_basic_index_item(PyObject *k) {
    return PyLong_CheckExact(k) || PySlice_Check(k) || k == Py_Ellipsis || k == Py_None;
}

/// A key NumPy answers with a view (or a scalar), never an Array that needs unwrapping.
bool is_basic_index(PyObject *key) {
    if (is_basic_index_item(key)) return true;
    if (!PyTuple_CheckExact(key)) return false;
    for (Py_ssize_t i = 0, n = PyTuple_GET_SIZE(key); i < n; ++i)
        if (!is_basic_index_item(PyTuple_GET_ITEM(key, i))) return false;
    return true;
}

/// iter(a): the items a[0], a[1], ... made one at a time (as NumPy's iterator), each checked
/// against the array's cycle.
struct ArrayIter {
    nb::object array;
    Py_ssize_t next;
};

/// The next item (the caller has checked that one is left).
nb::object array_iter_next(ArrayIter &it, Array &a) {
    // A numeric 1-D array's NumPy scalars, an array's rows: made directly (fast_indexing.h).
    if (PyObject *item = fast_iter_item(a, it.array.ptr(), it.next)) {
        ++it.next;
        return nb::steal(item);
    }
    // Iteration is NumPy's API (the array API leaves it out): items of a 1-D array are NumPy's
    // scalars, as NumPy gives them; rows are views, checked as Arrays.
    if (PyObject *item = try_routed_call(current_target(), [&] {
        return PySequence_GetItem(a.data().ptr(), it.next);
    }, [&](PyObject *r) { return is_numpy_scalar(r) ? Py_NewRef(r) : wrap_ndarray(r, it.array).release().ptr(); })) {
        ++it.next;
        return nb::steal(item);
    }
    // The general path reports the failure (a WorkspaceMemoryError for a full workspace).
    return call2("ndarray.__iter__", ops.getitem, it.array, nb::int_(it.next++));
}

/// next(iterator), as a type slot (no method lookup or argument dispatch per item).
PyObject *array_iternext(PyObject *self) {
    return guarded([&]() -> PyObject * {
        ArrayIter &it = *nb::inst_ptr<ArrayIter>(self);
        Array &a = self_of(it.array, "ndarray.__iter__");
        // The length as it is now: NumPy's iterator asks for a[i] until there is none, so an array
        // reshaped or resized during the loop ends where it ends then.
        PyObject *nd = a.data().ptr();
        if (ndarray_ndim(nd) == 0) return nullptr;
        Py_ssize_t n = PyObject_Length(nd);
        if (n < 0) raise_pending("ndarray.__iter__");
        if (it.next >= n) return nullptr;  // exhausted: no exception set means StopIteration
        return array_iter_next(it, a).release().ptr();
    }, (PyObject *) nullptr);
}

PyObject *iterator_self(PyObject *self) {
    Py_INCREF(self);
    return self;
}

PyType_Slot iterator_slots[] = {
    {Py_tp_iter, (void *) iterator_self}, {Py_tp_iternext, (void *) array_iternext}, {0, nullptr}};

/// iter(a), as a type slot: a failing iter() (what np.iterable() asks of a 0-d array) sets its
/// TypeError without a C++ exception, as cheaply as NumPy's.
PyObject *array_iter(PyObject *self) {
    try {
        Array &a = self_of(self, "ndarray.__iter__");
        if (ndarray_ndim(a.data().ptr()) == 0) {  // NumPy's error
            PyErr_SetString(PyExc_TypeError, "iteration over a 0-d array" /* NumPy's message */);
            return nullptr;
        }
        return nb::cast(ArrayIter{nb::borrow(self), 0}).release().ptr();
    } catch (nb::python_error &e) {
        e.restore();
    } catch (const std::bad_alloc &) {
        PyErr_NoMemory();
    }
    return nullptr;
}

/// a[key] beyond the element and view paths. Out of line: a[1:] and a[i] stay a short function.
[[gnu::noinline]] PyObject *subscript_routed(Array &a, PyObject *s, PyObject *key, bool array_key) {
    // Basic indexing (ints, slices, ..., None, and tuples of them) and a single Array key (a
    // mask, indices) go straight to the ndarray; anything else (lists, tuples holding Arrays)
    // takes the general path, as do errors of basic indexing (which it names).
    if (array_key || is_basic_index(key)) {
        PyObject *k = array_key ? self_of(key, "ndarray.__getitem__").data().ptr() : key;
        wsa::Workspace *target = current_target();
        auto take = [&](PyObject *r) -> PyObject * {
            // An array key (a mask, indices) gives an array NumPy allocated just now: outside
            // workspaces, ordinary memory; inside, the block the route just handed out (no
            // need to ask the registry which workspace holds its address).
            if (array_key && is_ndarray_exact(r) && ndarray_owns_data(r) &&
                (!target || routed_owner_of(PyArray_DATA((PyArrayObject *) r)) == target))
                return make_array(r, token_of_target(target));
            // A view of this array's own memory belongs to the same workspace cycle, and has
            // this Array as its .base (as NumPy's views name their base).
            return wrap_derived(r, a, s).release().ptr();
        };
        auto get = [&] { return PyObject_GetItem(a.data().ptr(), k); };
        // An array key's errors are NumPy's to report (named); basic indexing's, the general path's.
        if (array_key)
            return routed_call("ndarray.__getitem__", target, get, [&](PyObject *r) { return nb::steal(take(r)); })
                .release()
                .ptr();
        if (PyObject *r = try_routed_call(target, get, take)) return r;
    }
    return call2("ndarray.__getitem__", ops.getitem, s, key).release().ptr();
}

/// a[key]. Slots instead of methods: Python calls them directly, without a method lookup and
/// nanobind's argument dispatch (the per-call cost of indexing in loops).
PyObject *array_subscript(PyObject *s, PyObject *key) {
    return guarded([&]() -> PyObject * {
        Array &a = self_of(s, "ndarray.__getitem__");
        bool array_key = is_array(key);
        // One element of a numeric array, and views (a[1:], a[1:-1, 2:], a row): made directly
        // (fast_indexing.h). Neither takes an Array key.
        if (!array_key) {
            if (PyObject *r = fast_item(a, key)) return r;
            if (PyObject *r = fast_view(a, s, key)) return r;
        } else if (PyObject *r = fast_mask(a, self_of(key, "ndarray.__getitem__"))) {
            return r;
        }
        return subscript_routed(a, s, key, array_key);
    }, (PyObject *) nullptr);
}

/// How deep a nested list/tuple goes along its first elements ([[1, 2]]: 2, [], 1).
int nesting_depth(PyObject *o) {
    int depth = 0;
    // At most NumPy's 64 dimensions: a list that contains itself would be followed forever.
    while ((PyList_Check(o) || PyTuple_Check(o)) && depth <= 64) {
        ++depth;
        if (PySequence_Fast_GET_SIZE(o) == 0) break;
        o = PySequence_Fast_ITEMS(o)[0];
    }
    return depth;
}

void setitem_general(nb::handle s, nb::handle key, nb::handle value) {
    Array &a = self_of(s, "ndarray.__setitem__");
    nb::object v = nb::borrow(value);
    // NumPy converts a list element by element while writing, so a bad element would leave
    // the target half-assigned: convert first (same casting), assign only if that worked. A
    // read-only target gets NumPy's error first, as NumPy checks that before any element.
    if ((PyList_Check(value.ptr()) || PyTuple_Check(value.ptr())) && ndarray_writeable(a.data().ptr())) {
        nb::object dtype = a.data().attr("dtype");
        std::string kind = nb::cast<std::string>(dtype.attr("kind"));
        if (kind != "O" && kind != "V") {
            // NumPy's own verdict, from assigning into scratch memory of the same shape: its
            // error (its order of key and value checks), the target untouched; should NumPy
            // accept the value after all, it is assigned to the target as NumPy would.
            auto numpys_verdict = [&] {
                nb::object scratch = routed_call("ndarray.__setitem__", nullptr, [&] {
                    return PyObject_CallMethod(ops.numpy, "empty_like", "O", a.data().ptr());
                });
                nb::object scratch_args = nb::make_tuple(scratch, key, value);
                apply("ndarray.__setitem__", ops.setitem, scratch_args.ptr(), nullptr);
                return nb::borrow(value);
            };
            // A list nested deeper than the target (a[0] = [1, 2], a[...] = [[1.0]] on 1-D):
            // NumPy refuses what broadcasting the converted array would accept.
            int target_ndim = -1;
            if (is_basic_index(key.ptr())) {
                nb::object target = nb::steal(PyObject_GetItem(a.data().ptr(), key.ptr()));
                if (!target) PyErr_Clear();
                else target_ndim = nb::cast<int>(nb::getattr(target, "ndim", nb::int_(0)));
            }
            if (target_ndim >= 0 && nesting_depth(value.ptr()) > target_ndim) {
                v = numpys_verdict();
            } else {
                nb::dict kw;
                kw["dtype"] = dtype;
                nb::object conv_args = nb::make_tuple(value);
                try {
                    v = apply("ndarray.__setitem__", ops.array, conv_args.ptr(), kw.ptr());
                } catch (nb::python_error &) {
                    v = numpys_verdict();
                }
                if (target_ndim >= 0 && is_array(v.ptr()) &&
                    nb::cast<int>(array_of(v.ptr()).data().attr("ndim")) > target_ndim)
                    v = numpys_verdict();
            }
        }
    }
    nb::object args = nb::make_tuple(s, key, v);
    apply("ndarray.__setitem__", ops.setitem, args.ptr(), nullptr);
}

/// A value NumPy writes in one step (no partial assignment possible): a Python number, a NumPy
/// scalar or a valid Array (its ndarray).
PyObject *plain_value(PyObject *value) {
    if (PyFloat_CheckExact(value) || PyLong_CheckExact(value) || PyBool_Check(value) || PyComplex_CheckExact(value) ||
        is_numpy_scalar(value))
        return value;
    if (is_array(value)) return self_of(value, "ndarray.__setitem__").data().ptr();
    return nullptr;
}

int array_ass_subscript(PyObject *s, PyObject *key, PyObject *value) {
    return guarded([&]() -> int {
        Array &a = self_of(s, "ndarray.__setitem__");
        if (!value) {  // del a[key]: NumPy's error
            if (PyObject_DelItem(a.data().ptr(), key) < 0) raise_pending("ndarray.__delitem__");
            return 0;
        }
        if (is_basic_index(key)) {
            if ((is_array(value) || PyList_CheckExact(value) || PyTuple_CheckExact(value)) &&
                PyArray_TYPE((PyArrayObject *) a.data().ptr()) == NPY_OBJECT) {
                // An object array holds the Array itself, as NumPy holds the array object (so
                // `objs[i] = x; objs[i] is x`), and a list holding Arrays is that very list
                // (`objs[i] = [x]; objs[i] is` it): checked now, then handed to NumPy as it is.
                check_arrays_in(value, "ndarray.__setitem__");
                routed_call("ndarray.__setitem__", current_target(), [&] {
                    return PyObject_SetItem(a.data().ptr(), key, value) < 0 ? nullptr : Py_NewRef(Py_None);
                });
                return 0;
            }
            if (PyObject *v = plain_value(value)) {
                if (fast_store(a, key, v)) return 0;  // one element (fast_indexing.h)
                routed_call("ndarray.__setitem__", current_target(), [&] {
                    return PyObject_SetItem(a.data().ptr(), key, v) < 0 ? nullptr : Py_NewRef(Py_None);
                });
                return 0;
            }
        }
        setitem_general(s, key, value);
        return 0;
    }, -1);
}

Py_ssize_t array_length(PyObject *s) {
    return guarded([&]() -> Py_ssize_t {
        Array &a = self_of(s, "ndarray.__len__");
        PyObject *d = a.data().ptr();
        // The first dimension, read directly (NumPy's mp_length, without the call through the
        // ndarray's type); a 0-d array gets NumPy's TypeError from NumPy itself.
        if (PyArray_CheckExact(d) && PyArray_NDIM((PyArrayObject *) d) > 0) return PyArray_DIM((PyArrayObject *) d, 0);
        Py_ssize_t n = PyObject_Length(d);
        if (n < 0) raise_pending("ndarray.__len__");
        return n;
    }, (Py_ssize_t) -1);
}

/// a[i] through the sequence protocol (what reversed() and PySequence_GetItem use), as ndarray
/// offers it: the same as a[i].
PyObject *array_sq_item(PyObject *s, Py_ssize_t i) {
    PyObject *key = PyLong_FromSsize_t(i);
    if (!key) return nullptr;
    PyObject *r = array_subscript(s, key);
    Py_DECREF(key);
    return r;
}

} // namespace

PyType_Slot array_indexing_slots[] = {{Py_sq_item, (void *) array_sq_item},
                                      {Py_sq_length, (void *) array_length},
                                      {Py_tp_iter, (void *) array_iter},
                                      {Py_mp_subscript, (void *) array_subscript},
                                      {Py_mp_ass_subscript, (void *) array_ass_subscript},
                                      {Py_mp_length, (void *) array_length},
                                      {0, nullptr}};

void export_array_indexing(nb::module_ &m, ArrayDefs &cls) {
    nb::class_<ArrayIter>(m, "_ArrayIterator", nb::type_slots(iterator_slots));

    cls.def("__contains__", [](nb::handle s, nb::handle v) {
        Array &a = self_of(s, "ndarray.__contains__");
        nb::object uv = is_array(v.ptr()) ? self_of(v, "ndarray.__contains__").data() : nb::borrow(v);
        int r = PySequence_Contains(a.data().ptr(), uv.ptr());
        if (r < 0) raise_pending("ndarray.__contains__");
        return r == 1;
    }, nb::arg("value").none());
}

} // namespace wsa_py
