/// src/core/memory/manager.cpp -- scopes and the per-thread workspace table (see manager.h).
#include "manager.h"

#include <atomic>

namespace wsa {

namespace {
std::atomic<std::uint64_t> g_next_frame{1};
} // namespace

Frame::Frame(FrameKind kind_, std::shared_ptr<Workspace> ws_, std::shared_ptr<void> context_)
    : kind(kind_), ws(std::move(ws_)), id(g_next_frame.fetch_add(1, std::memory_order_relaxed)),
      thread(std::this_thread::get_id()), context(std::move(context_)), cycle(ws ? ws->cycle_serial() : 0) {}

Frame::~Frame() {
    if (open && kind == FrameKind::Cycle && ws && ws->cycle_serial() == cycle) {
        open = false;
        (void) ws->end_cycle();
        bump_scope_epoch();
    }
}

bool Frame::live(std::thread::id me) const {
    if (!open || thread != me) return false;
    if (kind == FrameKind::ScopeOut) return true;
    if (!ws->alive()) return false;
    // A borrow (or a fill) lasts as long as the cycle it was opened in.
    return ws->cycle_serial() == cycle && ws->cycle_open();
}

Stack push(const Stack &s, std::shared_ptr<Frame> f) {
    return std::make_shared<const StackNode>(StackNode{std::move(f), s});
}

Stack open_part(const Stack &s) {
    if (!s || s->frame->open) return s;
    Stack cur = s->below;
    while (cur && !cur->frame->open) cur = cur->below;
    return cur;
}

bool contains(const Stack &s, const Frame *f) {
    for (const StackNode *n = s.get(); n; n = n->below.get())
        if (n->frame.get() == f) return true;
    return false;
}

Stack without(const Stack &s, const Frame *f) {
    if (s && s->frame.get() == f) return s->below;  // properly nested: nothing to rebuild
    // Rebuild the part above `f`, leaving out `f`, closed frames and borrows of `f`'s cycle.
    std::vector<std::shared_ptr<Frame>> above;
    const StackNode *n = s.get();
    for (; n && n->frame.get() != f; n = n->below.get()) above.push_back(n->frame);
    if (!n) return s;  // not there
    Stack out = n->below;
    for (auto it = above.rbegin(); it != above.rend(); ++it) {
        const Frame &g = **it;
        bool borrow_of_f = g.kind != FrameKind::ScopeOut && g.ws == f->ws && f->kind == FrameKind::Cycle;
        if (g.open && !borrow_of_f) out = push(out, *it);
    }
    return out;
}

Workspace *target_of(const Stack &s) {
    const std::thread::id me = std::this_thread::get_id();
    for (const StackNode *n = s.get(); n; n = n->below.get()) {
        if (!n->frame->live(me)) continue;
        Workspace *ws = n->frame->ws.get();  // null for a scope-out
        // Host arrays go to the innermost workspace of host memory: a device (or no-touch)
        // workspace nested inside a host one leaves host allocations to the host one.
        if (ws && !ws->host_memory()) continue;
        return ws;
    }
    return nullptr;
}

std::shared_ptr<Workspace> innermost_open(const Stack &s) {
    const std::thread::id me = std::this_thread::get_id();
    for (const StackNode *n = s.get(); n; n = n->below.get())
        if (n->frame->kind == FrameKind::Cycle && n->frame->live(me)) return n->frame->ws;
    return nullptr;
}

std::shared_ptr<Workspace> parent_of(const Stack &s, const Workspace *ws) {
    const std::thread::id me = std::this_thread::get_id();
    bool seen = false;
    for (const StackNode *n = s.get(); n; n = n->below.get()) {
        const Frame &f = *n->frame;
        if (f.kind != FrameKind::Cycle || !f.live(me)) continue;
        if (seen && f.ws.get() != ws) return f.ws;
        if (f.ws.get() == ws) seen = true;
    }
    return nullptr;
}

bool is_open_in(const Stack &s, const Workspace *ws) {
    const std::thread::id me = std::this_thread::get_id();
    for (const StackNode *n = s.get(); n; n = n->below.get())
        if (n->frame->kind == FrameKind::Cycle && n->frame->ws.get() == ws && n->frame->live(me)) return true;
    return false;
}

std::vector<const Frame *> live_frames(const Stack &s) {
    const std::thread::id me = std::this_thread::get_id();
    std::vector<const Frame *> out;
    for (const StackNode *n = s.get(); n; n = n->below.get())
        if (n->frame->live(me)) out.push_back(n->frame.get());
    return {out.rbegin(), out.rend()};
}

std::string close_frame(Frame &f) {
    if (!f.open) return "";
    f.open = false;
    if (f.kind == FrameKind::Cycle && f.ws->cycle_serial() == f.cycle) return f.ws->end_cycle();  // bumps
    bump_scope_epoch();
    return "";
}

ThreadWorkspaces &ThreadWorkspaces::current() {
    thread_local ThreadWorkspaces state;
    return state;
}

ThreadWorkspaces::~ThreadWorkspaces() { destroy_all(DestroyReason::ThreadExit, true); }

std::shared_ptr<Workspace> ThreadWorkspaces::get_or_create(const std::string &name, const Config *config) {
    if (name.empty()) throw WorkspaceMisuse("a workspace needs a non-empty name");
    auto it = by_name_.find(name);
    if (it != by_name_.end()) {
        if (config && !(*config == it->second->config()))
            throw WorkspaceMisuse("workspace '" + name +
                                  "' already exists on this thread with a "
                                  "different configuration; destroy it first "
                                  "(wsarray.memory.destroy_workspace('" +
                                  name + "')) or pass no config");
        return it->second;
    }
    auto ws = std::make_shared<Workspace>(name, config ? *config : Config());
    by_name_.emplace(name, ws);
    ++version_;
    return ws;
}

std::shared_ptr<Workspace> ThreadWorkspaces::find(const std::string &name) const {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : it->second;
}

bool ThreadWorkspaces::owns(const Workspace *ws) const {
    auto it = by_name_.find(ws->name());
    return it != by_name_.end() && it->second.get() == ws;
}

// Destroying a workspace may run Python (a device source's free() takes its chunks back, and the
// collector may run code there that destroys workspaces of this thread): the table is changed
// before any workspace is destroyed, never walked across a destroy.
void ThreadWorkspaces::destroy(const std::string &name, DestroyReason why) {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) throw WorkspaceMisuse("no workspace named '" + name + "' on this thread");
    if (it->second->cycle_open())
        throw WorkspaceMisuse("workspace '" + name +
                              "' is in use (its cycle is open); leave its "
                              "'with' block before destroying it");
    std::shared_ptr<Workspace> ws = std::move(it->second);
    by_name_.erase(it);
    ++version_;
    bump_scope_epoch();
    ws->destroy(why);
}

void ThreadWorkspaces::destroy_all(DestroyReason why, bool force) {
    if (!force) {
        std::string busy;
        for (auto &kv : by_name_)
            if (kv.second->cycle_open()) busy += (busy.empty() ? "'" : ", '") + kv.first + "'";
        if (!busy.empty())
            throw WorkspaceMisuse("workspaces " + busy +
                                  " are in use (their cycles are open); leave "
                                  "their 'with' blocks before destroying all workspaces");
    }
    std::map<std::string, std::shared_ptr<Workspace>> gone;
    gone.swap(by_name_);
    ++version_;
    bump_scope_epoch();
    for (auto &kv : gone) {
        if (force) (void) kv.second->end_cycle();
        kv.second->destroy(why);
    }
}

std::vector<std::shared_ptr<Workspace>> ThreadWorkspaces::all() const {
    std::vector<std::shared_ptr<Workspace>> out;
    for (auto &kv : by_name_) out.push_back(kv.second);
    return out;
}

} // namespace wsa
