/// src/python/types/array_protocols.cpp -- the protocols other libraries use on wsarray.Array: NumPy's
/// (__array__, __array_interface__, __array_ufunc__, __array_function__), the array
/// API standard's (__array_namespace__, to_device), DLPack, the buffer protocol, copy, pickle and
/// sys.getsizeof().
#include "types/array_internal.h"

#include "calls/engine.h"
#include "common/hooks.h"
#include "numpy_access/numpy_access.h"

#include <nanobind/stl/string.h>

#include <string>

namespace wsa_py {

namespace {

/// Whether NumPy reads the format string of `data`'s buffer back as its dtype (false with a Python
/// error set where NumPy refuses to export it at all).
bool buffer_round_trips(nb::handle data) {
    Py_buffer probe;
    if (PyObject_GetBuffer(data.ptr(), &probe, PyBUF_RECORDS_RO) < 0) return false;
    nb::object format = nb::steal(PyUnicode_FromString(probe.format ? probe.format : "B"));
    PyBuffer_Release(&probe);
    if (!format.is_valid()) return false;
    try {
        static PyObject *from_format = nullptr;
        return cached_attr(from_format, "numpy._core._internal", "_dtype_from_pep3118")(format).equal(
            data.attr("dtype"));
    } catch (nb::python_error &) {  // a format NumPy cannot parse back
        return false;
    }
}

int array_getbuffer(PyObject *self, Py_buffer *view, int flags) {
    if (!is_array(self)) return ndarray_type()->tp_as_buffer->bf_getbuffer(self, view, flags);  // a subclass's
    Array &a = array_of(self);
    if (!token_valid(a.token)) {
        try {
            check_valid(a, "ndarray.__buffer__");
        } catch (nb::python_error &e) {
            e.restore();
        }
        view->obj = nullptr;
        return -1;
    }
    // Structured and raw void dtypes: NumPy's own export where NumPy reads its format string back as
    // the same dtype (np.asarray(x) takes the buffer first and would otherwise build another dtype,
    // or fail: padding, raw V5 as "5x"); NumPy's error where NumPy refuses (out-of-order fields).
    // Metadata never survives the format string.
    bool metadata = ndarray_dtype_metadata(a.data().ptr());
    if (metadata || (ndarray_void(a.data().ptr()) && !buffer_round_trips(a.data()))) {
        if (PyErr_Occurred()) {  // NumPy's own refusal to export
            view->obj = nullptr;
            return -1;
        }
        PyErr_SetString(PyExc_BufferError, metadata ? "wsarray.ndarray.__buffer__(): arrays of dtypes with metadata "
                                                      "do not export a buffer (its format string drops the "
                                                      "metadata); use numpy.asarray(x)"
                                                    : "wsarray.ndarray.__buffer__(): this void dtype does not export a "
                                                      "buffer: NumPy reads its format string back as another dtype "
                                                      "(raw bytes, padded structures); use numpy.asarray(x)");
        view->obj = nullptr;
        return -1;
    }
    if (PyObject_GetBuffer(a.data().ptr(), view, flags) < 0) return -1;
    // The exporter seen from outside is the Array (memoryview(a).obj is a, as for an ndarray: NumPy
    // code checks np.array(memoryview(a), copy=False).base.obj is a); the ndarray stays held in
    // `internal` until the release, so the memory's lifetime is exactly what NumPy's export gives.
    view->internal = view->obj;
    view->obj = Py_NewRef(self);
    return 0;
}

/// Let go of the ndarray array_getbuffer() kept (NumPy itself has no release hook).
void array_releasebuffer(PyObject *self, Py_buffer *view) {
    if (!is_array(self)) {  // a subclass's export was NumPy's
        if (releasebufferproc release = ndarray_type()->tp_as_buffer->bf_releasebuffer) release(self, view);
        return;
    }
    Py_CLEAR(*reinterpret_cast<PyObject **>(&view->internal));
}

/// Whether NumPy reads back `interface` (the ndarray's __array_interface__) as `data`'s dtype.
bool interface_round_trips(nb::handle data, nb::handle interface) {
    nb::object dtype = data.attr("dtype");
    if (!nb::getattr(dtype, "metadata", nb::none()).is_none()) return false;
    nb::object np_dtype = nb::module_::import_("numpy").attr("dtype");
    nb::object descr = interface["descr"];
    nb::object typestr = interface["typestr"];
    // NumPy builds the dtype from descr unless descr is the default [('', typestr)].
    nb::object rebuilt;
    nb::list plain;
    plain.append(nb::make_tuple("", typestr));
    try {
        rebuilt = descr.equal(plain) ? np_dtype(typestr) : np_dtype(descr);
    } catch (nb::python_error &) {
        return false;
    }
    return rebuilt.equal(dtype);
}

} // namespace

PyType_Slot array_protocol_slots[] = {
    {Py_bf_getbuffer, (void *) array_getbuffer}, {Py_bf_releasebuffer, (void *) array_releasebuffer}, {0, nullptr}};

void export_array_protocols(ArrayDefs &cls) {
    cls.def("__sizeof__", [](nb::handle s) {
        // sys.getsizeof(a) as in NumPy (a classic exercise prints it; Dask's distributed spills
        // by it): the ndarray's own size, which counts the data it owns. Arrays are tracked by the GC (they are weakly referenceable), for which
        // sys.getsizeof() adds the GC header: taken off here, so the total is NumPy's.
        Array &a = self_of(s, "ndarray.__sizeof__");
        nb::module_ sys = nb::module_::import_("sys");
        static const Py_ssize_t gc_head = [&] {
            nb::list probe;
            return nb::cast<Py_ssize_t>(sys.attr("getsizeof")(probe)) -
                   nb::cast<Py_ssize_t>(probe.attr("__sizeof__")());
        }();
        Py_ssize_t size = nb::cast<Py_ssize_t>(sys.attr("getsizeof")(a.data()));
        return PyObject_IS_GC(s.ptr()) ? size - gc_head : size;
    });

    cls.def("__array__", [](nb::handle s, nb::handle dtype, nb::handle copy) {
        Array &a = self_of(s, "ndarray.__array__");
        nb::dict kw;
        if (!dtype.is_none()) kw["dtype"] = dtype;
        kw["copy"] = copy.is_none() ? nb::object(nb::bool_(false)) : nb::borrow(copy);
        if (copy.is_none()) {
            nb::object r = nb::steal(PyObject_Call(ops.array, nb::make_tuple(a.data()).ptr(), kw.ptr()));
            if (r) return r;
            PyErr_Clear();  // dtype conversion needs a copy, which copy=None allows
            kw["copy"] = nb::bool_(true);
        }
        nb::object r = nb::steal(PyObject_Call(ops.array, nb::make_tuple(a.data()).ptr(), kw.ptr()));
        if (!r) throw nb::python_error();
        return r;
    }, nb::arg("dtype") = nb::none(), nb::arg("copy") = nb::none());
    // x.__array_interface__ as NumPy's (the same memory; np.rec.array and other code read it). NumPy
    // itself converts an Array through the buffer protocol first, so this changes no conversion.
    cls.def_prop_ro("__array_interface__", [](nb::handle s) {
        Array &a = self_of(s, "ndarray.__array_interface__");
        nb::object interface = a.data().attr("__array_interface__");
        // The dict cannot describe every dtype (StringDType, padded or nested structures, metadata):
        // NumPy would build an array of another dtype from it. Absent then, NumPy (which tries
        // the buffer protocol, __array_struct__, __array_interface__, __array__ in turn) takes
        // __array__, which hands over the ndarray itself.
        if (!interface_round_trips(a.data(), interface)) {
            nb::object dtype = a.data().attr("dtype");
            raise(PyExc_AttributeError, "'wsarray.ndarray' object has no attribute '__array_interface__' (its dtype " +
                                            nb::cast<std::string>(nb::str(dtype)) +
                                            " has no exact description there; use np.asarray(x))");
        }
        return interface;
    });
    // The Arrays among the inputs are checked (and unwrapped) by apply(); self needs no extra step.
    cls.def("__array_ufunc__",
            [](nb::handle, nb::handle ufunc, nb::handle method, nb::args inputs, nb::kwargs kwargs) -> nb::object {
        if (!PyUnicode_Check(method.ptr()))  // NumPy's check (getattr(ufunc, method)) and message
            raise(PyExc_TypeError,
                  std::string("attribute name must be string, not '") + Py_TYPE(method.ptr())->tp_name + "'");
        // NEP 13: an operand of another array library that overrides ufuncs handles the call.
        for (nb::handle x : inputs)
            if (foreign_override(x.ptr(), Protocol::Ufunc)) return nb::borrow(Py_NotImplemented);
        if (kwargs.contains("out") && foreign_override(nb::object(kwargs["out"]).ptr(), Protocol::Ufunc))
            return nb::borrow(Py_NotImplemented);
        nb::object f = ufunc.attr(method);
        std::string name = nb::cast<std::string>(ufunc.attr("__name__"));
        if (nb::cast<std::string>(method) != "__call__") name += "." + nb::cast<std::string>(method);
        return apply(name.c_str(), f.ptr(), inputs.ptr(), kwargs.ptr());
    }, nb::arg("ufunc").none(), nb::arg("method").none(), nb::arg("inputs"), nb::arg("kwargs"));
    // a.__array_wrap__(arr, context, return_scalar): NumPy's ndarray method, which Python code in
    // NumPy calls on what passes isinstance(x, ndarray) (apply_along_axis, linalg's _makearray):
    // `arr` as an Array (a view of it; a NumPy subclass loses its subclass, as a view as ndarray
    // would), or NumPy's scalar for a 0-d `arr` when return_scalar is true.
    cls.def("__array_wrap__",
            [](nb::handle s, nb::handle arr, nb::handle /* context */, nb::handle return_scalar) {
        self_of(s, "ndarray.__array_wrap__");
        if (!is_array(arr.ptr()) && !is_ndarray(arr.ptr()))  // NumPy's argument check and message
            raise(PyExc_TypeError,
                  std::string("__array_wrap__() argument 1 must be numpy.ndarray, not ") + Py_TYPE(arr.ptr())->tp_name);
        if (is_array(arr.ptr())) {
            nb::object nd = self_of(arr, "ndarray.__array_wrap__").data();
            if (PyObject_IsTrue(return_scalar.ptr()) == 1 && nb::cast<int>(nd.attr("ndim")) == 0)
                return nb::object(nd[nb::tuple()]);
            return nb::borrow(arr);
        }
        nb::object nd = nb::module_::import_("numpy").attr("asarray")(arr);  // a subclass as a plain view
        if (PyObject_IsTrue(return_scalar.ptr()) == 1 && nb::cast<int>(nd.attr("ndim")) == 0)
            return nb::object(nd[nb::tuple()]);
        return wrap_ndarray(nd);
    }, nb::arg("array").none(), nb::arg("context").none() = nb::none(),
            nb::arg("return_scalar").none() = nb::bool_(false));
    cls.def("__array_function__",
            [](nb::handle, nb::handle func, nb::handle types, nb::handle args, nb::handle kwargs) -> nb::object {
        // NumPy's checks and messages (ndarray.__array_function__).
        if (!PyTuple_Check(args.ptr())) raise(PyExc_TypeError, "args must be a tuple.");
        if (!PyDict_Check(kwargs.ptr())) raise(PyExc_TypeError, "kwargs must be a dict.");
        // NEP 18: a type that is neither wsarray's nor NumPy's (or a subclass) handles the call.
        for (nb::handle t : types) {
            if (!PyType_Check(t.ptr()))  // NumPy's issubclass() check and message
                raise(PyExc_TypeError, "issubclass() arg 1 must be a class");
            if ((PyTypeObject *) t.ptr() != ArrayType && !PyType_IsSubtype((PyTypeObject *) t.ptr(), ndarray_type()))
                return nb::borrow(Py_NotImplemented);
        }
        std::string name = nb::cast<std::string>(nb::str(nb::getattr(func, "__name__", nb::str("__array_function__"))));
        // NumPy's implementation without its dispatch (as ndarray.__array_function__ calls it):
        // arguments the engine cannot reach (inside a dict, a custom sequence) would otherwise
        // bring the call back here.
        nb::object impl = nb::getattr(func, "_implementation", func);
        return apply(name.c_str(), impl.ptr(), args.ptr(), kwargs.ptr());
    }, nb::arg("func").none(), nb::arg("types").none(), nb::arg("args").none(), nb::arg("kwargs").none());
    cls.def("__array_namespace__", [](nb::handle s, nb::handle api_version) {
        self_of(s, "ndarray.__array_namespace__");
        nb::handle ws = hook(Hook::Namespace);
        if (!api_version.is_none()) {
            nb::object supported = ws.attr("_SUPPORTED_API_VERSIONS");
            if (!PySequence_Contains(supported.ptr(), api_version.ptr()))
                raise(PyExc_ValueError, "wsarray.ndarray.__array_namespace__(): unsupported api_version " +
                                            nb::cast<std::string>(nb::repr(api_version)));
        }
        return nb::borrow(ws);
    }, nb::kw_only(), nb::arg("api_version") = nb::none());
    cls.def("__dlpack__", [](nb::handle s, nb::kwargs kwargs) {
        Array &a = self_of(s, "ndarray.__dlpack__");
        nb::object f = a.data().attr("__dlpack__");
        nb::object r = nb::steal(PyObject_Call(f.ptr(), nb::tuple().ptr(), kwargs.ptr()));
        if (!r) {
            name_error_for("ndarray.__dlpack__");
            throw nb::python_error();
        }
        return r;
    });
    cls.def("__dlpack_device__",
            [](nb::handle s) { return self_of(s, "ndarray.__dlpack_device__").data().attr("__dlpack_device__")(); });
    cls.def("to_device", [](nb::handle s, nb::handle device, nb::handle stream) {
        self_of(s, "ndarray.to_device");
        if (!PyUnicode_Check(device.ptr()))  // NumPy's check and message
            raise(PyExc_TypeError, std::string("to_device() argument 1 must be str, not ") +
                                       (device.is_none() ? "None" : Py_TYPE(device.ptr())->tp_name));
        if (!stream.is_none())  // the CPU has no streams: NumPy's check and message
            raise(PyExc_ValueError, "The stream argument in to_device() is not supported");
        // The device layer parses it (ValueError naming the function for an unknown device; for a
        // device that cannot be used, its kind's error saying what is missing) and makes the copy.
        return hook(Hook::HostToDevice)(s, device, "ndarray.to_device");
    }, nb::arg("device").none(), nb::kw_only(), nb::arg("stream") = nb::none());

    cls.def("__copy__", [](nb::handle s) {
        array_arg(s, "ndarray.__copy__");
        return call1("ndarray.__copy__", ops.copy, s);
    });
    cls.def("__deepcopy__", [](nb::handle s, nb::handle memo) {
        // ndarray.__deepcopy__: the elements of an object array are deep-copied too.
        nb::object f = self_of(s, "ndarray.__deepcopy__").data().attr("__deepcopy__");
        nb::object args = nb::make_tuple(memo.is_none() ? nb::object(nb::dict()) : nb::borrow(memo));
        return apply("ndarray.__deepcopy__", f.ptr(), args.ptr(), nullptr);
    }, nb::arg("memo").none());
    auto reduce = [](nb::handle s) {
        // Pickling reads the array's own memory, which a workspace never reuses while the Array
        // holds it: an array whose cycle ended still pickles (a multiprocessing.Queue pickles on
        // its feeder thread after put() returned, maybe after the cycle: the item must arrive, not
        // vanish on that thread). Once its workspace is destroyed the memory is gone: that raises.
        Array &a = array_arg(s, "ndarray.__reduce__");
        bool intact = a.token.ws && a.token.ws->alive();
        if (!intact) self_of(s, "ndarray.__reduce__");
        nb::handle ws = hook(Hook::Namespace);
        // A workspace array pickles a copy: a pickle-5 buffer may be read after the cycle (and a
        // remote worker must not pin workspace memory). A detached one pickles its ndarray itself,
        // whose buffer protocol 5 hands out of band: no copy (Dask, Ray, multiprocessing).
        nb::object nd = a.token.ws ? nb::object(a.data().attr("copy")()) : a.data();
        return nb::make_tuple(ws.attr("_rebuild_array"), nb::make_tuple(nd));
    };
    // Both as NumPy's ndarray has them (its own __reduce__, inherited, would read a stale Array's
    // fields and fail inside NumPy with a SystemError).
    cls.def("__reduce__", reduce);
    cls.def("__reduce_ex__", [reduce](nb::handle s, nb::handle protocol) {
        // The protocol as NumPy parses it ("i"): its errors; the pickler decides out-of-band buffers.
        if (!PyIndex_Check(protocol.ptr()) || PyFloat_Check(protocol.ptr()))
            raise(PyExc_TypeError,
                  std::string("'") + Py_TYPE(protocol.ptr())->tp_name + "' object cannot be interpreted as an integer");
        long p = PyLong_AsLong(protocol.ptr());
        if (p == -1 && PyErr_Occurred()) throw nb::python_error();
        if (p < INT_MIN || p > INT_MAX) raise(PyExc_OverflowError, "signed integer is greater than maximum");
        return reduce(s);
    }, nb::arg("protocol").none());
    cls.set("__array_priority__", nb::int_(100));
}

} // namespace wsa_py
