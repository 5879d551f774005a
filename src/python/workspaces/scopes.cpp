/// src/python/workspaces/scopes.cpp -- the context-local scope stack and the cached allocation target (see
/// scopes.h).
#include "workspaces/scopes.h"

#include "common/context_change.h"

#include <nanobind/stl/shared_ptr.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace wsa_py {

namespace {

/// The value of the context variable: one immutable stack (a new box per change).
struct ScopeStackBox {
    wsa::Stack stack;
};

PyObject *g_stack_var = nullptr;  // contextvars.ContextVar("wsarray.scopes"), kept forever

/// A weak reference to the context running now (created if the thread has none yet), as the
/// identity a frame records: contexts come from a free list, so a new one may take the address of
/// one that died; a weak reference to a dead context never matches a live one. The last one made on
/// this thread is reused while it still refers to the running context (a loop's cycles run in one).
struct ContextIdentityCache {
    std::shared_ptr<void> ref;
};
thread_local ContextIdentityCache tl_identity;

std::shared_ptr<void> context_identity() {
    PyThreadState *ts = PyThreadState_Get();
    if (!ts->context) {
        ContextChange change;
        PyObject *copy = PyContext_CopyCurrent();  // creates the thread's context
        if (!copy) throw nb::python_error();
        Py_DECREF(copy);
    }
    std::shared_ptr<void> &cached = tl_identity.ref;
    if (cached && PyWeakref_GetObject((PyObject *) cached.get()) == ts->context) return cached;
    PyObject *ref = PyWeakref_NewRef(ts->context, nullptr);
    if (!ref) throw nb::python_error();
    cached = std::shared_ptr<void>(ref, [](void *r) {
        // Frames die with the Python objects that hold them (GIL held); never touch Python
        // without it (a frame kept by a C++ thread-local at exit leaks its weak reference).
        if (Py_IsInitialized() && PyGILState_Check()) Py_DECREF((PyObject *) r);
    });
    return cached;
}

void set_stack(const wsa::Stack &s) {
    nb::object box = nb::cast(ScopeStackBox{s});
    PyObject *token;
    {
        ContextChange change;
        token = PyContextVar_Set(g_stack_var, box.ptr());
    }
    if (!token) throw nb::python_error();
    Py_DECREF(token);
    release_kept_context_maps();
    wsa::bump_scope_epoch();
}

/// The allocation target of the thread's current context, recomputed only when the context, the
/// context's version or the scope epoch changed. Holds the workspace alive until the next change.
struct TargetCache {
    const PyObject *context = nullptr;
    std::uint64_t version = 0;
    std::uint64_t epoch = 0;
    std::shared_ptr<wsa::Workspace> target;
};
thread_local TargetCache tl_cache;

/// Debug mode "bypass_everything" (wsarray.memory.set_debug): no allocation goes to a workspace,
/// the program runs as plain NumPy would. Process default (WSARRAY_DEBUG) and a per-thread
/// override (-1: none); both are read only when the target is recomputed, and changing either
/// bumps the scope epoch, so the hot path pays nothing.
std::atomic<bool> g_bypass{false};
thread_local int tl_bypass = -1;

bool bypassing() { return tl_bypass >= 0 ? tl_bypass != 0 : g_bypass.load(std::memory_order_relaxed); }

/// Frames of suspended generators finalized on another thread than the one that opened them,
/// waiting for their thread to close them (close_scope_finalizing).
std::mutex g_orphans_mutex;
// Never destroyed: frames left at exit must not end cycles during static destruction.
auto *g_orphans = new std::vector<std::shared_ptr<wsa::Frame>>();
std::atomic<bool> g_have_orphans{false};

} // namespace

void close_orphans_of_this_thread() {
    if (!g_have_orphans.load(std::memory_order_acquire)) return;
    std::vector<std::shared_ptr<wsa::Frame>> mine;
    {
        std::lock_guard<std::mutex> lock(g_orphans_mutex);
        auto me = std::this_thread::get_id();
        for (auto it = g_orphans->begin(); it != g_orphans->end();) {
            if ((*it)->thread == me) {
                mine.push_back(std::move(*it));
                it = g_orphans->erase(it);
            } else {
                ++it;
            }
        }
        g_have_orphans.store(!g_orphans->empty(), std::memory_order_release);
    }
    // The cycle ends as a frame nothing can close ends it (~Frame): no listener is called here,
    // inside whatever wsarray call is about to allocate.
    for (auto &f : mine) (void) wsa::close_frame(*f);
}

void set_bypass(bool on, bool this_thread_only) {
    if (this_thread_only) tl_bypass = on ? 1 : 0;
    else g_bypass.store(on, std::memory_order_relaxed);
    wsa::bump_scope_epoch();
}

void clear_thread_bypass() {
    tl_bypass = -1;
    wsa::bump_scope_epoch();
}

bool bypass_active() { return bypassing(); }

bool opened_here(const wsa::Frame &f) {
    PyThreadState *ts = PyThreadState_Get();
    return f.context && ts->context && PyWeakref_GetObject((PyObject *) f.context.get()) == ts->context;
}

wsa::Stack current_stack() {
    close_orphans_of_this_thread();
    PyObject *value = nullptr;
    if (PyContextVar_Get(g_stack_var, nullptr, &value) < 0) throw nb::python_error();
    if (!value) return {};
    wsa::Stack s = nb::inst_ptr<ScopeStackBox>(value)->stack;
    Py_DECREF(value);
    return s;
}

wsa::Workspace *current_target() {
    PyThreadState *ts = PyThreadState_Get();
    std::uint64_t epoch = wsa::scope_epoch();
    TargetCache &c = tl_cache;
    if (c.epoch == epoch && c.context == ts->context && c.version == ts->context_ver) return c.target.get();
    wsa::Workspace *t = bypassing() ? nullptr : wsa::target_of(current_stack());
    c.target = t ? t->shared_from_this() : nullptr;
    c.context = ts->context;
    c.version = ts->context_ver;
    c.epoch = epoch;
    return t;
}

std::shared_ptr<wsa::Frame> open_scope(wsa::FrameKind kind, std::shared_ptr<wsa::Workspace> ws) {
    auto frame = std::make_shared<wsa::Frame>(kind, std::move(ws), context_identity());
    set_stack(wsa::push(wsa::open_part(current_stack()), frame));
    return frame;
}

/// Close `f`; a failure at the end of its cycle (learning could not map memory) becomes a
/// RuntimeWarning naming `fn`.
static void close_frame_warning(wsa::Frame &f, const char *fn) {
    std::string error = wsa::close_frame(f);
    if (!error.empty() &&
        PyErr_WarnEx(PyExc_RuntimeWarning, ("wsarray." + std::string(fn) + "(): " + error).c_str(), 1) < 0)
        throw nb::python_error();
}

void close_scope(wsa::Frame &f, const char *fn) {
    auto scope = [&] {  // built only for an error
        return "wsarray." + std::string(fn) + "(): this scope of " +
               (f.ws ? "workspace '" + f.ws->name() + "'" : std::string("scope_out()"));
    };
    if (!f.open) raise(WorkspaceError, scope() + " is not open (closed twice?)");
    if (f.thread != std::this_thread::get_id())
        raise(WorkspaceError, scope() + " was opened on another thread; only the thread that opened a "
                                        "scope may close it. Nothing was closed.");
    if (!opened_here(f))
        raise(WorkspaceError,
              scope() + " was opened in another context (another asyncio "
                        "task, or a generator suspended inside its 'with' block and resumed elsewhere); only "
                        "the context that opened a scope may close it. Nothing was closed. Keep a generator's "
                        "'with' blocks from spanning a yield, or run the generator in a context of its own "
                        "(wsarray.isolated(generator)).");
    // No new stack for the context: `f`, marked closed, decides nothing any more (its borrows,
    // whose cycle ended, neither), and the context's next push drops it (wsa::open_part). Frames
    // opened after `f` in this context stay open (a generator that yielded inside its own 'with'
    // block, say). One context-variable update per scope instead of two: the update is most of a
    // cycle's cost (a new context dictionary each time).
    close_frame_warning(f, fn);
}

bool finalizing_exit(PyObject *const *args, Py_ssize_t nargs) {
    return nargs >= 1 && PyType_Check(args[0]) &&
           PyType_IsSubtype((PyTypeObject *) args[0], (PyTypeObject *) PyExc_GeneratorExit);
}

bool close_scope_finalizing(const std::shared_ptr<wsa::Frame> &f, const char *fn) {
    if (!f->open) return true;  // closed already (its cycle ended with its thread)
    if (f->kind != wsa::FrameKind::Cycle) {  // scope_out, a borrow: closing only marks the frame,
        (void) wsa::close_frame(*f);           // which any thread may do (the GIL is held)
        return true;
    }
    if (!f->ws->alive()) {  // its workspace was destroyed (its thread exited): nothing to end
        f->open = false;
        wsa::bump_scope_epoch();
        return true;
    }
    if (f->thread == std::this_thread::get_id()) {
        if (f->open && !opened_here(*f)) {  // this thread's frame, collected in another context
            close_frame_warning(*f, fn);
            return true;
        }
        close_scope(*f, fn);  // this context's: as any exit (a frame closed twice still raises)
        return true;
    }
    {
        std::lock_guard<std::mutex> lock(g_orphans_mutex);
        g_orphans->push_back(f);
        g_have_orphans.store(true, std::memory_order_release);
    }
    wsa::bump_scope_epoch();  // every thread recomputes its target: the owner finds the frame then
    return false;
}

void export_scopes(nb::module_ &m) {
    g_stack_var = PyContextVar_New("wsarray.scopes", nullptr);
    if (!g_stack_var) throw nb::python_error();
    watch_collections();
    // pooled: one box per scope change, reused rather than allocated.
    nb::class_<ScopeStackBox>(m, "_ScopeStack", nb::pooled(), "The scopes open in a context (wsarray internal).");
    m.def("_set_bypass", &set_bypass, nb::arg("on"), nb::arg("this_thread_only"),
          "Debug mode bypass_everything for the process or this thread (wsarray.memory.set_debug).");
    m.def("_clear_thread_bypass", &clear_thread_bypass, "Drop this thread's own bypass setting.");
    m.def("_bypass_active", &bypass_active, "Whether allocations bypass workspaces on this thread now.");
    m.def("_kept_context_maps", &kept_context_maps,
          "How many context variable maps changes made during a garbage collection keep (context_change.h).");
}

} // namespace wsa_py
