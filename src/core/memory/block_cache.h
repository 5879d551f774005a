/// src/core/memory/block_cache.h -- a thread's cache of the small blocks it freed, for its next
/// allocations of the same size: the allocator's fast path, with no mutex and no registry lookup.
///
/// A loop that makes and drops small arrays in a workspace frees and allocates the same sizes over
/// and over. The locked path costs about 400 instructions a pair (the registry mutex, the address
/// lookup, the chunk's records); this cache costs a few dozen. It holds blocks of one workspace at
/// a time: the last workspace owned by this thread that it allocated from ("claimed",
/// Workspace::cacher_), and only within one scope epoch (workspace.h: any cycle or scope opening
/// or ending, or a destruction, ends it), so a chunk can never be unmapped or reused under it.
///
/// A cached block stays live for its chunk and in stats_ (nothing else can take it); the
/// workspace's CacheCounters say what the cache holds and did, and stats() reports as if each
/// cached block had been freed. The cache gives its blocks back (flush_cache_locked, mutex held)
/// when this thread's allocation misses a full cache, its epoch ended, a spill is near, another
/// thread allocated in the workspace (cache_revoked_), and before this thread begins or ends a
/// cycle or destroys the workspace; and when the thread ends.
///
/// A free is recognised by the `made` table: the blocks this thread allocated from the claimed
/// workspace in the current epoch, by address. Only the thread that made a block takes it back
/// into its cache; every other free takes the locked path.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

namespace wsa {

class Workspace;

struct BlockCache {
    static constexpr int kBlocks = 16;                         ///< blocks held at most
    static constexpr std::size_t kMaxBytes = std::size_t(32) << 10;  ///< larger blocks are not cached
    static constexpr int kMadeSlots = 256;                     ///< the made table (direct-mapped)

    Workspace *ws = nullptr;           ///< the claimed workspace (ws->cacher_ == this), or null
    std::shared_ptr<Workspace> hold;   ///< keeps `ws` alive while claimed
    std::uint64_t epoch = 0;           ///< the scope epoch of the claim
    std::uint64_t claim = 0;           ///< counts claims: tells this claim's made blocks from older ones
    int count = 0;
    struct Entry {
        char *p;
        std::size_t size;       ///< the block's size in its chunk
        std::size_t requested;  ///< what its last allocation asked for (a hit asks the same)
    } blocks[kBlocks];
    struct Made {
        const void *p;
        std::size_t size, requested;
        std::uint64_t claim;  ///< valid only in the claim it was made in
    } made[kMadeSlots];

    static std::size_t slot(const void *p) { return ((std::uintptr_t) p >> 6) & (kMadeSlots - 1); }
    /// Note a block this thread just allocated from `ws` (the table is this thread's alone).
    void note_made(const void *p, std::size_t size, std::size_t requested) {
        made[slot(p)] = Made{p, size, requested, claim};
    }
    /// Is `p` one of the blocks held (a second free of it)?
    bool holds(const void *p) const {
        for (int k = 0; k < count; ++k)
            if (blocks[k].p == p) return true;
        return false;
    }
};

/// This thread's cache, created on first use (null only if that allocation failed); freed, after
/// giving its blocks back, when the thread ends.
BlockCache *this_thread_cache();
/// This thread's cache if it has one (no creation).
BlockCache *this_thread_cache_if_any();

/// Take `p` into this thread's cache when this thread made it from the claimed workspace in the
/// current epoch and there is room; false: the caller frees it on the locked path.
bool free_cached(void *p);

/// Give back every block `tc` holds, as frees already counted (mutex held), move the fast path's
/// counters into the workspace's stats and let go of the claim. `drop` receives the cache's
/// reference to the workspace: release it after the mutex (the last one destroys the workspace,
/// which takes the mutex).
void flush_cache_locked(BlockCache &tc, std::shared_ptr<Workspace> &drop);

} // namespace wsa
