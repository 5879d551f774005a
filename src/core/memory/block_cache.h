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
/// cycle or destroys the workspace; and when the thread ends. The lock-free half is in
/// block_cache.cpp, the locked half (the functions named "_locked") in block_cache_locked.cpp.
///
/// A free is recognised by the `made` table: the blocks this thread allocated from the claimed
/// workspace in the current epoch, by address. Only the thread that made a block takes it back
/// into its cache; every other free takes the locked path.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace wsa {

class Workspace;
struct BlockCache;

/// The part of a workspace that a thread's cache reads and writes without the registry mutex
/// (Workspace keeps it as a private base, workspace.h; the cache reaches it through
/// BlockCache::share).
struct CacheShare {
    /// The thread cache holding this workspace's blocks, if any; set and cleared with the mutex
    /// held.
    std::atomic<BlockCache *> cacher_{nullptr};
    /// Set (mutex held) when another thread allocated here while a cache held this workspace:
    /// that cache gives its blocks back at its next operation.
    std::atomic<bool> cache_revoked_{false};
    /// The workspace's stats_.used, readable without the mutex (the cache's peak tracking).
    std::atomic<std::size_t> used_now_{0};
    /// Counts the workspace's begin_cycle() calls (Workspace::cycle_serial()).
    std::atomic<std::uint64_t> cycle_serial_{0};
    /// What the cache did since it last gave its blocks back. Written only by the thread whose
    /// cache holds this workspace (without the mutex) or with the mutex held by that thread; read
    /// anywhere. The blocks a cache holds still count as live in the chunks and stats_.
    struct CacheCounters {
        std::atomic<std::size_t> cached_bytes{0}, cached_blocks{0};  ///< held by the cache now
        std::atomic<std::size_t> allocations{0}, bytes{0}, frees{0}, zeroed{0};
        std::atomic<std::size_t> peak{0};           ///< highest used seen at a cached allocation
        std::atomic<std::uint64_t> peak_serial{0};  ///< ... in the cycle of this cycle_serial_
    } fast_;
};

struct BlockCache {
    static constexpr int kBlocks = 16;                         ///< blocks held at most
    static constexpr std::size_t kMaxBytes = std::size_t(32) << 10;  ///< larger blocks are not cached
    static constexpr int kMadeSlots = 256;                     ///< the made table (direct-mapped)

    Workspace *ws = nullptr;           ///< the claimed workspace (ws->cacher_ == this), or null
    CacheShare *share = nullptr;       ///< `ws`'s CacheShare (null with `ws`)
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

/// The lock-free allocation: a block this thread's cache holds for `n` bytes of `ws` (`share`: its
/// CacheShare), else null (the caller takes the locked path). `zero`: cleared.
void *cache_allocate(const Workspace *ws, CacheShare &share, std::size_t n, bool zero);

/// Take `p` into this thread's cache when this thread made it from the claimed workspace in the
/// current epoch and there is room; false: the caller frees it on the locked path.
bool free_cached(void *p);

/// Give back every block `tc` holds, as frees already counted (mutex held), move the fast path's
/// counters into the workspace's stats and let go of the claim. `drop` receives the cache's
/// reference to the workspace: release it after the mutex (the last one destroys the workspace,
/// which takes the mutex).
void flush_cache_locked(BlockCache &tc, std::shared_ptr<Workspace> &drop);

/// Claim `ws` for this thread's cache `tc` (mutex held): keep a claim that still holds, else give
/// back what `tc` holds and claim `ws` if this thread owns it and no other cache has it. `drop`:
/// as for flush_cache_locked.
void claim_locked(BlockCache &tc, Workspace &ws, std::shared_ptr<Workspace> &drop);

/// Free the blocks `tc` holds in their chunks (mutex held), keeping the claim.
void release_cached_locked(BlockCache &tc);

/// Give back what this thread's cache holds, taking the registry mutex (Workspace::flush_thread_cache);
/// the cache calls it when its thread ends.
void flush_this_thread_cache();

} // namespace wsa
