/// src/core/memory/chunk.h -- one chunk of memory carved into blocks, with its bookkeeping on the host.
///
/// Blocks sit back to back from offset 0 up to `top`. Nothing about them is written into the chunk:
/// each block has a host-side record (offset, size, requested bytes, live flag, address-order
/// neighbours, size-class links, the cycle it was freed in) in the chunk's record pool, and live
/// blocks are found from their offset through an open-addressing hash map. The chunk's memory may
/// thus be a GPU's, or mapped PROT_NONE (tests): the core never reads or writes it. A block's data
/// starts at the block's offset (64-byte aligned on the host, 256 on a device). A freed block
/// merges with free neighbours at once and a free block at the top lowers `top` (the bump stack
/// shrinks). Free blocks below the top wait in power-of-two size-class lists. A live block is never
/// moved or overwritten: memory is reused only once its array has been freed.
///
/// The stash: a loop frees and allocates the same small sizes over and over. A small block freed
/// with `keep_whole` is kept whole (its record stays marked live, so no neighbour merges into it,
/// but it is neither in the live map nor in the live counters) and the next allocation of exactly
/// its size takes it back: no split, no merge, no free-list update (np.zeros(64) in a workspace:
/// about 250 instructions less per array). unstash() merges the stash back (the workspace does at
/// every cycle end, on destroy, and before it would spill).
#pragma once
#include "backing.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wsa {

struct Workspace;

constexpr std::size_t kAlign = 64;        ///< host data alignment (a cache line; enough for AVX-512)
constexpr std::size_t kDeviceAlign = 256; ///< device data alignment (what CUDA allocators give)
constexpr int kClasses = 64;              ///< size classes: floor(log2(block size))
constexpr std::uint32_t kNil = ~std::uint32_t(0);

/// The host-side record of one block.
struct Block {
    std::uint64_t offset;     ///< where the block (and its data) starts in the chunk
    std::uint64_t size;       ///< bytes of the block (a multiple of the chunk's alignment)
    std::uint64_t requested;  ///< bytes the caller asked for (0 while free)
    std::uint64_t freed_at;   ///< the chunk's cycle count when the block last became free
    std::uint32_t prev, next; ///< address-order neighbours (kNil at either end)
    std::uint32_t prev_free, next_free;  ///< size-class list links while free; `next` links unused records
    std::uint32_t live;       ///< 1 while allocated
};

/// Offset of a live block -> its record: open addressing, linear probing, deletion by backward
/// shift (no tombstones), so a lookup stays a probe or two however many blocks came and went.
class LiveMap {
public:
    void insert(std::uint64_t key, std::uint32_t value) {
        if ((count_ + 1) * 2 > slots_.size()) grow();  // load factor at most 1/2: short probes
        std::size_t i = home(key);
        while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
        slots_[i] = Slot{key, value};
        ++count_;
    }
    /// kNil when `key` is not a live block's offset.
    std::uint32_t find(std::uint64_t key) const {
        if (slots_.empty()) return kNil;
        for (std::size_t i = home(key);; i = (i + 1) & mask_) {
            if (slots_[i].key == key) return slots_[i].value;
            if (slots_[i].key == kEmpty) return kNil;
        }
    }
    /// find() and erase in one probe: the value, kNil (nothing erased) when `key` is absent.
    std::uint32_t take(std::uint64_t key) {
        if (slots_.empty()) return kNil;
        std::size_t i = home(key);
        while (slots_[i].key != key) {
            if (slots_[i].key == kEmpty) return kNil;
            i = (i + 1) & mask_;
        }
        std::uint32_t value = slots_[i].value;
        erase_slot(i);
        return value;
    }
    void erase(std::uint64_t key) { (void) take(key); }
    std::size_t size() const { return count_; }

private:
    struct Slot {
        std::uint64_t key;
        std::uint32_t value;
    };
    static constexpr std::uint64_t kEmpty = ~std::uint64_t(0);
    std::size_t home(std::uint64_t key) const { return (std::size_t) ((key * 0x9E3779B97F4A7C15ull) >> shift_); }
    void grow();
    void erase_slot(std::size_t i);
    std::vector<Slot> slots_;
    std::size_t mask_ = 0;
    int shift_ = 64;
    std::size_t count_ = 0;
};

struct Chunk {
    Mapping mapping;
    std::shared_ptr<const DeviceSource> device;  ///< keeps a device source alive while its memory is
    std::size_t align = kAlign;  ///< block alignment: kAlign on the host, the device's on a device
    /// Holds one spilled allocation, at its start (live_blocks, live_bytes and spill_requested
    /// describe it; no records); unmapped when it is freed.
    bool spill = false;
    std::size_t spill_requested = 0;
    Workspace *owner = nullptr;  ///< null once the workspace is destroyed (a "zombie" chunk)
    std::size_t top = 0;         ///< blocks occupy [0, top)
    std::size_t high_water = 0;  ///< memory at and above this offset was never used (reads as zeros)
    std::size_t window_top = 0;  ///< highest `top` since the last trim (see trim())
    std::uint64_t cycles = 0;    ///< cycles the owner has ended (ages free blocks for trim())
    std::size_t live_blocks = 0;
    std::size_t live_bytes = 0;
    std::uint64_t nonempty = 0;  ///< bit c set when free_lists[c] is not empty
    std::uint32_t free_lists[kClasses];
    std::uint32_t first = kNil;  ///< the block at offset 0
    std::uint32_t last = kNil;   ///< the (always live) block ending at `top`

    Chunk();
    char *base() const { return (char *) mapping.ptr; }
    std::size_t capacity() const { return mapping.size; }
    bool contains(const void *p) const { return (const char *) p >= base() && (const char *) p < base() + capacity(); }
    Block &rec(std::uint32_t i) { return records_[i]; }
    const Block &rec(std::uint32_t i) const { return records_[i]; }
    /// The live block whose data starts at `p` (kNil if none: a foreign or stale pointer).
    std::uint32_t live_block_at(const void *p) const { return live_.find((std::uint64_t) ((const char *) p - base())); }

    /// A live block of `total` bytes (a multiple of `align`); kNil when the chunk has no room.
    /// `prefer_top` takes fresh space before freed space (ring order for circular workspaces).
    /// `dirty`: how many bytes of it (from its start) had been used before; the rest is fresh
    /// memory that reads as zeros.
    std::uint32_t allocate(std::size_t total, bool prefer_top, std::size_t &dirty);
    /// Return a live block; merges with free neighbours and lowers `top` when possible.
    void release(std::uint32_t b) {
        live_.erase(records_[b].offset);
        release_unmapped(b);
    }
    /// Return the live block whose data starts at `p` (one probe of the live map) and say its
    /// size; false, and nothing done, when there is none (a foreign or stale pointer). With
    /// `keep_whole`, a block of at most kStashMaxBytes goes to the stash.
    bool release_at(const void *p, std::size_t &size, bool keep_whole = false) {
        std::uint32_t b = live_.take((std::uint64_t) ((const char *) p - base()));
        if (b == kNil) return false;
        size = records_[b].size;
        if (keep_whole && size <= kStashMaxBytes) stash(b);
        else release_unmapped(b);
        return true;
    }
    /// Merge every stashed block back into the free space.
    void unstash() {
        while (stashed_) unstash_at(0);
    }
    bool has_stash() const { return stashed_ != 0; }
    static constexpr std::size_t kStashMaxBytes = std::size_t(32) << 10;
    static constexpr int kStashSlots = 16;
    /// Bytes in free blocks below `top` (for statistics).
    std::size_t free_bytes_below_top() const;
    /// Give back to the OS the pages above the highest `top` since the last trim (when that is at
    /// least `min_bytes`), and free blocks of at least `min_bytes` that no cycle used for `age`
    /// cycles. Returns the bytes given back (lowers high_water where the pages read as zeros
    /// again). Memory the loop still uses is never given back: no page faults in a steady state.
    std::size_t trim(std::size_t min_bytes, std::uint64_t age);
    /// Give back every free page (the chunk of a destroyed workspace that live arrays still pin:
    /// only their blocks stay resident). Returns the bytes given back.
    std::size_t release_free() {
        window_top = top;
        return trim(1, 0);
    }
    /// Give back the pages inside the free block holding offset `off` (a freed block of a
    /// destroyed workspace's chunk that live arrays still pin).
    std::size_t release_free_block_at(std::size_t off);
    /// Walk every block, free list and the live map; an empty string when all invariants hold,
    /// else the first violation found (for tests).
    std::string check() const;

private:
    std::uint32_t take_from_lists(std::size_t total);
    /// A stashed block of exactly `total` bytes, made live again; kNil when none.
    std::uint32_t take_from_stash(std::size_t total);
    void stash(std::uint32_t b);
    /// Merge stash slot `k` back into the free space.
    void unstash_at(int k);
    /// Take slot `k` out of the stash (later slots move down one); the block it held.
    std::uint32_t remove_stash_slot(int k);
    std::uint32_t take_from_top(std::size_t total);
    void push_free(std::uint32_t b);
    void unlink_free(std::uint32_t b);
    void release_unmapped(std::uint32_t b);
    std::uint32_t new_record();
    void drop_record(std::uint32_t b);

    std::vector<Block> records_;       ///< the record pool
    std::uint32_t unused_ = kNil;      ///< unused records, linked through `next`
    std::uint32_t stash_[kStashSlots];  ///< stashed blocks, oldest first
    int stashed_ = 0;
    LiveMap live_;
};

/// Round `n` up to a multiple of `a` (a power of two).
inline std::size_t round_up(std::size_t n, std::size_t a) { return (n + a - 1) & ~(a - 1); }

/// Block size for a request of `n` bytes at alignment `align` (a zero-byte request still gets a
/// block of its own: every allocation has a distinct address).
inline std::size_t block_size_for(std::size_t n, std::size_t align = kAlign) { return round_up(n ? n : 1, align); }

} // namespace wsa
