/// src/core/memory/chunk.h -- one mapped chunk of memory carved into blocks.
///
/// Blocks sit back to back from offset 0 up to `top`; each starts with a 64-byte header holding its
/// own size and its lower neighbour's size (boundary tags), so a freed block merges with free
/// neighbours at once and a free block at the top lowers `top` (the bump stack shrinks). Free
/// blocks below the top wait in power-of-two size-class lists. A live block is never moved or
/// overwritten: memory is reused only once NumPy has freed the array that held it.
#pragma once
#include "backing.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace wsa {

struct Workspace;

constexpr std::size_t kHeader = 64;     ///< header bytes before every block's data
constexpr std::size_t kAlign = 64;      ///< data alignment (a cache line; enough for AVX-512)
constexpr int kClasses = 64;            ///< size classes: floor(log2(block size))
constexpr std::uint32_t kMagic = 0x57534131u;  // "WSA1"

struct BlockHeader {
    std::uint64_t size;        ///< bytes of this block, header included (multiple of kAlign)
    std::uint64_t prev_size;   ///< bytes of the block just below (0 for the first block)
    std::uint64_t requested;   ///< bytes the caller asked for (0 while free)
    std::uint32_t live;        ///< 1 while allocated
    std::uint32_t magic;
    BlockHeader *next_free;    ///< size-class list links while free
    BlockHeader *prev_free;
    std::uint64_t freed_at;    ///< the chunk's cycle count when the block last became free
    std::uint64_t reserved;
};
static_assert(sizeof(BlockHeader) == kHeader, "block header must be one cache line");

struct Chunk {
    Mapping mapping;
    bool spill = false;          ///< holds one spilled allocation; unmapped when it is freed
    Workspace *owner = nullptr;  ///< null once the workspace is destroyed (a "zombie" chunk)
    std::size_t top = 0;         ///< blocks occupy [0, top)
    std::size_t last_size = 0;   ///< size of the (always live) block ending at `top`
    std::size_t high_water = 0;  ///< memory at and above this offset was never used (reads as zeros)
    std::size_t window_top = 0;  ///< highest `top` since the last trim (see trim())
    std::uint64_t cycles = 0;    ///< cycles the owner has ended (ages free blocks for trim())
    std::size_t live_blocks = 0;
    std::size_t live_bytes = 0;
    std::uint64_t nonempty = 0;  ///< bit c set when free_lists[c] is not empty
    BlockHeader *free_lists[kClasses] = {};

    char *base() const { return (char *) mapping.ptr; }
    std::size_t capacity() const { return mapping.size; }
    bool contains(const void *p) const { return (const char *) p >= base() && (const char *) p < base() + capacity(); }

    /// A block of `total` bytes (header included); nullptr when the chunk has no room.
    /// `prefer_top` takes fresh space before freed space (ring order for circular workspaces).
    /// `dirty`: how many bytes of its data (from the data start) had been used before; the rest is
    /// fresh memory that reads as zeros.
    BlockHeader *allocate(std::size_t total, bool prefer_top, std::size_t &dirty);
    /// Return a live block; merges with free neighbours and lowers `top` when possible.
    void release(BlockHeader *b);
    /// Bytes in free blocks below `top` (for statistics).
    std::size_t free_bytes_below_top() const;
    /// Give back to the OS the pages above the highest `top` since the last trim (when that is at
    /// least `min_bytes`), and the inside of free blocks of at least `min_bytes` that no cycle used
    /// for `age` cycles. Returns the bytes given back (lowers high_water where the pages read as
    /// zeros again). Memory the loop still uses is never given back: no page faults in a steady state.
    std::size_t trim(std::size_t min_bytes, std::uint64_t age);
    /// Give back the pages inside the free block holding offset `off` (a freed block of a
    /// destroyed workspace's chunk that live arrays still pin).
    std::size_t release_free_block_at(std::size_t off);
    /// Walk every block and free list; an empty string when all invariants hold, else the first
    /// violation found (for tests).
    std::string check() const;

private:
    BlockHeader *take_from_lists(std::size_t total);
    BlockHeader *take_from_top(std::size_t total);
    void push_free(BlockHeader *b);
    void unlink_free(BlockHeader *b);
    BlockHeader *next_of(BlockHeader *b) const;
    BlockHeader *prev_of(BlockHeader *b) const;
};

/// Round `n` up to a multiple of `a` (a power of two).
inline std::size_t round_up(std::size_t n, std::size_t a) { return (n + a - 1) & ~(a - 1); }

/// Block size (header included) for a request of `n` bytes.
inline std::size_t block_size_for(std::size_t n) { return round_up(n + kHeader, kAlign); }

} // namespace wsa
