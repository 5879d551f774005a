/// src/python/numpy_access/numpy_api.h -- NumPy's C API for the binding files that call it directly.
///
/// One table of NumPy's C functions serves the whole module: numpy_alloc.cpp defines it and fills
/// it (init_numpy_alloc(), the first thing module init does); every other file that includes this
/// header uses that table. Files that only need an ndarray's data, shape or dtype use the
/// accessors of numpy_access.h instead, without NumPy's headers.
#pragma once
#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
// wsarray requires NumPy 2 (pyproject.toml): its API (PyArray_Pack, direct descriptor fields) is usable.
#define NPY_TARGET_VERSION NPY_2_0_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL wsarray_ARRAY_API
#ifndef WSARRAY_DEFINE_NUMPY_API
#define NO_IMPORT_ARRAY
#endif
#include <Python.h>
#include <numpy/arrayobject.h>

namespace wsa_py {

/// Integers up to 2^53 in magnitude convert to double exactly, so NumPy's weak-scalar promotion of a
/// Python int with float64 gives the same double; larger ones take NumPy's path.
constexpr long long kExactInt = 1LL << 53;

/// NumPy's private flag (numpy/_core/src/multiarray/arrayobject.h) on arrays whose first write must
/// warn (a.flags._warn_on_write, diagonal()'s old views): NumPy's own writes check it
/// (PyArray_FailUnlessWriteable), so a fast path that writes directly must leave such arrays to it.
constexpr unsigned kNumpyWarnOnWrite = 1u << 31;

/// May a fast path write into `nd` directly: writeable, and no warning due on the first write?
inline bool writeable_quietly(PyArrayObject *nd) {
    return PyArray_ISWRITEABLE(nd) && !(static_cast<unsigned>(PyArray_FLAGS(nd)) & kNumpyWarnOnWrite);
}

} // namespace wsa_py
