/// tests/cpp/test_chunk.cpp -- one chunk carved into blocks (src/core/memory/chunk.h): blocks back
/// to back from the bottom, freed blocks merging and lowering the top, size-class lists, splitting,
/// ring order, the "dirty" (used before) information zeroing relies on, trimming, check(), the live
/// map, the stash, and all of it over PROT_NONE memory (the bookkeeping never touches a chunk).
#include "check.h"

#include "memory/backing.h"
#include "memory/chunk.h"

#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <random>
#include <vector>

using wsa::block_size_for;
using wsa::kNil;

namespace {

/// A chunk over `size` bytes of fresh anonymous memory (or PROT_NONE memory), given back when it goes.
struct TestChunk {
    wsa::Chunk c;
    explicit TestChunk(std::size_t size, bool notouch = false) {
        c.mapping = notouch ? wsa::map_notouch(size) : wsa::map_host(size, false);
    }
    ~TestChunk() { wsa::unmap(c.mapping); }
    TestChunk(const TestChunk &) = delete;
    TestChunk &operator=(const TestChunk &) = delete;

    /// A block for a request of `n` bytes (kNil when the chunk has no room).
    std::uint32_t take(std::size_t n, bool prefer_top = false) {
        std::size_t dirty = 0;
        return c.allocate(block_size_for(n, c.align), prefer_top, dirty);
    }
    std::size_t offset(std::uint32_t b) const { return c.rec(b).offset; }
    std::size_t size(std::uint32_t b) const { return c.rec(b).size; }
    unsigned char *data(std::uint32_t b) const { return (unsigned char *) c.base() + c.rec(b).offset; }
};

/// The size class (free list) of a block of `size` bytes: floor(log2(size)).
int size_class(std::size_t size) {
    int c = 0;
    while (size >>= 1) ++c;
    return c;
}

} // namespace

TEST(block_sizes_round_to_the_alignment_without_a_header) {
    CHECK_EQ(block_size_for(0), std::size_t(64));  // a zero-byte request still gets its own address
    CHECK_EQ(block_size_for(1), std::size_t(64));
    CHECK_EQ(block_size_for(64), std::size_t(64));
    CHECK_EQ(block_size_for(65), std::size_t(128));
    CHECK_EQ(block_size_for(4096), std::size_t(4096));
    CHECK_EQ(block_size_for(1, wsa::kDeviceAlign), std::size_t(256));
    CHECK_EQ(block_size_for(257, wsa::kDeviceAlign), std::size_t(512));
    CHECK_EQ(wsa::round_up(4097, 4096), std::size_t(8192));
}

TEST(chunk_blocks_sit_back_to_back_from_the_bottom) {
    TestChunk t(1 << 20);
    std::uint32_t a = t.take(100), b = t.take(1000);
    REQUIRE(a != kNil && b != kNil);
    CHECK_EQ(t.offset(a), std::size_t(0));
    CHECK_EQ(t.size(a), std::size_t(128));
    CHECK_EQ(t.offset(b), std::size_t(128));
    CHECK_EQ(t.size(b), std::size_t(1024));
    CHECK_EQ(t.c.rec(b).prev, a);
    CHECK_EQ(t.c.rec(a).next, b);
    CHECK_EQ(t.c.top, std::size_t(1152));
    CHECK_EQ(t.c.last, b);
    CHECK_EQ(t.c.live_blocks, std::size_t(2));
    CHECK_EQ(t.c.live_bytes, std::size_t(1152));
    CHECK_EQ((std::uintptr_t) t.data(b) % wsa::kAlign, std::uintptr_t(0));
    CHECK_EQ(t.c.live_block_at(t.data(b)), b);
    CHECK_EQ(t.c.live_block_at(t.data(b) + 64), kNil);  // inside a block: not a block's start
    CHECK_EQ(t.c.check(), std::string());
}

TEST(chunk_releasing_the_top_block_lowers_the_top) {
    TestChunk t(1 << 20);
    std::uint32_t a = t.take(100), b = t.take(1000);
    t.c.release(b);
    CHECK_EQ(t.c.top, std::size_t(128));
    CHECK_EQ(t.c.last, a);
    t.c.release(a);
    CHECK_EQ(t.c.top, std::size_t(0));
    CHECK_EQ(t.c.last, kNil);
    CHECK_EQ(t.c.first, kNil);
    CHECK_EQ(t.c.live_blocks, std::size_t(0));
    CHECK_EQ(t.c.nonempty, std::uint64_t(0));
    CHECK_EQ(t.c.live_block_at(t.c.base()), kNil);
    CHECK_EQ(t.c.check(), std::string());
}

TEST(chunk_a_freed_block_below_the_top_waits_in_its_size_class) {
    TestChunk t(1 << 20);
    t.take(100);
    std::uint32_t mid = t.take(4096);
    t.take(100);
    std::size_t top = t.c.top;
    t.c.release(mid);
    CHECK_EQ(t.c.top, top);
    CHECK_EQ(t.c.free_bytes_below_top(), std::size_t(4096));
    CHECK_EQ(size_class(4096), 12);
    CHECK_EQ(t.c.free_lists[12], mid);
    CHECK_EQ(t.c.nonempty, std::uint64_t(1) << 12);
    CHECK_EQ(t.c.check(), std::string());
}

TEST(chunk_freed_neighbours_merge_into_one_block) {
    TestChunk t(1 << 20);
    std::uint32_t b1 = t.take(100), b2 = t.take(100), b3 = t.take(100), b4 = t.take(100);
    t.c.release(b2);
    t.c.release(b3);  // merges with b2 below it
    CHECK_EQ(t.size(b2), std::size_t(256));
    CHECK_EQ(t.c.free_lists[size_class(256)], b2);
    CHECK_EQ(t.c.nonempty, std::uint64_t(1) << size_class(256));
    CHECK_EQ(t.c.rec(b4).prev, b2);
    CHECK_EQ(t.c.check(), std::string());
    t.c.release(b1);  // merges with the free block above it
    CHECK_EQ(t.size(b1), std::size_t(384));
    CHECK_EQ(t.c.free_lists[size_class(384)], b1);
    CHECK_EQ(t.c.nonempty, std::uint64_t(1) << size_class(384));
    CHECK_EQ(t.c.check(), std::string());
    t.c.release(b4);  // merges with everything below and is the top: the chunk is empty again
    CHECK_EQ(t.c.top, std::size_t(0));
    CHECK_EQ(t.c.nonempty, std::uint64_t(0));
    CHECK_EQ(t.c.free_bytes_below_top(), std::size_t(0));
    CHECK_EQ(t.c.check(), std::string());
}

TEST(chunk_reuses_a_freed_block_and_splits_off_the_rest) {
    TestChunk t(1 << 20);
    std::uint32_t big = t.take(8000);  // 8000 bytes, class 12
    t.take(100);                       // keeps `big` below the top
    t.c.release(big);
    // 1024 bytes (class 10): nothing free in its class, so the lowest non-empty higher class serves.
    std::uint32_t b = t.take(1000);
    CHECK_EQ(b, big);
    CHECK_EQ(t.size(b), std::size_t(1024));
    std::uint32_t tail = t.c.rec(b).next;
    CHECK_EQ(t.offset(tail), std::size_t(1024));
    CHECK_EQ(t.size(tail), std::size_t(8000 - 1024));
    CHECK_EQ(t.c.rec(tail).live, std::uint32_t(0));
    CHECK_EQ(t.c.free_lists[size_class(8000 - 1024)], tail);
    CHECK_EQ(t.c.free_bytes_below_top(), std::size_t(8000 - 1024));
    CHECK_EQ(t.c.check(), std::string());
}

TEST(chunk_splits_off_a_remainder_of_one_alignment_unit) {
    TestChunk t(1 << 20);
    std::uint32_t hole = t.take(200);  // 256 bytes
    t.take(100);
    t.c.release(hole);
    std::uint32_t b = t.take(150);  // 192 bytes: the 64 left over is a block of its own now
    CHECK_EQ(b, hole);
    CHECK_EQ(t.size(b), std::size_t(192));
    CHECK_EQ(t.c.nonempty, std::uint64_t(1) << 6);
    CHECK_EQ(t.c.check(), std::string());
    std::uint32_t small = t.take(1);
    CHECK_EQ(t.offset(small), std::size_t(192));
    CHECK_EQ(t.c.nonempty, std::uint64_t(0));
    CHECK_EQ(t.c.check(), std::string());
}

TEST(chunk_ring_order_takes_fresh_space_before_freed_space) {
    TestChunk t(4096);
    std::uint32_t first = t.take(100);  // 128 bytes
    t.take(100);
    std::uint32_t fresh = t.take(100, true);
    CHECK_EQ(t.offset(fresh), std::size_t(256));
    t.c.release(first);
    std::uint32_t rest = t.take(4096 - 384, true);  // exactly the fresh space left
    REQUIRE(rest != kNil);
    CHECK_EQ(t.c.top, std::size_t(4096));
    std::uint32_t wrapped = t.take(100, true);  // no fresh space: the freed block, as a ring
    CHECK_EQ(t.offset(wrapped), std::size_t(0));
    CHECK_EQ(t.c.check(), std::string());
}

TEST(chunk_without_room_returns_nil) {
    TestChunk t(4096);
    CHECK_EQ(t.take(4097), kNil);
    std::uint32_t all = t.take(4096);
    CHECK(all != kNil);
    CHECK_EQ(t.take(1), kNil);
    t.c.release(all);
    CHECK(t.take(1) != kNil);
}

TEST(chunk_dirty_says_how_much_of_a_block_was_used_before) {
    TestChunk t(1 << 20);
    std::size_t dirty = 99;
    std::uint32_t b = t.c.allocate(block_size_for(4096), false, dirty);
    CHECK_EQ(dirty, std::size_t(0));  // fresh memory reads as zeros
    CHECK_EQ(t.c.high_water, std::size_t(4096));
    t.c.release(b);
    b = t.c.allocate(block_size_for(4096), false, dirty);
    CHECK_EQ(dirty, std::size_t(4096));  // all of it was used
    t.c.release(b);
    b = t.c.allocate(block_size_for(8000), false, dirty);
    CHECK_EQ(dirty, std::size_t(4096));  // only the first 4096 bytes were
    CHECK_EQ(t.c.high_water, std::size_t(8000));
}

TEST(chunk_trim_gives_back_pages_above_what_the_window_used) {
    const std::size_t n = std::size_t(4) << 20;
    TestChunk t(8 << 20);
    std::uint32_t b = t.take(n);
    std::memset(t.data(b), 0xAB, n);
    t.c.release(b);
    CHECK_EQ(t.c.top, std::size_t(0));
    // The window since the last trim used those pages: the first trim keeps them.
    CHECK_EQ(t.c.trim(1 << 20, 0), std::size_t(0));
    // The next window did not: they go back to the operating system and read as zeros again.
    std::size_t released = t.c.trim(1 << 20, 0);
    CHECK_EQ(released, wsa::round_up(n, wsa::page_size()));
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
    std::uint32_t hole = t.take(n);
    t.take(100);  // pins the hole below the top
    std::memset(t.data(hole), 0xAB, n);
    unsigned char *data = t.data(hole);
    t.c.release(hole);
    CHECK_EQ(t.c.trim(1 << 20, 2), std::size_t(0));  // freed this cycle: too young
    t.c.cycles = 2;
    CHECK_EQ(t.c.trim(1 << 20, 2), n);  // the whole block: no header inside it to keep
    CHECK_EQ(data[0], 0);
    CHECK_EQ(data[n - 1], 0);
    CHECK_EQ(t.c.check(), std::string());
}

TEST(chunk_check_reports_broken_bookkeeping) {
    TestChunk t(1 << 20);
    std::uint32_t a = t.take(100), b = t.take(100);
    t.c.rec(b).offset = 64;
    CHECK_EQ(t.c.check().rfind("a gap or overlap", 0), std::size_t(0));
    t.c.rec(b).offset = 128;
    t.c.rec(b).prev = b;
    CHECK_EQ(t.c.check().rfind("bad prev link", 0), std::size_t(0));
    t.c.rec(b).prev = a;
    CHECK_EQ(t.c.check(), std::string());
    t.c.live_bytes += 64;
    CHECK_EQ(t.c.check(), std::string("live counters do not match the blocks"));
    t.c.live_bytes -= 64;
    CHECK_EQ(t.c.check(), std::string());
}

TEST(chunk_bookkeeping_never_touches_chunk_memory) {
    // PROT_NONE: one read or write of the chunk by the allocator would crash this test.
    TestChunk t(1 << 20, true);
    std::mt19937 rng(7);
    std::vector<std::uint32_t> live;
    for (int step = 0; step < 20000; ++step) {
        if (live.empty() || rng() % 3) {
            std::uint32_t b = t.take(1 + rng() % 5000, step % 7 == 0);
            if (b != kNil) live.push_back(b);
        } else {
            std::size_t k = rng() % live.size();
            t.c.release(live[k]);
            live[k] = live.back();
            live.pop_back();
        }
        if (step % 997 == 0) REQUIRE(t.c.check() == std::string());
    }
    t.c.cycles = 100;
    CHECK_EQ(t.c.trim(1, 0), std::size_t(0));  // nothing to give back: no pages of its own
    CHECK_EQ(t.c.release_free_block_at(0), std::size_t(0));
    for (std::uint32_t b : live) t.c.release(b);
    CHECK_EQ(t.c.top, std::size_t(0));
    CHECK_EQ(t.c.check(), std::string());
}

TEST(live_map_matches_a_reference_map_through_inserts_and_erases) {
    wsa::LiveMap m;
    std::map<std::uint64_t, std::uint32_t> ref;
    std::mt19937_64 rng(3);
    for (int step = 0; step < 50000; ++step) {
        std::uint64_t key = (rng() % 4096) * 64;
        if (ref.count(key)) {
            CHECK_EQ(m.find(key), ref[key]);
            m.erase(key);
            ref.erase(key);
            REQUIRE(m.find(key) == kNil);
        } else {
            auto v = (std::uint32_t) (rng() % 1000);
            m.insert(key, v);
            ref[key] = v;
        }
        REQUIRE(m.size() == ref.size());
    }
    for (auto &kv : ref) REQUIRE(m.find(kv.first) == kv.second);
    CHECK_EQ(m.find(64 * 5000), kNil);
}

// ---- the stash (chunk.h): small freed blocks kept whole for their exact size ----

TEST(chunk_stash_keeps_a_freed_small_block_whole_for_its_exact_size) {
    TestChunk t(1 << 20);
    std::uint32_t a = t.take(100), b = t.take(100), c = t.take(100);
    std::size_t at_a = t.offset(a), size = 0;
    CHECK(t.c.release_at(t.c.base() + at_a, size, true));
    CHECK_EQ(size, std::size_t(128));
    CHECK(t.c.has_stash());
    CHECK_EQ(t.c.live_blocks, std::size_t(2));  // stashed: not live, not in a free list
    CHECK_EQ(t.c.nonempty, std::uint64_t(0));
    CHECK_EQ(t.c.live_block_at(t.c.base() + at_a), kNil);  // a second free of it is ignored
    CHECK(!t.c.release_at(t.c.base() + at_a, size, true));
    CHECK_EQ(t.c.check(), std::string());
    std::uint32_t other = t.take(200);  // another size: fresh space at the top
    CHECK_EQ(t.offset(other), std::size_t(3 * 128));
    std::uint32_t again = t.take(100);  // the exact size: the stashed block
    CHECK_EQ(t.offset(again), at_a);
    CHECK(!t.c.has_stash());
    CHECK_EQ(t.c.check(), std::string());
    (void) b;
    (void) c;
}

TEST(chunk_stashed_top_block_keeps_the_top_until_unstashed) {
    TestChunk t(1 << 20);
    std::uint32_t a = t.take(64), b = t.take(64);
    std::size_t size = 0;
    CHECK(t.c.release_at(t.data(b), size, true));
    CHECK_EQ(t.c.top, std::size_t(128));  // kept whole: no merge, no lowering
    CHECK(t.c.release_at(t.data(a), size, true));
    CHECK_EQ(t.c.check(), std::string());
    t.c.unstash();
    CHECK(!t.c.has_stash());
    CHECK_EQ(t.c.top, std::size_t(0));  // both merged back and the bump stack shrank
    CHECK_EQ(t.c.live_blocks, std::size_t(0));
    CHECK_EQ(t.c.check(), std::string());
}

TEST(chunk_stash_takes_small_blocks_only_and_evicts_its_oldest) {
    TestChunk t(4 << 20);
    std::uint32_t big = t.take(wsa::Chunk::kStashMaxBytes + 64);
    std::uint32_t guard = t.take(64);
    std::size_t size = 0;
    CHECK(t.c.release_at(t.data(big), size, true));
    CHECK(!t.c.has_stash());  // too big: merged into the free lists as before
    CHECK(t.c.nonempty != 0);
    // More small blocks than the stash has slots, each between live blocks: the oldest is
    // merged back (into a free list) to make room, the others stay stashed.
    std::vector<std::uint32_t> small, live;
    for (int k = 0; k < wsa::Chunk::kStashSlots + 1; ++k) {
        small.push_back(t.take(64 * (k + 1)));
        live.push_back(t.take(64));
    }
    for (std::uint32_t b : small) REQUIRE(t.c.release_at(t.data(b), size, true));
    CHECK_EQ(t.c.check(), std::string());
    CHECK_EQ(t.c.live_blocks, std::size_t(1 + live.size()));
    t.c.unstash();
    for (std::uint32_t b : live) t.c.release(b);
    t.c.release(guard);
    CHECK_EQ(t.c.top, std::size_t(0));
    CHECK_EQ(t.c.check(), std::string());
}

TEST(chunk_random_traffic_through_the_stash_keeps_the_heap_consistent) {
    // PROT_NONE: the stash is bookkeeping only, as the rest of the allocator.
    TestChunk t(1 << 20, true);
    std::mt19937 rng(11);
    std::vector<std::uint32_t> live;
    std::map<std::size_t, std::size_t> ranges;  // offset -> size of every live block
    for (int step = 0; step < 30000; ++step) {
        if (live.empty() || rng() % 3) {
            std::size_t n = rng() % 2 ? 64 * (1 + rng() % 4) : 1 + rng() % 40000;
            std::uint32_t b = t.take(n);
            if (b == kNil) continue;
            auto next = ranges.lower_bound(t.offset(b));
            REQUIRE(next == ranges.end() || next->first >= t.offset(b) + t.size(b));
            if (next != ranges.begin()) {
                auto prev = std::prev(next);
                REQUIRE(prev->first + prev->second <= t.offset(b));
            }
            ranges[t.offset(b)] = t.size(b);
            live.push_back(b);
        } else {
            std::size_t k = rng() % live.size(), size = 0;
            ranges.erase(t.offset(live[k]));
            REQUIRE(t.c.release_at(t.c.base() + t.offset(live[k]), size, rng() % 4 != 0));
            live[k] = live.back();
            live.pop_back();
        }
        if (step % 4999 == 0) t.c.unstash();  // as a cycle end does
        if (step % 997 == 0) REQUIRE(t.c.check() == std::string());
    }
    for (std::uint32_t b : live) t.c.release(b);
    t.c.unstash();
    CHECK_EQ(t.c.top, std::size_t(0));
    CHECK_EQ(t.c.check(), std::string());
}
