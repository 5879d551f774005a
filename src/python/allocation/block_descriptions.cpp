/// src/python/allocation/block_descriptions.cpp -- see block_descriptions.h.
#include "allocation/block_descriptions.h"

#include <nanobind/stl/string.h>

#include "numpy_access/numpy_api.h"

#include "memory/workspace.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace nb = nanobind;

namespace wsa_py {

std::size_t g_described_blocks = 0;
std::size_t g_describe_min_bytes = kDefaultDescribeMinBytes;

namespace {

struct Description {
    std::size_t bytes = 0;
    std::string workspace;
    std::uint64_t cycle = 0;
    /// Unset until an array over the block is made. Kept as NumPy's objects and numbers: making
    /// text or tuples here would allocate Python objects, each traced by tracemalloc (frames and
    /// line numbers: microseconds), on every described result.
    nb::object dtype;
    std::vector<Py_ssize_t> shape;
};

/// Guarded by the GIL (every caller holds it).
std::unordered_map<const void *, Description> &descriptions() {
    static auto *map = new std::unordered_map<const void *, Description>();  // never destroyed: outlives exit
    return *map;
}

} // namespace

void note_new_block(const wsa::Workspace &ws, const void *p, std::size_t bytes) {
    if (bytes < g_describe_min_bytes || !PyGILState_Check()) return;
    auto &map = descriptions();
    Description &d = map[p];  // a stale entry (a free not seen) is replaced
    d.bytes = bytes;
    d.workspace = ws.name();
    d.cycle = ws.generation();
    d.dtype = nb::object();
    d.shape.clear();
    g_described_blocks = map.size();
}

void forget_block(const void *p) {
    if (!g_described_blocks || !PyGILState_Check()) return;
    auto &map = descriptions();
    if (map.erase(p)) g_described_blocks = map.size();
}

void describe_block(PyObject *nd) {
    auto *arr = (PyArrayObject *) nd;
    auto &map = descriptions();
    auto it = map.find(PyArray_DATA(arr));
    if (it == map.end() || it->second.dtype.is_valid()) return;
    it->second.dtype = nb::borrow((PyObject *) PyArray_DESCR(arr));
    it->second.shape.assign(PyArray_DIMS(arr), PyArray_DIMS(arr) + PyArray_NDIM(arr));
}

nb::list described_blocks() {
    nb::list out;
    auto &map = descriptions();
    for (auto it = map.begin(); it != map.end();) {
        if (wsa::Workspace::owned_size(it->first) == wsa::Workspace::kNotOwned) {  // freed unseen
            it = map.erase(it);
            continue;
        }
        const Description &d = it->second;
        nb::object dtype = nb::none(), shape = nb::none();
        if (d.dtype.is_valid()) {
            dtype = nb::str(d.dtype);
            nb::list dims;
            for (Py_ssize_t n : d.shape) dims.append(n);
            shape = nb::tuple(dims);
        }
        out.append(nb::make_tuple((std::uintptr_t) it->first, d.bytes, d.workspace, d.cycle, dtype, shape));
        ++it;
    }
    g_described_blocks = map.size();
    return out;
}

} // namespace wsa_py
