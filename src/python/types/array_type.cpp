/// src/python/types/array_type.cpp -- the wsarray.Array type: a subclass of numpy.ndarray whose memory
/// comes from the current workspace and is checked against its cycle on every use. Every method
/// checks the array's workspace cycle first, then lets NumPy compute with its allocations routed
/// into the current workspace. This file creates the type from the slots of the array_*.cpp files
/// (and NumPy's ndarray as its base), gives it NumPy's constructor, and has each of those files
/// define its part.
///
/// wsarray.ndarray is this type, a plain class (its type is `type`, as numpy.ndarray's). A class
/// derived from it is, in behaviour, a NumPy ndarray subclass (wsarray/_numpy/ndarray.py): its
/// instances are NumPy's, never wsarray arrays (is_array() is the exact type).
#include "types/array_type.h"

#include "types/array_internal.h"
#include "calls/engine.h"
#include "numpy_access/numpy_access.h"

#include <vector>

namespace wsa_py {

namespace {

/// Array(shape, dtype=float, buffer=None, offset=0, strides=None, order=None) as ndarray(...).
/// A subclass's instance (`class Sub(wsarray.ndarray)`, whose __new__ is this one) is NumPy's
/// ndarray constructor's, as for any ndarray subclass.
PyObject *array_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    if (type != ArrayType) return ndarray_type()->tp_new(type, args, kwargs);
    return guarded([&]() -> PyObject * {
        nb::object ndarray = nb::borrow((PyObject *) ndarray_type());
        return apply("ndarray", ndarray.ptr(), args, kwargs).release().ptr();
    }, (PyObject *) nullptr);
}

/// The constructor did everything (as ndarray's): nothing left for __init__.
int array_init(PyObject *, PyObject *, PyObject *) { return 0; }

} // namespace

void export_array(nb::module_ &m) {
#ifndef WSARRAY_LEAK_WARNINGS
    // Objects still referenced at interpreter exit (by test frameworks' caches, reference cycles
    // the final collection skips) are not leaks of ours; nanobind's report would only alarm users.
    nb::set_leak_warnings(false);
#endif
    // The type slots of every concern, in one list (the type copies them when it is created).
    std::vector<PyType_Slot> slots;
    for (const PyType_Slot *group : {array_operator_slots, array_indexing_slots, array_attribute_slots,
                                     array_protocol_slots, array_conversion_slots})
        for (const PyType_Slot *s = group; s->slot; ++s) slots.push_back(*s);
    static const char doc[] = "An n-dimensional array whose memory comes from the current thread's workspace: a "
                              "NumPy ndarray (a subclass) checked against its workspace cycle on every use.";
    slots.push_back({Py_tp_dealloc, (void *) array_dealloc});
    slots.push_back({Py_tp_new, (void *) array_new});
    slots.push_back({Py_tp_init, (void *) array_init});
    slots.push_back({Py_tp_hash, (void *) PyObject_HashNotImplemented});  // unhashable, as ndarray
    slots.push_back({Py_tp_doc, (void *) doc});
    slots.push_back({0, nullptr});
    // A class deriving from it behaves as a NumPy ndarray subclass (wsarray/_numpy/ndarray.py).
    static PyType_Spec spec = {"wsarray.ndarray", 0, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, nullptr};
    spec.basicsize = (int) array_object_size();
    spec.slots = slots.data();
    nb::object bases = nb::make_tuple(nb::handle((PyObject *) ndarray_type()));
    auto *type = (PyTypeObject *) PyType_FromSpecWithBases(&spec, bases.ptr());
    if (!type) throw nb::python_error();
    ArrayType = type;  // kept for the process (the module holds it too)
    // wsarray.Array(...) (also wsarray.ndarray(...)): NumPy's ndarray constructor, in the current
    // workspace; no vectorcall inherited from ndarray would bypass it.
    type->tp_vectorcall = nullptr;
    PyType_Modified(type);
    m.attr("Array") = nb::handle((PyObject *) type);
    init_array_objects(m);

    ArrayDefs cls{nb::handle((PyObject *) type)};
    export_array_operators(m, cls);
    export_array_indexing(m, cls);
    export_array_conversions(cls);
    export_array_attributes(m, cls);
    export_array_protocols(cls);
    export_array_membership(cls);
    // a.sum(), a.reshape(), ... (the methods loops call): array_methods.cpp.
    export_array_methods(type);
    // Last, once the dictionary is complete: what a subclass inherits is NumPy's.
    wrap_for_subclasses(type);
    numpy_arrays_are_instances(type);
    m.def("_set_subclass_side", [type](nb::str name, nb::object value) { set_subclass_side(type, name, value); },
          nb::arg("name"), nb::arg("value"),
          "What a subclass of wsarray.ndarray inherits under `name` instead of numpy.ndarray's attribute.");
}

} // namespace wsa_py
