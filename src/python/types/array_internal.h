/// src/python/types/array_internal.h -- what the files that define wsarray.Array share: each array_*.cpp
/// file defines one concern of the type (operators, indexing, conversions, attributes, protocols,
/// workspace membership, NumPy's methods); array_type.cpp creates the type from their slots and
/// calls their export functions.
#pragma once
#include "results/array_object.h"

namespace wsa_py {

/// What nanobind's class_ offers for defining a type's methods and properties, for wsarray.Array
/// (a type nanobind did not make: a subclass of numpy.ndarray). Each method is a nanobind function
/// bound as a method; a name NumPy's ndarray has already (resize, view, __array__) is replaced.
struct ArrayDefs {
    nb::handle type;

    template <class F, class... Extra> ArrayDefs &def(const char *name, F &&f, const Extra &...extra) {
        set(name, nb::cpp_function((nb::detail::forward_t<F>) f, nb::name(name), nb::is_method(), extra...));
        return *this;
    }
    template <class G, class S, class... Extra>
    ArrayDefs &def_prop_rw(const char *name, G &&getter, S &&setter, const Extra &...extra) {
        nb::object get = nb::cpp_function((nb::detail::forward_t<G>) getter, nb::is_method(), nb::is_getter());
        nb::object put = nb::cpp_function((nb::detail::forward_t<S>) setter, nb::is_method(), extra...);
        set(name, nb::module_::import_("builtins").attr("property")(get, put));
        return *this;
    }
    template <class G, class... Extra> ArrayDefs &def_prop_ro(const char *name, G &&getter, const Extra &...extra) {
        nb::object get = nb::cpp_function((nb::detail::forward_t<G>) getter, nb::is_method(), nb::is_getter());
        nb::object doc = nb::none();
        ((void) set_doc(doc, extra), ...);
        set(name, nb::module_::import_("builtins").attr("property")(get, nb::none(), nb::none(), doc));
        return *this;
    }
    void set(const char *name, nb::handle value) {
        if (PyObject_SetAttrString(type.ptr(), name, value.ptr()) < 0) throw nb::python_error();
    }

private:
    static void set_doc(nb::object &doc, const char *text) { doc = nb::str(text); }
    template <class T> static void set_doc(nb::object &, const T &) {}
};

/// NumPy callables the operators use, looked up once (never released: they live as long as NumPy).
struct NumpyOps {
    PyObject *add, *subtract, *multiply, *true_divide, *floor_divide, *remainder, *power, *matmul, *bitwise_and,
        *bitwise_or, *bitwise_xor, *left_shift, *right_shift, *negative, *positive, *absolute, *invert, *less,
        *less_equal, *equal, *not_equal, *greater, *greater_equal, *divmod, *getitem, *setitem, *array, *copy, *numpy,
        *eq, *ne,
        *setattr,  ///< builtins.setattr (a.real = ..., through the engine)
        *pow,  ///< operator.pow: ndarray's ** has fast paths (x ** 2 is np.square, keeping bool -> int8)
        *imatmul,  ///< operator.imatmul: ndarray's @= checks the result keeps the target's shape
        *numpy_floor_divide;  ///< NumPy's ufunc, which `//` of whole numbers runs (floor_divide is wsarray's)
};
/// Loaded by export_array_operators().
extern NumpyOps ops;

/// The Array behind `self`, which must be a wsarray.Array itself (a function of the type called
/// unbound with anything else raises NumPy's TypeError for a descriptor applied to a wrong object).
[[noreturn]] void raise_not_an_array(PyObject *self, const char *fn);
inline Array &array_arg(nb::handle self, const char *fn) {
    if (!is_array(self.ptr())) raise_not_an_array(self.ptr(), fn);
    return array_of(self.ptr());
}

/// The Array behind `self`, checked against its cycle (WorkspaceError naming `fn` when stale).
inline Array &self_of(nb::handle self, const char *fn) {
    Array &a = array_arg(self, fn);
    check_valid(a, fn);
    return a;
}

/// `module.attr`, looked up on first use and kept in `slot` (a plain pointer set under the GIL). Not
/// a C++ function-local static: the import can run Python code, which lets another thread in, and
/// that thread would wait on the static's guard while holding the GIL (a deadlock).
inline nb::handle cached_attr(PyObject *&slot, const char *module, const char *attr) {
    if (!slot) {
        nb::object found = nb::module_::import_(module).attr(attr);
        if (!slot) slot = found.release().ptr();  // kept forever
    }
    return slot;
}

/// NumPy's `f(x)` through the engine.
nb::object call1(const char *name, PyObject *f, nb::handle x);
/// NumPy's `f(x, y)` through the engine.
nb::object call2(const char *name, PyObject *f, nb::handle x, nb::handle y);

/// The type slots each concern adds to wsarray.Array (each list ends with {0, nullptr}).
extern PyType_Slot array_operator_slots[];
extern PyType_Slot array_indexing_slots[];
extern PyType_Slot array_attribute_slots[];
extern PyType_Slot array_protocol_slots[];
extern PyType_Slot array_conversion_slots[];

/// Load NumPy's operators (ops), define _native._set_operator, and the operators' methods
/// (in-place forms, @, &, |, ^, <<, >>, divmod) (array_operators.cpp).
void export_array_operators(nb::module_ &m, ArrayDefs &cls);
/// The iterator type (_ArrayIterator) and `in` (array_indexing.cpp).
void export_array_indexing(nb::module_ &m, ArrayDefs &cls);
/// bool(), int(), float(), complex(), str(), repr(), format(), round(), hash() (array_conversions.cpp).
void export_array_conversions(ArrayDefs &cls);
/// Attributes forwarded to the ndarray: real, imag, flat, base, T, mT, device, resize() and,
/// through __getattr__, everything else an ndarray has (array_attributes.cpp).
void export_array_attributes(nb::module_ &m, ArrayDefs &cls);
/// NumPy's, the array API's, DLPack's, copy's and pickle's protocols (array_protocols.cpp).
void export_array_protocols(ArrayDefs &cls);
/// detach(), leverage(), leverage_to(), is_attached(), is_in_scope(), .workspace (array_membership.cpp).
void export_array_membership(ArrayDefs &cls);
/// NumPy's most used methods (sum, mean, reshape, copy, ...) as vectorcall methods (array_methods.cpp).
void export_array_methods(PyTypeObject *type);
/// array_subclasses.cpp: every attribute in the type's dictionary becomes a dispatcher that gives
/// a subclass's instance (and a NumPy array) numpy.ndarray's attribute instead.
void wrap_for_subclasses(PyTypeObject *type);
/// array_subclasses.cpp: what a subclass's instance (and super() in its methods) gets for `name`
/// instead of numpy.ndarray's attribute (wsarray/_numpy/protocols.py sets __array_ufunc__'s).
void set_subclass_side(PyTypeObject *type, nb::handle name, nb::handle value);
/// array_subclasses.cpp: numpy.ndarray's MRO gets `type` after ndarray, so NumPy's arrays are
/// instances of wsarray.ndarray (isinstance) without a metaclass.
void numpy_arrays_are_instances(PyTypeObject *type);
/// array_subclasses.cpp: `numpys`'s MRO gets `type` right after `numpys` itself: NumPy's objects
/// of that class are instances of `type` to isinstance(), whose metaclass stays as it is.
void follow_in_mro(PyTypeObject *numpys, PyTypeObject *type);

} // namespace wsa_py
