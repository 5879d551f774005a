/// src/python/calls/device_arrays.cpp -- the core's side of arrays on a device (wsarray/_devices/array.py).
///
/// A device array is a Python object over its engine's array (CuPy's, or the fake device's); its
/// block lives in a device workspace whose bookkeeping is the core's, so the stale check is the
/// host's: a _CycleToken made from the block's address (the process-wide address registry) holds
/// the workspace and the cycle, and check() raises the host's WorkspaceError. The namespace reaches
/// the device layer only on paths host calls never take: an operand whose type overrides NumPy's
/// protocols (the foreign path every call checks already), and a device= keyword other than 'cpu'.
#include "calls/device_arrays.h"

#include "results/array_object.h"
#include "calls/call_arguments.h"

#include "common/errors.h"

#include <nanobind/stl/string.h>

#include <cstdint>

namespace wsa_py {

namespace {

PyTypeObject *device_array_type = nullptr;  // strong references, set once by wsarray._devices
PyObject *dispatch_hook = nullptr;

bool is_device_array(PyObject *o) { return device_array_type && PyObject_TypeCheck(o, device_array_type); }

struct CycleToken {
    Token token;
};

} // namespace

bool holds_device_array(PyObject *const *args, Py_ssize_t nargs, PyObject *kwargs) {
    if (!device_array_type) return false;
    auto holds = [](PyObject *o) {
        if (is_device_array(o)) return true;
        if (PyList_CheckExact(o) || PyTuple_CheckExact(o)) {
            Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
            PyObject **items = PySequence_Fast_ITEMS(o);
            for (Py_ssize_t i = 0; i < n; ++i)
                if (is_device_array(items[i])) return true;
        }
        return false;
    };
    return any_argument(args, nargs, kwargs, holds);
}

bool wants_device(PyObject *kwargs) {
    if (!dispatch_hook || !kwargs) return false;
    static PyObject *key = PyUnicode_InternFromString("device");
    PyObject *v = PyDict_GetItemWithError(kwargs, key);  // borrowed
    if (!v) {
        PyErr_Clear();
        return false;
    }
    if (v == Py_None) return false;
    return !(PyUnicode_Check(v) && PyUnicode_CompareWithASCIIString(v, "cpu") == 0);
}

PyObject *device_dispatch(const char *name, PyObject *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwargs) {
    nb::object tuple = nb::steal(PyTuple_New(nargs));
    if (!tuple) return nullptr;
    for (Py_ssize_t i = 0; i < nargs; ++i) PyTuple_SET_ITEM(tuple.ptr(), i, nb::handle(args[i]).inc_ref().ptr());
    nb::object kw = kwargs ? nb::borrow(kwargs) : nb::steal(PyDict_New());
    nb::object n = nb::steal(PyUnicode_FromString(name));
    if (!n || !kw) return nullptr;
    PyObject *call[] = {n.ptr(), func, tuple.ptr(), kw.ptr()};
    return PyObject_Vectorcall(dispatch_hook, call, 4, nullptr);
}

void export_device_arrays(nb::module_ &m) {
    nb::class_<CycleToken>(m, "_CycleToken", "The workspace cycle a device array's block belongs to.")
        .def_prop_ro("valid", [](CycleToken &t) { return token_valid(t.token); },
                     "The block is usable now (its cycle is open, or the workspace is circular).")
        .def_prop_ro("in_scope", [](CycleToken &t) {
        return token_valid(t.token) && (t.token.ws->circular() || t.token.ws->cycle_open());
    }).def_prop_ro("workspace", [](CycleToken &t) {
        return t.token.ws->name();
    }).def_prop_ro("generation", [](CycleToken &t) {
        return t.token.generation;
    }).def("check", [](CycleToken &t, const char *fn) {
        if (!token_valid(t.token)) raise_stale_token(t.token, fn);
    }, nb::arg("fn"), "Raise the host's WorkspaceError naming wsarray.<fn>() if the cycle has ended.");
    m.def("_cycle_token", [](std::uintptr_t address) -> nb::object {
        Token t;
        t.ws = wsa::Workspace::owner_of((const void *) address);
        if (!t.ws) return nb::none();
        t.generation = t.ws->generation();
        return nb::cast(CycleToken{std::move(t)});
    }, nb::arg("address"), "The cycle of the workspace block at `address` now (None: no workspace owns it).");
    m.def("_set_device_dispatch",
          [](nb::handle type, nb::handle hook) {
        if (!PyType_Check(type.ptr()) || !PyCallable_Check(hook.ptr()))
            raise(PyExc_TypeError, "wsarray._native._set_device_dispatch(): expected a type and a callable");
        Py_XDECREF(device_array_type);
        Py_XDECREF(dispatch_hook);
        device_array_type = (PyTypeObject *) type.inc_ref().ptr();
        dispatch_hook = hook.inc_ref().ptr();
    }, nb::arg("type"), nb::arg("hook"),
          "Route namespace calls with an operand of `type`, or a device= other than 'cpu', to "
          "hook(name, func, args, kwargs) (NotImplemented: go on as on the host).");
}

} // namespace wsa_py
