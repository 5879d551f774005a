/// src/core/memory/workspace.cpp -- workspace policies and statistics: mapping chunks and spills,
/// allocating and freeing blocks, cycles, learning, trimming, destruction.
#include "workspace.h"

#include "registry.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace wsa {

std::atomic<std::uint64_t> g_scope_epoch{1};

void bump_scope_epoch() { g_scope_epoch.fetch_add(1, std::memory_order_acq_rel); }

static std::atomic<bool> g_spill_everything{false};
static thread_local int tl_spill_everything = -1;

void set_spill_everything(bool on) {
    g_spill_everything.store(on, std::memory_order_relaxed);
    bump_scope_epoch();
}

void set_thread_spill_everything(int on) {
    tl_spill_everything = on;
    bump_scope_epoch();
}

bool spilling_everything() {
    return tl_spill_everything >= 0 ? tl_spill_everything != 0 : g_spill_everything.load(std::memory_order_relaxed);
}

namespace {
std::atomic<AttachmentFactory> g_attachment_factory{nullptr};
}

void set_attachment_factory(AttachmentFactory make) { g_attachment_factory.store(make, std::memory_order_release); }

Workspace::Workspace(std::string name, Config config)
    : name_(std::move(name)), config_(std::move(config)), owner_(std::this_thread::get_id()),
      align_(config_.device ? std::max(config_.device->alignment, kAlign) : kAlign) {
    if (AttachmentFactory make = g_attachment_factory.load(std::memory_order_acquire)) attachment_ = make();
    Locked lock;
    if (config_.initial_size > 0) {
        try {
            map_chunk_locked(config_.initial_size, false);
        } catch (const std::bad_alloc &e) {
            throw WorkspaceOutOfMemory("workspace '" + name_ + "': cannot map its initial_size of " +
                                       std::to_string(config_.initial_size) + " bytes: " + e.what());
        }
    }
    stats_.initialized = config_.learning == LearningPolicy::None;
}

Workspace::~Workspace() { destroy(DestroyReason::Explicit); }

/// Spills below this size come from the C heap, larger ones from anonymous mmap (as malloc does).
constexpr std::size_t kSmallSpill = std::size_t(256) << 10;

std::size_t Workspace::room_locked() const {
    if (!config_.max_size) return SIZE_MAX;
    std::size_t committed = stats_.capacity + live_spill_bytes_;
    return committed >= config_.max_size ? 0 : config_.max_size - committed;
}

Chunk *Workspace::map_chunk_locked(std::size_t size, bool spill, std::size_t at_least) {
    const bool device = config_.device != nullptr;
    const bool notouch = !device && config_.location == LocationPolicy::NoTouch;
    const bool shared = !device && config_.location == LocationPolicy::Shared;
    // Small host spills come from the C heap; device, no-touch and shared memory has no heap (every
    // byte of a shared workspace, spills included, can be mapped by another process).
    const bool heap = spill && size < kSmallSpill && !device && !notouch && !shared;
    const std::size_t grain = heap || device ? align_ : page_size();
    std::size_t rounded =
        round_up(std::max<std::size_t>(size, align_), !spill && !device && size >= kHugePage ? kHugePage : grain);
    // max_size is a promise: never more mapped than it allows. Rounding up may not cross it.
    std::size_t room = room_locked();
    if (rounded > room) rounded = room / grain * grain;
    if (rounded < std::max<std::size_t>(at_least, align_))
        throw WorkspaceOutOfMemory("workspace '" + name_ +
                                   "' would exceed its max_size: " + describe_sizes_locked(std::max(size, at_least)));
    auto c = new Chunk();
    c->align = align_;
    // Pages are not touched up front: the allocator hands out low addresses first, so a cycle
    // touches about its peak, RSS stays near what the loop really uses (not the overallocated
    // capacity), and once a page has been touched later cycles reuse it without a fault.
    try {
        if (device) {
            map_device_unlocked(*c, rounded);
        } else if (notouch) c->mapping = map_notouch(rounded);
        else if (shared) c->mapping = map_shared(rounded, false);
        else if (heap)  // spills are ordinary external memory, whatever the location
            c->mapping = map_heap(rounded);
        else if (spill) c->mapping = map_host(rounded, false);
        else if (config_.location == LocationPolicy::Mmap)
            c->mapping = map_file(rounded, config_.temp_file_path, false);
        else c->mapping = map_host(rounded, false);
    } catch (...) {
        delete c;
        throw;
    }
    c->spill = spill;
    c->owner = this;
    c->cycles = stats_.cycles;
    registry().add(c);
    notify_mapping(c->mapping, true);
    ++stats_.os_maps;
    if (spill) {
        live_spill_bytes_ += c->capacity();
    } else {
        chunks_.push_back(c);
        stats_.capacity += c->capacity();
        stats_.chunks = chunks_.size();
    }
    return c;
}

void Workspace::map_device_unlocked(Chunk &c, std::size_t size) {
    std::shared_ptr<const DeviceSource> source = config_.device;
    RegistryMutex &mu = registry().mu;
    mu.unlock();
    Mapping m;
    try {
        m = map_device(*source, size);
    } catch (...) {
        mu.lock();
        throw;
    }
    mu.lock();
    // While the mutex was down the workspace may have been destroyed, or another thread's chunk
    // may have taken the room max_size leaves: then the memory goes back.
    if (!alive() || size > room_locked()) {
        registry().deferred.emplace_back(m, source);
        if (!alive()) throw WorkspaceMisuse("workspace '" + name_ + "' was destroyed while it mapped a chunk");
        throw WorkspaceOutOfMemory("workspace '" + name_ +
                                   "' would exceed its max_size: " + describe_sizes_locked(size));
    }
    c.mapping = m;
    c.device = std::move(source);
}

void Workspace::release_chunk_locked(Chunk *c) {
    registry().remove(c);
    drop_chunk_locked(c);
}

std::string Workspace::describe_sizes_locked(std::size_t request) const {
    // Spills count against max_size as mapped (a shared workspace maps a whole page for each).
    return "request of " + std::to_string(request) + " bytes; capacity " + std::to_string(stats_.capacity) +
           " bytes, in use " + std::to_string(used_locked()) + " bytes" +
           (live_spill_bytes_ ? ", spills mapped " + std::to_string(live_spill_bytes_) + " bytes" : std::string()) +
           (config_.max_size ? ", max_size " + std::to_string(config_.max_size) + " bytes" : std::string());
}

void Workspace::note_allocation_locked(std::size_t total, bool reused) {
    ++stats_.allocations;
    stats_.allocated_bytes += total;
    if (reused) stats_.reused_bytes += total;
    stats_.used += total;
    used_now_.store(stats_.used, std::memory_order_relaxed);
    stats_.live_arrays += 1;
    stats_.peak_current_cycle = std::max(stats_.peak_current_cycle, used_locked());
}

std::size_t Workspace::used_locked() const {
    std::size_t cached = fast_.cached_bytes.load(std::memory_order_relaxed);
    return stats_.used > cached ? stats_.used - cached : 0;
}

/// Add what the block cache did (its allocations, frees, bytes and the cycle's peak) to `s`.
void Workspace::add_cache_events(const CacheCounters &f, std::uint64_t cycle_serial, Stats &s) {
    std::size_t bytes = f.bytes.load(std::memory_order_relaxed);
    s.allocations += f.allocations.load(std::memory_order_relaxed);
    s.allocated_bytes += bytes;
    s.reused_bytes += bytes;  // a cached block was used before
    s.frees += f.frees.load(std::memory_order_relaxed);
    s.zeroed_bytes += f.zeroed.load(std::memory_order_relaxed);
    if (f.peak_serial.load(std::memory_order_relaxed) == cycle_serial)
        s.peak_current_cycle = std::max(s.peak_current_cycle, f.peak.load(std::memory_order_relaxed));
}

Stats Workspace::reported_locked() const {
    Stats s = stats_;
    if (alive()) {  // destroy() already zeroed these
        s.used = used_locked();
        std::size_t blocks = fast_.cached_blocks.load(std::memory_order_relaxed);
        s.live_arrays = s.live_arrays > blocks ? s.live_arrays - blocks : 0;
    }
    add_cache_events(fast_, cycle_serial(), s);
    return s;
}

/// Give back this thread's cache if it holds `ws`'s blocks (mutex held).
static void flush_if_mine_locked(Workspace *ws, std::shared_ptr<Workspace> &drop) {
    BlockCache *tc = this_thread_cache_if_any();
    if (tc && tc->ws == ws) flush_cache_locked(*tc, drop);
}

void *Workspace::allocate_uncached(std::size_t n, bool zero) {
    std::shared_ptr<Workspace> drop;  // released after the mutex
    Locked lock;
    BlockCache *tc = this_thread_cache();
    if (tc) claim_locked(*tc, *this, drop);
    std::size_t size = 0;
    void *p = allocate_locked(n, zero, &size);
    if (tc && tc->ws == this && size && size <= BlockCache::kMaxBytes && !spilling_everything())
        tc->note_made(p, size, n);
    return p;
}

/// Clear the first `n` bytes at `data` of which `dirty` had been used before (fresh pages read as
/// zeros already: np.zeros of a large size touches no page it does not need).
static std::size_t clear(void *data, std::size_t n, std::size_t dirty) {
    std::size_t k = std::min(n, dirty);
    if (k) std::memset(data, 0, k);
    return k;
}

void *Workspace::allocate_locked(std::size_t n, bool zero, std::size_t *block_size) {
    if (!alive()) throw WorkspaceMisuse("workspace '" + name_ + "' was destroyed; it cannot allocate");
    if (n > (std::size_t(1) << 62))
        throw WorkspaceOutOfMemory("workspace '" + name_ + "': " + describe_sizes_locked(n));
    if (zero && !host_memory())
        throw WorkspaceMisuse("workspace '" + name_ + "' holds " +
                              (config_.device ? "memory of device " + config_.device->name : "no-touch memory") +
                              ", which the core cannot clear: zero it on the device");
    std::size_t total = block_size_for(n, align_);
    if (spilling_everything()) return spill_locked(total, n, zero, block_size);
    bool circ = circular();
    for (int attempt = 0; attempt < 2; ++attempt) {
        for (Chunk *c : chunks_) {
            std::size_t dirty = 0;
            std::size_t fresh_before = c->capacity() - c->top;
            if (std::uint32_t i = c->allocate(total, circ, dirty); i != kNil) {
                if (circ && fresh_before < total) ++stats_.wraps;
                Block &b = c->rec(i);
                b.requested = n;
                // b.size, not total: a free block a little larger than asked for is not split,
                // and the free path subtracts b.size.
                note_allocation_locked(b.size, dirty > 0);
                if (block_size) *block_size = b.size;
                void *data = c->base() + b.offset;
                if (zero) stats_.zeroed_bytes += clear(data, n, dirty);
                return data;
            }
        }
        // Small blocks kept whole for reuse (this thread's cache, chunk.h's stash) may split the
        // free space the request needs: merge them back and look again before spilling.
        BlockCache *tc = this_thread_cache_if_any();
        bool cached = tc && tc->ws == this && tc->count;
        if (cached) release_cached_locked(*tc);
        if (!unstash_locked() && !cached) break;
    }
    return spill_locked(total, n, zero, block_size);
}

bool Workspace::unstash_locked() {
    bool any = false;
    for (Chunk *c : chunks_)
        if (c->has_stash()) {
            c->unstash();
            any = true;
        }
    return any;
}

void *Workspace::spill_locked(std::size_t total, std::size_t n, bool zero, std::size_t *block_size) {
    // Debug mode spill_everything: an external spill whatever the policy.
    bool learning = !stats_.initialized || spilling_everything();
    if (!learning && config_.spill == SpillPolicy::Fail)
        throw WorkspaceOutOfMemory("workspace '" + name_ +
                                   "' is full and its spill policy is "
                                   "'fail': " +
                                   describe_sizes_locked(n) +
                                   ". Raise initial_size or choose spill='external'/'reallocate'");
    std::size_t dirty = 0;
    if (!learning && config_.spill == SpillPolicy::Reallocate) {
        std::size_t grow = std::max(total, stats_.capacity);
        grow = std::min(grow, std::max(total, room_locked() / page_size() * page_size()));
        Chunk *c;
        try {
            c = map_chunk_locked(grow, false, total);
        } catch (const WorkspaceOutOfMemory &) {
            throw;
        } catch (const std::bad_alloc &e) {
            throw WorkspaceOutOfMemory("workspace '" + name_ + "': cannot grow by " + std::to_string(grow) +
                                       " bytes (" + describe_sizes_locked(n) + "): " + e.what());
        }
        Block &b = c->rec(c->allocate(total, false, dirty));
        b.requested = n;
        note_allocation_locked(b.size, false);
        if (block_size) *block_size = b.size;
        return c->base() + b.offset;  // a new mapping reads as zeros
    }
    Chunk *c;
    try {
        c = map_chunk_locked(total, true, total);
    } catch (const WorkspaceOutOfMemory &) {
        throw;
    } catch (const std::bad_alloc &e) {
        throw WorkspaceOutOfMemory("workspace '" + name_ + "': cannot spill " + std::to_string(total) + " bytes (" +
                                   describe_sizes_locked(n) + "): " + e.what());
    }
    // A spill chunk holds one block at its start, kept in the chunk's counters, not in records.
    c->live_blocks = 1;
    c->live_bytes = total;
    c->spill_requested = n;
    stats_.spilled_bytes += total;
    stats_.spilled_cycle_bytes += total;
    ++stats_.spills;
    note_allocation_locked(total, false);
    void *data = c->base();
    // Heap memory may hold anything; an mmap'd spill reads as zeros.
    if (zero && c->mapping.source == Source::Heap) stats_.zeroed_bytes += clear(data, n, n);
    return data;
}

bool Workspace::free_uncached(void *p) {
    Registry &r = registry();
    // Every NumPy array freed while the handler is installed asks, workspace memory or not.
    if (surely_foreign(r, p)) return false;
    std::shared_ptr<Workspace> drop;  // released after the mutex
    Locked lock;
    if (BlockCache *tc = this_thread_cache_if_any(); tc && tc->ws) {
        if (tc->holds(p)) return true;  // a second free of a block the cache holds: ignored
        BlockCache::Made &m = tc->made[BlockCache::slot(p)];
        if (m.p == p) m.p = nullptr;
        // A claim that no longer holds gives its blocks back while the mutex is held anyway.
        if (tc->epoch != scope_epoch() || tc->ws->cache_revoked_.load(std::memory_order_relaxed))
            flush_cache_locked(*tc, drop);
    }
    return free_locked(r, p, /*count_free=*/true);
}

bool Workspace::free_locked(Registry &r, void *p, bool count_free) {
    Chunk *c = r.find(p);
    if (!c) return false;
    Workspace *ws = c->owner;
    std::size_t size = 0, offset = 0;
    if (c->spill) {  // one block at the chunk's start, no records (spills stay as cheap as malloc)
        if (p != c->base() || !c->live_blocks) return true;  // not a live block: ignored
        size = c->live_bytes;
    } else if (c->release_at(p, size, /*keep_whole=*/ws && !ws->circular())) {
        offset = (std::size_t) ((const char *) p - c->base());
    } else {
        return true;  // inside a chunk but not a live block's start (a double free): ignored
    }
    if (c->spill) {
        if (ws) {
            ws->live_spill_bytes_ -= c->capacity();
            ws->release_chunk_locked(c);
        } else {
            r.zombie_bytes -= c->capacity();
            r.remove(c);
            drop_chunk_locked(c);
        }
    } else if (!ws) {
        if (c->live_blocks == 0) {
            r.zombie_bytes -= c->capacity();
            r.remove(c);
            drop_chunk_locked(c);
        } else {
            // A destroyed workspace's chunk that raw views still pin: what they do not hold goes
            // back to the OS as it is freed.
            c->release_free_block_at(offset);
        }
    }
    if (ws) {
        if (count_free) ++ws->stats_.frees;
        ws->stats_.used -= size;
        ws->used_now_.store(ws->stats_.used, std::memory_order_relaxed);
        ws->stats_.live_arrays -= 1;
    }
    return true;
}

std::shared_ptr<Workspace> Workspace::owner_of(const void *p) {
    Registry &r = registry();
    // Quick reject before taking the lock: every array wrapped outside workspaces asks. A chunk
    // that holds `p` was registered (lo/hi widened) before the array at `p` could exist.
    if (surely_foreign(r, p)) return nullptr;
    Locked lock;
    Chunk *c = r.find(p);
    if (!c || !c->owner) return nullptr;
    return c->owner->weak_from_this().lock();
}

bool Workspace::mapping_of(const void *p, Mapping &mapping, std::size_t &offset) {
    Registry &r = registry();
    if (surely_foreign(r, p)) return false;
    Locked lock;
    Chunk *c = r.find(p);
    if (!c) return false;
    mapping = c->mapping;
    offset = (std::size_t) ((const char *) p - c->base());
    return true;
}

bool Workspace::is_spill(const void *p) {
    Registry &r = registry();
    if (surely_foreign(r, p)) return false;
    Locked lock;
    Chunk *c = r.find(p);
    return c && c->spill && p == c->base() && c->live_blocks;
}

std::size_t Workspace::owned_size(const void *p) {
    Registry &r = registry();
    if (surely_foreign(r, p)) return kNotOwned;
    Locked lock;
    if (BlockCache *tc = this_thread_cache_if_any(); tc && tc->holds(p)) return kNotOwned;  // freed
    Chunk *c = r.find(p);
    if (!c) return kNotOwned;
    if (c->spill) return p == c->base() && c->live_blocks ? c->spill_requested : kNotOwned;
    std::uint32_t i = c->live_block_at(p);
    return i == kNil ? kNotOwned : c->rec(i).requested;
}

std::size_t Workspace::zombie_bytes() {
    Locked lock;
    return registry().zombie_bytes;
}

void Workspace::begin_cycle() {
    std::shared_ptr<Workspace> drop;  // released after the mutex
    Locked lock;
    flush_if_mine_locked(this, drop);
    if (!alive())
        throw WorkspaceMisuse("workspace '" + name_ +
                              "' was destroyed; create it again "
                              "with wsarray.workspace('" +
                              name_ + "')");
    if (cycle_open()) throw WorkspaceMisuse("workspace '" + name_ + "' already has an open cycle");
    cycle_serial_.fetch_add(1, std::memory_order_acq_rel);
    cycle_open_.store(true, std::memory_order_release);
    bump_scope_epoch();
    stats_.peak_current_cycle = used_locked();
    stats_.spilled_cycle_bytes = 0;
}

void Workspace::learn_locked(std::size_t needed) {
    std::size_t target = std::max(needed, config_.min_size);
    if (config_.allocation == AllocationPolicy::Overallocate)
        target = (std::size_t) ((double) target * (1.0 + config_.overallocation_limit));
    if (config_.max_size) target = std::min(target, config_.max_size);
    stats_.learned_size = target;
    if (target <= stats_.capacity || target == 0) return;
    bool all_empty = std::all_of(chunks_.begin(), chunks_.end(), [](Chunk *c) { return c->live_blocks == 0; });
    if (all_empty) {  // replace every chunk with one of the learned size
        for (Chunk *c : chunks_) release_chunk_locked(c);
        chunks_.clear();
        stats_.capacity = 0;
        if (room_locked() < page_size())  // live spills hold max_size's room: say what was learned
            throw WorkspaceOutOfMemory("workspace '" + name_ +
                                       "' would exceed its max_size: " + describe_sizes_locked(target));
        map_chunk_locked(std::min(target, room_locked()), false);
    } else {
        std::size_t more = std::min(target - stats_.capacity, room_locked() / page_size() * page_size());
        if (more >= page_size()) map_chunk_locked(more, false);
    }
}

/// Free pages smaller than this are not worth a system call (and a later page fault).
constexpr std::size_t kMinTrim = std::size_t(1) << 20;

void Workspace::trim_locked() {
    if (config_.trim_after_cycles <= 0 || ++trim_window_ < config_.trim_after_cycles) return;
    trim_window_ = 0;
    for (Chunk *c : chunks_) stats_.trimmed_bytes += c->trim(kMinTrim, (std::uint64_t) config_.trim_after_cycles);
}

std::string Workspace::end_cycle() noexcept {
    std::shared_ptr<Workspace> drop;  // released after the mutex
    Locked lock;
    flush_if_mine_locked(this, drop);
    if (!cycle_open()) return "";
    cycle_open_.store(false, std::memory_order_release);
    bump_scope_epoch();
    if (!alive()) return "";
    unstash_locked();  // learning, trimming and refiling look at the free space as it is
    ++stats_.cycles;
    // Another thread's cache may hold blocks of this workspace (what its fast path saw counts).
    stats_.peak_cycle_bytes = reported_locked().peak_current_cycle;
    if (!circular()) generation_.fetch_add(1, std::memory_order_acq_rel);
    for (Chunk *c : chunks_) {
        c->cycles = stats_.cycles;
        // A file chunk frozen by fork() maps a fresh file of its own again once nothing lives in it
        // (refile; a shared-memory chunk a child unshared stays its private view).
        if (c->mapping.file_private && c->live_blocks == 0 && refile(c->mapping, config_.temp_file_path))
            c->high_water = c->window_top = 0;
    }
    std::string error;
    // Arrays still alive now (a loop's result variable, say) stay pinned through the next cycle,
    // so the next cycle needs room for them on top of its own peak.
    std::size_t needed = stats_.peak_cycle_bytes + used_locked();
    try {
        if (stats_.initialized && config_.learning != LearningPolicy::None && stats_.spilled_cycle_bytes > 0) {
            // The workload outgrew what was learned: learn again rather than spill every cycle.
            // When the peak fits but fragmentation made it spill (strict sizes), grow by what
            // spilled.
            learn_locked(std::max(needed, stats_.capacity + stats_.spilled_cycle_bytes));
        } else if (!stats_.initialized) {
            bool done = config_.learning == LearningPolicy::FirstLoop;
            learning_max_ = std::max(learning_max_, needed);
            if (config_.learning == LearningPolicy::OverTime)
                done = (int) stats_.cycles >= std::max(1, config_.cycles_before_initialization);
            if (done) {
                learn_locked(learning_max_);
                stats_.initialized = true;
                // The learning cycle's spills went to the C heap and were freed there; from now on
                // the workspace serves those allocations, so hand the heap's free tail back.
                trim_heap();
            }
        } else if (chunks_.size() > 1 && config_.spill == SpillPolicy::Reallocate &&
                   std::all_of(chunks_.begin(), chunks_.end(), [](Chunk *c) { return c->live_blocks == 0; })) {
            // Chunks added mid-cycle by 'reallocate' become one chunk once they are all empty.
            std::size_t total = stats_.capacity;
            for (Chunk *c : chunks_) release_chunk_locked(c);
            chunks_.clear();
            stats_.capacity = 0;
            map_chunk_locked(total, false);
        }
    } catch (const std::exception &e) {
        // Keep working with spills; learning tries again at the end of the next cycle.
        error = "workspace '" + name_ + "' could not map the memory it learned it needs (" + e.what() +
                "); it keeps serving allocations outside its chunks";
    }
    trim_locked();
    return error;
}

void Workspace::destroy(DestroyReason why) {
    std::shared_ptr<Workspace> drop;  // released after the mutex
    Locked lock;
    flush_if_mine_locked(this, drop);
    destroy_locked(why);
}

void Workspace::destroy_locked(DestroyReason why) {
    Registry &r = registry();
    if (!alive()) return;
    reason_.store(why, std::memory_order_release);
    alive_.store(false, std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_acq_rel);
    cycle_open_.store(false, std::memory_order_release);
    bump_scope_epoch();
    // Spill chunks are only in the registry; collect every chunk this workspace owns.
    std::vector<Chunk *> owned;
    for (auto &kv : r.chunks)
        if (kv.second->owner == this) owned.push_back(kv.second);
    unstash_locked();  // a chunk that outlives it (a zombie) gives freed pages back as they merge
    for (Chunk *c : owned) {
        if (c->live_blocks == 0) {
            release_chunk_locked(c);
        } else {  // an array still points here: release when its last block is freed
            c->owner = nullptr;
            c->release_free();  // meanwhile only the live blocks' pages stay resident
            r.zombie_bytes += c->capacity();
        }
    }
    chunks_.clear();
    live_spill_bytes_ = 0;
    stats_.capacity = 0;
    stats_.chunks = 0;
    stats_.used = 0;
    used_now_.store(0, std::memory_order_relaxed);
    stats_.live_arrays = 0;
}

std::string Workspace::check_heap() const {
    Locked lock;
    for (std::size_t i = 0; i < chunks_.size(); ++i)
        if (std::string e = chunks_[i]->check(); !e.empty()) return "chunk " + std::to_string(i) + ": " + e;
    return "";
}

Stats Workspace::stats() const {
    Locked lock;
    return reported_locked();
}

} // namespace wsa
