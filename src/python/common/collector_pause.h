/// src/python/common/collector_pause.h -- CollectorPause: CPython's cyclic garbage collector held off
/// for a scope.
///
/// Before 3.12 the collector runs inside any allocation of a tracked object, and with it
/// finalizers, weakref and gc callbacks and, between their bytecodes, signal handlers: code that
/// may free arrays, end cycles or use wsarray again. wsarray's bookkeeping that holds borrowed
/// references or C++ references into its own tables while it allocates (the allocation sites and
/// block records kept for the memory history, run inside NumPy's allocator; context variable
/// changes, context_change.h) runs inside a CollectorPause: nothing runs inside it but its own
/// code. From 3.12 on the collector runs only between bytecodes and a pause does nothing.
#pragma once
#include <Python.h>

namespace wsa_py {

class CollectorPause {
public:
#if PY_VERSION_HEX < 0x030C0000
    CollectorPause() : was_enabled_(PyGC_Disable()) {}
    ~CollectorPause() {
        if (was_enabled_) PyGC_Enable();
    }
#else
    CollectorPause() = default;
#endif
    CollectorPause(const CollectorPause &) = delete;
    CollectorPause &operator=(const CollectorPause &) = delete;

private:
#if PY_VERSION_HEX < 0x030C0000
    int was_enabled_;
#endif
};

} // namespace wsa_py
