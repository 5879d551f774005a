/// src/core/memory/fork.cpp -- fork() handling: the registry's lock held across fork(), file-backed
/// chunks frozen copy-on-write before it, and in the child shared memory unshared and the
/// workspaces of the threads that do not exist there destroyed (see workspace.h).
#include "registry.h"
#include "workspace.h"

#include <memory>
#include <set>
#include <thread>
#include <vector>

namespace wsa {

/// Runs in the parent just before fork(), mutex held. A shared file mapping would let parent and
/// child write into each other's arrays: each becomes a copy-on-write view of its file, in both
/// processes (one mmap call per chunk: fork costs the same whatever the workspaces' size). Each
/// process maps a fresh file again when a cycle ends with the chunk empty (Workspace::end_cycle).
/// Shared memory (location 'shared') stays shared in the parent: the child unshares its view
/// (after_fork_in_child).
static void before_fork() {
    for (auto &kv : registry().chunks) freeze_file(kv.second->mapping);
}

// fork() copies only the calling thread. Holding the mutex across fork() means no other thread can
// be inside a workspace operation at that moment, so the child's copy of every structure is
// consistent and its mutex is not left locked by a thread that no longer exists.
static void lock_before_fork() {
    registry().mu.lock();
    before_fork();
}
static void unlock_in_parent() { registry().mu.unlock(); }

/// In the child: every shared-memory chunk (the parent's memory) becomes the child's copy-on-write
/// view, before anything (destroying orphans, trimming, allocating) could write into it or punch
/// holes in it. Pages the child has not written show what the parent writes later: no page of
/// such a chunk counts as fresh (reading zeros) any more.
static void unshare_chunks_in_child(Registry &r) {
    for (auto &kv : r.chunks) {
        Chunk *c = kv.second;
        if (c->mapping.source != Source::Shared || c->mapping.file_private) continue;
        unshare_in_child(c->mapping);
        c->high_water = c->capacity();
    }
}

/// Runs in the child, mutex held, only the forking thread alive (see workspace.h). `drop`: the
/// references the vanished threads' block caches held, to release once the mutex is down.
void after_fork_in_child(std::vector<std::shared_ptr<Workspace>> &drop) {
    Registry &r = registry();
    unshare_chunks_in_child(r);
    const std::thread::id me = std::this_thread::get_id();
    std::set<Workspace *> orphans;
    for (auto &kv : r.chunks) {
        Chunk *c = kv.second;
        if (c->owner && c->owner->owner_thread() != me) orphans.insert(c->owner);
    }
    for (Workspace *ws : orphans) {
        // A thread caches only its own workspaces' blocks: give back what its cache held.
        if (BlockCache *tc = ws->cacher_.load(std::memory_order_relaxed)) {
            drop.emplace_back();
            flush_cache_locked(*tc, drop.back());
        }
        ws->destroy_locked(DestroyReason::Fork);
    }
}

static void unlock_in_child() {
    std::vector<std::shared_ptr<Workspace>> drop;
    after_fork_in_child(drop);
    registry().mu.unlock();
}

void install_fork_handlers() { register_fork_handlers(lock_before_fork, unlock_in_parent, unlock_in_child); }

} // namespace wsa
