/// src/core/manager.h -- the per-thread workspace stack and name table.
///
/// Each thread has its own workspaces (by name) and a stack of frames: an open cycle of a
/// workspace, a borrow of an outer open workspace, or a scope-out (allocations bypass every
/// workspace). The top frame decides where the next allocation goes. Closing a frame that is not on
/// top closes the frames above it first, so the stack is consistent after any exception.
#pragma once
#include "workspace.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace wsa {

enum class FrameKind { Cycle, Borrow, ScopeOut };

struct Frame {
    FrameKind kind;
    std::shared_ptr<Workspace> ws;  ///< null for ScopeOut
    std::uint64_t id;
};

class ThreadWorkspaces {
public:
    ~ThreadWorkspaces();

    /// The workspace called `name` on this thread, created with `config` if absent. With a config
    /// that differs from an existing workspace's, throws WorkspaceMisuse.
    std::shared_ptr<Workspace> get_or_create(const std::string &name, const Config *config);
    std::shared_ptr<Workspace> find(const std::string &name) const;

    /// Frames; each returns the id to close it with.
    std::uint64_t open_cycle(const std::shared_ptr<Workspace> &ws);
    std::uint64_t borrow(const std::shared_ptr<Workspace> &ws);
    std::uint64_t scope_out();
    /// Close the frame `id` and any frames opened above it. Returns how many frames above it had
    /// to be closed (0 when the scopes were properly nested).
    std::size_t close(std::uint64_t id);

    /// Where allocations go now: null outside every workspace or inside scope_out().
    Workspace *target() const { return target_; }
    /// The innermost workspace with an open cycle (ignores borrows and scope-outs).
    std::shared_ptr<Workspace> innermost_open() const;
    /// The workspace with an open cycle just below `ws` on the stack (for leverage()).
    std::shared_ptr<Workspace> parent_of(const Workspace *ws) const;
    bool is_open(const Workspace *ws) const;

    void destroy(const std::string &name);
    void destroy_all();
    std::vector<std::shared_ptr<Workspace>> all() const;
    const std::vector<Frame> &frames() const { return stack_; }

    static ThreadWorkspaces &current();

private:
    void update_target();
    std::map<std::string, std::shared_ptr<Workspace>> by_name_;
    std::vector<Frame> stack_;
    std::uint64_t next_id_ = 1;
    Workspace *target_ = nullptr;
};

} // namespace wsa
