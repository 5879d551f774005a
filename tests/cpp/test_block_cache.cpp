/// tests/cpp/test_block_cache.cpp -- the allocator's lock-free fast path (src/core/memory/
/// block_cache.h): a freed small block goes back to the thread that made it and serves its next
/// request of the same size; the statistics read as if it had been freed; the cache gives its
/// blocks back when an epoch ends, when the thread ends, before a cycle ends and before a spill;
/// other threads never take a cached block; and a random mix of sizes never hands out a block twice.
#include "check.h"

#include "memory/workspace.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <thread>
#include <vector>

using wsa::block_size_for;
using wsa::Config;
using wsa::Workspace;

namespace {

std::shared_ptr<Workspace> make_fixed(std::size_t size, const char *name = "cache") {
    Config cfg;
    cfg.initial_size = size;
    cfg.learning = wsa::LearningPolicy::None;
    return std::make_shared<Workspace>(name, cfg);
}

} // namespace

TEST(block_cache_serves_the_next_request_of_the_same_size_with_exact_statistics) {
    auto ws = make_fixed(1 << 20);
    ws->begin_cycle();
    void *keep = ws->allocate(5000);
    void *p = ws->allocate(100);
    CHECK(Workspace::free_if_owned(p));
    wsa::Stats s = ws->stats();
    CHECK_EQ(s.live_arrays, std::size_t(1));  // the cached block counts as freed
    CHECK_EQ(s.used, block_size_for(5000));
    CHECK_EQ(s.frees, std::size_t(1));
    CHECK_EQ(Workspace::owned_size(p), Workspace::kNotOwned);
    CHECK_EQ(ws->allocate(100), p);
    s = ws->stats();
    CHECK_EQ(s.allocations, std::size_t(3));
    CHECK_EQ(s.reused_bytes, block_size_for(100));
    CHECK_EQ(s.used, block_size_for(5000) + block_size_for(100));
    CHECK_EQ(s.peak_current_cycle, block_size_for(5000) + block_size_for(100));
    CHECK_EQ(Workspace::owned_size(p), std::size_t(100));
    CHECK(Workspace::free_if_owned(p));
    CHECK(Workspace::free_if_owned(p));  // a second free of a cached block: ignored
    CHECK_EQ(ws->stats().frees, std::size_t(2));
    CHECK(Workspace::free_if_owned(keep));
    CHECK_EQ(ws->end_cycle(), std::string());
    s = ws->stats();
    CHECK_EQ(s.used, std::size_t(0));
    CHECK_EQ(s.live_arrays, std::size_t(0));
    CHECK_EQ(s.peak_cycle_bytes, block_size_for(5000) + block_size_for(100));
    CHECK_EQ(ws->check_heap(), std::string());
}

TEST(block_cache_hits_only_the_same_request_and_clears_zeroed_blocks) {
    auto ws = make_fixed(1 << 20);
    auto *p = (unsigned char *) ws->allocate(100);
    std::memset(p, 0xAB, 100);
    Workspace::free_if_owned(p);
    void *q = ws->allocate(120);  // the same block size, another request: not the cached block
    CHECK(q != (void *) p);
    std::size_t zeroed = ws->stats().zeroed_bytes;
    auto *z = (unsigned char *) ws->allocate(100, /*zero=*/true);
    CHECK_EQ((void *) z, (void *) p);
    CHECK(std::all_of(z, z + 100, [](unsigned char b) { return b == 0; }));
    CHECK_EQ(ws->stats().zeroed_bytes, zeroed + 100);
    Workspace::free_if_owned(q);
    Workspace::free_if_owned(z);
    CHECK_EQ(ws->stats().used, std::size_t(0));
    CHECK_EQ(ws->check_heap(), std::string());
}

TEST(block_cache_lets_go_when_the_epoch_ends) {
    auto ws = make_fixed(1 << 20), other = make_fixed(1 << 20, "other");
    void *a = ws->allocate(64), *b = ws->allocate(64);
    Workspace::free_if_owned(a);  // cached
    other->begin_cycle();         // a new epoch: the claim no longer holds
    CHECK(Workspace::free_if_owned(b));  // the locked path, which gives `a` back too
    wsa::Stats s = ws->stats();
    CHECK_EQ(s.used, std::size_t(0));
    CHECK_EQ(s.frees, std::size_t(2));
    // Given back: a destroy finds the chunk empty and unmaps it (no zombie left).
    std::size_t zombies = Workspace::zombie_bytes();
    ws->destroy();
    CHECK_EQ(Workspace::zombie_bytes(), zombies);
    CHECK_EQ(other->end_cycle(), std::string());
}

TEST(block_cache_is_given_back_by_destroy_and_by_the_thread_end) {
    std::size_t zombies = Workspace::zombie_bytes();
    auto ws = make_fixed(1 << 20);
    Workspace::free_if_owned(ws->allocate(64));  // cached
    ws->destroy();
    CHECK_EQ(Workspace::zombie_bytes(), zombies);  // not pinned by the cache
    // A thread's own workspace, its blocks cached when the thread ends without a destroy.
    std::shared_ptr<Workspace> theirs;
    std::thread t([&] {
        theirs = make_fixed(1 << 20, "theirs");
        for (int k = 0; k < 8; ++k) Workspace::free_if_owned(theirs->allocate(64 * (k + 1)));
        CHECK_EQ(theirs->stats().used, std::size_t(0));
    });
    t.join();
    CHECK_EQ(theirs->stats().used, std::size_t(0));
    CHECK_EQ(theirs->stats().frees, std::size_t(8));
    theirs->destroy();
    CHECK_EQ(Workspace::zombie_bytes(), zombies);  // the thread's end gave its cache back
}

TEST(block_cache_is_never_used_by_another_thread) {
    auto ws = make_fixed(1 << 20);  // this thread's
    void *p = ws->allocate(256);
    Workspace::free_if_owned(p);  // cached by this thread
    void *theirs = nullptr;
    std::thread t([&] {
        theirs = ws->allocate(256);  // not this thread's cache: another block
        Workspace::free_if_owned(theirs);
    });
    t.join();
    CHECK(theirs != p);
    // The other thread's allocation told this thread's cache to let go: the next free of a block
    // this thread made goes the locked path and the statistics stay exact.
    void *q = ws->allocate(256);
    Workspace::free_if_owned(q);
    wsa::Stats s = ws->stats();
    CHECK_EQ(s.used, std::size_t(0));
    CHECK_EQ(s.allocations, std::size_t(3));
    CHECK_EQ(s.frees, std::size_t(3));
    CHECK_EQ(ws->check_heap(), std::string());
}

TEST(block_cache_under_a_random_mix_never_hands_out_a_block_twice) {
    auto ws = make_fixed(4 << 20);
    std::mt19937 rng(7);
    std::map<char *, std::size_t> live;  // start -> requested bytes
    for (int step = 0; step < 20000; ++step) {
        if (step % 4000 == 3999) {  // epochs end now and then
            ws->begin_cycle();
            CHECK_EQ(ws->end_cycle(), std::string());
        }
        if (live.empty() || rng() % 3) {
            std::size_t n = 8 * (1 + rng() % 64);  // 8 .. 512 bytes: many hits, some misses
            auto *p = (char *) ws->allocate(n, rng() % 2);
            auto next = live.lower_bound(p);
            REQUIRE(next == live.end() || next->first >= p + block_size_for(n));  // no overlap
            if (next != live.begin()) {
                auto prev = std::prev(next);
                REQUIRE(prev->first + block_size_for(prev->second) <= p);
            }
            std::memset(p, step & 0xFF, n);
            live[p] = n;
        } else {
            auto it = live.begin();
            std::advance(it, rng() % live.size());
            REQUIRE(Workspace::free_if_owned(it->first));
            live.erase(it);
        }
        if (step % 500 == 0) {
            wsa::Stats s = ws->stats();
            std::size_t used = 0;  // at least the blocks' sizes (a free block a little larger is not split)
            for (auto &kv : live) used += block_size_for(kv.second);
            CHECK(s.used >= used && s.used <= used + live.size() * 512);
            CHECK_EQ(s.live_arrays, live.size());
            CHECK_EQ(ws->check_heap(), std::string());
        }
    }
    for (auto &kv : live) Workspace::free_if_owned(kv.first);
    wsa::Stats s = ws->stats();
    CHECK_EQ(s.used, std::size_t(0));
    CHECK_EQ(s.allocations, s.frees);
}
