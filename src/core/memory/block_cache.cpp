/// src/core/memory/block_cache.cpp -- the allocator's lock-free fast path (see block_cache.h): a
/// hit takes a block from this thread's cache, a free of a block this thread made puts it there.
/// The locked side (claiming a workspace, giving blocks back) is in block_cache_locked.cpp; the cache
/// reaches a workspace only through its CacheShare.
#include "block_cache.h"

#include "epoch.h"

#include <cstring>
#include <new>

namespace wsa {

namespace {

// A plain pointer, so the hot path reads it without a thread_local guard; CacheOwner frees it.
thread_local BlockCache *tl_cache = nullptr;

struct CacheOwner {
    ~CacheOwner() {
        if (!tl_cache) return;
        flush_this_thread_cache();
        delete tl_cache;
        tl_cache = nullptr;
    }
};
thread_local CacheOwner tl_cache_owner;

/// `a` += `d` by its only writer: no atomic read-modify-write (readers see either value).
inline void add(std::atomic<std::size_t> &a, std::size_t d) {
    a.store(a.load(std::memory_order_relaxed) + d, std::memory_order_relaxed);
}
inline void sub(std::atomic<std::size_t> &a, std::size_t d) {
    a.store(a.load(std::memory_order_relaxed) - d, std::memory_order_relaxed);
}

} // namespace

BlockCache *this_thread_cache() {
    if (!tl_cache) {
        tl_cache = new (std::nothrow) BlockCache();
        // Touch the owner so that its destructor runs when this thread ends.
        CacheOwner *owner = &tl_cache_owner;
        asm volatile("" : : "r"(owner) : "memory");
    }
    return tl_cache;
}

BlockCache *this_thread_cache_if_any() { return tl_cache; }

void *cache_allocate(const Workspace *ws, CacheShare &share, std::size_t n, bool zero) {
    BlockCache *tc = tl_cache;
    if (!tc || tc->ws != ws || !tc->count || tc->epoch != scope_epoch() ||
        share.cache_revoked_.load(std::memory_order_relaxed))
        return nullptr;
    for (int k = tc->count - 1; k >= 0; --k) {  // newest first: its memory is the warmest
        if (tc->blocks[k].requested != n) continue;
        BlockCache::Entry e = tc->blocks[k];
        for (int j = k + 1; j < tc->count; ++j) tc->blocks[j - 1] = tc->blocks[j];
        --tc->count;
        tc->note_made(e.p, e.size, n);
        sub(share.fast_.cached_bytes, e.size);
        sub(share.fast_.cached_blocks, 1);
        add(share.fast_.allocations, 1);
        add(share.fast_.bytes, e.size);
        // The peak of this cycle, as the locked path keeps it (cached blocks are not in use).
        std::size_t used =
            share.used_now_.load(std::memory_order_relaxed) - share.fast_.cached_bytes.load(std::memory_order_relaxed);
        std::uint64_t serial = share.cycle_serial_.load(std::memory_order_acquire);
        if (share.fast_.peak_serial.load(std::memory_order_relaxed) != serial) {
            share.fast_.peak.store(used, std::memory_order_relaxed);
            share.fast_.peak_serial.store(serial, std::memory_order_relaxed);
        } else if (used > share.fast_.peak.load(std::memory_order_relaxed)) {
            share.fast_.peak.store(used, std::memory_order_relaxed);
        }
        if (zero) {  // the block was used before: clear what was asked for
            std::memset(e.p, 0, n);
            add(share.fast_.zeroed, n);
        }
        return e.p;
    }
    return nullptr;
}

bool free_cached(void *p) {
    BlockCache *tc = tl_cache;
    if (!tc || !tc->ws) return false;
    BlockCache::Made &m = tc->made[BlockCache::slot(p)];
    if (m.p != p || m.claim != tc->claim || tc->count == BlockCache::kBlocks) return false;
    CacheShare *share = tc->share;
    if (tc->epoch != scope_epoch() || share->cache_revoked_.load(std::memory_order_relaxed)) return false;
    m.p = nullptr;
    tc->blocks[tc->count++] = BlockCache::Entry{(char *) p, m.size, m.requested};
    add(share->fast_.cached_bytes, m.size);
    add(share->fast_.cached_blocks, 1);
    add(share->fast_.frees, 1);
    return true;
}

} // namespace wsa
