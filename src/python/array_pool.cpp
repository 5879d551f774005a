/// src/python/array_pool.cpp -- the pool of dead Arrays (see array_pool.h): the type's
/// deallocator that fills it, and the check of nanobind's instance layout that enables it.
#include "array_pool.h"

#include "array_record.h"

namespace wsa_py {

ArrayPool g_array_pool;
std::ptrdiff_t g_array_offset = 0;

namespace {

destructor g_nanobind_dealloc = nullptr;  // nanobind's tp_dealloc, for everything not pooled

void set_state_word(PyObject *o, std::uint32_t w) { std::memcpy((char *) o + ArrayPool::kStateOffset, &w, sizeof w); }

/// Hand a destroyed Array (refcount 0, its type's reference still held) to nanobind, marked as
/// not constructed: nanobind frees it (or keeps it in its own pool) without destroying it again.
void to_nanobind(PyObject *o) {
    set_state_word(o, g_array_pool.unready_state);
    g_nanobind_dealloc(o);
}

void array_dealloc(PyObject *o) {
    ArrayPool &p = g_array_pool;
    if (!p.enabled || Py_TYPE(o) != ArrayType || p.count >= ArrayPool::kCapacity || nb_state_word(o) != p.ready_state)
        return g_nanobind_dealloc(o);
    PyObject_GC_UnTrack(o);
    // Weak references, if any (the list pointer read directly where the type has one of its own).
    Py_ssize_t list = ArrayType->tp_weaklistoffset;
    if (list <= 0 || *(PyObject **) ((char *) o + list)) PyObject_ClearWeakRefs(o);
    array_of(o).~Array();       // may run Python code (an object array's elements), even make Arrays
    if (!p.enabled || p.count >= ArrayPool::kCapacity) return to_nanobind(o);
    set_state_word(o, p.unready_state);  // never destroyed twice, should it die unconstructed
    p.slots[p.count++] = o;
    Py_DECREF((PyObject *) ArrayType);
}

/// At interpreter exit: every pooled Array back to nanobind, and no pooling after.
void drain() {
    ArrayPool &p = g_array_pool;
    p.enabled = false;
    while (p.count) {
        PyObject *o = p.slots[--p.count];
        Py_INCREF((PyObject *) ArrayType);  // the reference nanobind's deallocator releases
        to_nanobind(o);
    }
}

} // namespace

void init_array_pool() {
    nb::object probe = nb::inst_alloc(nb::handle((PyObject *) ArrayType));
    g_array_offset = (char *) nb::inst_ptr<Array>(probe) - (char *) probe.ptr();
#ifndef Py_GIL_DISABLED
    ArrayPool &p = g_array_pool;
    // The layout assumed: nanobind's 24-byte instance header (object header, payload offset,
    // state word) followed by the Array. Checked on a real instance; otherwise no pool.
    bool layout = (char *) nb::inst_ptr<Array>(probe) == (char *) probe.ptr() + ArrayPool::kStateOffset + 4 &&
                  PyObject_GC_IsTracked(probe.ptr()) && PyType_IS_GC(ArrayType);
    p.unready_state = nb_state_word(probe.ptr());
    new (nb::inst_ptr<Array>(probe)) Array{};
    nb::inst_mark_ready(probe);
    p.ready_state = nb_state_word(probe.ptr());
    probe = nb::object();  // dies through nanobind: the deallocator is not ours yet
    if (!layout || p.ready_state == p.unready_state) return;
    g_nanobind_dealloc = ArrayType->tp_dealloc;
    ArrayType->tp_dealloc = array_dealloc;
    PyType_Modified(ArrayType);
    p.enabled = true;
    nb::module_::import_("atexit").attr("register")(nb::cpp_function(drain));
#endif
}

} // namespace wsa_py
