/// src/python/common/gil.h -- letting go of the GIL around work that needs no Python, and a thread
/// that CPython ends at interpreter exit while wsarray's frames are on its stack.
///
/// At exit CPython ends a daemon thread that takes the GIL again with pthread_exit(), a forced
/// unwind through every frame above it. A noexcept frame (a destructor that re-takes the GIL) or
/// a catch-all that does not rethrow (the dispatch of every bound function) turns that unwind into
/// std::terminate, and the whole process aborts after the program finished. wsarray parks such a
/// thread instead, until the process ends: what CPython 3.14 itself does with daemon threads.
#pragma once
#include <Python.h>

namespace wsa_py {

/// PyEval_RestoreThread(saved); on a thread CPython ends at interpreter exit, never returns.
void retake_gil(PyThreadState *saved) noexcept;

/// The GIL released for the object's lifetime (nanobind's gil_scoped_release, exit-safe).
class GilReleased {
public:
    GilReleased() noexcept : saved_(PyEval_SaveThread()) {}
    ~GilReleased() { retake_gil(saved_); }
    GilReleased(const GilReleased &) = delete;
    GilReleased &operator=(const GilReleased &) = delete;

private:
    PyThreadState *saved_;
};

/// Install (once) what parks a thread CPython is ending at exit where the unwind meets a frame
/// that cannot pass it: a terminate handler (noexcept frames; any other std::terminate goes on
/// as before) and nanobind's first exception translator (its catch-all around bound functions).
void install_exit_guard();

} // namespace wsa_py
