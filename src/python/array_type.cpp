/// src/python/array_type.cpp -- the wsarray.Array type: a subclass of numpy.ndarray whose memory
/// comes from the current workspace and is checked against its cycle on every use. Every method
/// checks the array's workspace cycle first, then lets NumPy compute with its allocations routed
/// into the current workspace. This file creates the type from the slots of the array_*.cpp files
/// (and NumPy's ndarray as its base), gives it its metaclass and NumPy's constructor, and has each
/// of those files define its part.
///
/// wsarray.ndarray is this type. Its metaclass makes it answer for every NumPy array, as NumPy
/// programs expect of the name they call `np.ndarray`: isinstance(numpy_array, wsarray.ndarray)
/// and issubclass(numpy.ndarray, wsarray.ndarray) hold, and `class Sub(wsarray.ndarray)` makes a
/// NumPy ndarray subclass (its arrays are NumPy's, in NumPy's memory: README), as it did before.
#include "array_type.h"

#include "array_internal.h"
#include "engine.h"
#include "numpy_access.h"

#include <vector>

namespace wsa_py {

namespace {

/// Array(shape, dtype=float, buffer=None, offset=0, strides=None, order=None) as ndarray(...).
PyObject *array_new(PyTypeObject *, PyObject *args, PyObject *kwargs) {
    return guarded([&]() -> PyObject * {
        nb::object ndarray = nb::borrow((PyObject *) ndarray_type());
        return apply("ndarray", ndarray.ptr(), args, kwargs).release().ptr();
    }, (PyObject *) nullptr);
}

/// The constructor did everything (as ndarray's): nothing left for __init__.
int array_init(PyObject *, PyObject *, PyObject *) { return 0; }

/// Other classes whose instances count as wsarray arrays (the device layer's arrays), registered
/// by _native._register_array_kind(); kept for the process.
std::vector<PyObject *> g_array_kinds;

bool is_array_class(PyObject *sub) {
    if (PyType_IsSubtype((PyTypeObject *) sub, ndarray_type())) return true;
    for (PyObject *kind : g_array_kinds)
        if (PyType_IsSubtype((PyTypeObject *) sub, (PyTypeObject *) kind)) return true;
    return false;
}

/// wsarray.Array's metaclass (a subclass of type): membership is NumPy's ndarray's, and a class
/// derived from wsarray.Array derives from numpy.ndarray instead.
nb::object make_metaclass() {
    nb::module_ builtins = nb::module_::import_("builtins");
    nb::dict ns;
    ns["__module__"] = "wsarray";
    ns["__qualname__"] = "ArrayType";
    ns["__doc__"] = "The metaclass of wsarray.Array (wsarray.ndarray): every NumPy array is an instance, "
                    "every ndarray subclass a subclass, and a class derived from it is a NumPy ndarray "
                    "subclass.";
    ns["__instancecheck__"] = nb::cpp_function([](nb::handle cls, nb::handle obj) {
        if (!cls.is((PyObject *) ArrayType)) return (bool) PyObject_TypeCheck(obj.ptr(), (PyTypeObject *) cls.ptr());
        return is_array_class((PyObject *) Py_TYPE(obj.ptr()));
    }, nb::is_method(), nb::arg("instance").none());
    ns["__subclasscheck__"] = nb::cpp_function([](nb::handle cls, nb::handle sub) {
        if (!PyType_Check(sub.ptr())) raise(PyExc_TypeError, "issubclass() arg 1 must be a class");
        if (!cls.is((PyObject *) ArrayType))
            return (bool) PyType_IsSubtype((PyTypeObject *) sub.ptr(), (PyTypeObject *) cls.ptr());
        return is_array_class(sub.ptr());
    }, nb::is_method(), nb::arg("subclass").none());
    // class Sub(wsarray.ndarray): a NumPy ndarray subclass, made by the metaclass its other bases
    // call for (type unless one of them brings its own).
    nb::object derive = nb::cpp_function([](nb::handle, nb::str name, nb::tuple bases, nb::dict ns, nb::kwargs kw) {
        nb::list rebased;
        for (nb::handle b : bases) {
            nb::handle base = b.is((PyObject *) ArrayType) ? nb::handle((PyObject *) ndarray_type()) : b;
            if (PySequence_Contains(rebased.ptr(), base.ptr()) == 0) rebased.append(base);
        }
        nb::object type = nb::module_::import_("builtins").attr("type");
        nb::object args = nb::make_tuple(name, nb::tuple(rebased), ns);
        nb::object r = nb::steal(PyObject_Call(type.ptr(), args.ptr(), kw.ptr()));
        if (!r) throw nb::python_error();
        return r;
    });
    ns["__new__"] = builtins.attr("staticmethod")(derive);
    nb::object type = builtins.attr("type");
    return type("ArrayType", nb::make_tuple(type), ns);
}

/// Give the type `meta` as its metaclass. A type made from a spec is an instance of `type` itself;
/// a metaclass that adds no fields to `type` has the same layout, so only the object's type changes.
void set_metaclass(PyTypeObject *type, nb::handle meta) {
    auto *mt = (PyTypeObject *) meta.ptr();
    if (mt->tp_basicsize != PyType_Type.tp_basicsize || mt->tp_itemsize != PyType_Type.tp_itemsize)
        raise(PyExc_RuntimeError, "wsarray: the Array type's metaclass does not have type's layout");
    Py_INCREF(mt);  // kept for the process, as the type is
    Py_SET_TYPE((PyObject *) type, mt);
    PyType_Modified(type);
}

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
    // No Py_TPFLAGS_BASETYPE: a class deriving from it derives from numpy.ndarray (the metaclass).
    static PyType_Spec spec = {"wsarray.Array", 0, 0, Py_TPFLAGS_DEFAULT, nullptr};
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
    set_metaclass(type, make_metaclass());
    m.attr("Array") = nb::handle((PyObject *) type);
    m.def("_register_array_kind", [](nb::handle kind) {
        // Instances of `kind` count as wsarray arrays (isinstance(x, wsarray.Array)): the device
        // layer's arrays. A class, kept for the process.
        if (!PyType_Check(kind.ptr())) raise(PyExc_TypeError, "wsarray._native._register_array_kind(): a class");
        g_array_kinds.push_back(kind.inc_ref().ptr());
    });
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
}

} // namespace wsa_py
