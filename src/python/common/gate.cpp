/// src/python/common/gate.cpp -- wsarray._native.Gate: an event (set, clear, wait) whose every operation is
/// one C++ call; and _poke, a wake-up byte written to a pipe without letting go of the GIL.
///
/// threading.Event and threading.Condition are Python code around locks: a signal handler that
/// raises (Ctrl-C) in the middle of Condition.wait() leaves the lock released or held when the
/// code around it assumes the opposite ("cannot release un-acquired lock", a worker blocked forever
/// in set()). A Gate's state changes happen inside one call, which Python runs no handler in; its
/// wait releases the GIL, sleeps on a condition variable and, on the main thread, lets pending
/// signal handlers run between short sleeps: one that raises ends the wait with that exception,
/// and the Gate is exactly as it was. wsarray's threads and the threads that call into them wait
/// on Gates (wsarray/_interrupts.py).
///
/// The type is plain CPython (not nanobind) and re-takes the GIL with a plain call, never from a
/// destructor or inside a catch-all: at interpreter exit CPython ends a daemon thread that re-takes
/// the GIL (pthread_exit, a forced unwind), which a noexcept destructor or a swallowing catch would
/// turn into std::terminate.
#include "common/gate.h"

#include "common/errors.h"

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <new>
#include <pythread.h>
#include <unistd.h>
#include <vector>

namespace wsa_py {

namespace {

namespace nb = nanobind;
using Clock = std::chrono::steady_clock;

/// How long a wait on the main thread sleeps before it runs the pending signal handlers.
constexpr std::chrono::milliseconds kSignalCheck{20};

/// The thread Python runs signal handlers on (set at import, and again in a forked child).
unsigned long g_main_thread = 0;

struct GateState {
    std::mutex m;
    std::condition_variable cv;
    bool open = false;
    std::uint64_t sets = 0;  ///< set() calls so far: a waiter also returns for a set() a clear() undid
    int sleepers = 0;        ///< threads asleep in wait()
};

struct GateObject {
    PyObject_HEAD GateState *state;
};

PyObject *gate_new(PyTypeObject *type, PyObject *, PyObject *) {
    auto *self = (GateObject *) type->tp_alloc(type, 0);
    if (!self) return nullptr;
    self->state = new (std::nothrow) GateState();
    if (!self->state) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    return (PyObject *) self;
}

void gate_dealloc(PyObject *o) {
    auto *self = (GateObject *) o;
    PyTypeObject *type = Py_TYPE(o);
    delete self->state;
    type->tp_free(o);
    Py_DECREF(type);
}

/// Open `g`; whether threads sleep on it (to be woken).
bool open_gate(GateState &g) {
    std::lock_guard<std::mutex> lock(g.m);
    g.open = true;
    ++g.sets;
    return g.sleepers > 0;
}

PyObject *gate_set(PyObject *o, PyObject *) {
    if (open_gate(*((GateObject *) o)->state)) {
        // The wake-up without the GIL: the kernel may switch to a woken thread at once, and one
        // that then waits for a GIL this thread holds while it is switched out costs both (a
        // handoff through the interrupt shield spent a fifth of its GIL time here).
        PyThreadState *saved = PyEval_SaveThread();
        ((GateObject *) o)->state->cv.notify_all();
        PyEval_RestoreThread(saved);  // a plain call (see the file comment)
    }
    Py_RETURN_NONE;
}

/// _open_gates(gates): set() of every Gate in the list, with one release of the GIL for all the
/// wake-ups (see the comment in export_gate).
PyObject *open_gates(PyObject *, PyObject *arg) {
    if (!PyList_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "wsarray._native._open_gates(): expected a list of Gates, got %s",
                     Py_TYPE(arg)->tp_name);
        return nullptr;
    }
    Py_ssize_t n = PyList_GET_SIZE(arg);
    for (Py_ssize_t i = 0; i < n; ++i) {  // every item checked before any gate opens
        PyObject *o = PyList_GET_ITEM(arg, i);
        if (Py_TYPE(o)->tp_dealloc != gate_dealloc) {
            PyErr_Format(PyExc_TypeError, "wsarray._native._open_gates(): item %zd is a %s, not a Gate", i,
                         Py_TYPE(o)->tp_name);
            return nullptr;
        }
    }
    std::vector<PyObject *> woken;  // strong references: the list may change while the GIL is down
    try {
        woken.reserve((std::size_t) n);
    } catch (const std::bad_alloc &) {
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject *o = PyList_GET_ITEM(arg, i);
        if (open_gate(*((GateObject *) o)->state)) {
            Py_INCREF(o);
            woken.push_back(o);
        }
    }
    if (!woken.empty()) {
        PyThreadState *saved = PyEval_SaveThread();
        for (PyObject *o : woken) ((GateObject *) o)->state->cv.notify_all();
        PyEval_RestoreThread(saved);
        for (PyObject *o : woken) Py_DECREF(o);
    }
    Py_RETURN_NONE;
}

PyObject *gate_clear(PyObject *o, PyObject *) {
    GateState &g = *((GateObject *) o)->state;
    std::lock_guard<std::mutex> lock(g.m);
    g.open = false;
    Py_RETURN_NONE;
}

PyObject *gate_is_set(PyObject *o, PyObject *) {
    GateState &g = *((GateObject *) o)->state;
    std::lock_guard<std::mutex> lock(g.m);
    return PyBool_FromLong(g.open);
}

/// Sleep (GIL released) until the gate opens or `until` (time_point::max(): no limit).
bool sleep_until(GateState &g, std::uint64_t seen, Clock::time_point until) {
    PyThreadState *saved = PyEval_SaveThread();
    bool opened;
    {
        std::unique_lock<std::mutex> lock(g.m);
        auto done = [&] { return g.open || g.sets != seen; };
        ++g.sleepers;
        if (until == Clock::time_point::max()) g.cv.wait(lock, done);
        else g.cv.wait_until(lock, until, done);
        --g.sleepers;
        opened = done();
    }
    PyEval_RestoreThread(saved);  // a plain call (see the file comment)
    return opened;
}

/// wait(timeout=None) -> bool: True once the gate is open (or was opened since the wait began);
/// False after `timeout` seconds. On the main thread a signal handler's exception ends the wait.
PyObject *gate_wait(PyObject *o, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const names[] = {"timeout", nullptr};
    PyObject *timeout = Py_None;
    if (nargs > 1 || (kwnames && PyTuple_GET_SIZE(kwnames) > 1)) {
        PyErr_SetString(PyExc_TypeError, "wsarray._native.Gate.wait() takes at most one argument (timeout)");
        return nullptr;
    }
    if (nargs == 1) timeout = args[0];
    if (kwnames && PyTuple_GET_SIZE(kwnames) == 1) {
        if (nargs == 1 || PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), names[0]) != 0) {
            PyErr_SetString(PyExc_TypeError, "wsarray._native.Gate.wait(): the only argument is timeout");
            return nullptr;
        }
        timeout = args[0];
    }
    bool forever = timeout == Py_None;
    double seconds = 0.0;
    if (!forever) {
        seconds = PyFloat_AsDouble(timeout);
        if (seconds == -1.0 && PyErr_Occurred()) return nullptr;
        if (!(seconds >= 0.0)) {
            PyErr_SetString(PyExc_ValueError, "wsarray._native.Gate.wait(): timeout must be a number >= 0 or None");
            return nullptr;
        }
        forever = seconds > 1e9;  // beyond ~30 years: no deadline
    }
    GateState &g = *((GateObject *) o)->state;
    std::uint64_t seen;
    {
        std::lock_guard<std::mutex> lock(g.m);
        if (g.open) Py_RETURN_TRUE;
        seen = g.sets;
    }
    Clock::time_point deadline =
        forever ? Clock::time_point::max()
                : Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    bool main = PyThread_get_thread_ident() == g_main_thread;
    while (true) {
        Clock::time_point until = main ? std::min(deadline, Clock::now() + kSignalCheck) : deadline;
        if (sleep_until(g, seen, until)) Py_RETURN_TRUE;
        if (main && PyErr_CheckSignals() < 0) return nullptr;
        if (!forever && Clock::now() >= deadline) Py_RETURN_FALSE;
    }
}

PyMethodDef gate_methods[] = {
    {"set", (PyCFunction) gate_set, METH_NOARGS, "Open the gate: every waiter returns."},
    {"clear", (PyCFunction) gate_clear, METH_NOARGS, "Close the gate."},
    {"is_set", (PyCFunction) gate_is_set, METH_NOARGS, "Whether the gate is open."},
    {"wait", (PyCFunction) (void (*)(void)) gate_wait, METH_FASTCALL | METH_KEYWORDS,
     "wait(timeout=None) -> bool: True once the gate is open (or was opened since the wait began), False "
     "after `timeout` seconds. On the main thread a signal handler that raises ends the wait."},
    {nullptr, nullptr, 0, nullptr}};

PyType_Slot gate_slots[] = {
    {Py_tp_new, (void *) gate_new},
    {Py_tp_dealloc, (void *) gate_dealloc},
    {Py_tp_methods, (void *) gate_methods},
    {Py_tp_doc, (void *) "An event whose set(), clear() and wait() a signal handler cannot break (each is one "
                         "call; a handler that raises during wait() ends the wait with its exception)."},
    {0, nullptr}};

PyType_Spec gate_spec = {"wsarray._native.Gate", sizeof(GateObject), 0, Py_TPFLAGS_DEFAULT, gate_slots};

} // namespace

bool on_main_thread() { return PyThread_get_thread_ident() == g_main_thread; }

void export_gate(nb::module_ &m) {
    g_main_thread = nb::cast<unsigned long>(nb::module_::import_("threading").attr("main_thread")().attr("ident"));
    nb::object type = nb::steal(PyType_FromSpec(&gate_spec));
    if (!type) throw nb::python_error();
    m.attr("Gate") = type;
    m.def("_gate_after_fork", [] { g_main_thread = PyThread_get_thread_ident(); },
          "In a forked child: the forking thread is the one signal handlers run on now.");
    // A worker that completes a batch's futures wakes their callers here all at once: set() one by
    // one would hand the GIL to each woken caller in turn and wait to get it back every time. A
    // plain CPython function, as the Gate's methods (see the file comment).
    static PyMethodDef open_gates_def = {"_open_gates", (PyCFunction) open_gates, METH_O,
                                         "_open_gates(gates): set() every Gate of the list, releasing the "
                                         "GIL once for all the wake-ups."};
    nb::object open_gates_fn = nb::steal(PyCFunction_NewEx(&open_gates_def, nullptr, m.attr("__name__").ptr()));
    if (!open_gates_fn) throw nb::python_error();
    m.attr("_open_gates") = open_gates_fn;
    // os.write() releases the GIL around the write: the thread it wakes takes the GIL then, and
    // the writer waits for that thread's work before its own next bytecode.
    m.def("_poke",
          [](int fd) {
        if (fd < 0) return;
        const char byte = 'x';
        while (::write(fd, &byte, 1) < 0 && errno == EINTR) {}
        // EAGAIN: the pipe is full, its reader is awake already; anything else: it is gone.
    }, nb::arg("fd"),
          "Write one byte to a non-blocking pipe `fd` (a wake-up) without releasing the GIL; errors are "
          "ignored, fd < 0 does nothing.");
}

} // namespace wsa_py
