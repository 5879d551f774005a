/// src/python/common.h -- shared pieces of the bindings: errors, the Array record, the engine.
#pragma once
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "../core/manager.h"

#include <memory>
#include <string>

namespace nb = nanobind;

namespace wsa_py {

/// wsarray.WorkspaceError (RuntimeError) and wsarray.WorkspaceMemoryError (also MemoryError).
extern PyObject *WorkspaceError;
extern PyObject *WorkspaceMemoryError;

/// Raise `type(msg)` as a Python exception from C++.
[[noreturn]] void raise(PyObject *type, const std::string &msg);

/// Which workspace cycle an array's memory belongs to. No workspace: always valid.
struct Token {
    std::shared_ptr<wsa::Workspace> ws;
    std::uint64_t generation = 0;
};

/// The state behind a wsarray.Array: a NumPy ndarray over workspace (or ordinary) memory.
struct Array {
    nb::object data;
    Token token;
    /// NumPy returned a scalar here (np.float64, ...), wrapped as 0-d: repr() shows the scalar's
    /// repr so printed output matches NumPy.
    bool from_scalar = false;
    /// The Array whose ndarray is `data.base`, when known (a view made from an Array): `.base`
    /// answers with it, so `x[1:].base is x` holds as in NumPy. Null otherwise.
    nb::object base_array;
};

/// The Python type object of wsarray.Array (set by export_array).
extern PyTypeObject *ArrayType;

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

/// Wrap an ndarray (or NumPy scalar) in a new wsarray.Array. `parent`: the Array the ndarray was
/// taken from (a view of it keeps it as its `.base`, as NumPy's views do).
nb::object wrap_ndarray(nb::handle nd, PyObject *parent = nullptr);

/// Call `func(*args, **kwargs)` as apply() does, for a method of the Array `self`: a result that
/// is self's ndarray comes back as `self`, a view of it has `self` as its `.base`.
nb::object apply_method(const char *name, PyObject *func, PyObject *args, PyObject *kwargs, PyObject *self);

/// Call `func(*args, **kwargs)` with every wsarray.Array argument (also inside lists and tuples)
/// replaced by its ndarray, NumPy's allocations routed into the current workspace, and every
/// ndarray in the result wrapped. Errors name `name` ("wsarray.<name>()").
nb::object apply(const char *name, PyObject *func, PyObject *args, PyObject *kwargs);

/// The current allocation target of this thread (null: outside every workspace or scoped out).
inline wsa::Workspace *current_target() { return wsa::ThreadWorkspaces::current().target(); }

/// Put "wsarray.<name>(): " in front of the pending exception's message (same class).
void prefix_error_for(const char *name);
/// prefix_error_for(name), then throw the pending Python exception.
[[noreturn]] void raise_pending(const char *name);

void export_workspace(nb::module_ &m);
void export_array(nb::module_ &m);
void export_function(nb::module_ &m);

} // namespace wsa_py
