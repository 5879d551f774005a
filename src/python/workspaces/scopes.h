/// src/python/workspaces/scopes.h -- scopes that follow the code's context: the stack of open scopes lives in
/// a `contextvars.ContextVar`, as NumPy's memory handler and `decimal`'s context do, so every
/// thread, asyncio task and `contextvars` context has its own; a new task inherits its creator's.
/// Only the context (on the thread) that opened a scope may close it.
#pragma once
#include "common/errors.h"

#include "memory/manager.h"

#include <memory>

namespace wsa_py {

/// This context's stack of scopes.
wsa::Stack current_stack();

/// The allocation target of this thread and context (null: outside every workspace or scoped
/// out). Valid until the next wsarray call: a RouteGuard holds it for the duration of a call.
wsa::Workspace *current_target();

/// Debug mode "bypass_everything": current_target() answers null (every allocation outside
/// workspaces) for the process (this_thread_only false) or this thread; clear_thread_bypass() drops
/// the thread's own setting; bypass_active() is what applies on this thread now.
void set_bypass(bool on, bool this_thread_only);
void clear_thread_bypass();
bool bypass_active();

/// Open a scope of `kind` over `ws` (null for scope_out) in this context: its frame goes on top of
/// this context's stack. For a cycle the caller has begun the cycle.
std::shared_ptr<wsa::Frame> open_scope(wsa::FrameKind kind, std::shared_ptr<wsa::Workspace> ws);

/// Close `f`, which this context opened: it leaves this context's stack (frames opened after it in
/// the same context stay open), and a cycle ends. Raises WorkspaceError naming `fn`, closing
/// nothing, when another context or thread opened it. A failure at the end of the cycle (learning
/// could not map memory) leaves everything consistent and becomes a RuntimeWarning.
void close_scope(wsa::Frame &f, const char *fn);

/// Close `f` where a generator or coroutine suspended inside its `with` block is finalized
/// (GeneratorExit): the garbage collector may run that on any thread and in any context. This
/// thread's frame is closed now, whatever the context; another thread's is handed to that thread,
/// which closes it before it next allocates or looks at its scopes (its workspace is its own:
/// never touched from here). Returns whether the frame was closed now (false: handed over).
bool close_scope_finalizing(const std::shared_ptr<wsa::Frame> &f, const char *fn);

/// Close this thread's frames that another thread handed over (close_scope_finalizing): called
/// before the thread reads its scopes, and when it exits. One atomic load when there are none.
void close_orphans_of_this_thread();

/// True when an `__exit__(exc_type, ...)` runs for a GeneratorExit (a generator being finalized).
bool finalizing_exit(PyObject *const *args, Py_ssize_t nargs);

/// Did the context running now open `f`?
bool opened_here(const wsa::Frame &f);

/// Create the context variable that holds the scopes (and its value's type, _ScopeStack).
void export_scopes(nb::module_ &m);

} // namespace wsa_py
