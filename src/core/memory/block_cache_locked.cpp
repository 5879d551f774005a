/// src/core/memory/block_cache_locked.cpp -- the block cache's locked half (block_cache.h), with the
/// registry mutex held: claiming a workspace for this thread's cache, giving the cached blocks back
/// and moving the fast path's counters into the workspace's statistics.
#include "block_cache.h"
#include "registry.h"
#include "workspace.h"

#include <memory>
#include <thread>

namespace wsa {

/// Claim `ws` for this thread's cache `tc` (mutex held): keep a claim that still holds, else give
/// back what `tc` holds and claim `ws` if this thread owns it and no other cache has it (another
/// cache that has it is told to let go: its made table may not know what this thread does here).
void claim_locked(BlockCache &tc, Workspace &ws, std::shared_ptr<Workspace> &drop) {
    if (tc.ws == &ws && tc.epoch == scope_epoch() && !ws.cache_revoked_.load(std::memory_order_relaxed) &&
        tc.count < BlockCache::kBlocks)
        return;
    flush_cache_locked(tc, drop);
    BlockCache *other = ws.cacher_.load(std::memory_order_relaxed);
    if (other) {
        ws.cache_revoked_.store(true, std::memory_order_relaxed);
        return;
    }
    if (!ws.cacheable() || ws.owner_thread() != std::this_thread::get_id()) return;
    std::shared_ptr<Workspace> self = ws.weak_from_this().lock();
    if (!self) return;  // not owned by a shared_ptr (a C++ test's): no cache
    ws.cacher_.store(&tc, std::memory_order_relaxed);
    ws.cache_revoked_.store(false, std::memory_order_relaxed);
    tc.ws = &ws;
    tc.share = &ws;
    tc.hold = std::move(self);
    tc.epoch = scope_epoch();
    ++tc.claim;
}

/// Free the blocks `tc` holds in their chunks (mutex held), keeping the claim: frees the cache
/// counted already.
void release_cached_locked(BlockCache &tc) {
    Registry &r = registry();
    for (int k = 0; k < tc.count; ++k) Workspace::free_locked(r, tc.blocks[k].p, /*count_free=*/false);
    tc.count = 0;
    tc.ws->fast_.cached_bytes.store(0, std::memory_order_relaxed);
    tc.ws->fast_.cached_blocks.store(0, std::memory_order_relaxed);
}

void flush_cache_locked(BlockCache &tc, std::shared_ptr<Workspace> &drop) {
    Workspace *ws = tc.ws;
    if (!ws) return;
    release_cached_locked(tc);
    Workspace::CacheCounters &f = ws->fast_;
    Workspace::add_cache_events(f, ws->cycle_serial(), ws->stats_);
    for (auto *a : {&f.allocations, &f.bytes, &f.frees, &f.zeroed, &f.peak}) a->store(0, std::memory_order_relaxed);
    f.peak_serial.store(0, std::memory_order_relaxed);
    if (ws->cacher_.load(std::memory_order_relaxed) == &tc) {
        ws->cacher_.store(nullptr, std::memory_order_relaxed);
        ws->cache_revoked_.store(false, std::memory_order_relaxed);
    }
    tc.ws = nullptr;
    tc.share = nullptr;
    drop = std::move(tc.hold);
}

void flush_this_thread_cache() {
    BlockCache *tc = this_thread_cache_if_any();
    if (!tc || !tc->ws) return;
    std::shared_ptr<Workspace> drop;  // released after the mutex
    Locked lock;
    flush_cache_locked(*tc, drop);
}

} // namespace wsa
