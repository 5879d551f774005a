/// src/python/common/context_change.h -- every change wsarray makes to a context variable (its scope
/// stack, NumPy's memory handler) is made inside a ContextChange, safe from CPython's collector.
///
/// Before 3.12, CPython's cyclic garbage collector runs inside any allocation of a tracked object,
/// and with it finalizers, weakref callbacks, gc.callbacks and, between their bytecodes, signal
/// handlers. Setting a context variable builds the context's new variable map from the old one,
/// allocating as it goes, with the old one borrowed: Python code run by a collection meanwhile that
/// sets a variable of the same context replaces that old map and frees it, and the set under way
/// then reads freed memory (a segfault: a signal handler, a __del__ or a gc callback that opened a
/// workspace while a scope opened or NumPy's errstate was entered). So:
/// - wsarray's own changes run with the collector held off: no Python code runs inside them;
/// - a change wsarray makes while a collection runs on its thread (gc.callbacks' first entry
///   notes the thread) may be inside someone else's interrupted set (np.errstate, a program's
///   ContextVar.set): it keeps the map it replaces alive (a copy of the context), and the last map
///   it made, whose value CPython's cache of the variable points at, borrowed, after the set
///   under way has replaced that map with one made from the old (the change is lost: it only
///   ever adds closed scopes, of code that ran inside the collection). They are released after
///   wsarray next sets its scope stack outside any collection: no set can be under way then on
///   any thread, and the cache points at the new stack. (The maps hold their scopes: a cycle
///   that ends when its context dies ends at that release, not before.)
/// From 3.12 on the collector runs only between bytecodes: a ContextChange does nothing.
#pragma once
#include "common/collector_pause.h"

#include <Python.h>

namespace wsa_py {

class ContextChange {
public:
    ContextChange();
    ~ContextChange();
    ContextChange(const ContextChange &) = delete;
    ContextChange &operator=(const ContextChange &) = delete;

private:
    CollectorPause pause_;  ///< first: held off before anything below reads the collector's state
    bool collecting_ = false;
};

/// Puts the collector's thread watcher first in gc.callbacks (at import).
void watch_collections();

/// After the scope stack was set: release the maps kept, unless a collection runs.
void release_kept_context_maps();

/// How many variable maps are kept now (for the tests).
Py_ssize_t kept_context_maps();

} // namespace wsa_py
