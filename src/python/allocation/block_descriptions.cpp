/// src/python/allocation/block_descriptions.cpp -- see block_descriptions.h.
#include "allocation/block_descriptions.h"

#include <nanobind/stl/string.h>

#include "numpy_access/numpy_api.h"

#include "common/collector_pause.h"
#include "common/saved_error.h"
#include "memory/workspace.h"

#include <frameobject.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace nb = nanobind;

namespace wsa_py {

int g_block_frames = 0;
std::size_t g_recorded_blocks = 0;

namespace {

struct Frame {
    PyCodeObject *code = nullptr;  ///< a strong reference
    int where = 0;                 ///< the instruction's byte offset (3.11+), or its line (3.10)
};

struct Record {
    std::size_t bytes = 0;
    std::string workspace;
    std::uint64_t cycle = 0;
    /// Unset until an array over the block is made. Kept as NumPy's objects and numbers: text and
    /// tuples are made only when the records are read.
    nb::object dtype;
    std::vector<Py_ssize_t> shape;
    int nframes = 0;
    Frame frames[kMaxBlockFrames];

    Record() = default;
    Record(const Record &) = delete;
    Record &operator=(const Record &) = delete;
    ~Record() { clear_frames(); }
    void clear_frames() {
        for (int i = 0; i < nframes; ++i) Py_XDECREF(frames[i].code);
        nframes = 0;
    }
};

/// The Python references records let go of, released once the map is consistent again: a release
/// may run Python (a dtype's metadata __del__, a code object's weakref callback) that frees blocks
/// and erases their records, or records new ones.
struct Released {
    std::vector<PyObject *> refs;
    Released() = default;
    Released(const Released &) = delete;
    Released &operator=(const Released &) = delete;
    void take(Record &r) {
        if (r.dtype.is_valid()) refs.push_back(r.dtype.release().ptr());
        for (int i = 0; i < r.nframes; ++i) refs.push_back((PyObject *) r.frames[i].code);
        r.nframes = 0;
    }
    ~Released() {
        for (PyObject *o : refs) Py_XDECREF(o);
    }
};

/// Guarded by the GIL (every caller holds it).
std::unordered_map<const void *, Record> &records() {
    static auto *map = new std::unordered_map<const void *, Record>();  // never destroyed: outlives exit
    return *map;
}

void capture(Record &r, int depth) {
    PyFrameObject *f = PyEval_GetFrame();  // borrowed
    Py_XINCREF(f);
    while (f && r.nframes < depth) {
        Frame &out = r.frames[r.nframes++];
        out.code = PyFrame_GetCode(f);  // new reference
#if PY_VERSION_HEX >= 0x030B0000
        out.where = PyFrame_GetLasti(f);
#else
        out.where = PyFrame_GetLineNumber(f);
#endif
        PyFrameObject *back = PyFrame_GetBack(f);  // new reference
        Py_DECREF(f);
        f = back;
    }
    Py_XDECREF(f);
}

int line_of(const Frame &f) {
#if PY_VERSION_HEX >= 0x030B0000
    return f.where < 0 ? f.code->co_firstlineno : PyCode_Addr2Line(f.code, f.where);
#else
    return f.where;
#endif
}

/// A record's frames, copied with their own references: reading them out allocates (and may run
/// code, another thread's too, that frees the block and its record).
struct FramesCopy {
    std::vector<nb::object> codes;
    std::vector<int> where;

    explicit FramesCopy(const Record &r) {
        for (int i = 0; i < r.nframes; ++i) {
            codes.push_back(nb::borrow((PyObject *) r.frames[i].code));
            where.push_back(r.frames[i].where);
        }
    }
    nb::tuple tuple() const {
        nb::list out;
        for (std::size_t i = 0; i < codes.size(); ++i) {
            auto *code = (PyCodeObject *) codes[i].ptr();
            out.append(nb::make_tuple(nb::handle(code->co_filename), line_of(Frame{code, where[i]})));
        }
        return nb::tuple(out);
    }
};

} // namespace

void record_blocks(int frames) {
    g_block_frames = frames < 0 ? 0 : frames > kMaxBlockFrames ? kMaxBlockFrames : frames;
}

void note_new_block(const wsa::Workspace &ws, const void *p, std::size_t bytes) {
    if (!g_block_frames || !PyGILState_Check()) return;
    CollectorPause pause;  // inside NumPy's allocator: the frames made below run no other code
    SavedError saved;      // a record's frames lost are not an error of the allocation
    Released released;     // declared first: released last, after the record is written
    auto &map = records();
    Record &r = map[p];  // a stale record (a free not seen) is replaced
    released.take(r);
    r.bytes = bytes;
    r.workspace = ws.name();
    r.cycle = ws.generation();
    r.shape.clear();
    capture(r, g_block_frames);
    g_recorded_blocks = map.size();
}

void forget_block(const void *p) {
    if (!g_recorded_blocks || !PyGILState_Check()) return;
    auto &map = records();
    auto it = map.find(p);
    if (it == map.end()) return;
    Released released;
    released.take(it->second);
    map.erase(it);
    g_recorded_blocks = map.size();
}

void describe_block(PyObject *nd) {
    auto *arr = (PyArrayObject *) nd;
    auto &map = records();
    auto it = map.find(PyArray_DATA(arr));
    if (it == map.end() || it->second.dtype.is_valid()) return;
    it->second.dtype = nb::borrow((PyObject *) PyArray_DESCR(arr));
    it->second.shape.assign(PyArray_DIMS(arr), PyArray_DIMS(arr) + PyArray_NDIM(arr));
}

PyObject *recorded_frames(const void *p) {
    if (!g_recorded_blocks || !p) return nullptr;
    auto &map = records();
    auto it = map.find(p);
    if (it == map.end() || it->second.nframes == 0) return nullptr;
    try {
        return FramesCopy(it->second).tuple().release().ptr();
    } catch (const nb::python_error &) {
        PyErr_Clear();
        return nullptr;
    }
}

nb::list recorded_blocks() {
    // First what the records hold, copied (no Python code runs meanwhile); then the Python objects,
    // whose making may run code (dtype.__str__, the collector, another thread) that frees blocks
    // and erases their records.
    struct Copy {
        std::uintptr_t address;
        std::size_t bytes;
        std::string workspace;
        std::uint64_t cycle;
        nb::object dtype;
        std::vector<Py_ssize_t> shape;
        FramesCopy frames;
    };
    std::vector<Copy> copies;
    {
        Released released;  // released after the walk
        CollectorPause pause;
        auto &map = records();
        copies.reserve(map.size());
        for (auto it = map.begin(); it != map.end();) {
            if (wsa::Workspace::owned_size(it->first) == wsa::Workspace::kNotOwned) {  // freed unseen
                released.take(it->second);
                it = map.erase(it);
                continue;
            }
            const Record &r = it->second;
            copies.push_back(
                Copy{(std::uintptr_t) it->first, r.bytes, r.workspace, r.cycle, r.dtype, r.shape, FramesCopy(r)});
            ++it;
        }
        g_recorded_blocks = map.size();
    }
    nb::list out;
    for (const Copy &c : copies) {
        nb::object dtype = nb::none(), shape = nb::none();
        if (c.dtype.is_valid()) {
            dtype = nb::str(c.dtype);
            nb::list dims;
            for (Py_ssize_t n : c.shape) dims.append(n);
            shape = nb::tuple(dims);
        }
        out.append(nb::make_tuple(c.address, c.bytes, c.workspace, c.cycle, dtype, shape, c.frames.tuple()));
    }
    return out;
}

} // namespace wsa_py
