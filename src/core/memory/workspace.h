/// src/core/memory/workspace.h -- a named, thread-owned arena with ND4J's policies and statistics.
///
/// A workspace owns chunks (see chunk.h). Every allocation made while it is the current target
/// comes from its chunks, or spills outside them as its policy says. Each `begin_cycle` /
/// `end_cycle` pair is one cycle; ending a cycle advances the generation, which invalidates every
/// array made during the cycle (circular workspaces excepted: their arrays stay valid until the
/// workspace is destroyed). All methods are thread-safe: one process-wide mutex guards every
/// workspace and the address registry, because NumPy may free an array on any thread.
///
/// fork(): handlers registered with pthread_atfork hold the mutex across fork(), so the child never
/// inherits it locked. Just before fork(), file-backed chunks are remapped copy-on-write from their
/// file (one mmap call per chunk, whatever its size), so that parent and child never write into one
/// file; each side maps a fresh file again at the end of a cycle that leaves the chunk empty. Shared
/// memory (location 'shared') stays shared in the parent; in the child each such chunk and spill is
/// remapped copy-on-write from its descriptor, which the child closes, so the child never writes
/// into the parent's memory (its new chunks and spills are shared memory of its own). In the
/// child, the forking thread keeps its workspaces (their memory is the child's copy-on-write view),
/// and the workspaces of every other thread, which does not exist in the child, are destroyed:
/// their arrays raise WorkspaceError there.
#pragma once
#include "block_cache.h"
#include "chunk.h"
#include "config.h"
#include "epoch.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace wsa {

struct Frame;
struct Registry;

/// Debug mode "spill_everything": every allocation is a spill (memory outside the chunks, given
/// back at the end of its cycle), whatever the spill policy, so that a use after the cycle reads
/// freed memory (found by the sanitizers) rather than a later cycle's. For the process, or a
/// thread (overrides the process; -1: follow it). Changing it bumps the scope epoch (block caches
/// are dropped).
void set_spill_everything(bool on);
void set_thread_spill_everything(int on);
bool spilling_everything();

/// What a layer above keeps for each workspace (the bindings: their count of references to it, the
/// words of their messages); the core never looks inside. Made with each workspace by the factory
/// that layer registers, destroyed with it.
struct Attachment {
    virtual ~Attachment() = default;
};
using AttachmentFactory = std::unique_ptr<Attachment> (*)();
/// Register the factory for workspaces made from now on (null: none; they get no attachment).
void set_attachment_factory(AttachmentFactory make);

/// Raised (as a C++ exception) for misuse; the bindings turn it into wsarray.WorkspaceError.
struct WorkspaceMisuse : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Raised when a workspace cannot satisfy an allocation under its policy; becomes a MemoryError.
struct WorkspaceOutOfMemory : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Why a workspace was destroyed (the stale-array message names it).
enum class DestroyReason { Alive, Explicit, ThreadExit, Fork };

struct Stats {
    std::size_t capacity = 0;          ///< bytes mapped in the workspace's own chunks
    std::size_t used = 0;              ///< bytes held by live blocks now (spills included)
    std::size_t peak_cycle_bytes = 0;  ///< peak of `used` in the last completed cycle
    std::size_t peak_current_cycle = 0;
    std::size_t spilled_bytes = 0;     ///< bytes ever served outside the chunks
    std::size_t spilled_cycle_bytes = 0;  ///< same, in the last completed cycle
    std::size_t spills = 0;            ///< allocations ever served outside the chunks
    std::size_t cycles = 0;            ///< completed cycles
    std::size_t allocations = 0;       ///< allocations ever served
    std::size_t allocated_bytes = 0;   ///< bytes ever served (block sizes)
    std::size_t reused_bytes = 0;      ///< bytes served from memory used before (no fresh pages)
    std::size_t frees = 0;
    std::size_t os_maps = 0;           ///< chunk mappings asked of the OS (spills included)
    std::size_t learned_size = 0;      ///< size chosen by the learning policy (0: not yet)
    std::size_t live_arrays = 0;       ///< live blocks now
    std::size_t wraps = 0;             ///< circular: times fresh space ran out and freed space was taken
    std::size_t chunks = 0;
    std::size_t trimmed_bytes = 0;     ///< bytes of untouched-for-long pages given back to the OS
    std::size_t zeroed_bytes = 0;      ///< bytes cleared for zero-filled allocations (fresh pages need none)
    bool initialized = false;          ///< learning finished (or no learning)
};

/// A workspace's CacheShare (block_cache.h: what a thread's block cache reads and writes without
/// the mutex) is a private base: the cache reaches it through BlockCache::share, nothing else.
class Workspace : public std::enable_shared_from_this<Workspace>, private CacheShare {
public:
    Workspace(std::string name, Config config);
    ~Workspace();
    Workspace(const Workspace &) = delete;
    Workspace &operator=(const Workspace &) = delete;

    const std::string &name() const { return name_; }
    const Config &config() const { return config_; }
    std::thread::id owner_thread() const { return owner_; }
    bool alive() const { return alive_.load(std::memory_order_acquire); }
    /// Why it was destroyed (Alive while it is not).
    DestroyReason destroy_reason() const { return reason_.load(std::memory_order_acquire); }
    /// Destroyed in a forked child because its thread does not exist there.
    bool orphaned_by_fork() const { return destroy_reason() == DestroyReason::Fork; }
    bool circular() const { return config_.reset == ResetPolicy::EndOfBuffer; }
    /// Its chunks are host memory the core may read and write (not a device's, not no-touch).
    bool host_memory() const { return !config_.device && config_.location != LocationPolicy::NoTouch; }
    /// Alignment (and size granule) of its blocks.
    std::size_t alignment() const { return align_; }
    std::uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
    bool cycle_open() const { return cycle_open_.load(std::memory_order_acquire); }
    /// Counts begin_cycle() calls: tells one open cycle from the next (circular workspaces keep
    /// their generation across cycles).
    std::uint64_t cycle_serial() const { return cycle_serial_.load(std::memory_order_acquire); }

    /// Allocate `n` bytes of 64-byte aligned memory (a device's alignment, 256, for a device
    /// workspace); `zero`: cleared (memory never touched before is zero already and is not
    /// written; device and no-touch memory cannot be cleared by the core: WorkspaceMisuse).
    /// Throws WorkspaceOutOfMemory (policy or max_size) or WorkspaceMisuse (destroyed workspace).
    void *allocate(std::size_t n, bool zero = false) {
        if (void *p = cache_allocate(this, *this, n, zero)) return p;  // this thread's cache (block_cache.h)
        return allocate_uncached(n, zero);
    }

    /// Throws WorkspaceMisuse if the workspace was destroyed or its cycle is open already.
    void begin_cycle();
    /// Ends the open cycle (arrays of block_left workspaces become invalid), learns, trims. Never
    /// throws: a failure to map a learned size leaves the workspace spilling and returns the reason
    /// (empty string when all went well).
    std::string end_cycle() noexcept;
    /// Give every chunk back to the OS (chunks still holding live arrays are released as soon as
    /// their last array is freed). The workspace object stays, marked dead, so arrays can tell.
    void destroy(DestroyReason why = DestroyReason::Explicit);
    Stats stats() const;
    /// The frame of the open cycle (manager.h), while there is one.
    std::shared_ptr<Frame> cycle_frame() const { return cycle_frame_.lock(); }
    void set_cycle_frame(const std::shared_ptr<Frame> &f) { cycle_frame_ = f; }
    /// The layer above's per-workspace state (set_attachment_factory), or null.
    Attachment *attachment() const { return attachment_.get(); }
    /// Heap invariants of every chunk (empty string: consistent). For tests.
    std::string check_heap() const;

    /// Free `p` if it lies in any workspace's memory. Returns false for foreign pointers.
    static bool free_if_owned(void *p) { return free_cached(p) || free_uncached(p); }
    /// The workspace whose memory holds `p` (null if none, or if it was destroyed).
    static std::shared_ptr<Workspace> owner_of(const void *p);
    /// The mapping (chunk or spill, of any workspace: destroyed ones' that arrays still pin too)
    /// holding `p`, copied, and the offset of `p` in it; false when no workspace's memory holds `p`.
    /// A mapping's file descriptor (shared memory) stays open as long as the mapping: while a live
    /// block holds memory in it.
    static bool mapping_of(const void *p, Mapping &mapping, std::size_t &offset);
    /// Bytes requested for the block at `p` in any workspace (destroyed ones too), or kNotOwned.
    static constexpr std::size_t kNotOwned = ~std::size_t(0);
    static std::size_t owned_size(const void *p);
    /// Is `p` the start of a live spill (an allocation its workspace served outside its chunks)?
    static bool is_spill(const void *p);
    /// Bytes held by chunks of destroyed workspaces whose arrays are still alive.
    static std::size_t zombie_bytes();

    /// Give back the small blocks this thread keeps for reuse (block_cache.h): a thread that stops
    /// using workspaces (the bindings call it when a Python thread ends) leaves none pinned.
    static void flush_thread_cache() { flush_this_thread_cache(); }

private:
    /// allocate() and free_if_owned() past this thread's cache: the registry lock.
    void *allocate_uncached(std::size_t n, bool zero);
    static bool free_uncached(void *p);
    /// `block_size`: set to the block's size when it lies in a regular chunk (0 for a spill).
    void *allocate_locked(std::size_t n, bool zero, std::size_t *block_size = nullptr);
    void destroy_locked(DestroyReason why);
    void *spill_locked(std::size_t total, std::size_t n, bool zero, std::size_t *block_size);
    /// Merge every chunk's stash back into its free space (chunk.h); false when all were empty.
    bool unstash_locked();
    /// A new chunk of about `size` bytes (rounded to pages, never past max_size); throws
    /// WorkspaceOutOfMemory when max_size leaves less than `at_least` bytes.
    Chunk *map_chunk_locked(std::size_t size, bool spill, std::size_t at_least = 0);
    void release_chunk_locked(Chunk *c);
    /// Map `size` bytes of device memory into `c` with the mutex down (held on entry and on return,
    /// also when it throws): the device source's callbacks may need the GIL.
    void map_device_unlocked(Chunk &c, std::size_t size);
    void learn_locked(std::size_t needed);
    void trim_locked();
    /// Bytes a new chunk may still take under max_size (SIZE_MAX without a cap).
    std::size_t room_locked() const;
    std::string describe_sizes_locked(std::size_t request) const;
    void note_allocation_locked(std::size_t total, bool reused);
    /// stats_.used less the blocks a thread's cache holds (block_cache.h): what live arrays use.
    std::size_t used_locked() const;
    /// Stats as reported: stats_ with the cache's counters applied (mutex held).
    Stats reported_locked() const;
    /// Can a thread cache this workspace's blocks (block_cache.h)? Host memory, not circular.
    bool cacheable() const { return host_memory() && !circular() && alive(); }

    /// Free `p` if it is a live block of any chunk (mutex held); `count_free`: a free of the
    /// program's (not a cached block given back, whose free the cache counted).
    static bool free_locked(Registry &r, void *p, bool count_free);

    // The fork handling (fork.cpp) and the block cache's locked half (block_cache_locked.cpp).
    friend void after_fork_in_child(std::vector<std::shared_ptr<Workspace>> &drop);
    friend void flush_cache_locked(BlockCache &tc, std::shared_ptr<Workspace> &drop);
    friend void release_cached_locked(BlockCache &tc);
    friend void claim_locked(BlockCache &tc, Workspace &ws, std::shared_ptr<Workspace> &drop);

    std::string name_;
    Config config_;
    std::thread::id owner_;
    std::size_t align_;
    std::atomic<bool> alive_{true};
    std::atomic<DestroyReason> reason_{DestroyReason::Alive};
    std::atomic<std::uint64_t> generation_{1};
    std::atomic<bool> cycle_open_{false};
    int trim_window_ = 0;           ///< cycles since the last trim check
    std::weak_ptr<Frame> cycle_frame_;
    std::unique_ptr<Attachment> attachment_;
    std::vector<Chunk *> chunks_;   ///< regular chunks
    std::size_t live_spill_bytes_ = 0;
    std::size_t learning_max_ = 0;  ///< over_time: largest cycle peak seen while learning
    Stats stats_;
    /// Add what a cache did (its allocations, frees, bytes, the peak of cycle `cycle_serial`) to `s`.
    static void add_cache_events(const CacheCounters &f, std::uint64_t cycle_serial, Stats &s);
};

} // namespace wsa
