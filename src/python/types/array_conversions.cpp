/// src/python/types/array_conversions.cpp -- wsarray.Array to Python values as NumPy converts: bool(),
/// int(), float(), operator.index(), complex(), str(), repr() (a stale array says so instead of
/// raising) and format(); round() raises TypeError and hashing too, as for ndarray.
#include "types/array_internal.h"

#include "calls/engine.h"
#include "numpy_access/numpy_access.h"

#include <string>

namespace wsa_py {

namespace {

/// `<wsarray.Array stale: cycle 12 of 'LOOP' ended>` and the like.
std::string stale_repr(const Array &a) {
    const wsa::Workspace &ws = *a.token.ws;
    std::string why;
    switch (ws.destroy_reason()) {
    case wsa::DestroyReason::Alive:
        why = "cycle " + std::to_string(a.token.generation) + " of '" + ws.name() + "' ended";
        break;
    case wsa::DestroyReason::ThreadExit: why = "workspace '" + ws.name() + "' ended with its thread"; break;
    case wsa::DestroyReason::Fork:
        why = "workspace '" + ws.name() + "' belonged to another thread of the parent process";
        break;
    default: why = "workspace '" + ws.name() + "' was destroyed";
    }
    return "<wsarray.ndarray stale: " + why + ">";
}

/// bool(a), as a type slot: a method defined on the type would make CPython look `__bool__` up
/// and call it through nanobind's dispatch each time (~170 instructions). The ndarray answers
/// (NumPy's errors for arrays of more than one element).
int array_bool(PyObject *s) {
    return guarded([&]() -> int {
        Array &a = self_of(s, "ndarray.__bool__");
        int r = PyObject_IsTrue(a.data().ptr());
        if (r < 0) raise_pending("ndarray.__bool__");
        return r;
    }, -1);
}

} // namespace

PyType_Slot array_conversion_slots[] = {{Py_nb_bool, (void *) array_bool}, {0, nullptr}};

void export_array_conversions(ArrayDefs &cls) {
    // Conversions to Python scalars follow NumPy (errors for arrays of more than one element).
#define WSA_CONVERT(py, expr)                 \
    cls.def(py, [](nb::handle s) {            \
        Array &a = self_of(s, "ndarray." py); \
        PyObject *d = a.data().ptr();         \
        nb::object r = nb::steal(expr);       \
        if (!r) raise_pending("ndarray." py); \
        return r;                             \
    });
    WSA_CONVERT("__int__", PyNumber_Long(d))
    WSA_CONVERT("__float__", PyNumber_Float(d))
    WSA_CONVERT("__index__", PyNumber_Index(d))
    WSA_CONVERT("__complex__", PyObject_CallOneArg((PyObject *) &PyComplex_Type, d))
#undef WSA_CONVERT
    // One rule for str and repr: a stale array says so instead of raising (print, logging,
    // debuggers and the repr of containers that hold one keep working); every use of its data,
    // format() included, still raises.
    cls.def("__str__", [](nb::handle s) -> nb::object {
        if (!token_valid(array_arg(s, "ndarray.__str__").token)) return nb::str(stale_repr(array_of(s.ptr())).c_str());
        Array &a = self_of(s, "ndarray.__str__");
        nb::object r = nb::steal(PyObject_Str(a.data().ptr()));
        if (!r) raise_pending("ndarray.__str__");
        return r;
    });
    cls.def("__repr__", [](nb::handle s) -> nb::object {
        if (!token_valid(array_arg(s, "ndarray.__repr__").token)) return nb::str(stale_repr(array_of(s.ptr())).c_str());
        Array &a = self_of(s, "ndarray.__repr__");
        nb::object r = nb::steal(PyObject_Repr(a.data().ptr()));
        if (!r) throw nb::python_error();
        return r;
    });
    cls.def("__format__", [](nb::handle s, nb::handle spec) {
        if (!PyUnicode_Check(spec.ptr()))
            raise(PyExc_TypeError, "wsarray.ndarray.__format__(): the format spec must be a str, not " +
                                       std::string(Py_TYPE(spec.ptr())->tp_name));
        Array &a = self_of(s, "ndarray.__format__");
        nb::object r = nb::steal(PyObject_Format(a.data().ptr(), spec.ptr()));
        if (!r) raise_pending("ndarray.__format__");
        return r;
    }, nb::arg("spec").none());
    // Unhashable, as NumPy's ndarray (0-d arrays included; reductions give hashable NumPy
    // scalars): the type's hash slot (array_type.cpp).
}

} // namespace wsa_py
