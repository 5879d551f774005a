/// src/python/apply.cpp -- the engine: unwrap arguments, route NumPy's allocations, wrap results.
#include "common.h"
#include "numpy_alloc.h"
#include "scopes.h"

#include <frameobject.h>

#include <algorithm>
#include <new>
#include <vector>

namespace wsa_py {

PyObject *WorkspaceError = nullptr;
PyObject *WorkspaceMemoryError = nullptr;
PyTypeObject *ArrayType = nullptr;

void raise(PyObject *type, const std::string &msg) {
    PyErr_SetString(type, msg.c_str());
    throw nb::python_error();
}

std::string text_arg(nb::handle v, const char *fn, const char *what) {
    const std::string where = "wsarray." + std::string(fn) + "(): " + what;
    if (!PyUnicode_Check(v.ptr()))
        raise(PyExc_TypeError, where + " must be a str, not " + std::string(Py_TYPE(v.ptr())->tp_name));
    Py_ssize_t n = 0;
    const char *utf8 = PyUnicode_AsUTF8AndSize(v.ptr(), &n);
    if (!utf8) {
        PyErr_Clear();
        raise(PyExc_ValueError, where + " is not valid Unicode text (it holds a lone surrogate, as "
                                        "undecodable bytes turned into text do)");
    }
    return std::string(utf8, (std::size_t) n);
}

void check_valid(const Array &a, const char *fn) {
    if (token_valid(a.token)) return;
    const wsa::Workspace &ws = *a.token.ws;
    std::string where = "wsarray." + std::string(fn) + "(): ";
    if (ws.orphaned_by_fork())
        raise(WorkspaceError, where + "this array belonged to workspace '" + ws.name() +
                                  "' of another thread of the parent process; after os.fork() only "
                                  "the forking thread's workspaces exist in the child. Detach arrays "
                                  "(.detach()) before forking to share them.");
    if (ws.destroy_reason() == wsa::DestroyReason::ThreadExit)
        raise(WorkspaceError, where + "this array belonged to workspace '" + ws.name() + "' of thread " +
                                  (ws.owner_label().empty() ? std::string("(unnamed)") : "'" + ws.owner_label() + "'") +
                                  ", which has exited: a thread's workspaces end with it. Call .detach() "
                                  "on results in that thread (before its 'with' block ends) to keep them.");
    if (!ws.alive())
        raise(WorkspaceError, where + "this array belonged to workspace '" + ws.name() +
                                  "', which was destroyed. Call .detach() on arrays you need before "
                                  "destroying their workspace.");
    std::string now = ws.cycle_open() ? "it is now in cycle " + std::to_string(ws.generation())
                                      : "it has no open cycle now";
    if (!ws.stale_hint().empty())
        raise(WorkspaceError, where + "this array was made in cycle " + std::to_string(a.token.generation) +
                                  " of workspace '" + ws.name() + "', and that cycle has ended. " + ws.stale_hint());
    raise(WorkspaceError,
          where + "this array was made in cycle " + std::to_string(a.token.generation) +
              " of workspace '" + ws.name() + "', and that cycle has ended (" + now +
              "). Arrays of a workspace are valid only during the cycle that made them. To keep a "
              "result, call "
              ".detach() (or .leverage_to('<outer workspace>')) on it inside the 'with "
              "wsarray.workspace(\"" + ws.name() + "\")' block.");
}

Token token_for(PyObject *o) {
    Token t;
    void *p = ndarray_data(o);
    if (!p) return t;
    t.ws = wsa::Workspace::owner_of(p);
    if (t.ws) t.generation = t.ws->generation();
    return t;
}

bool stands_for_scalar(const Array &a) {
    return a.from_scalar && (!a.nd_.is_valid() || ndarray_ndim(a.nd_.ptr()) == 0);
}

void Array::materialize() {
    // A scalar result's 0-d array, in ordinary memory (never a workspace: the value outlives
    // cycles). Only scalar results are ever without an ndarray.
    RouteGuard ordinary(nullptr);
    nb::object nd = nb::steal(scalar_to_ndarray(scalar.ptr()));
    if (!nd) throw nb::python_error();
    nd_ = std::move(nd);
}

PyObject *scalar_of(Array &a) {
    if (!a.scalar.is_valid()) {
        a.scalar = nb::steal(ndarray_to_scalar(a.nd_.ptr()));
        if (!a.scalar.is_valid()) throw nb::python_error();
    }
    return a.scalar.ptr();
}

namespace {
/// `items` (a plain tuple) as a tuple of `like`'s type: a named tuple (eigh, svd, slogdet,
/// unique_all, ...) is rebuilt as one.
nb::object same_tuple_type(PyObject *like, nb::object items) {
    if (PyTuple_CheckExact(like)) return items;
    nb::handle type((PyObject *) Py_TYPE(like));
    return nb::hasattr(type, "_make") ? type.attr("_make")(items) : items;
}
} // namespace

nb::object as_numpy_result(nb::object r) {
    PyObject *o = r.ptr();
    if (is_array(o)) {
        Array &a = array_of(o);
        return stands_for_scalar(a) ? nb::borrow(scalar_of(a)) : r;
    }
    if (!PyTuple_Check(o)) return r;
    Py_ssize_t n = PyTuple_GET_SIZE(o);
    bool any = false;
    for (Py_ssize_t i = 0; i < n && !any; ++i) {
        PyObject *item = PyTuple_GET_ITEM(o, i);
        any = is_array(item) && stands_for_scalar(array_of(item));
    }
    if (!any) return r;
    nb::object out = nb::steal(PyTuple_New(n));
    if (!out) throw nb::python_error();
    for (Py_ssize_t i = 0; i < n; ++i)
        PyTuple_SET_ITEM(out.ptr(), i, as_numpy_result(nb::borrow(PyTuple_GET_ITEM(o, i))).release().ptr());
    return same_tuple_type(o, std::move(out));
}

namespace {
/// np.True_, np.False_ and their scalar results (init_scalar_results(); kept forever).
PyObject *np_true = nullptr, *np_false = nullptr, *true_result = nullptr, *false_result = nullptr;

PyObject *new_scalar_result(PyObject *scalar) {
    nb::object inst = nb::inst_alloc(nb::handle((PyObject *) ArrayType));
    new (nb::inst_ptr<Array>(inst)) Array{nb::object(), Token{}, true, nb::object(), nb::borrow(scalar)};
    nb::inst_mark_ready(inst);
    return inst.release().ptr();
}
} // namespace

void init_scalar_results() {
    nb::module_ np = nb::module_::import_("numpy");
    np_true = nb::object(np.attr("True_")).release().ptr();
    np_false = nb::object(np.attr("False_")).release().ptr();
    true_result = new_scalar_result(np_true);
    false_result = new_scalar_result(np_false);
    // Released at exit, before nanobind's check for instances still alive (sanitizer builds);
    // comparisons made later (__del__ methods) get new scalar results.
    nb::module_::import_("atexit").attr("register")(nb::cpp_function([] {
        Py_CLEAR(true_result);
        Py_CLEAR(false_result);
    }));
}

PyObject *make_scalar_result(PyObject *scalar) {
    // NumPy's np.True_ and np.False_ are singletons, and a scalar result is an immutable value:
    // theirs are singletons too, which spares an allocation per comparison in element loops
    // (`if a[i] > 0:`).
    if (PyObject *r = scalar == np_true ? true_result : scalar == np_false ? false_result : nullptr) {
        Py_INCREF(r);
        return r;
    }
    return new_scalar_result(scalar);
}

PyObject *make_array(PyObject *nd, Token token, bool from_scalar, PyObject *base) {
    nb::object inst = nb::inst_alloc(nb::handle((PyObject *) ArrayType));
    bool attached = (bool) token.ws;
    new (nb::inst_ptr<Array>(inst)) Array{nb::borrow(nd), std::move(token), from_scalar, nb::borrow(base), nb::object()};
    nb::inst_mark_ready(inst);
    if (attached) link_holder(inst.ptr());
    return inst.release().ptr();
}

static PyObject *new_array(PyObject *nd, bool from_scalar = false, PyObject *base = nullptr) {
    return make_array(nd, token_for(nd), from_scalar, base);
}

namespace {

/// Arrays replaced during unwrapping, so that a result that *is* an argument's ndarray comes back
/// as the original wsarray.Array (np.asarray(x) is x; out= returns the out array).
struct Seen {
    // (ndarray, Array), borrowed. Most calls see a few arrays: keep those without a heap allocation.
    static constexpr std::size_t kInline = 6;
    std::pair<PyObject *, PyObject *> inline_pairs[kInline];
    std::size_t n_inline = 0;
    std::vector<std::pair<PyObject *, PyObject *>> more;
    /// An argument is a NumPy ndarray subclass (np.ma.MaskedArray, np.matrix, np.memmap, ...):
    /// NumPy returns that subclass, which wsarray cannot check, so the call is not routed into a
    /// workspace and its results hold plain NumPy memory.
    bool subclass_input = false;
    /// NumPy ndarrays given as out= (NumPy returns out itself: so does wsarray), borrowed.
    PyObject *numpy_outs[4] = {};
    bool is_numpy_out(PyObject *nd) const {
        for (PyObject *o : numpy_outs)
            if (o == nd) return true;
        return false;
    }
    void add(PyObject *nd, PyObject *arr) {
        if (n_inline < kInline) inline_pairs[n_inline++] = {nd, arr};
        else more.emplace_back(nd, arr);
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

bool needs_unwrap(PyObject *o) {
    if (is_array(o)) return true;
    if (PyTuple_CheckExact(o)) {
        for (Py_ssize_t i = 0, n = PyTuple_GET_SIZE(o); i < n; ++i)
            if (needs_unwrap(PyTuple_GET_ITEM(o, i))) return true;
    } else if (PyList_CheckExact(o)) {
        for (Py_ssize_t i = 0, n = PyList_GET_SIZE(o); i < n; ++i)
            if (needs_unwrap(PyList_GET_ITEM(o, i))) return true;
    }
    return false;
}

/// New reference to `o` with Arrays replaced by their ndarrays.
PyObject *unwrap(PyObject *o, const char *name, Seen &seen) {
    if (is_array(o)) {
        Array &a = array_of(o);
        check_valid(a, name);
        // A scalar result goes to NumPy as the scalar it stands for: NumPy then computes with
        // scalar semantics (scalar math, np.asarray(s) is a new array, s is never written into).
        if (stands_for_scalar(a)) {
            PyObject *scalar = scalar_of(a);
            Py_INCREF(scalar);
            return scalar;
        }
        seen.add(a.data().ptr(), o);
        return nb::handle(a.data()).inc_ref().ptr();
    }
    bool tuple = PyTuple_CheckExact(o);
    if ((tuple || PyList_CheckExact(o)) && needs_unwrap(o)) {
        Py_ssize_t n = tuple ? PyTuple_GET_SIZE(o) : PyList_GET_SIZE(o);
        nb::object out = nb::steal(tuple ? PyTuple_New(n) : PyList_New(n));
        for (Py_ssize_t i = 0; i < n; ++i) {
            PyObject *item = unwrap(tuple ? PyTuple_GET_ITEM(o, i) : PyList_GET_ITEM(o, i), name, seen);
            if (tuple) PyTuple_SET_ITEM(out.ptr(), i, item);
            else PyList_SET_ITEM(out.ptr(), i, item);
        }
        return out.release().ptr();
    }
    if (is_ndarray(o) && !is_ndarray_exact(o)) seen.subclass_input = true;
    Py_INCREF(o);
    return o;
}

/// Does `r` hold an ndarray or a NumPy scalar (itself, or in its tuples and lists)?
bool needs_wrap(PyObject *r) {
    if (is_ndarray_exact(r) || is_numpy_scalar(r)) return true;
    if (PyTuple_Check(r)) {
        for (Py_ssize_t i = 0, n = PyTuple_GET_SIZE(r); i < n; ++i)
            if (needs_wrap(PyTuple_GET_ITEM(r, i))) return true;
    } else if (PyList_CheckExact(r)) {
        for (Py_ssize_t i = 0, n = PyList_GET_SIZE(r); i < n; ++i)
            if (needs_wrap(PyList_GET_ITEM(r, i))) return true;
    }
    return false;
}

/// New reference to `r` with ndarrays (and NumPy scalars) wrapped as wsarray.Array. Lists and
/// tuples are rebuilt only if they hold something to wrap: a list NumPy returns (an element of an
/// object array, a.tolist()) stays the very object NumPy gave, as mutable as in NumPy.
PyObject *wrap(PyObject *r, const Seen &seen) {
    if (is_ndarray_exact(r)) {
        if (seen.is_numpy_out(r)) {
            Py_INCREF(r);
            return r;
        }
        if (PyObject *orig = seen.original_of(r)) {
            Py_INCREF(orig);
            return orig;
        }
        PyObject *base = seen.array_holding(ndarray_base(r));
        // A block allocated during this call (and held by the result): its workspace is known.
        if (wsa::Workspace *ws = routed_owner_of(ndarray_data(r))) return make_array(r, token_of_target(ws), false, base);
        return new_array(r, false, base);
    }
    if (is_numpy_scalar(r)) {
        // A scalar result holds the NumPy scalar itself, never workspace memory: it is an
        // immutable value (as NumPy's scalars and ND4J's sumNumber() are), so nothing can alias
        // it, and `losses.append(np.mean(loss))` inside a cycle stays readable after the cycle.
        return make_scalar_result(r);
    }
    if ((PyTuple_Check(r) || PyList_CheckExact(r)) && !needs_wrap(r)) {
        Py_INCREF(r);
        return r;
    }
    if (PyTuple_Check(r)) {
        Py_ssize_t n = PyTuple_GET_SIZE(r);
        nb::object out = nb::steal(PyTuple_New(n));
        for (Py_ssize_t i = 0; i < n; ++i) PyTuple_SET_ITEM(out.ptr(), i, wrap(PyTuple_GET_ITEM(r, i), seen));
        return same_tuple_type(r, std::move(out)).release().ptr();
    }
    if (PyList_CheckExact(r)) {
        Py_ssize_t n = PyList_GET_SIZE(r);
        nb::object out = nb::steal(PyList_New(n));
        for (Py_ssize_t i = 0; i < n; ++i) PyList_SET_ITEM(out.ptr(), i, wrap(PyList_GET_ITEM(r, i), seen));
        return out.release().ptr();
    }
    Py_INCREF(r);
    return r;
}

/// Keyword arguments with Arrays replaced by their ndarrays (the same dict when none is an Array).
nb::object unwrap_kwargs(PyObject *kwargs, const char *name, Seen &seen) {
    if (!kwargs || !PyDict_GET_SIZE(kwargs)) return nb::object();
    if (PyObject *out = PyDict_GetItemString(kwargs, "out")) {  // borrowed
        if (is_ndarray_exact(out)) seen.numpy_outs[0] = out;
        else if (PyTuple_Check(out))
            for (Py_ssize_t i = 0, n = std::min<Py_ssize_t>(PyTuple_GET_SIZE(out), 4); i < n; ++i)
                if (is_ndarray_exact(PyTuple_GET_ITEM(out, i))) seen.numpy_outs[i] = PyTuple_GET_ITEM(out, i);
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

/// Turn the pending error of a routed NumPy call into wsarray's (allocation failures become
/// WorkspaceMemoryError), named after the function, and throw it.
[[noreturn]] void raise_call_error(const char *name) {
    bool misuse = false;
    std::string err = take_allocation_error(&misuse);
    if (!err.empty() && PyErr_ExceptionMatches(PyExc_MemoryError)) {
        PyErr_Clear();
        raise(misuse ? WorkspaceError : WorkspaceMemoryError, "wsarray." + std::string(name) + "(): " + err);
    }
    name_error_for(name);
    throw nb::python_error();
}

/// A callback into Python destroyed the call's workspace or ended its cycle: the results are
/// already invalid, so the call fails with WorkspaceError instead of returning them.
void raise_if_lost(const RouteGuard &route, const char *name) {
    std::string lost = route.lost();
    if (!lost.empty()) raise(WorkspaceError, "wsarray." + std::string(name) + "(): " + lost);
}

/// The arguments' bookkeeping, starting with the Array a method is called on (if any).
Seen seen_with_self(PyObject *self_array) {
    Seen seen;
    if (self_array && !stands_for_scalar(array_of(self_array)))
        seen.add(array_of(self_array).data().ptr(), self_array);
    return seen;
}

/// Is the pending error NumPy refusing what an object's __array__ returned (a wsarray Array, as
/// when a NumPy program's class implements __array__ with `np` functions)?
bool array_like_refused() {
    if (!PyErr_ExceptionMatches(PyExc_ValueError)) return false;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    bool refused = false;
    if (PyObject *text = value ? PyObject_Str(value) : nullptr) {
        refused = PyUnicode_CompareWithASCIIString(text, "object __array__ method not producing an array") == 0;
        Py_DECREF(text);
    }
    PyErr_Clear();
    PyErr_Restore(type, value, tb);
    return refused;
}

nb::object apply_tuple(const char *name, PyObject *func, PyObject *args, PyObject *kwargs, Seen &seen,
                       bool may_retry = true);

/// The call once more with such objects standing in as NumPy-facing shims (wsarray/_array_like.py);
/// an empty object (the original error pending) when no argument is one.
nb::object retry_with_array_like_shims(const char *name, PyObject *func, PyObject *args, PyObject *kwargs,
                                       PyObject *self_array) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    nb::object held[3] = {nb::steal(type), nb::steal(value), nb::steal(tb)};  // released on any exit
    nb::object shimmed = nb::module_::import_("wsarray._array_like")
                             .attr("shim_arguments")(nb::handle(args), kwargs ? nb::handle(kwargs) : nb::none());
    if (shimmed.is_none()) {
        PyErr_Restore(held[0].release().ptr(), held[1].release().ptr(), held[2].release().ptr());
        return nb::object();
    }
    Seen seen = seen_with_self(self_array);
    nb::tuple pair = nb::borrow<nb::tuple>(shimmed);
    return apply_tuple(name, func, pair[0].ptr(), pair[1].ptr(), seen, false);
}

/// apply() for calls with many positional arguments: through a new argument tuple.
nb::object apply_tuple(const char *name, PyObject *func, PyObject *args, PyObject *kwargs, Seen &seen,
                       bool may_retry) {
    nb::object uargs = nb::steal(unwrap(args, name, seen));
    nb::object ukwargs = unwrap_kwargs(kwargs, name, seen);
    clear_allocation_error();
    forget_routed_allocation();
    nb::object result;
    {
        RouteGuard route(seen.subclass_input ? nullptr : current_target());
        PyObject *r = PyObject_Call(func, uargs.ptr(), ukwargs ? ukwargs.ptr() : nullptr);
        if (r) {
            nb::object raw = nb::steal(r);
            raise_if_lost(route, name);
            result = nb::steal(wrap(r, seen));
        }
    }
    if (!result && may_retry && array_like_refused())
        result = retry_with_array_like_shims(name, func, args, kwargs, nullptr);
    if (!result) raise_call_error(name);
    return result;
}

} // namespace

namespace {
/// An exception class of Python's or NumPy's (what bad input to a NumPy function raises), not
/// one of the program's own (a signal handler's timeout, a callback's error): only those are named.
bool python_or_numpy_error(PyObject *value) {
    nb::object module = nb::steal(PyObject_GetAttrString((PyObject *) Py_TYPE(value), "__module__"));
    if (!module || !PyUnicode_Check(module.ptr())) {
        PyErr_Clear();
        return false;
    }
    std::string m = nb::cast<std::string>(nb::handle(module.ptr()));
    return m == "builtins" || m == "numpy" || m.rfind("numpy.", 0) == 0 || m == "wsarray" ||
           m.rfind("wsarray.", 0) == 0;
}

/// Is this one of wsarray's own errors, which name the function in the message ("wsarray.fn(): ...")?
bool own_message(PyObject *value) {
    nb::object text = nb::steal(PyObject_Str(value));
    if (!text) {
        PyErr_Clear();
        return false;
    }
    nb::str mark("wsarray.");
    return PyUnicode_Tailmatch(text.ptr(), mark.ptr(), 0, 8, -1) == 1;
}

/// The file name of the traceback entries that name wsarray's functions.
constexpr const char *kTracebackFile = "<wsarray>";

/// Is the outermost traceback entry so far one of wsarray's (a wsarray function nearer the error
/// named it already)?
bool named_in_traceback(PyObject *tb) {
    if (!tb || !PyTraceBack_Check(tb)) return false;
    PyFrameObject *frame = ((PyTracebackObject *) tb)->tb_frame;
    if (!frame) return false;
    PyCodeObject *code = PyFrame_GetCode(frame);
    bool ours = PyUnicode_CompareWithASCIIString(code->co_filename, kTracebackFile) == 0;
    Py_DECREF(code);
    return ours;
}
} // namespace

void name_error_for(const char *name) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    // The class and message stay NumPy's (drop-in code prints, matches and doctests them); the
    // function appears in the traceback as an entry of its own, as a Python function would (the
    // way Cython names compiled functions): File "<wsarray>", line 1, in wsarray.reshape.
    PyFrameObject *frame = nullptr;
    if (value && PyObject_TypeCheck(value, (PyTypeObject *) PyExc_Exception) && python_or_numpy_error(value) &&
        !own_message(value) && !named_in_traceback(tb)) {
        std::string fn = "wsarray." + std::string(name);
        PyCodeObject *code = PyCode_NewEmpty(kTracebackFile, fn.c_str(), 1);
        PyObject *globals = code ? PyDict_New() : nullptr;
        if (globals) frame = PyFrame_New(PyThreadState_Get(), code, globals, nullptr);
        Py_XDECREF(globals);
        Py_XDECREF(code);
        if (!frame) PyErr_Clear();
    }
    PyErr_Restore(type, value, tb);
    if (frame) {
        PyTraceBack_Here(frame);  // on failure (no memory) the error stays pending, chained
        Py_DECREF(frame);
    }
}

void raise_routed_error(const char *name) { raise_call_error(name); }

void raise_pending(const char *name) {
    name_error_for(name);
    throw nb::python_error();
}

nb::object wrap_derived(nb::handle r, Array &a, nb::handle source) {
    if (is_ndarray_exact(r.ptr()) && r.ptr() != a.data().ptr() && ndarray_base(r.ptr()) == a.data().ptr())
        return nb::steal(make_array(r.ptr(), a.token, false, stands_for_scalar(a) ? nullptr : source.ptr()));
    return wrap_ndarray(r, source);
}

nb::object wrap_ndarray(nb::handle nd, nb::handle source) {
    Seen seen;
    if (source.is_valid() && is_array(source.ptr()) && !stands_for_scalar(array_of(source.ptr())))
        seen.add(array_of(source.ptr()).data().ptr(), source.ptr());
    return nb::steal(wrap(nd.ptr(), seen));
}

namespace {
/// Positional arguments up to this many go to NumPy through vectorcall from a stack array.
constexpr Py_ssize_t kStack = 8;
} // namespace

nb::object apply(const char *name, PyObject *func, PyObject *args, PyObject *kwargs, PyObject *self_array) {
    Py_ssize_t nargs = PyTuple_GET_SIZE(args);
    if (nargs > kStack) {  // the tuple NumPy gets is built from this one
        Seen seen = seen_with_self(self_array);
        return apply_tuple(name, func, args, kwargs, seen);
    }
    return apply_vector(name, func, &PyTuple_GET_ITEM(args, 0), nargs, kwargs, self_array);
}

nb::object apply_vector(const char *name, PyObject *func, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwargs, PyObject *self_array, Py_ssize_t first_out) {
    Seen seen = seen_with_self(self_array);
    for (Py_ssize_t k = first_out; first_out >= 0 && k < std::min<Py_ssize_t>(nargs, first_out + 4); ++k)
        if (is_ndarray_exact(args[k])) seen.numpy_outs[k - first_out] = args[k];
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
    clear_allocation_error();
    forget_routed_allocation();
    nb::object result;
    {
        RouteGuard route(seen.subclass_input ? nullptr : current_target());
        PyObject *r = PyObject_VectorcallDict(func, stack, (std::size_t) nargs, ukwargs ? ukwargs.ptr() : nullptr);
        if (r) {
            nb::object raw = nb::steal(r);
            raise_if_lost(route, name);
            result = nb::steal(wrap(r, seen));
        }
    }
    if (!result && array_like_refused()) {
        nb::object tuple = nb::steal(PyTuple_New(nargs));
        if (!tuple) throw nb::python_error();
        for (Py_ssize_t i = 0; i < nargs; ++i) PyTuple_SET_ITEM(tuple.ptr(), i, nb::handle(args[i]).inc_ref().ptr());
        result = retry_with_array_like_shims(name, func, tuple.ptr(), kwargs, self_array);
    }
    if (!result) raise_call_error(name);
    return result;
}

bool holds_array(PyObject *const *args, Py_ssize_t nargs, PyObject *kwargs) {
    for (Py_ssize_t i = 0; i < nargs; ++i)
        if (needs_unwrap(args[i])) return true;
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (kwargs && PyDict_Next(kwargs, &pos, &key, &value))
        if (needs_unwrap(value)) return true;
    return false;
}

} // namespace wsa_py
