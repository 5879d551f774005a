/// src/python/common.h -- shared pieces of the bindings: errors, the Array record, the engine.
#pragma once
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "memory/manager.h"

#include <memory>
#include <string>

namespace nb = nanobind;

namespace wsa_py {

/// wsarray.WorkspaceError (RuntimeError) and wsarray.WorkspaceMemoryError (also MemoryError).
extern PyObject *WorkspaceError;
extern PyObject *WorkspaceMemoryError;

/// Raise `type(msg)` as a Python exception from C++.
[[noreturn]] void raise(PyObject *type, const std::string &msg);

/// A str argument as UTF-8: TypeError for a non-str, ValueError for text that is not valid Unicode
/// (a lone surrogate), both naming "wsarray.<fn>()" and `what` ("name", "temp_file_path").
std::string text_arg(nb::handle v, const char *fn, const char *what);

/// Which workspace cycle an array's memory belongs to. No workspace: always valid.
struct Token {
    std::shared_ptr<wsa::Workspace> ws;
    std::uint64_t generation = 0;
};

/// The state behind a wsarray.Array: a NumPy ndarray over workspace (or ordinary) memory.
struct Array {
    /// The ndarray. A scalar result may have none until something needs it: read it with data().
    nb::object nd_;
    Token token;
    /// NumPy returned a scalar here (np.float64, ...), wrapped as 0-d: repr() shows the scalar's
    /// repr so printed output matches NumPy.
    bool from_scalar = false;
    /// The Array whose ndarray is `data`'s base (a view's `a.base is x`, as in NumPy); set when the
    /// view is made from `x` (or from a view of `x`), or on the first read of `a.base`.
    nb::object base;
    /// A scalar result's value, the NumPy scalar itself (null until first read when the result was
    /// made as a 0-d ndarray). Scalar arithmetic, repr and unwrapping use it without an ndarray.
    nb::object scalar;
    /// Neighbours in the list of Arrays made in `token.ws` (scopes.h), guarded by the GIL.
    PyObject *ws_prev = nullptr, *ws_next = nullptr;
    bool ws_linked = false;
    /// Its __array_interface__ was read: NumPy arrays may point into its memory through this
    /// Array (their base), so it never lets go of its ndarray (scopes.h, release_holders).
    bool interface_exported = false;
    ~Array();
    /// The ndarray (a scalar result's 0-d array is made on first call, in ordinary memory).
    const nb::object &data() {
        if (!nd_.is_valid()) materialize();
        return nd_;
    }
    void materialize();
};

/// An Array that stands for the NumPy scalar a function returned (printed, copied, unwrapped and
/// updated by `+=` & co as that scalar).
bool stands_for_scalar(const Array &a);
/// The NumPy scalar a scalar result stands for (borrowed; read from its ndarray on first use).
PyObject *scalar_of(Array &a);
/// A new scalar result holding the NumPy scalar `scalar` (no ndarray until one is needed).
PyObject *make_scalar_result(PyObject *scalar);
/// Make the scalar results of np.True_ and np.False_ (after the Array type exists).
void init_scalar_results();
/// What NumPy's own API returns where it goes beyond the array API standard (Array methods such
/// as a.sum(), iteration, functions such as np.dot or np.median): a scalar result (also inside a
/// plain tuple) becomes the NumPy scalar it stands for, as NumPy returns it; anything else as is.
nb::object as_numpy_result(nb::object r);

/// The Python type object of wsarray.Array (set by export_array).
extern PyTypeObject *ArrayType;

/// Run the body of a type slot or C-level call; C++ exceptions become the pending Python exception and `fail` is returned.
template <class F, class R> R guarded(F &&body, R fail) {
    try {
        return body();
    } catch (nb::python_error &e) {
        e.restore();
    } catch (const std::bad_alloc &) {
        PyErr_NoMemory();
    } catch (const std::exception &e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
    }
    return fail;
}

inline bool is_array(PyObject *o) { return Py_TYPE(o) == ArrayType; }
inline Array &array_of(PyObject *o) { return *nb::inst_ptr<Array>(o); }

/// Raise WorkspaceError naming `fn` if the array's cycle has ended or its workspace is gone.
void check_valid(const Array &a, const char *fn);
inline bool token_valid(const Token &t) {
    if (!t.ws) return true;
    if (!t.ws->alive()) return false;
    return t.ws->circular() || t.ws->generation() == t.generation;
}

/// Token for memory at the data pointer of ndarray `o`.
Token token_for(PyObject *o);

/// A new wsarray.Array (new reference) holding ndarray `nd` (a reference is taken). Builds the
/// instance directly (no type lookup as nb::cast does); instances come from nanobind's pool.
/// `base`: the Array whose ndarray is `nd`'s base, when known.
PyObject *make_array(PyObject *nd, Token token, bool from_scalar = false, PyObject *base = nullptr);
/// Token for an array made now in `target` (the current route; null: no workspace).
inline Token token_of_target(wsa::Workspace *target) {
    Token t;
    if (target) {
        t.ws = target->shared_from_this();
        t.generation = t.ws->generation();
    }
    return t;
}

/// Wrap an ndarray (or NumPy scalar) in a new wsarray.Array; `source`: the Array it was taken
/// from (a view of it gets it as its base; its own ndarray comes back as `source` itself).
nb::object wrap_ndarray(nb::handle nd, nb::handle source = nb::handle());
/// wrap_ndarray() for a result NumPy derived from the Array `source` (state `a`): a view of its
/// own memory is in its cycle and names it as base, without a lookup.
nb::object wrap_derived(nb::handle r, Array &a, nb::handle source);

/// Call `func(*args, **kwargs)` with every wsarray.Array argument (also inside lists and tuples)
/// replaced by its ndarray, NumPy's allocations routed into the current workspace, and every
/// ndarray in the result wrapped. Errors name `name` ("wsarray.<name>()").
/// `self_array`: the Array a method is called on (a view of it gets it as its base; a result that
/// is its ndarray comes back as the Array itself, as NumPy returns self).
nb::object apply(const char *name, PyObject *func, PyObject *args, PyObject *kwargs,
                 PyObject *self_array = nullptr);
/// apply() with the positional arguments as an array (a vectorcall's). `first_out`: the position
/// from which positional arguments are a ufunc's out arrays (-1: none); NumPy ndarrays given
/// there are returned as they are, as NumPy returns out arrays (np.add(x, 1, o) is o).
nb::object apply_vector(const char *name, PyObject *func, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwargs, PyObject *self_array = nullptr, Py_ssize_t first_out = -1);

/// Define NumPy's most used methods (sum, mean, reshape, copy, ...) on wsarray.Array (methods.cpp).
void export_methods(PyTypeObject *type);

/// Is a wsarray.Array among the arguments (also inside their lists and tuples)?
bool holds_array(PyObject *const *args, Py_ssize_t nargs, PyObject *kwargs);

/// The allocation target of this thread and context (null: outside every workspace or scoped
/// out). Valid until the next wsarray call: a RouteGuard holds it for the duration of a call.
wsa::Workspace *current_target();

/// Name "wsarray.<name>" in the pending exception's traceback (same class, same message), unless
/// it is wsarray's own error (named in its message) or a wsarray function nearer the error named it.
void name_error_for(const char *name);
/// name_error_for(name), then throw the pending Python exception.
[[noreturn]] void raise_pending(const char *name);
/// Throw the pending error of a NumPy call made under a RouteGuard as apply() does (a failed
/// workspace allocation becomes WorkspaceMemoryError), named after `name`.
[[noreturn]] void raise_routed_error(const char *name);

void export_workspace(nb::module_ &m);
void export_array(nb::module_ &m);
void export_function(nb::module_ &m);
void export_fusion(nb::module_ &m);

} // namespace wsa_py
