/// src/python/common/signal_deferral.cpp -- wsarray._native.defer_signals(fn, *args): fn(*args) on the
/// calling thread, with Python's signal handlers held back until it returns.
///
/// Python runs a signal handler on the main thread between any two bytecodes; one that raises
/// (Ctrl-C's KeyboardInterrupt) splits whatever Python code was running. A state change that must
/// happen whole (wsarray/_interrupts.py: shielded) runs here instead: every signal whose handler is
/// a Python callable gets a recorder as its handler for the duration of the call (signal.signal,
/// the only way to change Python's handler table), the call runs, the handlers are put back and
/// each signal that arrived meanwhile is handed to its own handler, once, with the frame it
/// arrived in. A handler that raises then raises here, after the change: the caller sees the
/// interruption as if it had come just after the call. The C-level handler is never touched, so
/// the signals' other effects (the wake-up fd asyncio reads) happen at arrival, exactly once.
///
/// signal.signal() first runs the pending handlers, so a swap or a put-back may run one (the
/// recorder for a signal still swapped, the real handler for one put back), which may raise: the
/// first such exception is kept and the put-back is tried again until it takes. On any thread
/// but the main one (Python runs no handler there) and inside a deferred call, fn just runs.
/// A fork inside the call leaves the child's handlers put back (_signals_after_fork).
#include "common/signal_deferral.h"

#include "common/gate.h"
#include "common/saved_error.h"

#include <csignal>
#include <vector>

namespace wsa_py {

namespace {

namespace nb = nanobind;

/// How often a put-back is tried while pending handlers keep raising before it is given up on (a
/// recorder left installed hands every signal to the handler it replaced: see record_signal).
constexpr int kPutBackTries = 10000;

struct Handler {
    int signum;
    PyObject *object;  ///< strong: the handler, or the frame a signal arrived in (a recording)
};

PyObject *g_signal = nullptr;     ///< _signal.signal
PyObject *g_getsignal = nullptr;  ///< _signal.getsignal
PyObject *g_recorder = nullptr;   ///< wsarray._native._record_signal
std::vector<PyObject *> g_numbers;  ///< the valid signal numbers, as ints
bool g_active = false;              ///< a deferred call is running (on the main thread)
unsigned g_forks = 0;               ///< forks into a child while a call was deferred
std::vector<Handler> g_swapped;     ///< the handlers the recorder stands in for now
std::vector<Handler> g_recorded;    ///< the signals that arrived meanwhile (each once)
std::vector<PyObject *> g_replaced;  ///< by signal number: the handler a recorder still installed replaced

/// The first exception of several: later ones are dropped (the first already interrupts).
struct FirstError {
    PyObject *type = nullptr, *value = nullptr, *tb = nullptr;

    bool empty() const { return type == nullptr; }
    void keep() {  // the pending exception
        if (!empty()) {
            PyErr_Clear();
            return;
        }
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        if (tb && value) PyException_SetTraceback(value, tb);
    }
    void raise() {
        PyErr_Restore(type, value, tb);
        type = value = tb = nullptr;
    }
    void drop() {
        Py_CLEAR(type);
        Py_CLEAR(value);
        Py_CLEAR(tb);
    }
};

/// signal.signal(signum, handler); false with the exception pending.
bool set_handler(int signum, PyObject *handler) {
    PyObject *args[] = {g_numbers[signum], handler};
    PyObject *old = PyObject_Vectorcall(g_signal, args, 2, nullptr);
    Py_XDECREF(old);
    return old != nullptr;
}

void note_replaced(int signum, PyObject *handler) {
    Py_INCREF(handler);
    Py_XSETREF(g_replaced[signum], handler);
}

/// The recorder in place of every Python handler; false with the exception pending (a handler
/// run by signal.signal raised: the signals swapped so far stay swapped, the caller puts back).
bool swap_in() {
    for (std::size_t signum = 1; signum < g_numbers.size(); ++signum) {
        if (!g_numbers[signum]) continue;
        PyObject *handler = PyObject_CallOneArg(g_getsignal, g_numbers[signum]);
        if (!handler) return false;
        if (!PyCallable_Check(handler) || handler == g_recorder) {
            Py_DECREF(handler);
            continue;
        }
        if (!set_handler((int) signum, g_recorder)) {
            Py_DECREF(handler);
            return false;
        }
        note_replaced((int) signum, handler);
        g_swapped.push_back({(int) signum, handler});
    }
    return true;
}

/// Put every swapped handler back (see the file comment), then hand each recorded signal to its
/// handler; exceptions go to `first`.
void put_back_and_replay(FirstError &first) {
    for (Handler &h : g_swapped) {
        int tries = 0;
        bool back;
        while (!(back = set_handler(h.signum, h.object))) {
            first.keep();
            if (++tries == kPutBackTries) break;
        }
        // Kept only while a recorder stays installed: a handler holds its module (and whatever
        // that module holds) alive, past the interpreter's end if nothing lets it go.
        if (back) Py_CLEAR(g_replaced[h.signum]);
    }
    std::vector<Handler> swapped, recorded;
    swapped.swap(g_swapped);
    recorded.swap(g_recorded);
    g_active = false;
    for (Handler &r : recorded) {
        PyObject *handler = nullptr;
        for (Handler &h : swapped)
            if (h.signum == r.signum) handler = h.object;
        if (!handler) continue;
        if (!first.empty()) {
            // Behind a handler that raised, as Python leaves them: pending, run at the next check.
            PyErr_SetInterruptEx(r.signum);
            continue;
        }
        PyObject *args[] = {g_numbers[r.signum], r.object};
        PyObject *out = PyObject_Vectorcall(handler, args, 2, nullptr);
        if (out) Py_DECREF(out);
        else first.keep();
    }
    for (Handler &r : recorded) Py_DECREF(r.object);
    for (Handler &h : swapped) Py_DECREF(h.object);
}

PyObject *defer_signals_lent(PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 1) {
        PyErr_SetString(PyExc_TypeError, "wsarray._native.defer_signals(fn, *args): fn is missing");
        return nullptr;
    }
    PyObject *fn = args[0];
    if (g_active || !on_main_thread()) return PyObject_Vectorcall(fn, args + 1, nargs - 1, nullptr);
    if (PyErr_CheckSignals() < 0) return nullptr;  // what arrived before the call is handled before it
    g_active = true;
    unsigned forks = g_forks;
    FirstError first;
    if (!swap_in()) {
        first.keep();
        put_back_and_replay(first);
        first.raise();
        return nullptr;
    }
    PyObject *result = PyObject_Vectorcall(fn, args + 1, nargs - 1, nullptr);
    if (forks != g_forks) return result;  // a child forked inside fn: its handlers are back already
    FirstError failed;
    if (!result) failed.keep();
    put_back_and_replay(first);
    if (!first.empty()) {
        Py_XDECREF(result);
        if (!failed.empty() && failed.value != first.value) {
            PyException_SetContext(first.value, failed.value);  // steals the reference
            failed.value = nullptr;
        }
        failed.drop();
        first.raise();
        return nullptr;
    }
    if (!failed.empty()) failed.raise();
    return result;
}

PyObject *defer_signals(PyObject *, PyObject *const *args, Py_ssize_t nargs) {
    // The arguments are held for the call: the pending handlers run first, and may drop what the
    // caller lent (a weakref callback gets its weakref borrowed).
    for (Py_ssize_t i = 0; i < nargs; ++i) Py_INCREF(args[i]);
    PyObject *result = defer_signals_lent(args, nargs);
    SavedError saved;  // a last reference may run code
    for (Py_ssize_t i = 0; i < nargs; ++i) Py_DECREF(args[i]);
    return result;
}

/// The handler while a call is deferred: notes the signal (once: Python coalesces repeats too).
PyObject *record_signal(PyObject *, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "wsarray._native._record_signal(signum, frame)");
        return nullptr;
    }
    long signum = PyLong_AsLong(args[0]);
    if (signum == -1 && PyErr_Occurred()) return nullptr;
    if (signum < 1 || signum >= (long) g_numbers.size()) Py_RETURN_NONE;
    if (!g_active) {
        // Installed with no call deferred (a put-back given up on, or a copy someone kept): the
        // handler it stood in for handles the signal; without one, SIGINT still interrupts.
        PyObject *handler = g_replaced[signum];
        if (!handler) {
            if (signum != SIGINT) Py_RETURN_NONE;
            PyErr_SetNone(PyExc_KeyboardInterrupt);
            return nullptr;
        }
        Py_INCREF(handler);
        PyObject *out = PyObject_Vectorcall(handler, args, 2, nullptr);
        Py_DECREF(handler);
        return out;
    }
    for (Handler &r : g_recorded)
        if (r.signum == signum) Py_RETURN_NONE;
    Py_INCREF(args[1]);
    g_recorded.push_back({(int) signum, args[1]});
    Py_RETURN_NONE;
}

/// In a forked child: the handlers a deferred call swapped are put back (the call's own frame
/// never returns there, or returns without putting back); what the parent recorded is dropped.
PyObject *signals_after_fork(PyObject *, PyObject *) {
    if (!g_active) Py_RETURN_NONE;
    ++g_forks;
    std::vector<Handler> dropped;
    dropped.swap(g_recorded);  // a release may run Python, which may record a signal meanwhile
    for (Handler &r : dropped) Py_DECREF(r.object);
    FirstError first;
    put_back_and_replay(first);
    first.drop();  // a handler the child inherited pending raised: nothing is waiting for it here
    Py_RETURN_NONE;
}

PyMethodDef methods[] = {
    {"defer_signals", (PyCFunction) (void (*)(void)) defer_signals, METH_FASTCALL,
     "defer_signals(fn, *args): fn(*args), with the Python signal handlers of the main thread held back "
     "until it returns; each signal that arrived meanwhile is then handled once (a handler's exception "
     "raises here, after fn). On other threads, and nested, fn just runs."},
    {"_record_signal", (PyCFunction) (void (*)(void)) record_signal, METH_FASTCALL,
     "The signal handler while a call is deferred (defer_signals)."},
    {"_signals_after_fork", (PyCFunction) signals_after_fork, METH_NOARGS,
     "In a forked child: put back the handlers a deferred call of the parent swapped."},
    {nullptr, nullptr, 0, nullptr}};

} // namespace

void export_signal_deferral(nb::module_ &m) {
    // _signal: the C functions under signal.py's wrappers (which convert each number to an enum)
    nb::module_ signal = nb::module_::import_("_signal");
    g_signal = signal.attr("signal").inc_ref().ptr();
    g_getsignal = signal.attr("getsignal").inc_ref().ptr();
    nb::object valid = signal.attr("valid_signals")();
    for (nb::handle number : valid) {
        int signum = nb::cast<int>(number);
        if (signum < 1 || signum > 1024) continue;
        if ((int) g_numbers.size() <= signum) g_numbers.resize(signum + 1, nullptr);
        g_numbers[signum] = PyLong_FromLong(signum);
        if (!g_numbers[signum]) throw nb::python_error();
    }
    g_replaced.resize(g_numbers.size(), nullptr);
    for (PyMethodDef &def : methods) {
        if (!def.ml_name) break;
        nb::object f = nb::steal(PyCFunction_NewEx(&def, nullptr, m.attr("__name__").ptr()));
        if (!f) throw nb::python_error();
        m.attr(def.ml_name) = f;
    }
    g_recorder = m.attr("_record_signal").inc_ref().ptr();
}

} // namespace wsa_py
