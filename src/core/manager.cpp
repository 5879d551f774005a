/// src/core/manager.cpp -- per-thread workspace stack (see manager.h).
#include "manager.h"

namespace wsa {

ThreadWorkspaces &ThreadWorkspaces::current() {
    thread_local ThreadWorkspaces state;
    return state;
}

ThreadWorkspaces::~ThreadWorkspaces() {
    for (auto &f : stack_)
        if (f.kind == FrameKind::Cycle && f.ws) f.ws->end_cycle();
    for (auto &kv : by_name_) kv.second->destroy();
}

std::shared_ptr<Workspace> ThreadWorkspaces::get_or_create(const std::string &name,
                                                           const Config *config) {
    if (name.empty()) throw WorkspaceMisuse("a workspace needs a non-empty name");
    auto it = by_name_.find(name);
    if (it != by_name_.end()) {
        if (config && !(*config == it->second->config()))
            throw WorkspaceMisuse("workspace '" + name + "' already exists on this thread with a "
                                  "different configuration; destroy it first "
                                  "(wsarray.memory.destroy_workspace('" + name + "')) or pass no config");
        return it->second;
    }
    auto ws = std::make_shared<Workspace>(name, config ? *config : Config());
    by_name_.emplace(name, ws);
    return ws;
}

std::shared_ptr<Workspace> ThreadWorkspaces::find(const std::string &name) const {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : it->second;
}

bool ThreadWorkspaces::is_open(const Workspace *ws) const {
    for (auto &f : stack_)
        if (f.kind == FrameKind::Cycle && f.ws.get() == ws) return true;
    return false;
}

void ThreadWorkspaces::update_target() {
    target_ = stack_.empty() ? nullptr : stack_.back().ws.get();
}

std::uint64_t ThreadWorkspaces::open_cycle(const std::shared_ptr<Workspace> &ws) {
    if (ws->owner_thread() != std::this_thread::get_id())
        throw WorkspaceMisuse("workspace '" + ws->name() + "' belongs to another thread; "
                              "workspaces are per thread: call wsarray.workspace('" + ws->name() +
                              "') in this thread to get its own");
    if (!ws->alive())
        throw WorkspaceMisuse("workspace '" + ws->name() + "' was destroyed; get a new one with "
                              "wsarray.workspace('" + ws->name() + "')");
    if (is_open(ws.get()))
        throw WorkspaceMisuse("workspace '" + ws->name() + "' is already open on this thread; "
                              "a workspace cannot be nested inside itself");
    auto own = by_name_.find(ws->name());
    if (own == by_name_.end() || own->second != ws)
        throw WorkspaceMisuse("workspace '" + ws->name() + "' is no longer registered on this "
                              "thread; get it again with wsarray.workspace('" + ws->name() + "')");
    ws->begin_cycle();
    stack_.push_back({FrameKind::Cycle, ws, next_id_});
    update_target();
    return next_id_++;
}

std::uint64_t ThreadWorkspaces::borrow(const std::shared_ptr<Workspace> &ws) {
    if (!is_open(ws.get()))
        throw WorkspaceMisuse("cannot borrow workspace '" + ws->name() + "': it has no open cycle "
                              "on this thread; borrow only a workspace whose 'with' block encloses "
                              "this one");
    stack_.push_back({FrameKind::Borrow, ws, next_id_});
    update_target();
    return next_id_++;
}

std::uint64_t ThreadWorkspaces::scope_out() {
    stack_.push_back({FrameKind::ScopeOut, nullptr, next_id_});
    update_target();
    return next_id_++;
}

std::size_t ThreadWorkspaces::close(std::uint64_t id) {
    std::size_t pos = stack_.size();
    for (std::size_t i = 0; i < stack_.size(); ++i)
        if (stack_[i].id == id) pos = i;
    if (pos == stack_.size())
        throw WorkspaceMisuse("this scope is not open on this thread (closed twice, or entered on "
                              "another thread)");
    std::size_t above = stack_.size() - pos - 1;
    while (stack_.size() > pos) {
        Frame f = std::move(stack_.back());
        stack_.pop_back();
        if (f.kind == FrameKind::Cycle) f.ws->end_cycle();
    }
    update_target();
    return above;
}

std::shared_ptr<Workspace> ThreadWorkspaces::innermost_open() const {
    for (auto it = stack_.rbegin(); it != stack_.rend(); ++it)
        if (it->kind == FrameKind::Cycle) return it->ws;
    return nullptr;
}

std::shared_ptr<Workspace> ThreadWorkspaces::parent_of(const Workspace *ws) const {
    bool seen = false;
    for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
        if (it->kind != FrameKind::Cycle) continue;
        if (seen && it->ws.get() != ws) return it->ws;
        if (it->ws.get() == ws) seen = true;
    }
    return nullptr;
}

void ThreadWorkspaces::destroy(const std::string &name) {
    auto it = by_name_.find(name);
    if (it == by_name_.end())
        throw WorkspaceMisuse("no workspace named '" + name + "' on this thread");
    for (auto &f : stack_)
        if (f.ws == it->second)
            throw WorkspaceMisuse("workspace '" + name + "' is in use (open or borrowed) on this "
                                  "thread; leave its 'with' block before destroying it");
    it->second->destroy();
    by_name_.erase(it);
}

void ThreadWorkspaces::destroy_all() {
    std::string busy;
    for (auto &f : stack_)
        if (f.ws) busy += (busy.empty() ? "'" : ", '") + f.ws->name() + "'";
    if (!busy.empty())
        throw WorkspaceMisuse("workspaces " + busy + " are in use on this thread; leave their "
                              "'with' blocks before destroying all workspaces");
    for (auto &kv : by_name_) kv.second->destroy();
    by_name_.clear();
}

std::vector<std::shared_ptr<Workspace>> ThreadWorkspaces::all() const {
    std::vector<std::shared_ptr<Workspace>> out;
    for (auto &kv : by_name_) out.push_back(kv.second);
    return out;
}

} // namespace wsa
