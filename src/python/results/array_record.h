/// src/python/results/array_record.h -- the state behind a wsarray.Array (the record that follows its
/// ndarray fields, array_object.h): the NumPy ndarray it holds, the workspace cycle that ndarray's
/// memory belongs to (Token), and the Array it is a view of. The record knows nothing of the object
/// it lies in: array_object.h (which includes this) has the accessors from an object.
#pragma once
#include "common/errors.h"
#include "numpy_access/numpy_access.h"

#include "memory/workspace.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

namespace wsa_py {

/// What the bindings keep for each workspace (the core's Attachment: made with every workspace once
/// register_workspace_binding() ran, at module init).
struct WorkspaceBinding : wsa::Attachment {
    /// The bindings' references to the workspace (their array tokens, WsRef), counted under the
    /// GIL without atomic operations; while there are any, `pin` keeps the workspace alive.
    std::size_t refs = 0;
    std::shared_ptr<wsa::Workspace> pin;
    /// A name for the owning thread, for messages ("Thread-3 (worker)").
    std::string owner_label;
    /// How to keep an array of this workspace, for the stale-array message (empty: the default
    /// advice). The data pipeline's batch ring names the iterator and detach() here.
    std::string stale_hint;
};
/// The bindings' state of `ws` (every workspace has one: see WorkspaceBinding).
inline WorkspaceBinding &binding_of(const wsa::Workspace &ws) {
    return *static_cast<WorkspaceBinding *>(ws.attachment());
}
/// Give every workspace made from now on its WorkspaceBinding (module init, before any workspace).
void register_workspace_binding();

/// A workspace reference held by a Python object (an Array's token). Under the GIL the references
/// are counted without atomic operations (WorkspaceBinding::refs): the first one pins the
/// workspace (a shared_ptr it keeps to itself), the last one lets go, so a small result costs no
/// atomic reference-count update. Without a GIL (free-threaded builds), a shared_ptr.
class WsRef {
public:
    WsRef() = default;
    WsRef(wsa::Workspace *ws) : ws_(ws) { acquire(); }  // NOLINT: converts as a shared_ptr would
    WsRef(const std::shared_ptr<wsa::Workspace> &ws) : WsRef(ws.get()) {}  // NOLINT
    WsRef(const WsRef &o) : WsRef(o.ws_) {}
    WsRef(WsRef &&o) noexcept : ws_(o.ws_) {
        o.ws_ = nullptr;
#ifdef Py_GIL_DISABLED
        pin_ = std::move(o.pin_);
#endif
    }
    WsRef &operator=(WsRef o) noexcept {
        std::swap(ws_, o.ws_);
#ifdef Py_GIL_DISABLED
        std::swap(pin_, o.pin_);
#endif
        return *this;
    }
    ~WsRef() { release(); }
    wsa::Workspace *get() const { return ws_; }
    wsa::Workspace *operator->() const { return ws_; }
    wsa::Workspace &operator*() const { return *ws_; }
    explicit operator bool() const { return ws_ != nullptr; }
    bool operator==(const WsRef &o) const { return ws_ == o.ws_; }
    bool operator==(const std::shared_ptr<wsa::Workspace> &o) const { return ws_ == o.get(); }

private:
    void acquire() {
        if (!ws_) return;
#ifdef Py_GIL_DISABLED
        pin_ = ws_->shared_from_this();
#else
        WorkspaceBinding &b = binding_of(*ws_);
        if (b.refs++ == 0) b.pin = ws_->shared_from_this();
#endif
    }
    void release() {
        if (!ws_) return;
#ifdef Py_GIL_DISABLED
        pin_.reset();
#else
        WorkspaceBinding &b = binding_of(*ws_);
        if (--b.refs == 0) {
            std::shared_ptr<wsa::Workspace> last = std::move(b.pin);  // may destroy it (and `b`)
        }
#endif
        ws_ = nullptr;
    }
    wsa::Workspace *ws_ = nullptr;
#ifdef Py_GIL_DISABLED
    std::shared_ptr<wsa::Workspace> pin_;
#endif
};

/// Which workspace cycle an array's memory belongs to. No workspace: always valid.
struct Token {
    WsRef ws;
    std::uint64_t generation = 0;
};

struct Array;
/// Give the record of an Array NumPy made (empty) an ndarray of its own (array_object.cpp).
void adopt_record(Array &a);

/// The state behind a wsarray.Array: a NumPy ndarray over workspace (or ordinary) memory.
struct Array {
    /// The ndarray.
    nb::object nd_;
    Token token;
    /// The Array whose ndarray is `data`'s base (a view's `a.base is x`, as in NumPy); set when the
    /// view is made from `x` (or from a view of `x`), or on the first read of `a.base`.
    nb::object base;
    ~Array();
    /// The ndarray (an Array NumPy made is adopted first: adopt_record(), array_object.cpp).
    const nb::object &data() {
        if (!nd_.is_valid()) adopt_record(*this);
        return nd_;
    }
};

/// Is memory of this token usable now (no workspace, or its cycle still open)?
inline bool token_valid(const Token &t) {
    if (!t.ws) return true;
    if (!t.ws->alive()) return false;
    return t.ws->circular() || t.ws->generation() == t.generation;
}
/// Raise WorkspaceError naming `fn`, saying why the array's memory is no longer usable (its
/// cycle ended, its workspace was destroyed, its thread exited, ...).
[[noreturn]] void raise_stale(const Array &a, const char *fn);
/// The same for memory of `token` (a device array's block: wsarray/_devices/array.py).
/// `data`: the array's data, to say where it was made when tracemalloc traced it (may be null).
[[noreturn]] void raise_stale_token(const Token &token, const char *fn, const void *data = nullptr);
/// Token for memory at the data pointer of ndarray `o`.
Token token_for(PyObject *o);
/// Token for an array made now in `target` (the current route; null: no workspace).
inline Token token_of_target(wsa::Workspace *target) {
    Token t;
    if (target) {
        t.ws = WsRef(target);
        t.generation = target->generation();
    }
    return t;
}

} // namespace wsa_py
