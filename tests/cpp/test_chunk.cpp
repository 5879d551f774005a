/// tests/cpp/test_chunk.cpp -- one chunk carved into blocks (src/core/memory/chunk.h): blocks back
/// to back from the bottom, freed blocks merging and lowering the top, size-class lists, splitting,
/// ring order, the "dirty" (used before) information zeroing relies on, trimming, and check().
#include "check.h"

#include "memory/backing.h"
#include "memory/chunk.h"

#include <cstdint>
#include <cstring>

using wsa::block_size_for;
using wsa::BlockHeader;

namespace {

/// A chunk over `size` bytes of fresh anonymous memory, given back when it goes.
struct TestChunk {
    wsa::Chunk c;
    explicit TestChunk(std::size_t size) { c.mapping = wsa::map_host(size, false); }
    ~TestChunk() { wsa::unmap(c.mapping); }
    TestChunk(const TestChunk &) = delete;
    TestChunk &operator=(const TestChunk &) = delete;

    /// A block for a request of `n` bytes (null when the chunk has no room).
    BlockHeader *take(std::size_t n, bool prefer_top = false) {
        std::size_t dirty = 0;
        return c.allocate(block_size_for(n), prefer_top, dirty);
    }
    std::size_t offset(const BlockHeader *b) const { return (std::size_t) ((const char *) b - c.base()); }
    unsigned char *data(BlockHeader *b) const { return (unsigned char *) b + wsa::kHeader; }
};

/// The size class (free list) of a block of `size` bytes: floor(log2(size)).
int size_class(std::size_t size) {
    int c = 0;
    while (size >>= 1) ++c;
    return c;
}

} // namespace

TEST(block_sizes_include_the_header_and_round_to_64_bytes) {
    CHECK_EQ(block_size_for(0), std::size_t(64));
    CHECK_EQ(block_size_for(1), std::size_t(128));
    CHECK_EQ(block_size_for(64), std::size_t(128));
    CHECK_EQ(block_size_for(65), std::size_t(192));
    CHECK_EQ(block_size_for(4032), std::size_t(4096));
    CHECK_EQ(wsa::round_up(4097, 4096), std::size_t(8192));
    CHECK_EQ(sizeof(BlockHeader), wsa::kHeader);
}

TEST(chunk_blocks_sit_back_to_back_from_the_bottom) {
    TestChunk t(1 << 20);
    BlockHeader *a = t.take(100), *b = t.take(1000);
    REQUIRE(a && b);
    CHECK_EQ(t.offset(a), std::size_t(0));
    CHECK_EQ(a->size, std::uint64_t(192));
    CHECK_EQ(t.offset(b), std::size_t(192));
    CHECK_EQ(b->size, std::uint64_t(1088));
    CHECK_EQ(b->prev_size, std::uint64_t(192));
    CHECK_EQ(t.c.top, std::size_t(1280));
    CHECK_EQ(t.c.last_size, std::size_t(1088));
    CHECK_EQ(t.c.live_blocks, std::size_t(2));
    CHECK_EQ(t.c.live_bytes, std::size_t(1280));
    CHECK_EQ((std::uintptr_t) t.data(b) % wsa::kAlign, std::uintptr_t(0));
    CHECK_EQ(t.c.check(), std::string());
}

TEST(chunk_releasing_the_top_block_lowers_the_top) {
    TestChunk t(1 << 20);
    BlockHeader *a = t.take(100), *b = t.take(1000);
    t.c.release(b);
    CHECK_EQ(t.c.top, std::size_t(192));
    CHECK_EQ(t.c.last_size, std::size_t(192));
    t.c.release(a);
    CHECK_EQ(t.c.top, std::size_t(0));
    CHECK_EQ(t.c.last_size, std::size_t(0));
    CHECK_EQ(t.c.live_blocks, std::size_t(0));
    CHECK_EQ(t.c.nonempty, std::uint64_t(0));
    CHECK_EQ(t.c.check(), std::string());
}

TEST(chunk_a_freed_block_below_the_top_waits_in_its_size_class) {
    TestChunk t(1 << 20);
    t.take(100);
    BlockHeader *mid = t.take(4000);
    t.take(100);
    std::size_t top = t.c.top;
    t.c.release(mid);
    CHECK_EQ(t.c.top, top);
    CHECK_EQ(t.c.free_bytes_below_top(), std::size_t(4096));
    CHECK_EQ(size_class(4096), 12);
    CHECK(t.c.free_lists[12] == mid);
    CHECK_EQ(t.c.nonempty, std::uint64_t(1) << 12);
    CHECK_EQ(t.c.check(), std::string());
}

TEST(chunk_freed_neighbours_merge_into_one_block) {
    TestChunk t(1 << 20);
    BlockHeader *b1 = t.take(100), *b2 = t.take(100), *b3 = t.take(100), *b4 = t.take(100);
    t.c.release(b2);
    t.c.release(b3);  // merges with b2 below it
    CHECK_EQ(b2->size, std::uint64_t(384));
    CHECK(t.c.free_lists[size_class(384)] == b2);
    CHECK_EQ(t.c.nonempty, std::uint64_t(1) << size_class(384));
    CHECK_EQ(b4->prev_size, std::uint64_t(384));
    CHECK_EQ(t.c.check(), std::string());
    t.c.release(b1);  // merges with the free block above it
    CHECK_EQ(b1->size, std::uint64_t(576));
    CHECK(t.c.free_lists[size_class(576)] == b1);
    CHECK_EQ(t.c.nonempty, std::uint64_t(1) << size_class(576));
    CHECK_EQ(t.c.check(), std::string());
    t.c.release(b4);  // merges with everything below and is the top: the chunk is empty again
    CHECK_EQ(t.c.top, std::size_t(0));
    CHECK_EQ(t.c.nonempty, std::uint64_t(0));
    CHECK_EQ(t.c.free_bytes_below_top(), std::size_t(0));
    CHECK_EQ(t.c.check(), std::string());
}

TEST(chunk_reuses_a_freed_block_and_splits_off_the_rest) {
    TestChunk t(1 << 20);
    BlockHeader *big = t.take(8000);  // 8064 bytes, class 12
    t.take(100);                      // keeps `big` below the top
    t.c.release(big);
    // 1088 bytes (class 10): nothing free in its class, so the lowest non-empty higher class serves.
    BlockHeader *b = t.take(1000);
    CHECK(b == big);
    CHECK_EQ(b->size, std::uint64_t(1088));
    auto *tail = (BlockHeader *) ((char *) b + 1088);
    CHECK_EQ(tail->size, std::uint64_t(8064 - 1088));
    CHECK_EQ(tail->live, std::uint32_t(0));
    CHECK(t.c.free_lists[size_class(8064 - 1088)] == tail);
    CHECK_EQ(t.c.free_bytes_below_top(), std::size_t(8064 - 1088));
    CHECK_EQ(t.c.check(), std::string());
}

TEST(chunk_a_remainder_too_small_to_hold_a_block_is_not_split_off) {
    TestChunk t(1 << 20);
    BlockHeader *hole = t.take(200);  // 320 bytes
    t.take(100);
    t.c.release(hole);
    BlockHeader *b = t.take(150);  // 256 bytes: the 64 left over could not hold a block of its own
    CHECK(b == hole);
    CHECK_EQ(b->size, std::uint64_t(320));
    CHECK_EQ(t.c.nonempty, std::uint64_t(0));
    CHECK_EQ(t.c.check(), std::string());
}

TEST(chunk_ring_order_takes_fresh_space_before_freed_space) {
    TestChunk t(4096);
    BlockHeader *first = t.take(100);  // 192 bytes
    t.take(100);
    BlockHeader *fresh = t.take(100, true);
    CHECK_EQ(t.offset(fresh), std::size_t(384));
    t.c.release(first);
    BlockHeader *rest = t.take(4096 - 576 - 64, true);  // exactly the fresh space left
    REQUIRE(rest != nullptr);
    CHECK_EQ(t.c.top, std::size_t(4096));
    BlockHeader *wrapped = t.take(100, true);  // no fresh space: the freed block, as a ring
    CHECK(wrapped == first);
    CHECK_EQ(t.c.check(), std::string());
}

TEST(chunk_without_room_returns_null) {
    TestChunk t(4096);
    CHECK(t.take(4033) == nullptr);  // 4160 bytes
    BlockHeader *all = t.take(4032);
    CHECK(all != nullptr);
    CHECK(t.take(1) == nullptr);
    t.c.release(all);
    CHECK(t.take(1) != nullptr);
}

TEST(chunk_dirty_says_how_much_of_a_block_was_used_before) {
    TestChunk t(1 << 20);
    std::size_t dirty = 99;
    BlockHeader *b = t.c.allocate(block_size_for(4032), false, dirty);
    CHECK_EQ(dirty, std::size_t(0));  // fresh memory reads as zeros
    CHECK_EQ(t.c.high_water, std::size_t(4096));
    t.c.release(b);
    b = t.c.allocate(block_size_for(4032), false, dirty);
    CHECK_EQ(dirty, std::size_t(4032));  // all of its data was used
    t.c.release(b);
    b = t.c.allocate(block_size_for(8000), false, dirty);
    CHECK_EQ(dirty, std::size_t(4032));  // only the first 4032 bytes were
    CHECK_EQ(t.c.high_water, std::size_t(8064));
}

TEST(chunk_trim_gives_back_pages_above_what_the_window_used) {
    const std::size_t n = std::size_t(4) << 20;
    TestChunk t(8 << 20);
    BlockHeader *b = t.take(n);
    std::memset(t.data(b), 0xAB, n);
    t.c.release(b);
    CHECK_EQ(t.c.top, std::size_t(0));
    // The window since the last trim used those pages: the first trim keeps them.
    CHECK_EQ(t.c.trim(1 << 20, 0), std::size_t(0));
    // The next window did not: they go back to the operating system and read as zeros again.
    std::size_t released = t.c.trim(1 << 20, 0);
    CHECK_EQ(released, wsa::round_up(n + wsa::kHeader, wsa::page_size()));
    CHECK_EQ(t.c.high_water, std::size_t(0));
    std::size_t dirty = 99;
    b = t.c.allocate(block_size_for(n), false, dirty);
    CHECK_EQ(dirty, std::size_t(0));
    CHECK_EQ(t.data(b)[0], 0);
    CHECK_EQ(t.data(b)[n / 2], 0);
    CHECK_EQ(t.data(b)[n - 1], 0);
}

TEST(chunk_trim_gives_back_free_holes_below_the_top_once_old_enough) {
    const std::size_t n = std::size_t(2) << 20;
    TestChunk t(8 << 20);
    BlockHeader *hole = t.take(n);
    t.take(100);  // pins the hole below the top
    std::memset(t.data(hole), 0xAB, n);
    t.c.release(hole);
    CHECK_EQ(t.c.trim(1 << 20, 2), std::size_t(0));  // freed this cycle: too young
    t.c.cycles = 2;
    CHECK_EQ(t.c.trim(1 << 20, 2), n);
    CHECK_EQ(t.data(hole)[n / 2], 0);  // whole pages inside the block read as zeros
    CHECK_EQ(t.c.check(), std::string());
}

TEST(chunk_check_reports_a_broken_heap) {
    TestChunk t(1 << 20);
    BlockHeader *a = t.take(100), *b = t.take(100);
    a->magic = 0;
    CHECK_EQ(t.c.check().rfind("bad magic", 0), std::size_t(0));
    a->magic = wsa::kMagic;
    b->prev_size = 64;
    CHECK_EQ(t.c.check().rfind("bad prev_size", 0), std::size_t(0));
    b->prev_size = a->size;
    CHECK_EQ(t.c.check(), std::string());
}
