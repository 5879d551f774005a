/// src/python/array_record.h -- the state behind a wsarray.Array: its NumPy ndarray, the workspace
/// cycle its memory belongs to (Token), and the list of Arrays a workspace holds so that
/// destroying it makes its stale Arrays let go of their memory.
#pragma once
#include "array_pool.h"
#include "errors.h"
#include "numpy_access.h"

#include "memory/workspace.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

namespace wsa_py {

/// A workspace reference held by a Python object (an Array's token). Under the GIL the references
/// are counted without atomic operations (Workspace::binding_refs): the first one pins the
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
        if (ws_->binding_refs++ == 0) ws_->binding_pin = ws_->shared_from_this();
#endif
    }
    void release() {
        if (!ws_) return;
#ifdef Py_GIL_DISABLED
        pin_.reset();
#else
        if (--ws_->binding_refs == 0) {
            std::shared_ptr<wsa::Workspace> last = std::move(ws_->binding_pin);  // may destroy it
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

/// The state behind a wsarray.Array: a NumPy ndarray over workspace (or ordinary) memory.
struct Array {
    /// The ndarray.
    nb::object nd_;
    Token token;
    /// The Array whose ndarray is `data`'s base (a view's `a.base is x`, as in NumPy); set when the
    /// view is made from `x` (or from a view of `x`), or on the first read of `a.base`.
    nb::object base;
    /// Neighbours in the list of Arrays made in `token.ws` (release_holders()), guarded by the GIL.
    PyObject *ws_prev = nullptr, *ws_next = nullptr;
    bool ws_linked = false;
    /// Its __array_interface__ was read: NumPy arrays may point into its memory through this
    /// Array (their base), so it never lets go of its ndarray (release_holders()).
    bool interface_exported = false;
    ~Array();
    /// The ndarray.
    const nb::object &data() const { return nd_; }
};

/// The Python type object of wsarray.Array (set by export_array).
extern PyTypeObject *ArrayType;

inline bool is_array(PyObject *o) { return Py_TYPE(o) == ArrayType; }
/// Where the Array lies in its instance (nanobind's offset, the same for every Array: set from a
/// real instance by init_array_pool(), before any Array exists); nb::inst_ptr() is a call.
extern std::ptrdiff_t g_array_offset;
inline Array &array_of(PyObject *o) { return *reinterpret_cast<Array *>((char *) o + g_array_offset); }

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
[[noreturn]] void raise_stale_token(const Token &token, const char *fn);
/// Raise WorkspaceError naming `fn` if the array's cycle has ended or its workspace is gone.
inline void check_valid(const Array &a, const char *fn) {
    if (!token_valid(a.token)) raise_stale(a, fn);
}

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

/// Link a new Array (instance `o`) into its workspace's list of holders (release_holders());
/// unlinked when the Array dies.
void link_holder(PyObject *o);

/// A new wsarray.Array (new reference) holding ndarray `nd` (a reference is taken). Builds the
/// instance directly (no type lookup as nb::cast does); instances come from nanobind's pool.
/// `base`: the Array whose ndarray is `nd`'s base, when known. Inline: every result is made here.
inline PyObject *make_array(PyObject *nd, Token token, PyObject *base = nullptr) {
    bool pooled;
    PyObject *inst = new_array_instance(pooled);
    bool attached = (bool) token.ws;
    if (attached && ndarray_size(nd) == 0) {
        // Nothing to read, so nothing to guard: an empty array is never attached (Dask builds
        // graphs around empty `meta` arrays that must outlive the cycle they were made in).
        token = Token{};
        attached = false;
    }
    new (&array_of(inst)) Array{nb::borrow(nd), std::move(token), nb::borrow(base)};
    array_instance_ready(inst, pooled);
    if (attached) link_holder(inst);
    return inst;
}
/// make_array() for an ndarray just allocated in `target` (the current route; null: no
/// workspace), taking over the caller's reference to `nd`: the fast paths' results.
inline PyObject *wrap_new(PyObject *nd, wsa::Workspace *target) {
    nb::object owned = nb::steal(nd);
    return make_array(nd, token_of_target(target));
}

/// Make the empty ndarray stale Arrays hold once they let go of their memory (after the Array
/// type exists).
void init_array_records();

/// After `ws` was destroyed (ThreadWorkspaces::destroy or a forced end), make its stale Arrays let
/// go of their memory: only raw views handed out while they were valid keep blocks alive.
void release_holders(wsa::Workspace &ws);

} // namespace wsa_py
