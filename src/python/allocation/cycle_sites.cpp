/// src/python/allocation/cycle_sites.cpp -- per-cycle allocation sites while tracemalloc traces (see
/// cycle_sites.h). The counts live in the thread state's dictionary ("wsarray.cycle_sites":
/// {workspace address: {frames: [bytes, blocks]}}), so CPython frees them with the thread; only
/// traced allocations are counted, so nothing is paid while tracemalloc is off.
#include "allocation/cycle_sites.h"

#include "common/collector_pause.h"
#include "common/saved_error.h"
#include "memory/workspace.h"

#include <frameobject.h>

#include <cstdint>

namespace wsa_py {

namespace nb = nanobind;

namespace {

thread_local bool tl_noted = false;  // a site was counted on this thread since the last take

constexpr int kFrames = 6;  // innermost frames kept per site: the program's own is picked later

PyObject *sites_key() {
    static PyObject *key = PyUnicode_InternFromString("wsarray.cycle_sites");  // kept
    return key;
}

/// (filename, lineno) of the innermost kFrames Python frames, innermost first (new reference).
PyObject *current_frames() {
    PyObject *frames = PyTuple_New(kFrames);
    if (!frames) return nullptr;
    int n = 0;
    PyFrameObject *f = PyEval_GetFrame();  // borrowed
    Py_XINCREF(f);
    while (f && n < kFrames) {
        PyCodeObject *code = PyFrame_GetCode(f);
        PyObject *item = Py_BuildValue("(Oi)", code->co_filename, PyFrame_GetLineNumber(f));
        Py_DECREF(code);
        if (!item) {
            Py_DECREF(f);
            Py_DECREF(frames);
            return nullptr;
        }
        PyTuple_SET_ITEM(frames, n++, item);
        PyFrameObject *back = PyFrame_GetBack(f);
        Py_DECREF(f);
        f = back;
    }
    Py_XDECREF(f);
    if (n < kFrames && _PyTuple_Resize(&frames, n) < 0) return nullptr;
    return frames;
}

} // namespace

void note_site(const wsa::Workspace *ws, const void *p, std::size_t bytes) {
    // Inside NumPy's allocator, with the thread's dictionaries borrowed: nothing else may run
    // (a cycle ended by a finalizer takes its sites, freeing the dictionary written below).
    CollectorPause pause;
    tl_noted = true;
    const bool spilled = wsa::Workspace::is_spill(p);
    SavedError saved;  // a count lost is not an error of the allocation
    PyObject *state = PyThreadState_GetDict();  // borrowed
    PyObject *frames = state ? current_frames() : nullptr;
    if (frames) {
        PyObject *all = PyDict_GetItemWithError(state, sites_key());  // borrowed
        if (!all && !PyErr_Occurred()) {
            PyObject *fresh = PyDict_New();
            if (fresh && PyDict_SetItem(state, sites_key(), fresh) == 0) all = fresh;
            Py_XDECREF(fresh);
        }
        PyObject *wskey = all ? PyLong_FromVoidPtr((void *) ws) : nullptr;
        PyObject *mine = wskey ? PyDict_GetItemWithError(all, wskey) : nullptr;
        if (wskey && !mine && !PyErr_Occurred()) {
            PyObject *fresh = PyDict_New();
            if (fresh && PyDict_SetItem(all, wskey, fresh) == 0) mine = fresh;
            Py_XDECREF(fresh);
        }
        if (mine) {
            // borrowed: [bytes, blocks, spilled bytes, spilled blocks]
            PyObject *counts = PyDict_GetItemWithError(mine, frames);
            if (counts) {
                const std::size_t add[4] = {bytes, 1, spilled ? bytes : 0, spilled ? std::size_t(1) : 0};
                for (Py_ssize_t i = 0; i < 4; ++i) {
                    if (!add[i]) continue;
                    PyObject *v = PyLong_FromSize_t(PyLong_AsSize_t(PyList_GET_ITEM(counts, i)) + add[i]);
                    if (!v) break;
                    PyList_SetItem(counts, i, v);  // steals
                }
            } else if (!PyErr_Occurred()) {
                PyObject *fresh = Py_BuildValue("[nnnn]", (Py_ssize_t) bytes, (Py_ssize_t) 1,
                                                (Py_ssize_t) (spilled ? bytes : 0), (Py_ssize_t) (spilled ? 1 : 0));
                if (fresh) PyDict_SetItem(mine, frames, fresh);
                Py_XDECREF(fresh);
            }
        }
        Py_XDECREF(wskey);
        Py_DECREF(frames);
    }
}

nb::object take_sites(const wsa::Workspace &ws) {
    if (!tl_noted) return nb::none();  // the common case: nothing traced on this thread
    CollectorPause pause;  // `mine` is read while the list is made: nothing may add sites meanwhile
    PyObject *state = PyThreadState_GetDict();
    PyObject *all = state ? PyDict_GetItemWithError(state, sites_key()) : nullptr;
    if (!all) {
        PyErr_Clear();
        return nb::none();
    }
    nb::object wskey = nb::steal(PyLong_FromVoidPtr((void *) &ws));
    if (!wskey.is_valid()) throw nb::python_error();
    PyObject *mine = PyDict_GetItemWithError(all, wskey.ptr());
    if (!mine) {
        PyErr_Clear();
        return nb::none();
    }
    nb::list out;
    PyObject *frames, *counts;
    Py_ssize_t pos = 0;
    while (PyDict_Next(mine, &pos, &frames, &counts))
        out.append(nb::make_tuple(nb::handle(frames), nb::handle(PyList_GET_ITEM(counts, 0)),
                                  nb::handle(PyList_GET_ITEM(counts, 1)), nb::handle(PyList_GET_ITEM(counts, 2)),
                                  nb::handle(PyList_GET_ITEM(counts, 3))));
    if (PyDict_DelItem(all, wskey.ptr()) < 0) PyErr_Clear();
    if (PyDict_GET_SIZE(all) == 0) tl_noted = false;
    return std::move(out);
}

} // namespace wsa_py
