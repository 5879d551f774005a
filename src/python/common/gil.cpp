/// src/python/common/gil.cpp -- the GIL taken back safely at interpreter exit (gil.h).
#include "common/gil.h"

#include <nanobind/nanobind.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <thread>
#if defined(__GLIBCXX__)
#include <cxxabi.h>
#endif

namespace wsa_py {

namespace {

bool interpreter_finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing();
#else
    return _Py_IsFinalizing();
#endif
}

/// The thread CPython is ending: it never returns to Python, and the process exits around it.
[[noreturn]] void park_forever() {
    for (;;) std::this_thread::sleep_for(std::chrono::hours(24));
}

std::terminate_handler previous_handler = nullptr;

/// A terminate during exit on a thread without the GIL is CPython ending a daemon thread through
/// a frame that cannot unwind (see gil.h): park it. Anything else is a real terminate.
[[noreturn]] void on_terminate() {
    if (interpreter_finalizing() && !PyGILState_Check()) park_forever();
    if (previous_handler) previous_handler();
    std::abort();
}

/// The first of nanobind's exception translators. The catch-all around every bound function
/// also catches that unwind, which is no C++ exception (a null exception_ptr): park the thread
/// there, before the translation dereferences it. Anything else goes to the next translator.
void translate_exit_unwind(const std::exception_ptr &e, void *) {
    if (!e && interpreter_finalizing() && !PyGILState_Check()) park_forever();
    if (!e) {
        PyErr_SetString(PyExc_SystemError, "wsarray: a call was ended by an unwind that is no exception");
        return;
    }
    std::rethrow_exception(e);
}

} // namespace

void retake_gil(PyThreadState *saved) noexcept {
#if defined(__GLIBCXX__)
    try {
        PyEval_RestoreThread(saved);
    } catch (abi::__forced_unwind &) {
        park_forever();  // never leaves the handler: no frame above runs its cleanups without the GIL
    }
#else
    PyEval_RestoreThread(saved);
#endif
}

void install_exit_guard() {
    static bool installed = false;
    if (installed) return;
    installed = true;
    previous_handler = std::set_terminate(on_terminate);
    nanobind::register_exception_translator(translate_exit_unwind, nullptr);
}

} // namespace wsa_py
