/// src/python/types/function.cpp -- wsarray.<name> callables that run a NumPy function through the
/// engine (unwrap, route into the current workspace, wrap).
#include "types/function.h"

#include "calls/device_arrays.h"
#include "calls/engine.h"
#include "types/array_internal.h"
#include "fast/fast_numpy.h"
#include "common/hooks.h"

#include <nanobind/stl/string.h>

#include <cstdint>
#include <memory>
#include <structmember.h>
#include <utility>

namespace wsa_py {

namespace {

PyObject *routed_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames);

struct Routed {
    Routed(nb::object f, std::string n) : func(std::move(f)), name(std::move(n)) {}
    /// First member: the instance's vectorcall slot (the type's __vectorcalloffset__ points here).
    vectorcallfunc vectorcall = routed_vectorcall;
    nb::object func;
    std::string name;
    /// Lean paths (fast_numpy.h): a 1-input ufunc called on one Array, a creation function.
    nb::object ufunc;        ///< the ufunc run directly (null: none)
    bool real_only = false;  ///< ... for real dtypes only (func patches complex results)
    Creation creation = Creation::None;
    std::unique_ptr<UfuncCache> cache;
    /// The NumPy ufunc of the same name when `func` is wsarray's own version of it (floor_divide
    /// with the standard's special cases, ...): isinstance(f, np.ufunc) and f.reduce / f.nin come
    /// from it. Null otherwise.
    nb::object numpy_ufunc;
    /// Inputs of the ufunc `func` is or stands for (0: not a ufunc); later positional arguments
    /// are its out arrays.
    int ufunc_nin = 0;
    /// A function with a device= parameter (creation, conversion): its device= is looked at.
    bool takes_device = false;
    /// NumPy's asarray or asanyarray: an object's __array__ result comes back as it is.
    bool converts = false;
    /// Attributes set on it, as on a NumPy function (`np.max.__name__ = "max"`, a library's
    /// marker): a dict made on the first one, read before what the function it runs has.
    nb::object attrs;
};

/// The NumPy callable the Function stands for: NumPy's ufunc of wsarray's own version of it, NumPy's
/// function of the same name for wsarray's own implementations, else what it runs.
nb::handle numpy_side(Routed &r) {
    if (r.numpy_ufunc.is_valid()) return r.numpy_ufunc;
    if (!r.func.is_valid()) return nb::handle();
    PyObject *f = numpy_counterpart(r.name.c_str(), r.func.ptr());
    if (f == r.func.ptr()) {  // NumPy's function of the name dispatches nothing (from_dlpack, fft.fftfreq)
        PyObject *named = numpy_named(r.name);
        if (named && PyCallable_Check(named) && !PyType_Check(named)) return named;
    }
    return f;
}

/// numpy_side() where that is NumPy's own object (not another Function), else null: what
/// introspection (__wrapped__, __signature__, __class__) answers as.
nb::handle numpy_object(Routed &r) {
    nb::handle numpys = numpy_side(r);
    return numpys.is_valid() && !nb::isinstance<Routed>(numpys) ? numpys : nb::handle();
}

/// Setting `attr` on NumPy's function `numpys` raises (read-only attributes: ufunc.nin,
/// builtin.__name__; a builtin has no __dict__ at all): the same error for wsarray's.
void refuse_as_numpy(nb::handle numpys, const std::string &attr) {
    PyTypeObject *t = Py_TYPE(numpys.ptr());
    nb::str name(attr.c_str());
    PyObject *descr = _PyType_Lookup(t, name.ptr());  // borrowed
    bool read_only = false;
    if (descr && Py_TYPE(descr) == &PyGetSetDescr_Type) read_only = !((PyGetSetDescrObject *) descr)->d_getset->set;
    else if (descr && Py_TYPE(descr) == &PyMemberDescr_Type)
        read_only = ((PyMemberDescrObject *) descr)->d_member->flags & READONLY;
    if (read_only)
        raise(PyExc_AttributeError, "attribute '" + attr + "' of '" + t->tp_name + "' objects is not writable");
    if (!descr && t->tp_dictoffset == 0)
        raise(PyExc_AttributeError, std::string("'") + t->tp_name + "' object has no attribute '" + attr + "'");
}

/// A NumPy ufunc with one input and one output, else null.
nb::object unary_ufunc(nb::handle f) {
    static nb::object ufunc_type = nb::module_::import_("numpy").attr("ufunc");
    if (!f.is_valid() || f.is_none() || !nb::isinstance(f, ufunc_type)) return nb::object();
    if (nb::cast<int>(f.attr("nin")) != 1 || nb::cast<int>(f.attr("nout")) != 1) return nb::object();
    return nb::borrow(f);
}

/// Pick the lean path for `func` (`real_ufunc`: a ufunc equal to `func` for real inputs).
void classify(Routed &r, nb::handle real_ufunc) {
    nb::module_ np = nb::module_::import_("numpy");
    nb::handle ufunc_type = np.attr("ufunc");
    if (!nb::isinstance(r.func, ufunc_type)) {
        nb::object same_name = nb::getattr(np, r.name.c_str(), nb::none());
        if (nb::isinstance(same_name, ufunc_type)) r.numpy_ufunc = same_name;
    }
    // clang-format off: a table laid out by hand
    for (const char *name : {"asarray", "array", "asanyarray", "ascontiguousarray", "empty", "empty_like", "zeros",
                             "zeros_like", "ones", "ones_like", "full", "full_like", "arange", "linspace", "logspace",
                             "eye", "identity", "from_dlpack", "astype", "fft.fftfreq", "fft.rfftfreq"})
        if (r.name == name) r.takes_device = true;
    // clang-format on
    nb::handle as_ufunc = r.numpy_ufunc.is_valid() ? r.numpy_ufunc : nb::handle(r.func);
    if (nb::isinstance(as_ufunc, ufunc_type)) r.ufunc_nin = nb::cast<int>(as_ufunc.attr("nin"));
    if ((r.ufunc = unary_ufunc(r.func))) {
        r.cache = std::make_unique<UfuncCache>();
        return;
    }
    if ((r.ufunc = unary_ufunc(real_ufunc))) {
        r.real_only = true;
        r.cache = std::make_unique<UfuncCache>();
        return;
    }
    // clang-format off: a table laid out by hand
    for (auto [name, kind] : {std::pair<const char *, Creation>{"zeros", Creation::Zeros},
                              {"empty", Creation::Empty}, {"ones", Creation::Ones}, {"full", Creation::Full},
                              {"arange", Creation::Arange}})
        if (r.func.is(np.attr(name))) r.creation = kind;
    // clang-format on
    r.converts = r.func.is(np.attr("asarray")) || r.func.is(np.attr("asanyarray"));
}

/// np.asarray(obj) of an object that NumPy converts by its __array__ (no buffer, no
/// __array_struct__ or __array_interface__ first): NumPy returns the ndarray __array__ gave,
/// itself, when its dtype is the one asked for. When that is an Array, NumPy would only see a
/// base-class view of it (mygrad's `np.asarray(tensor) is tensor.data`): so __array__ is called
/// here, as NumPy calls it (the dtype, if given, as its one argument; for a call with no other
/// keyword), and an Array it returns of that dtype is the result; anything else is converted on
/// as NumPy would convert it. Null (nothing called) for every other argument.
PyObject *array_method_result(Routed &r, PyObject *obj, PyObject *kwargs) {
    static PyObject *array_name = PyUnicode_InternFromString("__array__");
    static PyObject *struct_name = PyUnicode_InternFromString("__array_struct__");
    static PyObject *interface_name = PyUnicode_InternFromString("__array_interface__");
    if (is_array(obj) || is_ndarray(obj) || PyList_Check(obj) || PyTuple_Check(obj) || PyLong_Check(obj) ||
        PyFloat_Check(obj) || PyComplex_Check(obj) || PyUnicode_Check(obj) || PyObject_CheckBuffer(obj) ||
        holds_device_array(&obj, 1, nullptr))  // a device array: the device layer answers
        return nullptr;
    PyTypeObject *t = Py_TYPE(obj);
    if (!_PyType_Lookup(t, array_name) || _PyType_Lookup(t, struct_name) || _PyType_Lookup(t, interface_name))
        return nullptr;
    PyObject *dtype = kwargs ? PyDict_GetItemString(kwargs, "dtype") : nullptr;  // borrowed
    if (kwargs && PyDict_GET_SIZE(kwargs) != (dtype ? 1 : 0)) return nullptr;
    nb::object descr;
    if (dtype && dtype != Py_None) {
        static PyObject *dtype_type = nb::object(nb::module_::import_("numpy").attr("dtype")).release().ptr();  // kept
        descr = nb::steal(PyObject_CallOneArg(dtype_type, dtype));
        if (!descr) {  // NumPy's own error, from NumPy's own path
            PyErr_Clear();
            return nullptr;
        }
    }
    nb::object made = nb::steal(descr ? PyObject_CallMethodOneArg(obj, array_name, descr.ptr())
                                      : PyObject_CallMethodNoArgs(obj, array_name));
    if (!made) raise_pending(r.name.c_str());
    if (!is_array(made.ptr()) && !is_ndarray(made.ptr()))
        raise(PyExc_ValueError, "object __array__ method not producing an array");
    if (is_array(made.ptr())) {
        Array &a = array_of(made.ptr());
        check_valid(a, r.name.c_str());
        if (!descr || descr.equal(a.data().attr("dtype"))) return made.release().ptr();
    }
    PyObject *arg = made.ptr();
    return apply_vector(r.name.c_str(), r.func.ptr(), &arg, 1, kwargs).release().ptr();
}

// Garbage-collector support: a Function wrapping a Python function references that function's
// module globals, which hold the Function again; without traverse/clear such cycles never die.
int routed_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE(self));
    if (!nb::inst_ready(self)) return 0;
    Py_VISIT(nb::inst_ptr<Routed>(self)->func.ptr());
    Py_VISIT(nb::inst_ptr<Routed>(self)->numpy_ufunc.ptr());
    Py_VISIT(nb::inst_ptr<Routed>(self)->attrs.ptr());
    return 0;
}

int routed_clear(PyObject *self) {
    nb::inst_ptr<Routed>(self)->func = nb::object();
    nb::inst_ptr<Routed>(self)->numpy_ufunc = nb::object();
    nb::inst_ptr<Routed>(self)->attrs = nb::object();
    return 0;
}

/// NEP 35: `f(..., like=x)` where x's type implements __array_function__ (another array library):
/// x's implementation answers, handed this wsarray function (what `np.f` is to the caller; NumPy's
/// own dispatch would hand over NumPy's), x's type, the arguments and the keywords without like=.
PyObject *dispatch_like(PyObject *self, Routed &r, PyObject *like, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwargs) {
    nb::object kw = nb::steal(PyDict_Copy(kwargs));
    if (!kw || PyDict_DelItemString(kw.ptr(), "like") < 0) throw nb::python_error();
    nb::object positional = nb::steal(PyTuple_New(nargs));
    if (!positional) throw nb::python_error();
    for (Py_ssize_t i = 0; i < nargs; ++i) PyTuple_SET_ITEM(positional.ptr(), i, nb::handle(args[i]).inc_ref().ptr());
    // NumPy checks the arguments before it dispatches (np.array(1, bad=True, like=x): TypeError).
    nb::object signature;
    try {
        signature = nb::module_::import_("inspect").attr("signature")(r.func);
    } catch (nb::python_error &) {  // a callable without a signature: nothing to check
    }
    if (signature.is_valid()) {
        nb::object bind = signature.attr("bind");
        nb::object bound = nb::steal(PyObject_Call(bind.ptr(), positional.ptr(), kwargs));
        if (!bound) {
            nb::python_error e;
            if (!e.matches(PyExc_TypeError)) throw e;
            raise(PyExc_TypeError, "wsarray." + r.name + "(): " + nb::cast<std::string>(nb::str(e.value())));
        }
    }
    nb::handle type((PyObject *) Py_TYPE(like));
    nb::object result =
        nb::handle(like).attr("__array_function__")(nb::handle(self), nb::make_tuple(type), positional, kw);
    if (result.is(nb::handle(Py_NotImplemented)))  // NumPy's error
        raise(PyExc_TypeError, "no implementation found for 'wsarray." + r.name +
                                   "' on types that implement __array_function__: [" +
                                   nb::cast<std::string>(nb::repr(type)) + "]");
    return result.release().ptr();
}

/// A call straight into the engine: calls are the hot path of every namespace function, and
/// nanobind's overload dispatch (building nb::args / nb::kwargs) doubled the cost of np.exp(x).
PyObject *call_routed(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwargs) {
    return guarded([&]() -> PyObject * {
        Routed &r = *nb::inst_ptr<Routed>(self);
        if (!r.func.is_valid()) raise(PyExc_RuntimeError, "wsarray." + r.name + " was cleared");
        bool no_kwargs = !kwargs || !PyDict_GET_SIZE(kwargs);
        if (!no_kwargs)
            if (PyObject *like = PyDict_GetItemString(kwargs, "like"))  // borrowed
                if (foreign_override(like, Protocol::Function))
                    return dispatch_like(self, r, like, args, nargs, kwargs);
        if (r.takes_device && !no_kwargs && wants_device(kwargs)) {  // device='cuda:0': the device layer's
            PyObject *res = device_dispatch(r.name.c_str(), r.func.ptr(), args, nargs, kwargs);
            if (!res) raise_pending(r.name.c_str());
            if (res != Py_NotImplemented) return res;
            Py_DECREF(res);
        }
        if (r.cache && no_kwargs && nargs == 1)
            if (PyObject *res = fast_ufunc1(*r.cache, r.ufunc.ptr(), r.real_only, args[0], r.name.c_str())) return res;
        if (r.creation != Creation::None)
            if (PyObject *res = fast_create(r.creation, args, nargs, kwargs)) return res;
        if (r.converts && nargs == 1)
            if (PyObject *res = array_method_result(r, args[0], no_kwargs ? nullptr : kwargs)) return res;
        return apply_vector(r.name.c_str(), r.func.ptr(), args, nargs, kwargs, nullptr, r.ufunc_nin ? r.ufunc_nin : -1)
            .release()
            .ptr();
    }, (PyObject *) nullptr);
}

PyObject *routed_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    return call_routed(self, &PyTuple_GET_ITEM(args, 0), PyTuple_GET_SIZE(args), kwargs);
}

/// Vectorcall (no argument tuple): keywords, rare in hot loops, are gathered into a dict.
PyObject *routed_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (!kwnames || !PyTuple_GET_SIZE(kwnames)) return call_routed(self, args, nargs, nullptr);
    nb::object kwargs = nb::steal(PyDict_New());
    if (!kwargs) return nullptr;
    for (Py_ssize_t i = 0, n = PyTuple_GET_SIZE(kwnames); i < n; ++i)
        if (PyDict_SetItem(kwargs.ptr(), PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) < 0) return nullptr;
    return call_routed(self, args, nargs, kwargs.ptr());
}

/// Where an instance's Routed (its first member: the vectorcall pointer) lies: after nanobind's
/// 24-byte instance header. Checked on a real instance at import (export_function); vectorcall
/// stays off if nanobind ever lays instances out differently.
constexpr Py_ssize_t kVectorcallOffset = (Py_ssize_t) (sizeof(PyObject) + 2 * sizeof(std::uint32_t));

PyMemberDef routed_members[] = {{"__vectorcalloffset__", T_PYSSIZET, kVectorcallOffset, READONLY, nullptr},
                                {nullptr, 0, 0, 0, nullptr}};

/// A Function stored as a class attribute binds as the NumPy callable it stands for does: NumPy's
/// dispatchers (np.concatenate) and Python functions bind to an instance (`class C: f =
/// np.concatenate`: `C().f` is a bound method), ufuncs, builtins and bound methods do not. With a
/// __get__, inspect.isroutine() holds for it as for NumPy's functions.
PyObject *routed_descr_get(PyObject *self, PyObject *obj, PyObject *type) {
    return guarded([&]() -> PyObject * {
        if (!obj || obj == Py_None) return Py_NewRef(self);
        Routed &r = *nb::inst_ptr<Routed>(self);
        nb::handle numpys = numpy_object(r);
        if (!numpys.is_valid()) numpys = r.func;
        descrgetfunc get = numpys.is_valid() ? Py_TYPE(numpys.ptr())->tp_descr_get : nullptr;
        if (!get) return Py_NewRef(self);
        nb::object bound = nb::steal(get(numpys.ptr(), obj, type));
        if (!bound.is_valid()) throw nb::python_error();
        if (bound.is(numpys)) return Py_NewRef(self);
        return PyMethod_New(self, obj);
    }, (PyObject *) nullptr);
}

PyType_Slot routed_slots[] = {{Py_tp_traverse, (void *) routed_traverse}, {Py_tp_descr_get, (void *) routed_descr_get},
                              {Py_tp_clear, (void *) routed_clear},       {Py_tp_call, (void *) routed_call},
                              {Py_tp_members, (void *) routed_members},   {0, nullptr}};

}  // namespace

void export_function(nb::module_ &m) {
    auto cls = nb::class_<Routed>(m, "Function", nb::type_slots(routed_slots),
                                  "A NumPy function run with its allocations in the current workspace.");
    cls.def("__init__", [](Routed *r, nb::object func, std::string name, nb::handle real_ufunc) {
        new (r) Routed{std::move(func), std::move(name)};
        classify(*r, real_ufunc);
    }, nb::arg("func"), nb::arg("name"), nb::arg("real_ufunc").none() = nb::none());
    cls.def("__getattr__", [](Routed &r, const std::string &attr) -> nb::object {
        // ufunc methods (add.reduce, multiply.outer, ...) are routed too; data attributes pass.
        if (r.attrs.is_valid())
            if (PyObject *v = PyDict_GetItemString(r.attrs.ptr(), attr.c_str())) return nb::borrow(v);
        if (attr == "__dict__") {
            if (!r.attrs.is_valid()) r.attrs = nb::dict();
            return r.attrs;
        }
        if (attr == "__name__") {
            auto dot = r.name.rfind('.');
            return nb::str((dot == std::string::npos ? r.name : r.name.substr(dot + 1)).c_str());
        }
        if (attr == "__qualname__") return nb::str(r.name.c_str());
        // As NumPy's function of the same name (present where it is: inspect.unwrap() and
        // inspect.getsource() reach what NumPy's reach; libraries list "the functions with
        // __wrapped__" to find NumPy's dispatched ones). What a Function runs: __wsarray_runs__.
        if (attr == "__wrapped__") {
            if (nb::handle numpys = numpy_object(r)) {
                if (PyObject *v = PyObject_GetAttrString(numpys.ptr(), "__wrapped__")) return nb::steal(v);
                PyErr_Clear();
            }
            raise(PyExc_AttributeError, "wsarray." + r.name + " has no attribute '" + attr + "'");
        }
        if (attr == "__wsarray_runs__") return r.func;
        // wsarray's own implementation (the standard's sort with `descending`) where NumPy's
        // function has __wrapped__, which inspect.signature() would follow to NumPy's parameters.
        if (attr == "__signature__" && !r.numpy_ufunc.is_valid() && r.func.is_valid() &&
            PyFunction_Check(r.func.ptr())) {
            nb::handle numpys = numpy_object(r);
            if (numpys && !numpys.is(r.func) && PyObject_HasAttrString(numpys.ptr(), "__wrapped__")) {
                static PyObject *signature =  // kept for the process (no destructor after finalization)
                    nb::object(nb::module_::import_("inspect").attr("signature")).release().ptr();
                return nb::handle(signature)(r.func);
            }
        }
        // inspect.signature(), help() and NumPy's own tests read these off the function it runs;
        // typing.get_type_hints() and argument introspection (f.__code__.co_varnames) the rest.
        if (attr == "__signature__" || attr == "__text_signature__" || attr == "__annotations__" ||
            attr == "__defaults__" || attr == "__kwdefaults__" || attr == "__code__" || attr == "__globals__") {
            nb::handle shown = r.numpy_ufunc.is_valid() ? r.numpy_ufunc : nb::handle(r.func);
            nb::object v = nb::steal(PyObject_GetAttrString(shown.ptr(), attr.c_str()));
            if (v) return v;
            PyErr_Clear();
            raise(PyExc_AttributeError, "wsarray." + r.name + " has no attribute '" + attr + "'");
        }
        if (attr == "_implementation") {
            // NumPy's function without its dispatch (libraries call np.concatenate._implementation
            // from their __array_function__): routed too, never deferring again.
            nb::handle numpys = numpy_side(r);
            nb::object impl = numpys.is_valid() ? nb::getattr(numpys, "_implementation", nb::none()) : nb::none();
            if (impl.is_none()) raise(PyExc_AttributeError, "wsarray." + r.name + " has no attribute '" + attr + "'");
            return nb::cast(Routed{impl, r.name + "._implementation"}, nb::rv_policy::move);
        }
        if (attr.size() > 1 && attr[0] == '_') {
            // NumPy's private and builtin attributes (ufunc._resolve_dtypes_and_context,
            // array.__self__) as NumPy's function of the same name has them, never those of the
            // Python function wsarray may run instead.
            nb::handle numpys = numpy_object(r);
            nb::object v = numpys ? nb::steal(PyObject_GetAttrString(numpys.ptr(), attr.c_str())) : nb::object();
            if (!v) {
                PyErr_Clear();
                raise(PyExc_AttributeError, "wsarray." + r.name + " has no attribute '" + attr + "'");
            }
            if (PyCallable_Check(v.ptr()) && !PyType_Check(v.ptr()) && !PyModule_Check(v.ptr()))
                return nb::cast(Routed{v, r.name + "." + attr}, nb::rv_policy::move);
            return v;
        }
        nb::object v = nb::steal(PyObject_GetAttrString(r.func.ptr(), attr.c_str()));
        if (!v && r.numpy_ufunc.is_valid()) {
            PyErr_Clear();
            v = nb::steal(PyObject_GetAttrString(r.numpy_ufunc.ptr(), attr.c_str()));
        }
        if (!v) {
            PyErr_Clear();
            raise(PyExc_AttributeError, "wsarray." + r.name + " has no attribute '" + attr + "'");
        }
        if (PyCallable_Check(v.ptr()) && !PyType_Check(v.ptr())) {
            // ufunc methods (np.add.reduce, ...) run through the engine too.
            return nb::cast(Routed{v, r.name + "." + attr}, nb::rv_policy::move);
        }
        return v;
    });
    // NumPy's repr of what runs (<ufunc 'add'>, <function sum at 0x...>): printed dicts and
    // lists of functions (activations, reducers) read as they do with NumPy.
    cls.def("__repr__", [](Routed &r) -> nb::object {
        nb::handle shown = r.numpy_ufunc.is_valid() ? r.numpy_ufunc : r.func;
        if (!shown.is_valid()) return nb::str(("<wsarray function " + r.name + ">").c_str());
        return nb::repr(shown);
    });
    // pickle / copy.deepcopy (multiprocessing, sklearn's clone): by name when wsarray.<name> is
    // this object, else by value (a bound method of a Generator, a ufunc method).
    cls.def("__reduce__", [](nb::handle self) {
        Routed &r = *nb::inst_ptr<Routed>(self.ptr());
        nb::handle ws = hook(Hook::Namespace);
        nb::object found = nb::borrow(ws);
        std::string::size_type start = 0;
        while (found.is_valid() && start <= r.name.size()) {
            auto dot = r.name.find('.', start);
            std::string part = r.name.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
            found = nb::steal(PyObject_GetAttrString(found.ptr(), part.c_str()));
            if (!found.is_valid()) PyErr_Clear();
            start = dot == std::string::npos ? r.name.size() + 1 : dot + 1;
        }
        if (found.is(self)) return nb::make_tuple(ws.attr("_function_by_name"), nb::make_tuple(r.name));
        if (!r.func.is_valid()) raise(PyExc_TypeError, "wsarray." + r.name + " was cleared and cannot be pickled");
        return nb::make_tuple(ws.attr("_rebuild_function"), nb::make_tuple(r.func, r.name));
    });
    // np.add.reduce == np.add.reduce (each access makes a new Function): equal when they run
    // equal callables, as NumPy's bound methods compare. A Function is also equal to the NumPy
    // callable it stands for (np.sin == numpy.sin, np.sort == numpy.sort, numpy.add in [np.add],
    // dict lookups): NumPy hands its own function to __array_ufunc__/__array_function__
    // overrides, and code keyed by np.sort must find it.
    cls.def("__eq__", [](Routed &r, nb::handle other) -> nb::object {
        if (!nb::isinstance<Routed>(other)) {
            if (numpy_side(r).is_valid() && other.is(numpy_side(r))) return nb::bool_(true);
            return nb::borrow(Py_NotImplemented);
        }
        Routed &o = nb::cast<Routed &>(other);
        if (!r.func.is_valid() || !o.func.is_valid()) return nb::bool_(&r == &o);
        return nb::bool_(r.name == o.name && r.func.equal(o.func));
    }, nb::arg("other").none());
    // The hash of the NumPy callable it equals (above).
    cls.def("__hash__", [](Routed &r) -> Py_ssize_t {
        if (!r.func.is_valid()) return (Py_ssize_t) (std::uintptr_t) &r;
        return nb::hash(numpy_side(r));
    });
    // help(np.sum), np.info(np.dot), f.__doc__: NumPy's documentation of the wrapped function.
    cls.def_prop_ro("__doc__", [](Routed &r) -> nb::object {
        if (r.attrs.is_valid())
            if (PyObject *v = PyDict_GetItemString(r.attrs.ptr(), "__doc__")) return nb::borrow(v);
        return nb::getattr(r.func, "__doc__", nb::none());
    });
    // Setting and deleting attributes, as NumPy's functions allow (they have a __dict__).
    cls.def("__setattr__", [](Routed &r, const std::string &attr, nb::object value) {
        if (attr == "__class__") raise(PyExc_TypeError, "wsarray." + r.name + ": __class__ cannot be set");
        if (nb::handle numpys = numpy_object(r)) refuse_as_numpy(numpys, attr);
        if (!r.attrs.is_valid()) r.attrs = nb::dict();
        r.attrs[attr.c_str()] = std::move(value);
    }, nb::arg("name"), nb::arg("value").none());
    cls.def("__delattr__", [](Routed &r, const std::string &attr) {
        if (!r.attrs.is_valid() || PyDict_DelItemString(r.attrs.ptr(), attr.c_str()) < 0) {
            PyErr_Clear();
            raise(PyExc_AttributeError, "wsarray." + r.name + " has no attribute '" + attr + "'");
        }
    });
    {
        // A Function reports the class of NumPy's callable it stands for as its __class__, which
        // isinstance() consults, where that class is a ufunc, a builtin function or method, or
        // NumPy's array-function dispatcher: isinstance(np.add, np.ufunc) holds as in NumPy
        // (NumPy's own testing.overrides.allows_array_ufunc_override asks exactly that), and so
        // do isinstance(np.array, types.BuiltinFunctionType) (lmfit) and inspect.isbuiltin(),
        // while type(np.add) is still Function. (Not types.FunctionType: inspect would take it
        // for a Python function.) Put into the type's dict: setattr(type, "__class__") sets the
        // metaclass.
        nb::object numpy = nb::module_::import_("numpy");
        nb::object ufunc_type = numpy.attr("ufunc");
        nb::object dispatcher_type = nb::borrow((PyObject *) Py_TYPE(numpy.attr("concatenate").ptr()));
        nb::object getter = nb::cpp_function([ufunc_type, dispatcher_type](nb::handle s) -> nb::object {
            Routed &r = *nb::inst_ptr<Routed>(s.ptr());
            if (r.numpy_ufunc.is_valid() ||
                (r.func.is_valid() && PyObject_TypeCheck(r.func.ptr(), (PyTypeObject *) ufunc_type.ptr())))
                return ufunc_type;
            if (nb::handle numpys = numpy_object(r)) {
                PyTypeObject *t = Py_TYPE(numpys.ptr());
                if (t == &PyCFunction_Type || t == (PyTypeObject *) dispatcher_type.ptr())
                    return nb::borrow((PyObject *) t);
            }
            return nb::borrow((PyObject *) Py_TYPE(s.ptr()));
        });
        nb::object prop = nb::module_::import_("builtins").attr("property")(getter);
        auto *tp = (PyTypeObject *) cls.ptr();
        if (PyDict_SetItemString(tp->tp_dict, "__class__", prop.ptr()) < 0) throw nb::python_error();
        PyType_Modified(tp);
    }
    // Vectorcall: only if the instance layout is what __vectorcalloffset__ says.
    auto *type = (PyTypeObject *) cls.ptr();
    nb::object probe = cls(nb::module_::import_("builtins").attr("len"), "len");
    char *base = (char *) probe.ptr();
    if (type->tp_vectorcall_offset == kVectorcallOffset &&
        (char *) &nb::inst_ptr<Routed>(probe)->vectorcall == base + kVectorcallOffset)
        type->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
    // wsarray.ufunc (wsarray/_numpy/misc.py): the class of wsarray's ufuncs, a Python
    // subclass of Function without instance fields, so that `type(np.add) is np.ufunc` holds
    // after the swap as before it; NumPy's ufuncs are its instances too (numpy.ufunc's MRO gets
    // it, as numpy.ndarray's gets wsarray.ndarray). `functions`' ufuncs become its instances.
    m.def("_set_ufunc_class", [type](nb::handle cls, nb::iterable functions) {
        auto *ours = (PyTypeObject *) cls.ptr();
        if (!PyType_Check(cls.ptr()) || !PyType_IsSubtype(ours, type) || ours->tp_basicsize != type->tp_basicsize ||
            ours->tp_itemsize != type->tp_itemsize || !(ours->tp_flags & Py_TPFLAGS_HEAPTYPE))
            raise(PyExc_TypeError, "wsarray._native._set_ufunc_class(): not a field-less subclass of Function");
        // Called through its vectorcall slot as Function is (a Python subclass keeps tp_call).
        if (type->tp_flags & Py_TPFLAGS_HAVE_VECTORCALL) ours->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
        PyType_Modified(ours);
        static PyObject *ufunc_type = nb::object(nb::module_::import_("numpy").attr("ufunc")).release().ptr();  // kept
        follow_in_mro((PyTypeObject *) ufunc_type, ours);
        for (nb::handle f : functions) {
            if (Py_TYPE(f.ptr()) != type) continue;
            int is_ufunc = PyObject_IsInstance(f.ptr(), ufunc_type);  // through __class__
            if (is_ufunc < 0) throw nb::python_error();
            if (!is_ufunc) continue;
            Py_INCREF(ours);
            Py_SET_TYPE(f.ptr(), ours);
            Py_DECREF(type);  // instances of heap types hold their type
        }
    }, nb::arg("cls"), nb::arg("functions"));
}

}  // namespace wsa_py
