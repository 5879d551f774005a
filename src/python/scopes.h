/// src/python/scopes.h -- scopes that follow the code's context: the stack of open scopes lives in
/// a `contextvars.ContextVar`, as NumPy's memory handler and `decimal`'s context do, so every
/// thread, asyncio task and `contextvars` context has its own; a new task inherits its creator's.
/// Only the context (on the thread) that opened a scope may close it.
#pragma once
#include "common.h"

namespace wsa_py {

/// This context's stack of scopes.
wsa::Stack current_stack();

/// Open a scope of `kind` over `ws` (null for scope_out) in this context: its frame goes on top of
/// this context's stack. For a cycle the caller has begun the cycle.
std::shared_ptr<wsa::Frame> open_scope(wsa::FrameKind kind, std::shared_ptr<wsa::Workspace> ws);

/// Close `f`, which this context opened: it leaves this context's stack (frames opened after it in
/// the same context stay open), and a cycle ends. Raises WorkspaceError naming `fn`, closing
/// nothing, when another context or thread opened it. A failure at the end of the cycle (learning
/// could not map memory) leaves everything consistent and becomes a RuntimeWarning.
void close_scope(wsa::Frame &f, const char *fn);

/// Did the context running now open `f`?
bool opened_here(const wsa::Frame &f);

/// Make sure this thread's workspaces are destroyed, with the GIL held, when the thread exits
/// (before threading.Thread.join() returns), and label them with the thread's name.
void watch_thread_exit(wsa::Workspace &ws);

/// Destroy `ws` (ThreadWorkspaces::destroy or a forced end) and make its stale Arrays let go of
/// their memory: only raw views handed out while they were valid keep blocks alive.
void release_holders(wsa::Workspace &ws);

/// Link a new Array (instance `o`) into its workspace's list of holders; unlink in ~Array.
void link_holder(PyObject *o);
void unlink_holder(Array &a);

void export_scopes(nb::module_ &m);

} // namespace wsa_py
