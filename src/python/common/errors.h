/// src/python/common/errors.h -- wsarray's exceptions, and how the bindings raise and name Python errors.
///
/// wsarray's own errors name the function in their message ("wsarray.reshape(): ..."). An error
/// NumPy or Python raises inside a wsarray function keeps its class and message (drop-in code
/// prints, matches and doctests them); the function appears in its traceback instead, as an entry
/// of its own (name_error_for).
#pragma once
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "memory/workspace.h"

#include <new>
#include <stdexcept>
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

/// Run `f`, turning the core's exceptions into wsarray's, with "wsarray.<fn>(): " in front.
template <typename F> auto named(const char *fn, F &&f) -> decltype(f()) {
    try {
        return f();
    } catch (const wsa::WorkspaceOutOfMemory &e) {
        raise(WorkspaceMemoryError, "wsarray." + std::string(fn) + "(): " + e.what());
    } catch (const wsa::WorkspaceMisuse &e) {
        raise(WorkspaceError, "wsarray." + std::string(fn) + "(): " + e.what());
    } catch (const std::invalid_argument &e) {
        raise(PyExc_ValueError, "wsarray." + std::string(fn) + "(): " + e.what());
    } catch (const std::bad_alloc &) {
        raise(PyExc_MemoryError, "wsarray." + std::string(fn) + "(): the operating system refused the memory");
    } catch (const std::runtime_error &e) {
        raise(PyExc_OSError, "wsarray." + std::string(fn) + "(): " + e.what());
    }
}

/// Name "wsarray.<name>" in the pending exception's traceback (same class, same message), unless
/// it is wsarray's own error (named in its message) or a wsarray function nearer the error named it.
void name_error_for(const char *name);
/// name_error_for(name), then throw the pending Python exception.
[[noreturn]] void raise_pending(const char *name);

/// `message` and, on the next lines, what the current workspace holds (the package's
/// memory_report hook: its largest live blocks and the lines that made them, or how to see them).
/// For WorkspaceMemoryError messages; any pending error is kept.
std::string with_memory_report(std::string message);

/// Create wsarray.WorkspaceError and wsarray.WorkspaceMemoryError.
void export_errors(nb::module_ &m);

} // namespace wsa_py
