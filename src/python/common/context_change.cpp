/// src/python/common/context_change.cpp -- changing a context variable safely against CPython's
/// collector (see context_change.h).
#include "common/context_change.h"

#include "common/saved_error.h"

#include <pythread.h>

#include <vector>

extern "C" int wsarray_gc_collecting(void);  // gc_collecting.c

namespace wsa_py {

namespace {

constexpr bool kCollectorRunsInAllocations = PY_VERSION_HEX < 0x030C0000;

// Copies of contexts, each holding a variable map (a copy never runs); guarded by the GIL, never
// destroyed (released only with the GIL, never at exit).
/// The maps current before each change made during a collection.
std::vector<PyObject *> *g_before = new std::vector<PyObject *>();
/// The map the last such change made: CPython's cache of the variable points into it. An earlier
/// one is either the map before a later change (kept above) or one a set under way replaced, and
/// the later change moved the cache away from it.
PyObject *g_after = nullptr;

/// The thread the collector last started a collection on (gc_phase, first of gc.callbacks).
unsigned long g_collecting_thread = 0;

/// The collector is collecting on this thread: the code running is inside that collection (the
/// collector's flag is the interpreter's; another thread runs meanwhile when a finalizer lets go
/// of the GIL, and its changes are no one's interrupted set).
bool collecting_here() { return wsarray_gc_collecting() && g_collecting_thread == PyThread_get_thread_ident(); }

/// gc.callbacks' first entry: notes the thread of each collection at its start.
PyObject *gc_phase(PyObject *, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs >= 1 && PyUnicode_Check(args[0]) && PyUnicode_CompareWithASCIIString(args[0], "start") == 0)
        g_collecting_thread = PyThread_get_thread_ident();
    Py_RETURN_NONE;
}

PyMethodDef g_gc_phase_def = {"_gc_phase", (PyCFunction) (void (*)(void)) gc_phase, METH_FASTCALL,
                              "Notes the thread each garbage collection runs on (context_change.h)."};

/// A copy of the current context, or null (out of memory: not kept, and the change goes ahead
/// unprotected, as before). Leaves the error indicator as it was.
PyObject *copy_current() {
    SavedError saved;
    return PyContext_CopyCurrent();
}

/// Release copies (null ones skipped): a map's last values may run code (a __del__), with the
/// error indicator saved.
void drop(const std::vector<PyObject *> &copies) {
    SavedError saved;
    for (PyObject *o : copies) Py_XDECREF(o);
}

} // namespace

ContextChange::ContextChange() {
    if (!kCollectorRunsInAllocations) return;
    collecting_ = collecting_here();
    if (!collecting_) return;
    if (PyObject *copy = copy_current()) {
        try {
            g_before->push_back(copy);
        } catch (...) {
            Py_DECREF(copy);
        }
    }
}

ContextChange::~ContextChange() {
    if (!kCollectorRunsInAllocations || !collecting_) return;
    PyObject *previous = g_after;
    g_after = copy_current();
    drop({previous});  // the collector is still held off (pause_, destroyed after this body)
}

void release_kept_context_maps() {
    if (!kCollectorRunsInAllocations || wsarray_gc_collecting()) return;
    if (g_before->empty() && !g_after) return;
    std::vector<PyObject *> kept;
    kept.swap(*g_before);
    kept.push_back(g_after);
    g_after = nullptr;
    drop(kept);
}

void watch_collections() {
    if (!kCollectorRunsInAllocations) return;
    PyObject *fn = PyCFunction_New(&g_gc_phase_def, nullptr);
    PyObject *gc = fn ? PyImport_ImportModule("gc") : nullptr;
    PyObject *callbacks = gc ? PyObject_GetAttrString(gc, "callbacks") : nullptr;
    // First, so that code the other callbacks run at a collection's start already sees its thread.
    int failed = !callbacks || PyList_Insert(callbacks, 0, fn) < 0;
    Py_XDECREF(callbacks);
    Py_XDECREF(gc);
    Py_XDECREF(fn);
    if (failed) PyErr_Clear();  // then no change counts as made inside a collection: nothing is kept
}

Py_ssize_t kept_context_maps() { return (Py_ssize_t) g_before->size() + (g_after != nullptr); }

} // namespace wsa_py
