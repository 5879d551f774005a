/// src/python/calls/engine.cpp -- the engine (see engine.h): unwrap arguments, route NumPy's allocations,
/// wrap results; retry with array-like shims when NumPy refuses an object's __array__.
#include "calls/engine.h"

#include "calls/device_arrays.h"
#include "common/saved_error.h"

#include "numpy_access/numpy_access.h"
#include "allocation/numpy_alloc.h"
#include "workspaces/scopes.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace wsa_py {

namespace {
/// `items` (a plain tuple) as a tuple of `like`'s type: a named tuple (eigh, svd, slogdet,
/// unique_all, ...) is rebuilt as one.
nb::object same_tuple_type(PyObject *like, nb::object items) {
    if (PyTuple_CheckExact(like)) return items;
    nb::handle type((PyObject *) Py_TYPE(like));
    return nb::hasattr(type, "_make") ? type.attr("_make")(items) : items;
}

/// A new Array for an ndarray NumPy returned; its workspace found by address.
PyObject *new_array(PyObject *nd, PyObject *base = nullptr) { return make_array(nd, token_for(nd), base); }

/// Arrays replaced during unwrapping, so that a result that *is* an argument's ndarray comes back
/// as the original wsarray.Array (np.asarray(x) is x; out= returns the out array). It holds what it
/// records: code run during the call (an argument's __array__, a finalizer the collector runs) may
/// empty the lists the arguments came in, and with them the last references to their Arrays.
struct Seen {
    // (ndarray, Array); the Array held. Most calls see a few arrays: keep those without a heap
    // allocation.
    static constexpr std::size_t kInline = 6;
    std::pair<PyObject *, PyObject *> inline_pairs[kInline];
    std::size_t n_inline = 0;
    std::vector<std::pair<PyObject *, PyObject *>> more;
    /// An argument is a NumPy ndarray subclass (np.ma.MaskedArray, np.matrix, np.memmap, ...):
    /// NumPy returns that subclass, which wsarray cannot check, so the call is not routed into a
    /// workspace and its results hold plain NumPy memory.
    bool subclass_input = false;
    /// An Array inside a list or tuple argument was handed to NumPy as its ndarray: NumPy may
    /// have stored that ndarray in a new object array (np.array([a, b], dtype=object)).
    bool nested = false;
    /// (list or tuple handed to NumPy, the argument's own it was rebuilt from, held). The first
    /// lives in the arguments NumPy gets; NumPy stores such a list whole in a new object array.
    std::vector<std::pair<PyObject *, PyObject *>> rebuilt;
    /// NumPy ndarrays given as out= (NumPy returns out itself: so does wsarray), held.
    PyObject *numpy_outs[4] = {};

    /// The bookkeeping of a call, starting with the Array a method is called on (if any).
    explicit Seen(PyObject *self_array = nullptr) {
        if (self_array) add(array_of(self_array).data().ptr(), self_array);
    }
    Seen(const Seen &) = delete;
    Seen &operator=(const Seen &) = delete;
    ~Seen() {
        if (!n_inline && rebuilt.empty() && !numpy_outs[0] && !numpy_outs[1] && !numpy_outs[2] && !numpy_outs[3])
            return;
        SavedError saved;  // a last reference may run code (a weakref callback)
        for (std::size_t i = 0; i < n_inline; ++i) Py_DECREF(inline_pairs[i].second);
        for (auto &p : more) Py_DECREF(p.second);
        for (auto &p : rebuilt) Py_DECREF(p.second);
        for (PyObject *o : numpy_outs) Py_XDECREF(o);
    }

    PyObject *rebuilt_from(PyObject *o) const {
        for (auto &p : rebuilt)
            if (p.first == o) return p.second;
        return nullptr;
    }
    void add_rebuilt(PyObject *made, PyObject *from) {
        rebuilt.emplace_back(made, from);
        Py_INCREF(from);
    }
    bool is_numpy_out(PyObject *nd) const {
        for (PyObject *o : numpy_outs)
            if (o == nd) return true;
        return false;
    }
    void set_numpy_out(int k, PyObject *nd) {
        Py_INCREF(nd);
        Py_XSETREF(numpy_outs[k], nd);
    }
    void add(PyObject *nd, PyObject *arr) {
        // The same array again ((a,) * n): one entry, not n (a 10**7-item tuple: 160 MB).
        if (n_inline && (more.empty() ? inline_pairs[n_inline - 1] : more.back()).first == nd) return;
        if (n_inline < kInline) inline_pairs[n_inline++] = {nd, arr};
        else more.emplace_back(nd, arr);
        Py_INCREF(arr);
    }
    PyObject *original_of(PyObject *nd) const {
        for (std::size_t i = 0; i < n_inline; ++i)
            if (inline_pairs[i].first == nd) return inline_pairs[i].second;
        for (auto &p : more)
            if (p.first == nd) return p.second;
        return nullptr;
    }
    /// The Array holding `base` (NumPy's base of a new view): an argument, or an argument's base.
    PyObject *array_holding(PyObject *base) const {
        if (!base) return nullptr;
        if (PyObject *arr = original_of(base)) return arr;
        auto through = [base](PyObject *arr) -> PyObject * {
            const nb::object &b = array_of(arr).base;
            return b.is_valid() && array_of(b.ptr()).data().ptr() == base ? b.ptr() : nullptr;
        };
        for (std::size_t i = 0; i < n_inline; ++i)
            if (PyObject *b = through(inline_pairs[i].second)) return b;
        for (auto &p : more)
            if (PyObject *b = through(p.second)) return b;
        return nullptr;
    }
};

/// Item `i` of list or tuple `o`, held (a list may change while its items are read: code the
/// collector runs inside an allocation here); a list that lost item `i` meanwhile raises,
/// naming `name`.
nb::object item_held(PyObject *o, Py_ssize_t i, const char *name) {
    if (PyTuple_Check(o)) return nb::borrow(PyTuple_GET_ITEM(o, i));
    if (i >= PyList_GET_SIZE(o))
        raise(PyExc_RuntimeError, "wsarray." + std::string(name) + "(): a list changed size while it was read");
    return nb::borrow(PyList_GET_ITEM(o, i));
}

/// Lists and tuples nested deeper than NumPy's 64 dimensions cannot be dimensions: NumPy treats
/// what lies below as opaque objects, and so do unwrap() and wrap() (a list that contains itself
/// would otherwise recurse until the C stack overflows).
constexpr int kMaxNesting = 64;

/// A sequence NumPy refuses by its length before reading its items (concatenate() of more than
/// INT_MAX arrays): passed on as it is, not copied item by item first (16 GiB for 2**31 items).
bool beyond_numpy_count(Py_ssize_t n) { return n > (Py_ssize_t) INT_MAX; }

bool needs_unwrap(PyObject *o, int depth = 0) {
    if (is_array(o)) return true;
    if (depth >= kMaxNesting) return false;
    if (PyTuple_CheckExact(o)) {
        Py_ssize_t n = PyTuple_GET_SIZE(o);
        if (beyond_numpy_count(n)) return false;
        for (Py_ssize_t i = 0; i < n; ++i)
            if (needs_unwrap(PyTuple_GET_ITEM(o, i), depth + 1)) return true;
    } else if (PyList_CheckExact(o)) {
        if (beyond_numpy_count(PyList_GET_SIZE(o))) return false;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(o); ++i)
            if (needs_unwrap(PyList_GET_ITEM(o, i), depth + 1)) return true;
    }
    return false;
}

/// New reference to `o` with Arrays replaced by their ndarrays.
PyObject *unwrap(PyObject *o, const char *name, Seen &seen, int depth = 0) {
    if (is_array(o)) {
        Array &a = array_of(o);
        check_valid(a, name);
        seen.add(a.data().ptr(), o);
        if (depth > 0) seen.nested = true;
        return nb::handle(a.data()).inc_ref().ptr();
    }
    bool tuple = PyTuple_CheckExact(o);
    if ((tuple || PyList_CheckExact(o)) && needs_unwrap(o, depth)) {
        Py_ssize_t n = tuple ? PyTuple_GET_SIZE(o) : PyList_GET_SIZE(o);
        nb::object out = nb::steal(tuple ? PyTuple_New(n) : PyList_New(n));
        if (!out) throw nb::python_error();
        for (Py_ssize_t i = 0; i < n; ++i) {
            PyObject *item = unwrap(item_held(o, i, name).ptr(), name, seen, depth + 1);
            if (tuple) PyTuple_SET_ITEM(out.ptr(), i, item);
            else PyList_SET_ITEM(out.ptr(), i, item);
        }
        if (depth > 0) seen.add_rebuilt(out.ptr(), o);
        return out.release().ptr();
    }
    if (is_ndarray(o) && !is_ndarray_exact(o)) seen.subclass_input = true;
    Py_INCREF(o);
    return o;
}

/// Does `r` hold an ndarray (itself, or in its tuples and lists)?
bool needs_wrap(PyObject *r, int depth = 0) {
    if (is_ndarray_exact(r)) return true;
    if (depth >= kMaxNesting) return false;
    if (PyTuple_Check(r)) {
        for (Py_ssize_t i = 0, n = PyTuple_GET_SIZE(r); i < n; ++i)
            if (needs_wrap(PyTuple_GET_ITEM(r, i), depth + 1)) return true;
    } else if (PyList_CheckExact(r)) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(r); ++i)
            if (needs_wrap(PyList_GET_ITEM(r, i), depth + 1)) return true;
    }
    return false;
}

/// The items of a new object ndarray that are the ndarrays of Arrays given inside a list, or the
/// lists rebuilt around them, become the argument's own objects again, which NumPy would hold
/// (`np.array([a, b], dtype=object)[0] is a`, `np.array([1, [a]], dtype=object)[1] is that list`).
void restore_items(PyObject *r, const Seen &seen) {
    Py_ssize_t n = 0;
    PyObject **items = ndarray_object_items(r, &n);
    for (Py_ssize_t i = 0; items && i < n; ++i) {
        PyObject *item = items[i], *orig = nullptr;
        if (item && is_ndarray_exact(item)) orig = seen.original_of(item);
        else if (item && (PyList_CheckExact(item) || PyTuple_CheckExact(item))) orig = seen.rebuilt_from(item);
        if (!orig) continue;
        Py_INCREF(orig);
        Py_SETREF(items[i], orig);
    }
}

/// New reference to `r` with ndarrays wrapped as wsarray.Array (NumPy's scalars stay NumPy's
/// scalars: immutable values, as NumPy returns them). Lists and
/// tuples are rebuilt only if they hold something to wrap: a list NumPy returns (an element of an
/// object array, a.tolist()) stays the very object NumPy gave, as mutable as in NumPy.
PyObject *wrap(PyObject *r, const Seen &seen, int depth = 0) {
    if (is_ndarray_exact(r)) {
        if (seen.is_numpy_out(r)) {
            Py_INCREF(r);
            return r;
        }
        if (PyObject *orig = seen.original_of(r)) {
            Py_INCREF(orig);
            return orig;
        }
        if (seen.nested && !ndarray_base(r)) restore_items(r, seen);
        PyObject *base = seen.array_holding(ndarray_base(r));
        // A block allocated during this call (and held by the result): its workspace is known.
        if (wsa::Workspace *ws = routed_owner_of(ndarray_data(r))) return make_array(r, token_of_target(ws), base);
        return new_array(r, base);
    }
    if ((PyTuple_Check(r) || PyList_CheckExact(r)) && (depth >= kMaxNesting || !needs_wrap(r, depth))) {
        Py_INCREF(r);
        return r;
    }
    if (PyTuple_Check(r)) {
        Py_ssize_t n = PyTuple_GET_SIZE(r);
        nb::object out = nb::steal(PyTuple_New(n));
        if (!out) throw nb::python_error();
        for (Py_ssize_t i = 0; i < n; ++i)
            PyTuple_SET_ITEM(out.ptr(), i, wrap(PyTuple_GET_ITEM(r, i), seen, depth + 1));
        return same_tuple_type(r, std::move(out)).release().ptr();
    }
    if (PyList_CheckExact(r)) {
        Py_ssize_t n = PyList_GET_SIZE(r);
        nb::object out = nb::steal(PyList_New(n));
        if (!out) throw nb::python_error();
        for (Py_ssize_t i = 0; i < n; ++i)
            PyList_SET_ITEM(out.ptr(), i, wrap(item_held(r, i, "wrap").ptr(), seen, depth + 1));
        return out.release().ptr();
    }
    Py_INCREF(r);
    return r;
}

/// Keyword arguments with Arrays replaced by their ndarrays (the same dict when none is an Array).
nb::object unwrap_kwargs(PyObject *kwargs, const char *name, Seen &seen) {
    if (!kwargs || !PyDict_GET_SIZE(kwargs)) return nb::object();
    if (PyObject *out = PyDict_GetItemString(kwargs, "out")) {  // borrowed
        if (is_ndarray_exact(out)) seen.set_numpy_out(0, out);
        else if (PyTuple_Check(out))
            for (Py_ssize_t i = 0, n = std::min<Py_ssize_t>(PyTuple_GET_SIZE(out), 4); i < n; ++i)
                if (is_ndarray_exact(PyTuple_GET_ITEM(out, i))) seen.set_numpy_out((int) i, PyTuple_GET_ITEM(out, i));
    }
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    bool any = false;
    while (PyDict_Next(kwargs, &pos, &key, &value)) any |= needs_unwrap(value);
    if (!any) return nb::borrow(kwargs);
    nb::object out = nb::steal(PyDict_New());
    pos = 0;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
        nb::object v = nb::steal(unwrap(value, name, seen));
        PyDict_SetItem(out.ptr(), key, v.ptr());
    }
    return out;
}

/// apply() for calls with many positional arguments: through a new argument tuple.
nb::object apply_tuple(const char *name, PyObject *func, PyObject *args, PyObject *kwargs, Seen &seen) {
    nb::object uargs = nb::steal(unwrap(args, name, seen, -1));  // its items at depth 0, as positional arguments
    nb::object ukwargs = unwrap_kwargs(kwargs, name, seen);
    return routed_call(name, seen.subclass_input ? nullptr : current_target(), [&] {
        return PyObject_Call(func, uargs.ptr(), ukwargs ? ukwargs.ptr() : nullptr);
    }, [&](PyObject *r) { return nb::steal(wrap(r, seen)); });
}

/// Positional arguments up to this many go to NumPy through vectorcall from a stack array.
constexpr Py_ssize_t kStack = 8;

} // namespace

nb::object wrap_derived(nb::handle r, Array &a, nb::handle source) {
    if (is_ndarray_exact(r.ptr()) && r.ptr() != a.data().ptr() && ndarray_base(r.ptr()) == a.data().ptr())
        return nb::steal(make_array(r.ptr(), a.token, source.ptr()));
    return wrap_ndarray(r, source);
}

/// Check every Array in `o` (itself, or in its lists and tuples) for an ended cycle.
void check_arrays_in(PyObject *o, const char *name, int depth) {
    if (is_array(o)) {
        check_valid(array_of(o), name);
        return;
    }
    if (depth >= kMaxNesting || !(PyList_CheckExact(o) || PyTuple_CheckExact(o))) return;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(o); ++i)
        check_arrays_in(PySequence_Fast_GET_ITEM(o, i), name, depth + 1);
}

nb::object wrap_ndarray(nb::handle nd, nb::handle source) {
    Seen seen;
    if (source.is_valid() && is_array(source.ptr())) seen.add(array_of(source.ptr()).data().ptr(), source.ptr());
    return nb::steal(wrap(nd.ptr(), seen));
}

namespace {
/// Values that never override NumPy's protocols: checked without a type lookup.
bool plain_operand(PyObject *o) {
    return is_array(o) || o == Py_None || PyLong_CheckExact(o) || PyFloat_CheckExact(o) || PyBool_Check(o) ||
           PyComplex_CheckExact(o) || PyUnicode_CheckExact(o) || PyBytes_CheckExact(o) || PySlice_Check(o) ||
           is_ndarray_exact(o) || is_numpy_scalar(o) || PyType_Check(o) || PyCallable_Check(o) && PyFunction_Check(o);
}

bool foreign_type(PyTypeObject *type, Protocol which) {
    static PyObject *names[2] = {PyUnicode_InternFromString("__array_ufunc__"),
                                 PyUnicode_InternFromString("__array_function__")};
    static PyObject *numpys[2] = {nullptr, nullptr}, *ours[2] = {nullptr, nullptr};
    int k = which == Protocol::Ufunc ? 0 : 1;
    if (!numpys[k]) {
        numpys[k] = _PyType_Lookup(ndarray_type(), names[k]);
        ours[k] = _PyType_Lookup(ArrayType, names[k]);
    }
    if (type == ArrayType) return false;
    // Anything else defining its own (NumPy's ndarray subclasses included: astropy's Quantity)
    // handles calls it takes part in, with the operands as given.
    PyObject *impl = _PyType_Lookup(type, names[k]);
    return impl && impl != Py_None && impl != numpys[k] && impl != ours[k];
}
} // namespace

bool foreign_override(PyObject *o, Protocol which) {
    if (plain_operand(o)) return false;
    if (PyList_CheckExact(o) || PyTuple_CheckExact(o)) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
        PyObject **items = PySequence_Fast_ITEMS(o);
        for (Py_ssize_t i = 0; i < n; ++i)
            if (!plain_operand(items[i]) && !PyList_CheckExact(items[i]) && !PyTuple_CheckExact(items[i]) &&
                foreign_type(Py_TYPE(items[i]), which))
                return true;
        return false;
    }
    return foreign_type(Py_TYPE(o), which);
}

/// Whether NumPy's dispatch (NEP 13/18) runs when `func` is called: a ufunc or one of NumPy's
/// array functions (`_implementation` is what they dispatch around).
namespace {
PyObject *numpy_ufunc_type() {
    static PyObject *ufunc = nb::object(nb::module_::import_("numpy").attr("ufunc")).release().ptr();  // kept
    return ufunc;
}

bool has_implementation(PyObject *func) {
    static PyObject *implementation = PyUnicode_InternFromString("_implementation");
    return PyObject_HasAttr(func, implementation) == 1;  // never raises
}

bool numpy_dispatches(PyObject *func) {
    return PyObject_TypeCheck(func, (PyTypeObject *) numpy_ufunc_type()) || has_implementation(func);
}

/// A function of NumPy's own that runs no dispatch (asarray, zeros, ...): NumPy converts every
/// argument (through __array__), as wsarray does. Operators and methods are not such.
bool numpy_without_dispatch(PyObject *func) {
    if (numpy_dispatches(func)) return false;
    nb::object module = nb::steal(PyObject_GetAttrString(func, "__module__"));
    if (!module) {
        PyErr_Clear();
        return false;
    }
    if (!PyUnicode_Check(module.ptr())) return false;
    return PyUnicode_Tailmatch(module.ptr(), nb::str("numpy").ptr(), 0, 5, -1) == 1;
}
} // namespace

PyObject *numpy_named(const std::string &name) {
    static std::vector<std::pair<std::string, PyObject *>> found;  // raw: no destructor at exit
    for (auto &[n, f] : found)
        if (n == name) return f;
    nb::object target = nb::module_::import_("numpy");
    for (std::string part, rest = name; target.is_valid() && !rest.empty();) {
        auto dot = rest.find('.');
        part = rest.substr(0, dot);
        rest = dot == std::string::npos ? "" : rest.substr(dot + 1);
        target = nb::steal(PyObject_GetAttrString(target.ptr(), part.c_str()));
        if (!target.is_valid()) PyErr_Clear();
    }
    found.emplace_back(name, target.is_valid() ? target.release().ptr() : nullptr);
    return found.back().second;
}

/// NumPy's function of wsarray's `name` ("sort", "linalg.norm") when `func` is wsarray's own
/// implementation of it (the standard's functions): NumPy's dispatch hands the other library
/// NumPy's function, which the wsarray function equals (function.cpp). Borrowed; `func` itself
/// when NumPy has none that dispatches.
PyObject *numpy_counterpart(const char *name, PyObject *func) {
    if (numpy_dispatches(func)) return func;
    static std::vector<std::pair<std::string, PyObject *>> found;  // kept for the process
    for (auto &[n, f] : found)
        if (n == name) return f ? f : func;
    PyObject *f = numpy_named(name);
    if (f && !numpy_dispatches(f)) f = nullptr;
    found.emplace_back(name, f);
    return f ? f : func;
}

namespace {
/// What NumPy's ndarray runs for the Python operators the Array's slots call through the engine
/// (operator.lt is ndarray's < : NumPy's less): given an operand of another library, the ufunc is
/// called with the operands as they are, which NumPy dispatches to that library. Null for
/// item access and attribute setting (NumPy converts the value, dispatches nothing): no deferral.
/// Anything else (a NumPy function) is itself.
PyObject *dispatching_function(PyObject *func) {
    static std::vector<std::pair<PyObject *, PyObject *>> table;  // (operator, NumPy's ufunc or null)
    if (table.empty()) {  // under the GIL; every object is kept for the process
        nb::module_ op = nb::module_::import_("operator"), np = nb::module_::import_("numpy");
        const char *pairs[][2] = {{"lt", "less"},       {"le", "less_equal"},    {"eq", "equal"},  {"ne", "not_equal"},
                                  {"gt", "greater"},    {"ge", "greater_equal"}, {"pow", "power"}, {"imatmul", nullptr},
                                  {"getitem", nullptr}, {"setitem", nullptr}};
        for (auto &p : pairs)
            table.emplace_back(op.attr(p[0]).inc_ref().ptr(), p[1] ? np.attr(p[1]).inc_ref().ptr() : nullptr);
        table.emplace_back(nb::module_::import_("builtins").attr("setattr").inc_ref().ptr(), nullptr);
    }
    for (auto &[op, ufunc] : table)
        if (op == func) return ufunc;
    return func;
}

/// What another library's override returned: a NumPy ndarray of NumPy's own type (np.copy of a
/// unit array drops the units) is a wsarray array, as wsarray's functions return (a view over
/// it: NumPy's memory); an argument given back (out=) stays itself; anything else (the
/// library's own types, scalars) is as returned. Tuples (histogram) element by element.
nb::object plain_results_wrapped(nb::object r, PyObject *const *args, Py_ssize_t nargs, PyObject *kwargs) {
    auto given = [&](PyObject *o) {
        for (Py_ssize_t i = 0; i < nargs; ++i)
            if (args[i] == o) return true;
        PyObject *key, *value;
        Py_ssize_t pos = 0;
        while (kwargs && PyDict_Next(kwargs, &pos, &key, &value)) {
            if (value == o) return true;
            if (PyTuple_Check(value))  // out=(a, b)
                for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(value); ++i)
                    if (PyTuple_GET_ITEM(value, i) == o) return true;
        }
        return false;
    };
    if (is_ndarray_exact(r.ptr())) return given(r.ptr()) ? r : wrap_ndarray(r);
    if (PyTuple_Check(r.ptr())) {
        Py_ssize_t n = PyTuple_GET_SIZE(r.ptr());
        bool any = false;
        for (Py_ssize_t i = 0; i < n && !any; ++i) {
            PyObject *item = PyTuple_GET_ITEM(r.ptr(), i);
            any = is_ndarray_exact(item) && !given(item);
        }
        if (!any) return r;
        nb::object items = nb::steal(PyTuple_New(n));
        if (!items) throw nb::python_error();
        for (Py_ssize_t i = 0; i < n; ++i) {
            PyObject *item = PyTuple_GET_ITEM(r.ptr(), i);
            nb::object w = is_ndarray_exact(item) && !given(item) ? wrap_ndarray(item) : nb::borrow(item);
            PyTuple_SET_ITEM(items.ptr(), i, w.release().ptr());
        }
        return same_tuple_type(r.ptr(), items);
    }
    return r;
}

/// Whether an argument (positional or keyword) overrides `which` (foreign_override).
bool any_override(PyObject *const *args, Py_ssize_t nargs, PyObject *kwargs, Protocol which) {
    for (Py_ssize_t i = 0; i < nargs; ++i)
        if (foreign_override(args[i], which)) return true;
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (kwargs && PyDict_Next(kwargs, &pos, &key, &value))
        if (foreign_override(value, which)) return true;
    return false;
}

/// A call with an operand of another array library (NEP 13/18): NumPy's own function gets the
/// arguments as they are, so NumPy's dispatch lets that library handle it (wsarray's own
/// __array_ufunc__/__array_function__ step aside for it). Null when there is no such operand.
nb::object defer_to_foreign(const char *name, PyObject *func, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwargs) {
    func = dispatching_function(func);
    if (!func) return nb::object();
    if (!any_override(args, nargs, kwargs, Protocol::Ufunc) && !any_override(args, nargs, kwargs, Protocol::Function))
        return nb::object();
    // An array on a device: the device layer runs its engine's function of this name.
    if (holds_device_array(args, nargs, kwargs)) {
        PyObject *r = device_dispatch(name, func, args, nargs, kwargs);
        if (!r) raise_pending(name);
        if (r != Py_NotImplemented) return nb::steal(r);
        Py_DECREF(r);
    }
    if (std::strncmp(name, "ndarray.", 6) != 0) {
        // wsarray's own implementations (the standard's sort, clip, ...) would convert the
        // operand: NumPy's function of the same name dispatches to its library instead.
        // NumPy's functions that dispatch nothing (asarray, zeros; an `_implementation`, which an
        // __array_function__ override calls) convert the operand as wsarray does: no deferral,
        // never a second dispatch from inside one.
        if (numpy_without_dispatch(func)) return nb::object();
        func = numpy_counterpart(name, func);
        if (numpy_without_dispatch(func)) return nb::object();
        // NumPy's ufuncs consult __array_ufunc__ only, its array functions __array_function__ only.
        Protocol only =
            PyObject_TypeCheck(func, (PyTypeObject *) numpy_ufunc_type()) ? Protocol::Ufunc : Protocol::Function;
        if (numpy_dispatches(func) && !any_override(args, nargs, kwargs, only)) return nb::object();
    }
    PyObject *r = PyObject_VectorcallDict(func, args, (std::size_t) nargs, kwargs);
    if (!r) raise_pending(name);
    return plain_results_wrapped(nb::steal(r), args, nargs, kwargs);
}
} // namespace

nb::object apply(const char *name, PyObject *func, PyObject *args, PyObject *kwargs, PyObject *self_array) {
    Py_ssize_t nargs = PyTuple_GET_SIZE(args);
    if (nargs > kStack) {  // the tuple NumPy gets is built from this one
        if (nb::object r = defer_to_foreign(name, func, &PyTuple_GET_ITEM(args, 0), nargs, kwargs)) return r;
        Seen seen(self_array);
        return apply_tuple(name, func, args, kwargs, seen);
    }
    return apply_vector(name, func, &PyTuple_GET_ITEM(args, 0), nargs, kwargs, self_array);
}

nb::object apply_vector(const char *name, PyObject *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwargs,
                        PyObject *self_array, Py_ssize_t first_out) {
    if (nb::object r = defer_to_foreign(name, func, args, nargs, kwargs)) return r;
    Seen seen(self_array);
    for (Py_ssize_t k = first_out; first_out >= 0 && k < std::min<Py_ssize_t>(nargs, first_out + 4); ++k)
        if (is_ndarray_exact(args[k])) seen.set_numpy_out((int) (k - first_out), args[k]);
    if (nargs > kStack) {
        nb::object tuple = nb::steal(PyTuple_New(nargs));
        if (!tuple) throw nb::python_error();
        for (Py_ssize_t i = 0; i < nargs; ++i) PyTuple_SET_ITEM(tuple.ptr(), i, nb::handle(args[i]).inc_ref().ptr());
        return apply_tuple(name, func, tuple.ptr(), kwargs, seen);
    }
    PyObject *stack[kStack];
    Py_ssize_t filled = 0;
    struct Release {
        PyObject **items;
        Py_ssize_t &n;
        ~Release() {
            for (Py_ssize_t i = 0; i < n; ++i) Py_DECREF(items[i]);
        }
    } release{stack, filled};
    for (; filled < nargs;) {
        stack[filled] = unwrap(args[filled], name, seen);
        ++filled;
    }
    nb::object ukwargs = unwrap_kwargs(kwargs, name, seen);
    return routed_call(name, seen.subclass_input ? nullptr : current_target(), [&] {
        return PyObject_VectorcallDict(func, stack, (std::size_t) nargs, ukwargs ? ukwargs.ptr() : nullptr);
    }, [&](PyObject *r) { return nb::steal(wrap(r, seen)); });
}

bool holds_array(PyObject *const *args, Py_ssize_t nargs, PyObject *kwargs) {
    return any_argument(args, nargs, kwargs, [](PyObject *o) { return needs_unwrap(o); });
}

} // namespace wsa_py
