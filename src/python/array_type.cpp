/// src/python/array_type.cpp -- the wsarray.Array type: a validity-checked NumPy array over
/// workspace memory. Every method checks the array's workspace cycle first, then lets NumPy compute
/// with its allocations routed into the current workspace. This file creates the type from the
/// slots of the array_*.cpp files, gives it NumPy's constructor and a scalar result's __class__,
/// and has each of those files define its part.
#include "array_type.h"

#include "array_internal.h"
#include "engine.h"
#include "numpy_access.h"

#include <new>
#include <vector>

namespace wsa_py {

namespace {

/// Array(shape, dtype=float, buffer=None, offset=0, strides=None, order=None) as ndarray(...).
PyObject *array_new(PyTypeObject *, PyObject *args, PyObject *kwargs) {
    return guarded([&]() -> PyObject * {
        nb::object ndarray = nb::module_::import_("numpy").attr("ndarray");
        return apply("ndarray", ndarray.ptr(), args, kwargs).release().ptr();
    }, (PyObject *) nullptr);
}

} // namespace

void export_array(nb::module_ &m) {
#ifndef WSARRAY_LEAK_WARNINGS
    // Arrays still referenced at interpreter exit (by test frameworks' caches, reference cycles
    // the final collection skips) are not leaks of ours; the report would only alarm users.
    nb::set_leak_warnings(false);
#endif
    // The type slots of every concern, in one list (the type copies them when it is created).
    std::vector<PyType_Slot> slots;
    for (const PyType_Slot *group : {array_operator_slots, array_indexing_slots, array_attribute_slots,
                                     array_protocol_slots, array_conversion_slots})
        for (const PyType_Slot *s = group; s->slot; ++s) slots.push_back(*s);
    slots.push_back({0, nullptr});

    // pooled: dead instances are kept for reuse (no allocation, no instance-map update per result).
    auto cls = nb::class_<Array>(m, "Array", nb::type_slots(slots.data()), nb::pooled(), nb::is_weak_referenceable(),
                                 "An n-dimensional array whose memory comes from the current "
                                 "thread's workspace (made by wsarray functions, never directly).");
    ArrayType = (PyTypeObject *) cls.ptr();
    init_array_pool();  // before any Array: array_of() needs the offset it reads
    // wsarray.Array(...) (also wsarray.ndarray(...)): NumPy's ndarray constructor, in the current
    // workspace.
    ArrayType->tp_new = array_new;
    ArrayType->tp_init = [](PyObject *, PyObject *, PyObject *) { return 0; };
    ArrayType->tp_vectorcall = nullptr;  // nanobind's constructor dispatch would bypass tp_new
    PyType_Modified(ArrayType);
    {
        // An array reports numpy.ndarray as its __class__: isinstance(a, np.ndarray) holds, so numpy.testing, numpy.ma and library
        // checks take their array path, while NumPy's C code (PyArray_Check, type-based) still sees
        // a foreign object and every use of the memory goes through the Array's staleness check
        // (README, "Drop-in: NumPy's own test suite"). Never raises (no check).
        // Put into the type's dict directly: setattr(type, "__class__") would set the metaclass.
        nb::object getter =
            nb::cpp_function([](nb::handle) -> nb::object { return nb::borrow((PyObject *) ndarray_type()); });
        nb::object prop = nb::module_::import_("builtins").attr("property")(getter);
        if (PyDict_SetItemString(ArrayType->tp_dict, "__class__", prop.ptr()) < 0) throw nb::python_error();
        PyType_Modified(ArrayType);
    }

    export_array_operators(m, cls);
    export_array_indexing(m, cls);
    export_array_conversions(cls);
    export_array_attributes(m, cls);
    export_array_protocols(cls);
    export_array_membership(cls);
    // a.sum(), a.reshape(), ... (the methods loops call): array_methods.cpp.
    export_array_methods(ArrayType);
    init_array_records();
}

} // namespace wsa_py
