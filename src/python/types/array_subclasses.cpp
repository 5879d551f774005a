/// src/python/types/array_subclasses.cpp -- what a class derived from wsarray.Array sees: NumPy's ndarray.
///
/// `class Sub(wsarray.ndarray)` (`class Sub(np.ndarray)` after the swap) must behave as a NumPy
/// ndarray subclass: NumPy makes its instances in its own memory (`x.view(Sub)`, `Sub(shape)`),
/// and every method, property and operator they inherit is ndarray's, `super().__getitem__()` and
/// `super().__array_ufunc__()` included. wsarray's engine never takes them for its own arrays
/// (is_array() is the exact type). So every attribute wsarray.Array defines in its dictionary is
/// wrapped here in a dispatcher: given an instance of wsarray.Array itself, it is wsarray's; given
/// any other instance (a subclass's, or a NumPy array in an unbound call such as
/// `wsarray.ndarray.sum(numpy_array)`), it is numpy.ndarray's attribute of that name, and a name
/// NumPy's ndarray lacks (wsarray's own) raises AttributeError. Array's own type slots stay its C
/// functions (the dispatchers only stand in its dictionary, where a subclass's slots and super()
/// find them); Python subclasses get NumPy's defaults for __array_ufunc__ and __array_function__
/// set on themselves (wsarray/_numpy/ndarray.py), as NumPy recognises only its own.
#include "types/array_internal.h"
#include "numpy_access/numpy_access.h"

#include <structmember.h>

#include <cstring>
#include <string>

namespace wsa_py {

namespace {

struct Dispatcher {
    PyObject_HEAD PyObject *ours;  ///< wsarray.Array's attribute
    PyObject *numpys;              ///< numpy.ndarray's attribute of the same name, or null
    PyObject *name;
    vectorcallfunc vectorcall;
};

PyTypeObject *g_method_type = nullptr, *g_attribute_type = nullptr;

bool is_own(PyObject *obj) { return Py_TYPE(obj) == ArrayType; }

PyObject *missing(PyObject *obj, PyObject *name) {
    PyErr_Format(PyExc_AttributeError, "'%.100s' object has no attribute '%U'", Py_TYPE(obj)->tp_name, name);
    return nullptr;
}

/// NumPy's words for a method of the type applied to something else (wsarray's own names).
std::string not_an_array_message(const char *name, PyObject *obj) {
    return std::string("descriptor '") + (name ? name : "?") + "' for 'wsarray.ndarray' objects doesn't apply to a '" +
           Py_TYPE(obj)->tp_name + "' object";
}

/// The attribute for `obj`: wsarray's for an Array, NumPy's for anything else (null: none).
PyObject *chosen(Dispatcher *d, PyObject *obj) { return is_own(obj) ? d->ours : d->numpys; }

PyObject *dispatcher_get(PyObject *self, PyObject *obj, PyObject *type) {
    auto *d = (Dispatcher *) self;
    if (!obj || obj == Py_None) return Py_NewRef(self);  // on the class: the dispatcher itself
    PyObject *attr = chosen(d, obj);
    if (!attr) return missing(obj, d->name);
    descrgetfunc get = Py_TYPE(attr)->tp_descr_get;
    return get ? get(attr, obj, type) : Py_NewRef(attr);
}

int dispatcher_set(PyObject *self, PyObject *obj, PyObject *value) {
    auto *d = (Dispatcher *) self;
    PyObject *attr = chosen(d, obj);
    descrsetfunc set = attr ? Py_TYPE(attr)->tp_descr_set : nullptr;
    if (!set) {
        PyErr_Format(PyExc_AttributeError, "attribute '%U' of '%.100s' objects is not writable", d->name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    return set(attr, obj, value);
}

/// An unbound call (`wsarray.ndarray.sum(x)`, a subclass's slot calling the method): chosen by
/// the first argument. Anything but a wsarray.Array gets NumPy's method, whose descriptor raises
/// NumPy's TypeError for what is not an ndarray; a name NumPy lacks raises the same error itself.
PyObject *dispatcher_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    auto *d = (Dispatcher *) self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs > 0 && is_own(args[0])) return PyObject_Vectorcall(d->ours, args, nargsf, kwnames);
    if (d->numpys) return PyObject_Vectorcall(d->numpys, args, nargsf, kwnames);
    if (nargs == 0) {
        PyErr_Format(PyExc_TypeError, "unbound method wsarray.ndarray.%U() needs an argument", d->name);
        return nullptr;
    }
    if (PyObject_TypeCheck(args[0], ndarray_type())) return missing(args[0], d->name);
    PyErr_SetString(PyExc_TypeError, not_an_array_message(PyUnicode_AsUTF8(d->name), args[0]).c_str());
    return nullptr;
}

/// __name__, __qualname__, __doc__, __objclass__ ... are wsarray's attribute's; __text_signature__
/// is NumPy's where NumPy's method has one (inspect.signature(np.ndarray.__array__)).
PyObject *dispatcher_getattro(PyObject *self, PyObject *name) {
    auto *d = (Dispatcher *) self;
    static const char *forwarded[] = {"__doc__",    "__name__", "__qualname__", "__objclass__", "__text_signature__",
                                      "__module__", nullptr};
    for (const char **f = forwarded; *f; ++f) {
        if (!PyUnicode_Check(name) || PyUnicode_CompareWithASCIIString(name, *f) != 0) continue;
        if (d->numpys && f == forwarded + 4) {  // __text_signature__
            PyObject *r = PyObject_GetAttr(d->numpys, name);
            if (r && r != Py_None) return r;
            Py_XDECREF(r);
            PyErr_Clear();
        }
        // NumPy's names (functools.wraps(np.ndarray.__iadd__) sets them on a function: strings).
        if (f == forwarded + 1) return Py_NewRef(d->name);
        if (f == forwarded + 2) return PyUnicode_FromFormat("ndarray.%U", d->name);
        if (f == forwarded) {  // __doc__: wsarray's, else NumPy's
            PyObject *r = PyObject_GetAttr(d->ours, name);
            if (!r) PyErr_Clear();
            if ((!r || r == Py_None) && d->numpys) {
                Py_XDECREF(r);
                return PyObject_GetAttr(d->numpys, name);
            }
            return r ? r : Py_NewRef(Py_None);
        }
        return PyObject_GetAttr(d->ours, name);
    }
    PyObject *r = PyObject_GenericGetAttr(self, name);
    if (r || !PyErr_ExceptionMatches(PyExc_AttributeError)) return r;
    PyErr_Clear();
    return PyObject_GetAttr(d->ours, name);
}

PyObject *dispatcher_repr(PyObject *self) { return PyObject_Repr(((Dispatcher *) self)->ours); }

int dispatcher_traverse(PyObject *self, visitproc visit, void *arg) {
    auto *d = (Dispatcher *) self;
    Py_VISIT(d->ours);
    Py_VISIT(d->numpys);
    return 0;
}

int dispatcher_clear(PyObject *self) {
    auto *d = (Dispatcher *) self;
    Py_CLEAR(d->ours);
    Py_CLEAR(d->numpys);
    Py_CLEAR(d->name);
    return 0;
}

void dispatcher_dealloc(PyObject *self) {
    PyObject_GC_UnTrack(self);
    dispatcher_clear(self);
    PyTypeObject *type = Py_TYPE(self);
    type->tp_free(self);
    Py_DECREF(type);
}

PyMemberDef dispatcher_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, (Py_ssize_t) offsetof(Dispatcher, vectorcall), READONLY, nullptr},
    {"__wsarray__", T_OBJECT, (Py_ssize_t) offsetof(Dispatcher, ours), READONLY,
     "wsarray.Array's attribute (what an instance of wsarray.Array itself gets)"},
    {"__numpy__", T_OBJECT, (Py_ssize_t) offsetof(Dispatcher, numpys), READONLY,
     "numpy.ndarray's attribute of the same name (what any other ndarray gets), or None"},
    {nullptr, 0, 0, 0, nullptr}};

PyTypeObject *make_type(const char *name, bool data) {
    PyType_Slot slots[] = {{Py_tp_descr_get, (void *) dispatcher_get},
                           {Py_tp_call, (void *) PyVectorcall_Call},
                           {Py_tp_getattro, (void *) dispatcher_getattro},
                           {Py_tp_repr, (void *) dispatcher_repr},
                           {Py_tp_traverse, (void *) dispatcher_traverse},
                           {Py_tp_clear, (void *) dispatcher_clear},
                           {Py_tp_dealloc, (void *) dispatcher_dealloc},
                           {Py_tp_members, (void *) dispatcher_members},
                           {data ? Py_tp_descr_set : 0, (void *) dispatcher_set},
                           {0, nullptr}};
    // A method's dispatcher is a method descriptor (d(obj, *args) is d.__get__(obj)(*args)); a
    // property's is a data descriptor.
    unsigned int flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL;
    if (!data) flags |= Py_TPFLAGS_METHOD_DESCRIPTOR;
    PyType_Spec spec = {name, sizeof(Dispatcher), 0, flags, slots};
    auto *type = (PyTypeObject *) PyType_FromSpec(&spec);
    if (!type) throw nb::python_error();
    return type;  // kept for the process
}

/// Names left as they are: construction and attribute lookup (their slots handle subclasses),
/// what is not an attribute of instances, and class-level callables.
bool kept(PyObject *name, PyObject *value) {
    static const char *names[] = {"__new__",  "__init__",    "__getattribute__",  "__doc__",  "__module__",
                                  "__dict__", "__weakref__", "__init_subclass__", "__hash__", nullptr};
    for (const char **n = names; *n; ++n)
        if (PyUnicode_CompareWithASCIIString(name, *n) == 0) return true;
    if (!Py_TYPE(value)->tp_descr_get) return true;  // plain values
    return PyObject_TypeCheck(value, &PyClassMethod_Type) || PyObject_TypeCheck(value, &PyStaticMethod_Type) ||
           PyObject_TypeCheck(value, &PyClassMethodDescr_Type);
}

} // namespace

void raise_not_an_array(PyObject *self, const char *fn) {
    raise(PyExc_TypeError, not_an_array_message(std::strncmp(fn, "ndarray.", 8) == 0 ? fn + 8 : fn, self));
}

void wrap_for_subclasses(PyTypeObject *type) {
    g_method_type = make_type("wsarray._native.ArrayMethod", false);
    g_attribute_type = make_type("wsarray._native.ArrayAttribute", true);
    PyObject *dict = type->tp_dict;  // borrowed
    nb::list items = nb::steal<nb::list>(PyDict_Items(dict));
    for (nb::handle item : items) {
        PyObject *name = PyTuple_GET_ITEM(item.ptr(), 0), *value = PyTuple_GET_ITEM(item.ptr(), 1);
        if (!PyUnicode_Check(name) || kept(name, value)) continue;
        bool data = Py_TYPE(value)->tp_descr_set != nullptr;
        PyTypeObject *kind = data ? g_attribute_type : g_method_type;
        auto *d = (Dispatcher *) kind->tp_alloc(kind, 0);
        if (!d) throw nb::python_error();
        nb::object hold = nb::steal((PyObject *) d);
        d->ours = Py_NewRef(value);
        d->numpys = Py_XNewRef(_PyType_Lookup(ndarray_type(), name));
        d->name = Py_NewRef(name);
        d->vectorcall = dispatcher_vectorcall;
        // Straight into the dictionary: type.__setattr__ would also replace Array's own slot
        // functions with the generic ones that look the name up.
        if (PyDict_SetItem(dict, name, (PyObject *) d) < 0) throw nb::python_error();
    }
    // wsarray.ndarray.__new__(cls, ...) for any ndarray class, as numpy.ndarray.__new__ (pickle
    // helpers of subclass libraries call np.ndarray.__new__(numpy.ndarray, shape, dtype)): a class
    // of ours gets the type's constructor, any other ndarray class NumPy's. Array(...) itself
    // keeps its slot.
    nb::object ndarray_new = nb::cpp_function([type](nb::handle cls, nb::args args, nb::kwargs kwargs) -> nb::object {
        if (!PyType_Check(cls.ptr()) || !PyType_IsSubtype((PyTypeObject *) cls.ptr(), ndarray_type()))
            raise(PyExc_TypeError, "wsarray.ndarray.__new__(X): X must be a subtype of numpy.ndarray");
        auto *t = (PyTypeObject *) cls.ptr();
        newfunc make = PyType_IsSubtype(t, type) ? type->tp_new : ndarray_type()->tp_new;
        PyObject *r = make(t, args.ptr(), kwargs.ptr());
        if (!r) throw nb::python_error();
        return nb::steal(r);
    }, nb::name("__new__"), nb::arg("cls"), nb::arg("args"), nb::arg("kwargs"));
    nb::object as_static = nb::module_::import_("builtins").attr("staticmethod")(ndarray_new);
    if (PyDict_SetItemString(dict, "__new__", as_static.ptr()) < 0) throw nb::python_error();
    PyType_Modified(type);
}

void set_subclass_side(PyTypeObject *type, nb::handle name, nb::handle value) {
    PyObject *d = PyDict_GetItemWithError(type->tp_dict, name.ptr());  // borrowed
    if (!d && PyErr_Occurred()) throw nb::python_error();
    if (!d || (Py_TYPE(d) != g_method_type && Py_TYPE(d) != g_attribute_type))
        raise(PyExc_KeyError, "wsarray.ndarray has no dispatcher for this name");
    auto *disp = (Dispatcher *) d;
    Py_XSETREF(disp->numpys, Py_NewRef(value.ptr()));
    PyType_Modified(type);
}

void numpy_arrays_are_instances(PyTypeObject *type) {
    // numpy.ndarray's method resolution order gets wsarray.Array right after ndarray itself:
    // isinstance(numpy_array, wsarray.ndarray) and issubclass(numpy.ndarray, wsarray.ndarray) hold
    // (type.__instancecheck__ walks it), while wsarray.Array stays a plain class (its type is
    // `type`). Lookups on NumPy's arrays find ndarray's own attributes first; the names only
    // wsarray.Array has are dispatchers (wrap_for_subclasses), which give any array that is not a
    // wsarray.Array AttributeError. Existing Python subclasses of ndarray recompute theirs
    // (wsarray/_numpy/ndarray.py); classes made later inherit it.
    follow_in_mro(ndarray_type(), type);
}

void follow_in_mro(PyTypeObject *nd, PyTypeObject *type) {
    PyObject *mro = nd->tp_mro;
    if (!mro || !PyTuple_Check(mro) || PySequence_Contains(mro, (PyObject *) type) != 0) return;
    Py_ssize_t n = PyTuple_GET_SIZE(mro);
    PyObject *grown = PyTuple_New(n + 1);
    if (!grown) throw nb::python_error();
    for (Py_ssize_t i = 0, j = 0; i < n; ++i) {
        PyObject *t = PyTuple_GET_ITEM(mro, i);
        PyTuple_SET_ITEM(grown, j++, Py_NewRef(t));
        if (t == (PyObject *) nd) PyTuple_SET_ITEM(grown, j++, Py_NewRef((PyObject *) type));
    }
    nd->tp_mro = grown;
    Py_DECREF(mro);
    PyType_Modified(nd);
}

} // namespace wsa_py
