/// src/core/memory/manager.h -- scopes (frames) and the per-thread table of named workspaces.
///
/// A scope is a Frame: an open cycle of a workspace, a borrow of an enclosing open cycle, a
/// scope-out (allocations bypass every workspace) or a fill (allocations go to a workspace whose
/// cycle something else opened and will end: the data pipeline's batch ring). Frames form
/// immutable stacks (persistent linked lists): the bindings keep one per Python `contextvars`
/// context, so every thread, asyncio task and context has its own, and a context copied from
/// another (a new task) shares the frames it inherited. Closing a frame marks it closed for every
/// stack that holds it. Which workspace gets an allocation is decided by the stack's top *live*
/// frame: open, opened on the calling thread (a stack carried to another thread by a copied context
/// shows that thread nothing), and for a borrow, the borrowed cycle still open.
///
/// Workspaces belong to the thread that created them (by name, in ThreadWorkspaces); scopes belong
/// to the context that opened them: only that context, on that thread, may close them.
#pragma once
#include "workspace.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace wsa {

enum class FrameKind { Cycle, Borrow, ScopeOut, Fill };

struct Frame {
    Frame(FrameKind kind, std::shared_ptr<Workspace> ws, std::shared_ptr<void> context);
    /// A cycle frame that nothing can close any more (every stack holding it is gone: its asyncio
    /// task finished, its generator was collected) ends its cycle here. Never throws.
    ~Frame();
    Frame(const Frame &) = delete;
    Frame &operator=(const Frame &) = delete;

    const FrameKind kind;
    const std::shared_ptr<Workspace> ws;  ///< null for ScopeOut
    const std::uint64_t id;               ///< unique in the process
    const std::thread::id thread;         ///< the thread that opened it
    /// Identity of the context that opened it, opaque to the core (the bindings keep a weak
    /// reference to the Python context here: an address could be reused by a new context).
    const std::shared_ptr<void> context;
    const std::uint64_t cycle;            ///< ws->cycle_serial() when opened
    bool open = true;

    /// Does this frame decide allocations on thread `me` now?
    bool live(std::thread::id me) const;
};

struct StackNode {
    std::shared_ptr<Frame> frame;
    std::shared_ptr<const StackNode> below;
};
using Stack = std::shared_ptr<const StackNode>;

/// `s` with `f` on top.
Stack push(const Stack &s, std::shared_ptr<Frame> f);
/// `s` without the closed frames on its top (a closed frame is left in its stacks when it closes:
/// it decides nothing any more, and the next push of its context drops it).
Stack open_part(const Stack &s);
/// `s` without `f`, without frames that are no longer open, and without borrows of `f`'s cycle.
Stack without(const Stack &s, const Frame *f);
/// Is `f` in `s`?
bool contains(const Stack &s, const Frame *f);

/// Where host allocations go for stack `s` on the calling thread: the workspace of the top live
/// frame whose memory is the host's (frames of device or no-touch workspaces are passed over; null
/// outside every workspace or inside a scope-out).
Workspace *target_of(const Stack &s);
/// The innermost live cycle frame's workspace (ignores borrows and scope-outs).
std::shared_ptr<Workspace> innermost_open(const Stack &s);
/// The live cycle just outside `ws`'s live cycle (for leverage()); null if none.
std::shared_ptr<Workspace> parent_of(const Stack &s, const Workspace *ws);
/// Does `s` hold a live cycle frame of `ws`?
bool is_open_in(const Stack &s, const Workspace *ws);
/// The live frames of `s`, outermost first.
std::vector<const Frame *> live_frames(const Stack &s);

/// Close `f`: mark it closed and, for a cycle, end the cycle. Returns the message of an error the
/// end of the cycle met (learning could not map its size, ...; empty when none). Never throws.
std::string close_frame(Frame &f);

class ThreadWorkspaces {
public:
    /// Ends any open cycle and destroys every workspace (the thread exits). Never throws.
    ~ThreadWorkspaces();

    /// The workspace called `name` on this thread, created with `config` if absent. With a config
    /// that differs from an existing workspace's, throws WorkspaceMisuse.
    std::shared_ptr<Workspace> get_or_create(const std::string &name, const Config *config);
    std::shared_ptr<Workspace> find(const std::string &name) const;
    /// Is `ws` the workspace registered under its name on this thread?
    bool owns(const Workspace *ws) const;

    /// Destroy a workspace of this thread. Throws WorkspaceMisuse while its cycle is open.
    void destroy(const std::string &name, DestroyReason why = DestroyReason::Explicit);
    /// Destroy every workspace of this thread; throws WorkspaceMisuse (destroying nothing) while
    /// any of them has an open cycle. `force` (thread exit): end open cycles first, never throw.
    void destroy_all(DestroyReason why = DestroyReason::Explicit, bool force = false);
    std::vector<std::shared_ptr<Workspace>> all() const;
    bool empty() const { return by_name_.empty(); }
    /// Changes whenever a workspace is created or destroyed on this thread (a cached lookup by
    /// name holds while it is the same).
    std::uint64_t version() const { return version_; }

    static ThreadWorkspaces &current();

private:
    std::map<std::string, std::shared_ptr<Workspace>> by_name_;
    std::uint64_t version_ = 0;
};

} // namespace wsa
