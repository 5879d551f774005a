/// src/python/array_pool.h -- dead wsarray.Array instances kept for the next result.
///
/// Every small operation makes one Array and, a moment later, frees one. nanobind's own instance
/// pool (nb::pooled()) already saves the allocation; this one also skips what nanobind does per
/// instance around it (its pool lookup, the state-word updates, the destructor called through the
/// type record): about 100 instructions of a small call's ~2,000. An Array here is destroyed (its
/// C++ members gone), untracked by the garbage collector, holds no reference to its type, and is
/// still registered with nanobind exactly as in nanobind's pool; taking one out resurrects it.
/// Under the GIL only: free-threaded builds (and a nanobind whose instance layout differs from the
/// one checked at import) leave every Array to nanobind.
#pragma once
#include <Python.h>
#include <nanobind/nanobind.h>

#include <cstdint>
#include <cstring>

namespace wsa_py {

namespace nb = nanobind;

/// The Python type object of wsarray.Array (set by export_array).
extern PyTypeObject *ArrayType;

struct ArrayPool {
    static constexpr int kCapacity = 512;
    /// The offset of nanobind's 4-byte state word in an instance, and its values for an Array
    /// constructed and ready, and for one not constructed (read off a real instance at import).
    static constexpr std::size_t kStateOffset = sizeof(PyObject) + sizeof(std::int32_t);
    std::uint32_t ready_state = 0, unready_state = 0;
    bool enabled = false;
    int count = 0;
    PyObject *slots[kCapacity];
};
extern ArrayPool g_array_pool;

/// Make the pool (right after the Array type exists, before any Array): reads where nanobind puts
/// an Array in its instance (g_array_offset), checks nanobind's layout, installs the type's
/// deallocator, empties the pool at interpreter exit.
void init_array_pool();

inline std::uint32_t nb_state_word(PyObject *o) {
    std::uint32_t w;
    std::memcpy(&w, (const char *) o + ArrayPool::kStateOffset, sizeof w);
    return w;
}

/// A new Array instance (reference owned by the caller) whose Array is still to be placed at
/// array_of(o); then array_instance_ready(o, pooled). `pooled`: it came from this pool (else from
/// nanobind). Throws nanobind's error if out of memory.
inline PyObject *new_array_instance(bool &pooled) {
    ArrayPool &p = g_array_pool;
    pooled = p.count != 0;
    if (pooled) {
        PyObject *o = p.slots[--p.count];
        Py_SET_REFCNT(o, 1);  // what nanobind's pool does (GIL builds)
        Py_INCREF((PyObject *) ArrayType);
        return o;
    }
    return nb::inst_alloc(nb::handle((PyObject *) ArrayType)).release().ptr();
}

/// The Array of `o` (from new_array_instance()) is constructed: mark it ready for nanobind and
/// track it for the garbage collector, as nanobind's own instances are.
inline void array_instance_ready(PyObject *o, bool pooled) {
    if (!pooled) {  // from nanobind (tracked when made)
        nb::inst_mark_ready(o);
        return;
    }
    std::uint32_t w = g_array_pool.ready_state;
    std::memcpy((char *) o + ArrayPool::kStateOffset, &w, sizeof w);
    PyObject_GC_Track(o);
}

} // namespace wsa_py
