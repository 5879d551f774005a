/// src/python/function.cpp -- wsarray.<name> callables that run a NumPy function through the
/// engine (unwrap, route into the current workspace, wrap).
#include "common.h"

namespace wsa_py {

namespace {

struct Routed {
    nb::object func;
    std::string name;
};

// Garbage-collector support: a Function wrapping a Python function references that function's
// module globals, which hold the Function again; without traverse/clear such cycles never die.
int routed_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE(self));
    if (!nb::inst_ready(self)) return 0;
    Py_VISIT(nb::inst_ptr<Routed>(self)->func.ptr());
    return 0;
}

int routed_clear(PyObject *self) {
    nb::inst_ptr<Routed>(self)->func = nb::object();
    return 0;
}

/// tp_call straight into the engine: calls are the hot path of every namespace function, and
/// nanobind's overload dispatch (building nb::args / nb::kwargs) doubled the cost of np.exp(x).
PyObject *routed_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    try {
        Routed &r = *nb::inst_ptr<Routed>(self);
        if (!r.func.is_valid()) raise(PyExc_RuntimeError, "wsarray." + r.name + " was cleared");
        return apply(r.name.c_str(), r.func.ptr(), args, kwargs).release().ptr();
    } catch (nb::python_error &e) {
        e.restore();
    } catch (const std::bad_alloc &) {
        PyErr_NoMemory();
    } catch (const std::exception &e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
    }
    return nullptr;
}

PyType_Slot routed_slots[] = {{Py_tp_traverse, (void *) routed_traverse},
                              {Py_tp_clear, (void *) routed_clear},
                              {Py_tp_call, (void *) routed_call},
                              {0, nullptr}};

} // namespace

void export_function(nb::module_ &m) {
    nb::class_<Routed>(m, "Function", nb::type_slots(routed_slots), "A NumPy function run with its allocations in the current workspace.")
        .def(nb::init<nb::object, std::string>(), nb::arg("func"), nb::arg("name"))
        .def("__getattr__", [](Routed &r, const std::string &attr) -> nb::object {
            // ufunc methods (add.reduce, multiply.outer, ...) are routed too; data attributes pass.
            if (attr == "__name__") {
                auto dot = r.name.rfind('.');
                return nb::str((dot == std::string::npos ? r.name : r.name.substr(dot + 1)).c_str());
            }
            if (attr == "__qualname__") return nb::str(r.name.c_str());
            if (attr == "__wrapped__") return r.func;
            if (attr.size() > 1 && attr[0] == '_')
                raise(PyExc_AttributeError, "wsarray." + r.name + " has no attribute '" + attr + "'");
            nb::object v = nb::steal(PyObject_GetAttrString(r.func.ptr(), attr.c_str()));
            if (!v) {
                PyErr_Clear();
                raise(PyExc_AttributeError, "wsarray." + r.name + " has no attribute '" + attr + "'");
            }
            if (PyCallable_Check(v.ptr()) && !PyType_Check(v.ptr()))
                return nb::cast(Routed{v, r.name + "." + attr});
            return v;
        })
        .def("__repr__", [](Routed &r) { return "<wsarray function " + r.name + ">"; })
        // help(np.sum), np.info(np.dot), f.__doc__: NumPy's documentation of the wrapped function.
        .def_prop_ro("__doc__", [](Routed &r) { return nb::getattr(r.func, "__doc__", nb::none()); });
}

} // namespace wsa_py
