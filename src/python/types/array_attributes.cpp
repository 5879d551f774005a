/// src/python/types/array_attributes.cpp -- wsarray.Array's attributes, forwarded to its ndarray: shape,
/// dtype, ndim and size as type slots; real, imag, flags, base, device, T, mT, resize(), view(),
/// setflags(); NumPy's other methods run on the held ndarray through the engine (array_getattro).
#include "numpy_access/numpy_api.h"

#include "types/array_internal.h"

#include "calls/engine.h"
#include "common/hooks.h"
#include "numpy_access/numpy_access.h"

#include <nanobind/stl/string.h>

#include <cstdint>
#include <functional>
#include <string>

namespace wsa_py {

namespace {

/// NumPy's flags object (numpy/_core/src/multiarray/flagsobject.h, not in NumPy's public headers;
/// the same layout since NumPy 1.0): the array its setters call setflags() on, and the flags read.
struct FlagsObject {
    PyObject_HEAD PyObject *arr;
    int flags;
};

/// A bound NumPy method of an Array, called through the engine when invoked.
struct BoundMethod {
    nb::object self;
    std::string name;
    nb::object method;  ///< the held ndarray's bound method
};

/// A method of NumPy's ndarray that wsarray.Array does not define itself (a method descriptor
/// found in numpy.ndarray's dictionary), for a name that is not private or special.
bool numpys_method(PyObject *descr, PyObject *name) {
    if (!descr || Py_TYPE(descr) != &PyMethodDescr_Type || ((PyDescrObject *) descr)->d_type != ndarray_type())
        return false;
    Py_ssize_t n;
    const char *text = PyUnicode_AsUTF8AndSize(name, &n);
    return text && n > 0 && text[0] != '_';
}

/// Attribute lookup: NumPy's methods that Array does not define (argsort, fill, searchsorted, ...)
/// run on the held ndarray through the engine (allocations routed, results wrapped, the cycle
/// checked when called); NumPy's other attributes (itemsize, nbytes, ctypes, data) are read off
/// the Array's own fields once its cycle is checked; everything else is the generic lookup.
PyObject *array_getattro(PyObject *self, PyObject *name) {
    if (!is_array(self)) return PyObject_GenericGetAttr(self, name);  // a subclass's: NumPy's lookup
    PyObject *descr = _PyType_Lookup(Py_TYPE(self), name);  // borrowed
    if (descr && ((PyDescrObject *) descr)->d_type == ndarray_type() &&
        (Py_TYPE(descr) == &PyMethodDescr_Type || Py_TYPE(descr) == &PyGetSetDescr_Type)) {
        Py_ssize_t n;
        const char *text = PyUnicode_AsUTF8AndSize(name, &n);
        if (text && n > 0 && text[0] != '_') {
            return guarded([&]() -> PyObject * {
                std::string fn = std::string("ndarray.") + text;
                Array &a = self_of(self, fn.c_str());
                if (!numpys_method(descr, name)) {
                    PyObject *r = PyObject_GenericGetAttr(self, name);  // NumPy's getter, on the fields
                    if (!r && !PyErr_ExceptionMatches(PyExc_AttributeError)) raise_pending(fn.c_str());
                    return r;
                }
                nb::object method = nb::steal(PyObject_GetAttr(a.data().ptr(), name));
                if (!method) raise_pending(fn.c_str());
                return nb::cast(BoundMethod{nb::borrow(self), text, method}).release().ptr();
            }, (PyObject *) nullptr);
        }
    }
    return PyObject_GenericGetAttr(self, name);
}

/// a.shape, a.dtype, a.ndim, a.size as getset slots (no method lookup, no argument dispatch).
PyObject *get_shape(PyObject *s, void *) {
    return guarded([&]() -> PyObject * {
        Array &a = self_of(s, "ndarray.shape");
        PyObject *r = ndarray_shape(a.data().ptr());
        if (!r) throw nb::python_error();
        return r;
    }, (PyObject *) nullptr);
}

/// a.shape = (3, 2) / a.dtype = "<i2": NumPy changes the held ndarray in place (a reshape without
/// copy, else AttributeError; a reinterpretation under a view's rules), named after `fn`; the
/// Array's own fields follow.
int set_ndarray_attr(PyObject *s, const char *attr, PyObject *value, const char *fn) {
    return guarded([&]() -> int {
        Array &a = self_of(s, fn);
        if (!value) raise(PyExc_AttributeError, std::string("wsarray.") + fn + ": cannot delete array " + attr);
        if (PyObject_SetAttrString(a.data().ptr(), attr, value) < 0) raise_pending(fn);
        resync_array_object(s);
        return 0;
    }, -1);
}

int set_shape(PyObject *s, PyObject *shape, void *) { return set_ndarray_attr(s, "shape", shape, "ndarray.shape"); }

PyObject *get_dtype(PyObject *s, void *) {
    return guarded([&] {
        Array &a = self_of(s, "ndarray.dtype");
        return ndarray_dtype(a.data().ptr());
    }, (PyObject *) nullptr);
}

int set_dtype(PyObject *s, PyObject *dtype, void *) { return set_ndarray_attr(s, "dtype", dtype, "ndarray.dtype"); }

PyObject *get_strides(PyObject *s, void *) {
    return guarded([&]() -> PyObject * {
        Array &a = self_of(s, "ndarray.strides");
        PyObject *r = PyObject_GetAttrString(a.data().ptr(), "strides");
        if (!r) raise_pending("ndarray.strides");
        return r;
    }, (PyObject *) nullptr);
}

/// a.strides = ...: NumPy's (deprecated since NumPy 2.4, with its warning; bounds checked by NumPy).
int set_strides(PyObject *s, PyObject *strides, void *) {
    return set_ndarray_attr(s, "strides", strides, "ndarray.strides");
}

PyObject *get_ndim(PyObject *s, void *) {
    return guarded([&] {
        Array &a = self_of(s, "ndarray.ndim");
        return PyLong_FromLong(ndarray_ndim(a.data().ptr()));
    }, (PyObject *) nullptr);
}

PyObject *get_size(PyObject *s, void *) {
    return guarded([&] {
        Array &a = self_of(s, "ndarray.size");
        Py_ssize_t n = ndarray_size(a.data().ptr());
        return sizeof(long) >= sizeof(Py_ssize_t) ? PyLong_FromLong((long) n) : PyLong_FromSsize_t(n);  // ndarray_shape
    }, (PyObject *) nullptr);
}

PyGetSetDef array_getset[] = {
    {"shape", get_shape, set_shape, "Dimensions of the array (assignable, as NumPy's).", nullptr},
    {"dtype", get_dtype, set_dtype, "Data type of the array's elements (assignable, as NumPy's).", nullptr},
    {"strides", get_strides, set_strides, "Bytes to step in each dimension (assignable, as NumPy's).", nullptr},
    {"ndim", get_ndim, nullptr, "Number of dimensions.", nullptr},
    {"size", get_size, nullptr, "Number of elements.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

}  // namespace

PyType_Slot array_attribute_slots[] = {{Py_tp_getset, (void *) array_getset}, {0, nullptr}};

void export_array_attributes(nb::module_ &m, ArrayDefs &cls) {
    auto bound_method = nb::class_<BoundMethod>(m, "_BoundMethod");
    bound_method.def("__call__", [](BoundMethod &b, nb::args args, nb::kwargs kwargs) {
        std::string fn = "ndarray." + b.name;
        self_of(b.self, fn.c_str());  // still in its cycle when called
        nb::object r = apply(fn.c_str(), b.method.ptr(), args.ptr(), kwargs.ptr(), b.self.ptr());
        resync_array_object(b.self.ptr());  // a.sort(), a.fill() change data, not the view; setflags may
        return r;
    });
    // What code that forwards or wraps methods reads of a bound method (as of Python's own).
    bound_method.def("__getattr__", [](BoundMethod &b, const std::string &attr) -> nb::object {
        if (attr == "__name__") return nb::str(b.name.c_str());
        if (attr == "__qualname__") return nb::str(("ndarray." + b.name).c_str());
        if (attr == "__self__") return b.self;
        if (attr == "__func__") return nb::getattr(nb::handle((PyObject *) ndarray_type()), b.name.c_str());
        if (attr == "__doc__" || attr == "__text_signature__") return nb::getattr(b.method, attr.c_str(), nb::none());
        raise(PyExc_AttributeError, "'method' object has no attribute '" + attr + "'");
    });
    bound_method.def("__repr__", [](BoundMethod &b) { return "<bound method wsarray.ndarray." + b.name + ">"; });
    bound_method.def("__eq__", [](BoundMethod &b, nb::handle other) -> nb::object {
        if (!nb::isinstance<BoundMethod>(other)) return nb::borrow(Py_NotImplemented);
        BoundMethod &o = nb::cast<BoundMethod &>(other);
        return nb::bool_(b.self.is(o.self) && b.name == o.name);
    }, nb::arg("other").none());
    bound_method.def("__hash__", [](BoundMethod &b) {
        return (Py_ssize_t) ((std::uintptr_t) b.self.ptr() ^ std::hash<std::string>()(b.name));
    });

    // a.real = ..., a.imag = ...: NumPy writes into the array. Reading goes through the same path
    // as other attributes. a.flat is NumPy's flat iterator over the Array itself.
    for (const char *attr : {"real", "imag"}) {
        std::string fn = std::string("ndarray.") + attr, name = attr;
        cls.def_prop_rw(attr, [fn, name](nb::handle s) {
            Array &a = self_of(s, fn.c_str());
            return wrap_ndarray(a.data().attr(name.c_str()), s);
        }, [fn, name](nb::handle s, nb::handle value) {
            nb::object args = nb::make_tuple(s, nb::str(name.c_str()), value);
            apply(fn.c_str(), ops.setattr, args.ptr(), nullptr);
        }, nb::arg("value").none());
    }
    cls.def_prop_ro("flags", [](nb::handle s) {
        // NumPy's flags object for this Array: what it reads is the held ndarray's (an array that
        // owns its memory says OWNDATA), and what is set on it goes through a.setflags().
        Array &a = self_of(s, "ndarray.flags");
        static PyObject *numpys = PyDict_GetItemString(ndarray_type()->tp_dict, "flags");  // the getset
        auto *f = (FlagsObject *) Py_TYPE(numpys)->tp_descr_get(numpys, s.ptr(), (PyObject *) ArrayType);
        if (!f) raise_pending("ndarray.flags");
        f->flags = PyArray_FLAGS((PyArrayObject *) a.data().ptr());
        return nb::steal((PyObject *) f);
    });
    cls.def("setflags", [](nb::handle s, nb::args args, nb::kwargs kwargs) {
        Array &a = self_of(s, "ndarray.setflags");
        nb::object f = a.data().attr("setflags");
        nb::object r = apply("ndarray.setflags", f.ptr(), args.ptr(), kwargs.ptr(), s.ptr());
        resync_array_object(s.ptr());
        return r;
    });
    cls.def_prop_ro("base", [](nb::handle s) -> nb::object {
        // y = x[2:]; y.base is x, as in NumPy: the Array the view was made from, else (the array
        // that made the memory is gone) one Array kept for the base, so repeated reads agree.
        Array &a = self_of(s, "ndarray.base");
        PyObject *b = ndarray_base(a.data().ptr());
        if (!b) return nb::none();
        if (a.base.is_valid() && array_of(a.base.ptr()).data().ptr() == b) return a.base;
        // NumPy's memory (an ndarray of NumPy's, a subclass's data): that object itself, as NumPy
        // gives it (v.base is x.base); workspace memory only through an Array, which checks it.
        if (PyArray_Check(b) && !is_array(b) && !token_for(b).ws) return nb::borrow(b);
        nb::object w = wrap_ndarray(b);
        if (is_array(w.ptr())) a.base = w;
        return w;
    });
    cls.def_prop_rw("device", [](nb::handle s) {
        // wsarray.Device (a str subclass: == "cpu" holds), from the one module that knows devices.
        self_of(s, "ndarray.device");
        return nb::borrow(hook(Hook::Cpu));
    }, [](nb::handle, nb::handle) {
        // Read-only, with NumPy's message (a property without setter would say "has no setter").
        raise(PyExc_AttributeError, "attribute 'device' of 'numpy.ndarray' objects is not writable");
    });
    cls.def_prop_ro("T", [](nb::handle s) {
        // NumPy's .T: reversed axes for any rank (the array API's 2-D-only rule is a "should";
        // NumPy programs use v.T on vectors).
        Array &a = self_of(s, "ndarray.T");
        static PyObject *name = PyUnicode_InternFromString("T");  // kept forever
        nb::object t = nb::steal(PyObject_GetAttr(a.data().ptr(), name));
        if (!t) raise_pending("ndarray.T");
        return wrap_derived(t, a, s);
    });
    cls.def_prop_ro("mT", [](nb::handle s) {
        Array &a = self_of(s, "ndarray.mT");
        nb::object t = nb::steal(PyObject_GetAttrString(a.data().ptr(), "mT"));
        if (!t) raise_pending("ndarray.mT");  // NumPy's error for ndim < 2
        return wrap_derived(t, a, s);
    });
    cls.def("resize", [](nb::handle s, nb::args args, nb::kwargs kwargs) {
        // NumPy refuses to resize an array that other names reference (refcheck=True): here the
        // names reference the Array (the caller's and this call's), not the ndarray it holds.
        Array &a = self_of(s, "ndarray.resize");
        nb::object refcheck =
            kwargs.contains("refcheck") ? nb::object(kwargs["refcheck"]) : nb::object(nb::bool_(true));
        // NumPy reads refcheck as an integer ("'str' object cannot be interpreted as an integer").
        nb::object as_int = nb::steal(PyNumber_Index(refcheck.ptr()));
        if (!as_int) throw nb::python_error();
        int check = PyObject_IsTrue(as_int.ptr());
        if (check < 0) raise_pending("ndarray.resize");
        // A weak reference counts as a reference too, as NumPy's check of its weakreflist.
        // NumPy's views of it reference the held ndarray (beyond the Array's two references).
        static PyObject *weak_count = nullptr;
        if (check && (Py_REFCNT(s.ptr()) > 2 || Py_REFCNT(a.data().ptr()) > 2 ||
                      nb::cast<Py_ssize_t>(cached_attr(weak_count, "weakref", "getweakrefcount")(s)) > 0))
            raise(PyExc_ValueError, "wsarray.ndarray.resize(): cannot resize an array that references or is "
                                    "referenced\nby another object in this way.\nUse the np.resize function "
                                    "to get a new resized copy or\n set refcheck=False to disable this check");
        nb::object f = a.data().attr("resize");
        nb::dict kw;
        for (auto [k, v] : kwargs) kw[k] = v;
        kw["refcheck"] = nb::bool_(false);  // checked above, for the Array
        nb::object r = apply("ndarray.resize", f.ptr(), args.ptr(), kw.ptr());
        resync_array_object(s.ptr());
        return r;
    });
    cls.def("view", [](nb::handle s, nb::args args, nb::kwargs kwargs) {
        // a.view(wsarray.Array) (np.ndarray after the swap), or no type: an Array view. Any other
        // type is NumPy's answer: numpy.ndarray an ndarray view, np.matrix a matrix, ... NumPy
        // reads a type given first as the type (ndarray.view(dtype, type)).
        Array &a = self_of(s, "ndarray.view");
        nb::object f = a.data().attr("view");
        // NumPy's own errors for more than two arguments or unknown keywords: passed on unchanged.
        if (args.size() > 2 || kwargs.size() > (size_t) (kwargs.contains("dtype") + kwargs.contains("type")))
            return apply("ndarray.view", f.ptr(), args.ptr(), kwargs.ptr(), s.ptr());
        nb::dict given;
        const char *keys[2] = {"dtype", "type"};
        for (size_t i = 0; i < 2; ++i) {
            nb::object v = i < args.size() ? nb::borrow(args[i])
                                           : (kwargs.contains(keys[i]) ? nb::object(kwargs[keys[i]]) : nb::object());
            if (!v.is_valid() || v.is((PyObject *) ArrayType)) continue;
            if (PyType_Check(v.ptr()) && PyType_IsSubtype((PyTypeObject *) v.ptr(), ndarray_type())) {
                given["type"] = v;  // a type given first (as a dtype) is still the type
                continue;
            }
            given[keys[i]] = v;
        }
        if (given.contains("type")) {  // NumPy's view, of NumPy's type: no Array
            nb::object r = nb::steal(PyObject_Call(f.ptr(), nb::tuple().ptr(), given.ptr()));
            if (!r) raise_pending("ndarray.view");
            return r;
        }
        return apply("ndarray.view", f.ptr(), nb::tuple().ptr(), given.ptr(), s.ptr());
    });
    cls.def("__setstate__", [](nb::handle s, nb::handle state) {
        // ndarray.__setstate__ rebuilds the array in place: the held ndarray, then the view of it.
        Array &a = self_of(s, "ndarray.__setstate__");
        nb::object f = a.data().attr("__setstate__");
        nb::object args = nb::make_tuple(state);
        apply("ndarray.__setstate__", f.ptr(), args.ptr(), nullptr);
        resync_array_object(s.ptr());
    }, nb::arg("state").none());
    auto *type = (PyTypeObject *) cls.type.ptr();
    type->tp_getattro = array_getattro;
    PyType_Modified(type);
}

}  // namespace wsa_py
