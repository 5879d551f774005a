/// src/python/types/array_methods.cpp -- the NumPy methods loops call on every iteration (a.sum(),
/// a.mean(), a.reshape(...), a.copy(), ...), defined on wsarray.Array as vectorcall methods.
///
/// Python finds them on the class at once (not after the failed lookup, an AttributeError made
/// and cleared, behind __getattr__), and they take their arguments as a vectorcall: no argument
/// tuple or keyword dict when there are no keywords. Scalar results are NumPy's scalars, as NumPy
/// returns them.
#include "types/array_internal.h"

#include "calls/engine.h"
#include "fast/fast_float64.h"
#include "fast/fast_numpy.h"
#include "numpy_access/numpy_access.h"
#include "allocation/numpy_alloc.h"
#include "workspaces/scopes.h"

#include <array>
#include <cstring>
#include <utility>

namespace wsa_py {

namespace {

enum class Kind {
    General,  ///< NumPy's method through the engine
    Direct,   ///< no array arguments: NumPy's method called directly, its allocations routed
    Sum,      ///< a.sum(), a.mean(): NumPy's pairwise sum of a contiguous float64 array
    Extreme,  ///< a.max(), a.min(): NumPy's reduction loop run directly on small arrays
    Reduce,   ///< a.prod(): ufunc.reduce(a, None), as NumPy's _methods do
};

struct Method {
    Method(const char *n, Kind k, const char *u = nullptr) : name(n), kind(k), ufunc(u) {}
    const char *name;
    Kind kind;
    const char *ufunc;  ///< Extreme / Reduce: the ufunc reduced
    // Filled at export:
    std::string fn;                ///< "ndarray.<name>", for errors
    PyObject *interned = nullptr;  ///< the name as an interned str
    PyObject *reduce = nullptr;    ///< ufunc.reduce
    PyObject *ufunc_obj = nullptr; ///< the ufunc
    UfuncCache *cache = nullptr;   ///< Extreme: NumPy's loop per dtype (lives as long as the type)
};

// clang-format off: a table laid out by hand
std::array<Method, 23> methods = {{
    {"sum", Kind::Sum},         {"mean", Kind::Sum},        {"max", Kind::Extreme, "maximum"},
    {"min", Kind::Extreme, "minimum"}, {"prod", Kind::Reduce, "multiply"},
    {"std", Kind::General},     {"var", Kind::General},     {"any", Kind::General},
    {"all", Kind::General},     {"argmax", Kind::General},  {"argmin", Kind::General},
    {"cumsum", Kind::General},  {"dot", Kind::General},     {"clip", Kind::General},
    {"round", Kind::General},   {"tolist", Kind::General},  {"item", Kind::General},
    // Shape and copy methods (a.reshape(10, 100) in a loop).
    {"reshape", Kind::Direct},  {"transpose", Kind::Direct}, {"ravel", Kind::Direct},
    {"flatten", Kind::Direct},  {"copy", Kind::Direct},     {"astype", Kind::Direct},
}};
// clang-format on

/// The keywords of a vectorcall as a dict (null: none).
nb::object keyword_dict(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    if (!kwnames || !PyTuple_GET_SIZE(kwnames)) return nb::object();
    nb::object kwargs = nb::steal(PyDict_New());
    if (!kwargs) throw nb::python_error();
    for (Py_ssize_t i = 0, n = PyTuple_GET_SIZE(kwnames); i < n; ++i)
        if (PyDict_SetItem(kwargs.ptr(), PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) < 0) throw nb::python_error();
    return kwargs;
}

nb::object run(Method &m, PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *fn = m.fn.c_str();
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    bool no_arguments = nargs == 0 && nkw == 0;
    if (no_arguments && m.kind == Kind::Sum)
        if (PyObject *r = fast_sum(self, fn, std::strcmp(m.name, "mean") == 0)) return nb::steal(r);
    if (no_arguments && m.kind == Kind::Extreme)
        if (PyObject *r = fast_reduce_all(*m.cache, m.ufunc_obj, self, fn)) return nb::steal(r);
    Array &a = array_of(self);
    check_valid(a, fn);
    if (no_arguments && m.reduce) {
        PyObject *argv[2] = {a.data().ptr(), Py_None};  // axis=None: every axis
        return wrap_ndarray(
            routed_call(fn, current_target(), [&] { return PyObject_Vectorcall(m.reduce, argv, 2, nullptr); }));
    }
    if (m.kind == Kind::Direct && is_ndarray_exact(a.data().ptr()) && !holds_array(args, nargs + nkw, nullptr)) {
        // The ndarray's method with the same arguments: self goes in front of them.
        constexpr Py_ssize_t kMax = 8;
        if (nargs + nkw < kMax) {
            PyObject *argv[kMax];
            argv[0] = a.data().ptr();
            if (nargs + nkw) std::memcpy(argv + 1, args, sizeof(PyObject *) * (std::size_t) (nargs + nkw));
            nb::object r = routed_call(fn, current_target(), [&] {
                return PyObject_VectorcallMethod(m.interned, argv, (std::size_t) (nargs + 1), kwnames);
            });
            // A view names this Array as base; a copy is in the workspace; self comes back as self.
            return wrap_derived(r, a, self);
        }
    }
    nb::object f = nb::steal(PyObject_GetAttr(a.data().ptr(), m.interned));
    if (!f) throw nb::python_error();
    nb::object kwargs = keyword_dict(args, nargs, kwnames);
    return apply_vector(fn, f.ptr(), args, nargs, kwargs.ptr(), self);
}

template <std::size_t I>
PyObject *method_entry(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return guarded([&]() -> PyObject * { return run(methods[I], self, args, nargs, kwnames).release().ptr(); },
                   (PyObject *) nullptr);
}

template <std::size_t... I> std::array<PyMethodDef, sizeof...(I)> method_defs(std::index_sequence<I...>) {
    return {
        {{methods[I].name, (PyCFunction) (void (*)(void)) method_entry<I>, METH_FASTCALL | METH_KEYWORDS, nullptr}...}};
}

} // namespace

void export_array_methods(PyTypeObject *type) {
    // PyMethodDef must outlive the type: a static table.
    static std::array<PyMethodDef, methods.size()> defs = method_defs(std::make_index_sequence<methods.size()>());
    nb::module_ np = nb::module_::import_("numpy");
    for (std::size_t i = 0; i < methods.size(); ++i) {
        Method &m = methods[i];
        m.fn = std::string("ndarray.") + m.name;
        m.interned = PyUnicode_InternFromString(m.name);  // kept forever
        if (!m.interned) throw nb::python_error();
        if (m.ufunc) {
            m.ufunc_obj = nb::object(np.attr(m.ufunc)).release().ptr();  // kept forever
            if (m.kind == Kind::Reduce) m.reduce = nb::object(np.attr(m.ufunc).attr("reduce")).release().ptr();
            if (m.kind == Kind::Extreme) {
                m.reduce = nb::object(np.attr(m.ufunc).attr("reduce")).release().ptr();
                m.cache = new UfuncCache();
            }
        }
        // NumPy's docstring, as help(a.sum) shows it.
        nb::object doc = nb::getattr(np.attr("ndarray").attr(m.name), "__doc__", nb::none());
        if (!doc.is_none()) defs[i].ml_doc = PyUnicode_AsUTF8(doc.release().ptr());  // kept forever
        nb::object descr = nb::steal(PyDescr_NewMethod(type, &defs[i]));
        if (!descr || PyDict_SetItemString(type->tp_dict, m.name, descr.ptr()) < 0) throw nb::python_error();
    }
    PyType_Modified(type);
}

} // namespace wsa_py
