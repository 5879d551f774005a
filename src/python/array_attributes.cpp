/// src/python/array_attributes.cpp -- wsarray.Array's attributes, forwarded to its ndarray: shape, dtype, ndim and size as type slots;
/// real, imag, flat, base, device, T, mT, resize(); and, through __getattr__, everything else an
/// ndarray has, its methods called through the engine.
#include "array_internal.h"

#include "engine.h"
#include "numpy_access.h"

#include <nanobind/stl/string.h>

#include <string>

namespace wsa_py {

namespace {

/// A bound NumPy method of an Array, called through the engine when invoked.
struct BoundMethod {
    nb::object self;
    std::string name;
    nb::object method;  ///< the ndarray's bound method (an Array's ndarray never changes)
};

/// The type's __getattr__ (a nanobind function), called when the generic lookup finds nothing.
PyObject *getattr_fallback = nullptr;

PyObject *array_getattro(PyObject *self, PyObject *name) {
#if PY_VERSION_HEX < 0x030E0000
    // suppress = 1: a missing attribute returns null without an AttributeError to build and clear.
    PyObject *r = _PyObject_GenericGetAttrWithDict(self, name, nullptr, 1);
    if (r || PyErr_Occurred()) return r;
#else
    PyObject *r = PyObject_GenericGetAttr(self, name);
    if (r || !PyErr_ExceptionMatches(PyExc_AttributeError)) return r;
    PyErr_Clear();
#endif
    PyObject *args[2] = {self, name};
    return PyObject_Vectorcall(getattr_fallback, args, 2, nullptr);
}

/// a.shape, a.dtype, a.ndim, a.size as getset slots (no method lookup, no argument dispatch).
PyObject *get_shape(PyObject *s, void *) {
    return guarded([&]() -> PyObject * {
        Array &a = self_of(s, "Array.shape");
        PyObject *r = ndarray_shape(a.data().ptr());
        if (!r) throw nb::python_error();
        return r;
    }, (PyObject *) nullptr);
}

/// a.shape = (3, 2) / a.dtype = "<i2": NumPy changes the ndarray in place (a reshape without copy,
/// else AttributeError; a reinterpretation under a view's rules), named after `fn`.
int set_ndarray_attr(PyObject *s, const char *attr, PyObject *value, const char *fn) {
    return guarded([&]() -> int {
        Array &a = self_of(s, fn);
        if (!value) raise(PyExc_AttributeError, std::string("wsarray.") + fn + ": cannot delete array " + attr);
        if (PyObject_SetAttrString(a.data().ptr(), attr, value) < 0) raise_pending(fn);
        return 0;
    }, -1);
}

int set_shape(PyObject *s, PyObject *shape, void *) { return set_ndarray_attr(s, "shape", shape, "Array.shape"); }

PyObject *get_dtype(PyObject *s, void *) {
    return guarded([&] {
        Array &a = self_of(s, "Array.dtype");
        return ndarray_dtype(a.data().ptr());
    }, (PyObject *) nullptr);
}

int set_dtype(PyObject *s, PyObject *dtype, void *) { return set_ndarray_attr(s, "dtype", dtype, "Array.dtype"); }

PyObject *get_strides(PyObject *s, void *) {
    return guarded([&]() -> PyObject * {
        Array &a = self_of(s, "Array.strides");
        PyObject *r = PyObject_GetAttrString(a.data().ptr(), "strides");
        if (!r) raise_pending("Array.strides");
        return r;
    }, (PyObject *) nullptr);
}

/// a.strides = ...: NumPy's (deprecated since NumPy 2.4, with its warning; bounds checked by NumPy).
int set_strides(PyObject *s, PyObject *strides, void *) {
    return set_ndarray_attr(s, "strides", strides, "Array.strides");
}

PyObject *get_ndim(PyObject *s, void *) {
    return guarded([&] {
        Array &a = self_of(s, "Array.ndim");
        return PyLong_FromLong(ndarray_ndim(a.data().ptr()));
    }, (PyObject *) nullptr);
}

PyObject *get_size(PyObject *s, void *) {
    return guarded([&] {
        Array &a = self_of(s, "Array.size");
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

void export_array_attributes(nb::module_ &m, nb::class_<Array> &cls) {
    auto bound_method = nb::class_<BoundMethod>(m, "_BoundMethod");
    bound_method.def("__call__", [](BoundMethod &b, nb::args args, nb::kwargs kwargs) {
        std::string fn = "Array." + b.name;
        self_of(b.self, fn.c_str());  // still in its cycle when called
        return apply(fn.c_str(), b.method.ptr(), args.ptr(), kwargs.ptr(), b.self.ptr());
    });
    bound_method.def("__repr__", [](BoundMethod &b) { return "<bound method wsarray.Array." + b.name + ">"; });

    // a.real = ..., a.imag = ..., a.flat = ...: NumPy writes into the array. Reading goes through
    // the same path as other attributes.
    for (const char *attr : {"real", "imag", "flat"}) {
        std::string fn = std::string("Array.") + attr, name = attr;
        cls.def_prop_rw(attr, [fn, name](nb::handle s) {
            Array &a = self_of(s, fn.c_str());
            nb::object value = a.data().attr(name.c_str());
            if (name == "flat") {
                // NumPy's flatiter refuses wsarray indices: wsarray._flatiter.FlatIter holds it and the Array.
                static PyObject *flat_iter = nullptr;
                return cached_attr(flat_iter, "wsarray._flatiter", "FlatIter")(value, s);
            }
            return wrap_ndarray(value, s);
        }, [fn, name](nb::handle s, nb::handle value) {
            nb::object args = nb::make_tuple(s, nb::str(name.c_str()), value);
            apply(fn.c_str(), ops.setattr, args.ptr(), nullptr);
        }, nb::arg("value").none());
    }
    cls.def_prop_ro("base", [](nb::handle s) -> nb::object {
        // y = x[2:]; y.base is x, as in NumPy: the Array the view was made from, else (the array
        // that made the memory is gone) one Array kept for the base, so repeated reads agree.
        Array &a = self_of(s, "Array.base");
        PyObject *b = ndarray_base(a.data().ptr());
        if (!b) return nb::none();
        if (a.base.is_valid() && array_of(a.base.ptr()).data().ptr() == b) return a.base;
        nb::object w = wrap_ndarray(b);
        if (is_array(w.ptr())) a.base = w;
        return w;
    });
    cls.def_prop_rw("device", [](nb::handle s) {
        // wsarray.Device (a str subclass: == "cpu" holds), from the one module that knows devices.
        self_of(s, "Array.device");
        static PyObject *cpu = nb::object(nb::module_::import_("wsarray._device").attr("CPU")).release().ptr();
        return nb::borrow(cpu);
    }, [](nb::handle, nb::handle) {
        // Read-only, with NumPy's message (a property without setter would say "has no setter").
        raise(PyExc_AttributeError, "attribute 'device' of 'numpy.ndarray' objects is not writable");
    });
    cls.def_prop_ro("T", [](nb::handle s) {
        // NumPy's .T: reversed axes for any rank (the array API's 2-D-only rule is a "should";
        // NumPy programs use v.T on vectors).
        Array &a = self_of(s, "Array.T");
        static PyObject *name = PyUnicode_InternFromString("T");  // kept forever
        nb::object t = nb::steal(PyObject_GetAttr(a.data().ptr(), name));
        if (!t) raise_pending("Array.T");
        return wrap_derived(t, a, s);
    });
    cls.def_prop_ro("mT", [](nb::handle s) {
        Array &a = self_of(s, "Array.mT");
        nb::object t = nb::steal(PyObject_GetAttrString(a.data().ptr(), "mT"));
        if (!t) raise_pending("Array.mT");  // NumPy's error for ndim < 2
        return wrap_derived(t, a, s);
    });
    cls.def("resize", [](nb::handle s, nb::args args, nb::kwargs kwargs) {
        // NumPy refuses to resize an array that other names reference (refcheck=True): here the
        // names reference the Array (the caller's and this call's), not the ndarray it holds.
        Array &a = self_of(s, "Array.resize");
        nb::object refcheck =
            kwargs.contains("refcheck") ? nb::object(kwargs["refcheck"]) : nb::object(nb::bool_(true));
        int check = PyObject_IsTrue(refcheck.ptr());
        if (check < 0) raise_pending("Array.resize");
        // A weak reference counts as a reference too, as NumPy's check of its weakreflist.
        static PyObject *weak_count = nullptr;
        if (check && (Py_REFCNT(s.ptr()) > 2 ||
                      nb::cast<Py_ssize_t>(cached_attr(weak_count, "weakref", "getweakrefcount")(s)) > 0))
            raise(PyExc_ValueError, "wsarray.Array.resize(): cannot resize an array that references or is "
                                    "referenced\nby another object in this way.\nUse the np.resize function "
                                    "to get a new resized copy or\n set refcheck=False to disable this check");
        nb::object f = a.data().attr("resize");
        return apply("Array.resize", f.ptr(), args.ptr(), kwargs.ptr());
    });
    cls.def("view", [](nb::handle s, nb::args args, nb::kwargs kwargs) {
        // a.view(type(a)), a.view(np.ndarray), a.view(numpy.ndarray): "no change of type" (a plain
        // view, an Array). NumPy reads a type argument given first as the type (ndarray.view(dtype,
        // type)); wsarray.Array is no ndarray subclass, so NumPy would read it as a dtype (object).
        // Other ndarray subclasses keep NumPy's behaviour: NumPy's subclass instance (README).
        Array &a = self_of(s, "Array.view");
        static nb::object wsarray_ndarray = nb::module_::import_("wsarray").attr("ndarray");
        auto plain = [](nb::handle t) {
            return t.is((PyObject *) ArrayType) || t.is((PyObject *) ndarray_type()) || t.is(wsarray_ndarray);
        };
        // NumPy's own errors for more than two arguments or unknown keywords: passed on unchanged.
        if (args.size() > 2 || kwargs.size() > (size_t) (kwargs.contains("dtype") + kwargs.contains("type")))
            return apply("Array.view", a.data().attr("view").ptr(), args.ptr(), kwargs.ptr(), s.ptr());
        nb::dict given;
        const char *keys[2] = {"dtype", "type"};
        for (size_t i = 0; i < 2; ++i) {
            nb::object v = i < args.size() ? nb::borrow(args[i])
                                           : (kwargs.contains(keys[i]) ? nb::object(kwargs[keys[i]]) : nb::object());
            if (v.is_valid() && !plain(v)) given[keys[i]] = v;
        }
        nb::object f = a.data().attr("view");
        return apply("Array.view", f.ptr(), nb::tuple().ptr(), given.ptr(), s.ptr());
    });
    cls.def("__getattr__", [](nb::handle s, const std::string &name) -> nb::object {
        // Everything else an ndarray has (sum, reshape, astype, tolist, strides, ...), through the
        // engine. Dunder names are not forwarded: NumPy must not find __array_interface__ & co.
        if (name.size() > 1 && name[0] == '_')
            raise(PyExc_AttributeError, "'wsarray.Array' object has no attribute '" + name + "'");
        std::string fn = "Array." + name;
        Array &a = self_of(s, fn.c_str());
        nb::object attr = nb::steal(PyObject_GetAttrString(a.data().ptr(), name.c_str()));
        if (!attr) {
            // NumPy's own error for an attribute it has (a.data of datetimes: ValueError).
            if (!PyErr_ExceptionMatches(PyExc_AttributeError)) raise_pending(fn.c_str());
            PyErr_Clear();
            raise(PyExc_AttributeError, "'wsarray.Array' object has no attribute '" + name + "'");
        }
        if (PyCallable_Check(attr.ptr())) return nb::cast(BoundMethod{nb::borrow(s), name, attr});
        return wrap_ndarray(attr, s);
    });
    // Defining __getattr__ gave the type CPython's slot_tp_getattr_hook, which looks up
    // __getattribute__ and __getattr__ in the type on every attribute read (a.shape: +104
    // instructions, ~9% of the call). array_getattro does the generic lookup, then the fallback.
    getattr_fallback = PyObject_GetAttrString(cls.ptr(), "__getattr__");  // kept for good
    if (!getattr_fallback) throw nb::python_error();
    ((PyTypeObject *) cls.ptr())->tp_getattro = array_getattro;
    PyType_Modified((PyTypeObject *) cls.ptr());
}

}  // namespace wsa_py
