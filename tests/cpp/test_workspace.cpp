/// tests/cpp/test_workspace.cpp -- a workspace's policies (src/core/memory/workspace.h): learning
/// (first_loop, over_time, none, strict), spills (external, reallocate, fail), max_size to the
/// byte, circular reset, cycles and generations, zeroing, trimming, destroy with live blocks, the
/// stash of small freed blocks, the address registry that finds a block's workspace, and its lock
/// under threads.
#include "check.h"

#include "memory/workspace.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

using wsa::block_size_for;
using wsa::Config;
using wsa::Workspace;

namespace {

std::shared_ptr<Workspace> make(const Config &cfg, const char *name = "test") {
    return std::make_shared<Workspace>(name, cfg);
}

/// A config that keeps `initial_size` (no learning), spilling as `spill` says.
Config fixed(std::size_t initial_size, wsa::SpillPolicy spill = wsa::SpillPolicy::External) {
    Config cfg;
    cfg.initial_size = initial_size;
    cfg.learning = wsa::LearningPolicy::None;
    cfg.spill = spill;
    return cfg;
}

/// A config that learns its size as `policy` says (over_time: after `cycles` cycles).
Config learning(wsa::LearningPolicy policy, wsa::AllocationPolicy allocation, int cycles = 0) {
    Config cfg;
    cfg.learning = policy;
    cfg.allocation = allocation;
    cfg.cycles_before_initialization = cycles;
    return cfg;
}

/// One cycle that allocates blocks of `sizes` (all live at its peak) and frees them.
void cycle_with(Workspace &ws, std::initializer_list<std::size_t> sizes) {
    ws.begin_cycle();
    std::vector<void *> blocks;
    for (std::size_t n : sizes) blocks.push_back(ws.allocate(n));
    for (void *p : blocks) Workspace::free_if_owned(p);
    CHECK_EQ(ws.end_cycle(), std::string());
}

} // namespace

TEST(workspace_blocks_are_aligned_and_found_by_address) {
    auto ws = make(fixed(1 << 20));
    void *p = ws->allocate(1000);
    CHECK_EQ((std::uintptr_t) p % wsa::kAlign, std::uintptr_t(0));
    CHECK(Workspace::owner_of(p) == ws);
    CHECK_EQ(Workspace::owned_size(p), std::size_t(1000));
    int local = 0;
    CHECK(Workspace::owner_of(&local) == nullptr);
    CHECK_EQ(Workspace::owned_size(&local), Workspace::kNotOwned);
    CHECK(!Workspace::free_if_owned(&local));
    CHECK_EQ(ws->stats().live_arrays, std::size_t(1));
    CHECK(Workspace::free_if_owned(p));
    wsa::Stats s = ws->stats();
    CHECK_EQ(s.allocations, std::size_t(1));
    CHECK_EQ(s.frees, std::size_t(1));
    CHECK_EQ(s.used, std::size_t(0));
    CHECK_EQ(s.live_arrays, std::size_t(0));
}

TEST(workspace_first_loop_learning_sizes_it_after_one_cycle) {
    Config cfg = learning(wsa::LearningPolicy::FirstLoop, wsa::AllocationPolicy::Overallocate);
    cfg.overallocation_limit = 0.5;
    auto ws = make(cfg);
    CHECK(!ws->stats().initialized);
    cycle_with(*ws, {100000, 100000});  // learning: served outside, measured
    const std::size_t peak = 2 * block_size_for(100000);
    wsa::Stats s = ws->stats();
    CHECK(s.initialized);
    CHECK_EQ(s.peak_cycle_bytes, peak);
    CHECK_EQ(s.spills, std::size_t(2));
    CHECK_EQ(s.learned_size, (std::size_t) ((double) peak * 1.5));
    CHECK_EQ(s.capacity, wsa::round_up(s.learned_size, wsa::page_size()));
    CHECK_EQ(s.chunks, std::size_t(1));
    cycle_with(*ws, {100000, 100000});  // now served from the chunk
    s = ws->stats();
    CHECK_EQ(s.spills, std::size_t(2));
    CHECK_EQ(s.spilled_cycle_bytes, std::size_t(0));
}

TEST(workspace_over_time_learning_waits_for_its_cycles) {
    auto ws = make(learning(wsa::LearningPolicy::OverTime, wsa::AllocationPolicy::Strict, 3));
    cycle_with(*ws, {50000});
    cycle_with(*ws, {120000});
    CHECK(!ws->stats().initialized);
    CHECK_EQ(ws->stats().capacity, std::size_t(0));
    cycle_with(*ws, {10000});
    wsa::Stats s = ws->stats();
    CHECK(s.initialized);
    CHECK_EQ(s.learned_size, block_size_for(120000));  // the largest cycle, exactly (strict)
}

TEST(workspace_min_size_is_a_floor_for_learning) {
    Config cfg = learning(wsa::LearningPolicy::FirstLoop, wsa::AllocationPolicy::Strict);
    cfg.min_size = 1 << 20;
    auto ws = make(cfg);
    cycle_with(*ws, {1000});
    CHECK_EQ(ws->stats().learned_size, std::size_t(1) << 20);
}

TEST(workspace_without_learning_keeps_its_initial_size) {
    auto ws = make(fixed(64 << 10));
    CHECK(ws->stats().initialized);
    CHECK_EQ(ws->stats().capacity, std::size_t(64) << 10);
    cycle_with(*ws, {200000, 200000});
    CHECK_EQ(ws->stats().capacity, std::size_t(64) << 10);
    CHECK_EQ(ws->stats().learned_size, std::size_t(0));
}

TEST(workspace_that_outgrows_what_it_learned_learns_again) {
    auto ws = make(learning(wsa::LearningPolicy::FirstLoop, wsa::AllocationPolicy::Strict));
    cycle_with(*ws, {100000});
    std::size_t first = ws->stats().capacity;
    cycle_with(*ws, {400000});  // spills, then learns a larger size at the end of the cycle
    CHECK(ws->stats().spilled_cycle_bytes > 0);
    CHECK(ws->stats().capacity > first);
    cycle_with(*ws, {400000});
    CHECK_EQ(ws->stats().spilled_cycle_bytes, std::size_t(0));
}

TEST(workspace_spill_external_serves_outside_the_chunks) {
    auto ws = make(fixed(64 << 10));
    ws->begin_cycle();
    void *small = ws->allocate(100000);  // from the C heap
    void *large = ws->allocate(300000);  // mapped on its own
    wsa::Stats s = ws->stats();
    CHECK_EQ(s.spills, std::size_t(2));
    CHECK_EQ(s.spilled_bytes, block_size_for(100000) + block_size_for(300000));
    CHECK_EQ(s.capacity, std::size_t(64) << 10);
    CHECK(Workspace::owner_of(small) == ws);
    CHECK(Workspace::owner_of(large) == ws);
    CHECK(Workspace::free_if_owned(small));
    CHECK(Workspace::free_if_owned(large));
    CHECK_EQ(ws->stats().used, std::size_t(0));
    CHECK(Workspace::owner_of(large) == nullptr);  // its mapping went back with it
    ws->end_cycle();
}

TEST(workspace_spill_reallocate_grows_by_a_chunk_and_merges_them_once_empty) {
    auto ws = make(fixed(64 << 10, wsa::SpillPolicy::Reallocate));
    ws->begin_cycle();
    void *p = ws->allocate(100000);
    wsa::Stats s = ws->stats();
    CHECK_EQ(s.chunks, std::size_t(2));
    CHECK_EQ(s.spills, std::size_t(0));
    const std::size_t grown = (64 << 10) + wsa::round_up(block_size_for(100000), wsa::page_size());
    CHECK_EQ(s.capacity, grown);
    Workspace::free_if_owned(p);
    ws->end_cycle();
    s = ws->stats();
    CHECK_EQ(s.chunks, std::size_t(1));
    CHECK_EQ(s.capacity, grown);
    CHECK_EQ(ws->check_heap(), std::string());
}

TEST(workspace_spill_fail_refuses_what_does_not_fit) {
    auto ws = make(fixed(64 << 10, wsa::SpillPolicy::Fail));
    ws->begin_cycle();
    CHECK_THROWS(ws->allocate(100000), wsa::WorkspaceOutOfMemory, "spill policy is 'fail'");
    CHECK_EQ(ws->stats().used, std::size_t(0));
    void *fits = ws->allocate(1000);
    CHECK(fits != nullptr);
    Workspace::free_if_owned(fits);
    ws->end_cycle();
}

TEST(workspace_max_size_caps_spills_to_the_byte) {
    Config cfg = fixed(0);
    cfg.max_size = 1 << 20;
    auto ws = make(cfg);
    std::vector<void *> blocks;
    for (int i = 0; i < 10; ++i) blocks.push_back(ws->allocate(102400));  // 10 x 102400 bytes
    CHECK_THROWS(ws->allocate(102400), wsa::WorkspaceOutOfMemory, "max_size");
    blocks.push_back(ws->allocate((1 << 20) - 1024000));  // exactly what is left
    CHECK_EQ(ws->stats().used, std::size_t(1) << 20);
    CHECK_THROWS(ws->allocate(1), wsa::WorkspaceOutOfMemory, "max_size");
    Workspace::free_if_owned(blocks.back());
    blocks.pop_back();
    blocks.push_back(ws->allocate(1));  // room again
    for (void *p : blocks) Workspace::free_if_owned(p);
    CHECK_EQ(ws->stats().used, std::size_t(0));
}

TEST(workspace_max_size_counts_chunks_and_spills_together) {
    Config cfg = fixed(512 << 10);
    cfg.max_size = 1 << 20;
    auto ws = make(cfg);
    void *in_chunk = ws->allocate(512 << 10);  // fills the chunk
    void *spilled = ws->allocate(512 << 10);    // fills what max_size leaves
    CHECK_EQ(ws->stats().spills, std::size_t(1));
    CHECK_THROWS(ws->allocate(1), wsa::WorkspaceOutOfMemory, "max_size");
    Workspace::free_if_owned(spilled);
    void *small = ws->allocate(1);
    CHECK(small != nullptr);
    Workspace::free_if_owned(small);
    Workspace::free_if_owned(in_chunk);
}

TEST(workspace_circular_hands_out_memory_in_ring_order) {
    Config cfg = fixed(64 << 10);
    cfg.reset = wsa::ResetPolicy::EndOfBuffer;
    auto ws = make(cfg);
    CHECK(ws->circular());
    ws->begin_cycle();
    auto *a = (char *) ws->allocate(16000);
    auto *b = (char *) ws->allocate(16000);
    Workspace::free_if_owned(a);
    std::uint64_t generation = ws->generation();
    ws->end_cycle();
    CHECK_EQ(ws->generation(), generation);  // arrays stay valid until the workspace is destroyed
    ws->begin_cycle();
    auto *c = (char *) ws->allocate(16000);
    auto *d = (char *) ws->allocate(16000);
    CHECK(c > b);  // fresh space first, though a's block is free
    CHECK(d > c);
    CHECK_EQ(ws->stats().wraps, std::size_t(0));
    auto *e = (char *) ws->allocate(16000);  // no fresh space left: the ring wraps to a's block
    CHECK(e == a);
    CHECK_EQ(ws->stats().wraps, std::size_t(1));
    for (char *p : {b, c, d, e}) Workspace::free_if_owned(p);
    ws->end_cycle();
    CHECK_EQ(ws->check_heap(), std::string());
}

TEST(workspace_cycles_advance_the_generation) {
    auto ws = make(fixed(1 << 20));
    std::uint64_t g = ws->generation(), epoch = wsa::scope_epoch();
    ws->begin_cycle();
    CHECK(ws->cycle_open());
    CHECK_EQ(ws->cycle_serial(), std::uint64_t(1));
    CHECK(wsa::scope_epoch() > epoch);
    CHECK_THROWS(ws->begin_cycle(), wsa::WorkspaceMisuse, "already has an open cycle");
    CHECK_EQ(ws->end_cycle(), std::string());
    CHECK(!ws->cycle_open());
    CHECK_EQ(ws->generation(), g + 1);
    CHECK_EQ(ws->end_cycle(), std::string());  // no cycle open: nothing happens
    CHECK_EQ(ws->generation(), g + 1);
    CHECK_EQ(ws->stats().cycles, std::size_t(1));
}

TEST(workspace_destroyed_with_live_blocks_keeps_them_until_freed) {
    auto ws = make(fixed(1 << 20));
    void *live = ws->allocate(1000);
    Workspace::free_if_owned(ws->allocate(1000));
    std::size_t zombies = Workspace::zombie_bytes();
    std::uint64_t g = ws->generation();
    ws->destroy();
    CHECK(!ws->alive());
    CHECK(ws->destroy_reason() == wsa::DestroyReason::Explicit);
    CHECK_EQ(ws->generation(), g + 1);
    CHECK_EQ(ws->stats().capacity, std::size_t(0));
    CHECK_EQ(Workspace::zombie_bytes(), zombies + (1 << 20));
    CHECK(Workspace::owner_of(live) == nullptr);            // its workspace is gone ...
    CHECK_EQ(Workspace::owned_size(live), std::size_t(1000));  // ... its block is not
    CHECK_THROWS(ws->allocate(10), wsa::WorkspaceMisuse, "destroyed");
    CHECK_THROWS(ws->begin_cycle(), wsa::WorkspaceMisuse, "destroyed");
    CHECK(Workspace::free_if_owned(live));  // the last block: the chunk goes back to the OS
    CHECK_EQ(Workspace::zombie_bytes(), zombies);
    CHECK_EQ(Workspace::owned_size(live), Workspace::kNotOwned);
}

TEST(workspace_zeroed_blocks_are_cleared_only_where_used_before) {
    auto ws = make(fixed(1 << 20));
    const std::size_t n = 64 << 10;
    auto *p = (unsigned char *) ws->allocate(n, true);
    CHECK_EQ(ws->stats().zeroed_bytes, std::size_t(0));  // fresh pages are zeros already
    CHECK(p[0] == 0 && p[n - 1] == 0);
    std::memset(p, 0xFF, n);
    Workspace::free_if_owned(p);
    auto *q = (unsigned char *) ws->allocate(n, true);
    CHECK(q == p);
    CHECK_EQ(ws->stats().zeroed_bytes, n);
    CHECK_EQ(ws->stats().reused_bytes, block_size_for(n));
    CHECK(q[0] == 0 && q[n / 2] == 0 && q[n - 1] == 0);
    Workspace::free_if_owned(q);
}

TEST(workspace_trims_pages_its_cycles_stopped_using) {
    Config cfg = fixed(8 << 20);
    cfg.trim_after_cycles = 2;
    auto ws = make(cfg);
    ws->begin_cycle();
    const std::size_t n = 4 << 20;
    void *p = ws->allocate(n);
    std::memset(p, 1, n);
    Workspace::free_if_owned(p);
    ws->end_cycle();
    cycle_with(*ws, {});
    CHECK_EQ(ws->stats().trimmed_bytes, std::size_t(0));  // the window saw them used
    cycle_with(*ws, {});
    cycle_with(*ws, {});
    CHECK(ws->stats().trimmed_bytes >= n);
}

TEST(workspace_heap_stays_consistent_under_mixed_work) {
    auto ws = make(fixed(1 << 20, wsa::SpillPolicy::Reallocate));
    std::vector<void *> live;
    std::uint32_t seed = 12345;
    auto next = [&seed] { return seed = seed * 1664525u + 1013904223u; };
    for (int cycle = 0; cycle < 5; ++cycle) {
        ws->begin_cycle();
        for (int i = 0; i < 400; ++i) {
            if (live.empty() || next() % 3) {
                live.push_back(ws->allocate(1 + next() % 20000));
            } else {
                std::size_t k = next() % live.size();
                Workspace::free_if_owned(live[k]);
                live.erase(live.begin() + (std::ptrdiff_t) k);
            }
        }
        CHECK_EQ(ws->check_heap(), std::string());
        for (void *p : live) Workspace::free_if_owned(p);
        live.clear();
        ws->end_cycle();
    }
    CHECK_EQ(ws->stats().used, std::size_t(0));
    CHECK_EQ(ws->check_heap(), std::string());
}

// ---- the same policies over memory the core may not touch ----

namespace {

/// A device source over PROT_NONE host memory that counts what it hands out: stands in for a GPU.
struct FakeDevice {
    int allocs = 0, frees = 0;
    std::size_t refuse_above = SIZE_MAX;
    std::shared_ptr<wsa::DeviceSource> source() {
        auto s = std::make_shared<wsa::DeviceSource>();
        s->name = "fake:0";
        s->ctx = this;
        s->alloc = [](void *ctx, std::size_t size, std::string &why) -> void * {
            auto *d = (FakeDevice *) ctx;
            if (size > d->refuse_above) {
                why = "out of device memory";
                return nullptr;
            }
            ++d->allocs;
            return wsa::map_notouch(size).ptr;  // page aligned, so 256-byte aligned
        };
        s->free = [](void *ctx, void *ptr, std::size_t size) {
            ++((FakeDevice *) ctx)->frees;
            wsa::Mapping held;
            held.ptr = ptr;
            held.size = size;
            held.source = wsa::Source::NoTouch;
            wsa::unmap(held);
        };
        return s;
    }
};

/// Mixed allocate/free work over `cfg` for a few cycles, the bookkeeping checked as it goes.
void mixed_work(Workspace &ws, int cycles) {
    std::vector<void *> live;
    std::uint32_t seed = 777;
    auto next = [&seed] { return seed = seed * 1664525u + 1013904223u; };
    for (int cycle = 0; cycle < cycles; ++cycle) {
        ws.begin_cycle();
        for (int i = 0; i < 300; ++i) {
            if (live.empty() || next() % 3) {
                void *p = ws.allocate(1 + next() % 30000);
                CHECK_EQ((std::uintptr_t) p % ws.alignment(), std::uintptr_t(0));
                live.push_back(p);
            } else {
                std::size_t k = next() % live.size();
                CHECK(Workspace::free_if_owned(live[k]));
                live.erase(live.begin() + (std::ptrdiff_t) k);
            }
        }
        CHECK_EQ(ws.check_heap(), std::string());
        for (void *p : live) Workspace::free_if_owned(p);
        live.clear();
        CHECK_EQ(ws.end_cycle(), std::string());
    }
    CHECK_EQ(ws.stats().used, std::size_t(0));
    CHECK_EQ(ws.stats().live_arrays, std::size_t(0));
    CHECK_EQ(ws.check_heap(), std::string());
}

} // namespace

TEST(workspace_policies_run_over_no_touch_memory) {
    for (auto spill : {wsa::SpillPolicy::External, wsa::SpillPolicy::Reallocate}) {
        for (auto learn : {wsa::LearningPolicy::FirstLoop, wsa::LearningPolicy::OverTime, wsa::LearningPolicy::None}) {
            Config cfg;
            cfg.location = wsa::LocationPolicy::NoTouch;
            cfg.spill = spill;
            cfg.learning = learn;
            cfg.cycles_before_initialization = 2;
            cfg.initial_size = learn == wsa::LearningPolicy::None ? 256 << 10 : 0;
            cfg.trim_after_cycles = 1;
            auto ws = make(cfg);
            CHECK(!ws->host_memory());
            mixed_work(*ws, 5);
            CHECK(ws->stats().capacity > 0);
            CHECK(ws->stats().reused_bytes > 0);
        }
    }
    Config circ;
    circ.location = wsa::LocationPolicy::NoTouch;
    circ.reset = wsa::ResetPolicy::EndOfBuffer;
    circ.initial_size = 128 << 10;
    circ.learning = wsa::LearningPolicy::None;
    auto ring = make(circ);
    mixed_work(*ring, 3);
}

TEST(workspace_no_touch_memory_refuses_to_be_cleared) {
    Config cfg = fixed(1 << 20);
    cfg.location = wsa::LocationPolicy::NoTouch;
    auto ws = make(cfg);
    CHECK_THROWS(ws->allocate(100, true), wsa::WorkspaceMisuse, "cannot clear");
    CHECK_EQ(ws->stats().used, std::size_t(0));
}

TEST(workspace_device_source_serves_256_byte_aligned_blocks_and_gets_every_chunk_back) {
    FakeDevice dev;
    {
        Config cfg;
        cfg.device = dev.source();
        auto ws = make(cfg);
        CHECK_EQ(ws->alignment(), std::size_t(256));
        mixed_work(*ws, 4);  // learning, spills (device memory too), reuse
        CHECK(dev.allocs > 1);
        ws->begin_cycle();
        void *p = ws->allocate(1);
        CHECK_EQ(Workspace::owned_size(p), std::size_t(1));
        CHECK_THROWS(ws->allocate(8, true), wsa::WorkspaceMisuse, "device fake:0");
        Workspace::free_if_owned(p);
        ws->end_cycle();
        CHECK(dev.frees < dev.allocs);  // the learned chunk is kept
    }
    CHECK_EQ(dev.frees, dev.allocs);
}

TEST(workspace_device_chunk_outlives_its_workspace_while_a_block_lives) {
    FakeDevice dev;
    Config cfg = fixed(1 << 20);
    cfg.device = dev.source();
    auto ws = make(cfg);
    void *p = ws->allocate(1000);
    std::size_t zombies = Workspace::zombie_bytes();
    ws->destroy();
    ws.reset();
    cfg.device.reset();  // only the zombie chunk holds the source now
    CHECK_EQ(dev.frees, 0);
    CHECK_EQ(Workspace::zombie_bytes(), zombies + (std::size_t(1) << 20));
    CHECK(Workspace::free_if_owned(p));
    CHECK_EQ(dev.frees, 1);
    CHECK_EQ(Workspace::zombie_bytes(), zombies);
}

TEST(workspace_device_refusal_names_the_device) {
    FakeDevice dev;
    dev.refuse_above = 1 << 20;
    Config cfg = fixed(0);
    cfg.device = dev.source();
    auto ws = make(cfg);
    CHECK_THROWS(ws->allocate(4 << 20), wsa::WorkspaceOutOfMemory, "device fake:0 refused");
    CHECK_EQ(ws->stats().used, std::size_t(0));
    void *p = ws->allocate(1000);
    CHECK(Workspace::free_if_owned(p));
    CHECK_EQ(dev.frees, dev.allocs);
}

TEST(workspace_double_free_is_ignored_not_corrupting) {
    auto ws = make(fixed(1 << 20));
    void *a = ws->allocate(1000), *b = ws->allocate(1000);
    CHECK(Workspace::free_if_owned(a));
    CHECK(Workspace::free_if_owned(a));  // no live block there: nothing happens
    CHECK(Workspace::free_if_owned((char *) b + 64));
    CHECK_EQ(ws->stats().live_arrays, std::size_t(1));
    CHECK_EQ(ws->check_heap(), std::string());
    Workspace::free_if_owned(b);
}

TEST(workspace_hands_a_freed_small_block_to_the_next_request_of_its_size) {
    auto ws = make(fixed(1 << 20));
    void *keep = ws->allocate(5000);
    void *p = ws->allocate(100);
    CHECK(Workspace::free_if_owned(p));
    wsa::Stats s = ws->stats();
    CHECK_EQ(s.live_arrays, std::size_t(1));  // the stash is invisible to the statistics
    CHECK_EQ(s.used, block_size_for(5000));
    CHECK_EQ(s.frees, std::size_t(1));
    CHECK(Workspace::owner_of(p) == ws);  // still the workspace's memory
    CHECK_EQ(Workspace::owned_size(p), Workspace::kNotOwned);  // but no live block
    CHECK(Workspace::free_if_owned(p));  // a double free of a stashed block: ignored
    CHECK_EQ(ws->stats().frees, std::size_t(1));
    CHECK_EQ(ws->allocate(100), p);
    CHECK_EQ(ws->stats().reused_bytes, block_size_for(100));
    CHECK_EQ(ws->check_heap(), std::string());
    Workspace::free_if_owned(p);
    Workspace::free_if_owned(keep);
    CHECK_EQ(ws->check_heap(), std::string());
}

TEST(workspace_merges_its_stash_before_it_would_spill) {
    // 16 blocks of 4 KiB fill 64 KiB; freed, they sit in the stash, splitting the free space. A
    // request for most of the chunk must find it merged, not spill.
    auto ws = make(fixed(64 << 10));
    std::vector<void *> blocks;
    for (int k = 0; k < 16; ++k) blocks.push_back(ws->allocate(4096));
    for (void *p : blocks) Workspace::free_if_owned(p);
    void *big = ws->allocate(60 << 10);
    CHECK_EQ(ws->stats().spills, std::size_t(0));
    CHECK_EQ(ws->check_heap(), std::string());
    Workspace::free_if_owned(big);
}

TEST(workspace_cycle_end_and_destroy_merge_the_stash) {
    auto ws = make(fixed(1 << 20));
    ws->begin_cycle();
    void *a = ws->allocate(64), *b = ws->allocate(64);
    Workspace::free_if_owned(b);  // the top block, stashed
    Workspace::free_if_owned(a);
    CHECK_EQ(ws->end_cycle(), std::string());
    CHECK_EQ(ws->check_heap(), std::string());
    // Merged back: the next cycle's first block starts at the bottom again, in fresh order.
    ws->begin_cycle();
    void *c = ws->allocate(1000);
    CHECK_EQ(c, a);
    void *d = ws->allocate(64);
    Workspace::free_if_owned(d);  // stashed
    std::size_t zombies = Workspace::zombie_bytes();
    ws->destroy();  // `c` still lives: the chunk outlives the workspace, the stash merged
    CHECK(Workspace::zombie_bytes() > zombies);
    CHECK(Workspace::free_if_owned(d));  // a stale double free: ignored
    CHECK(Workspace::free_if_owned(c));
    CHECK_EQ(Workspace::zombie_bytes(), zombies);  // the last block freed: the chunk went back
}

TEST(workspace_registry_lock_holds_under_threads_freeing_each_others_blocks) {
    // Each thread allocates from its own workspace and frees half of its blocks itself and half
    // of another thread's (the lock's contended path, with the futex waits).
    constexpr int kThreads = 4, kRounds = 4000;
    std::vector<std::shared_ptr<Workspace>> spaces;
    for (int t = 0; t < kThreads; ++t) spaces.push_back(make(fixed(1 << 20), "threaded"));
    std::mutex handoff_mu;
    std::vector<std::vector<void *>> handoff(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            std::mt19937 rng(t);
            for (int r = 0; r < kRounds; ++r) {
                void *p = spaces[t]->allocate(64 * (1 + rng() % 8));
                if (r % 2) {
                    Workspace::free_if_owned(p);
                } else {
                    std::lock_guard<std::mutex> g(handoff_mu);
                    handoff[(t + 1) % kThreads].push_back(p);
                }
                std::vector<void *> mine;
                {
                    std::lock_guard<std::mutex> g(handoff_mu);
                    mine.swap(handoff[t]);
                }
                for (void *q : mine) REQUIRE(Workspace::free_if_owned(q));
            }
        });
    for (auto &th : threads) th.join();
    for (auto &list : handoff)
        for (void *q : list) REQUIRE(Workspace::free_if_owned(q));
    for (auto &ws : spaces) {
        wsa::Stats s = ws->stats();
        CHECK_EQ(s.live_arrays, std::size_t(0));
        CHECK_EQ(s.used, std::size_t(0));
        CHECK_EQ(s.allocations, std::size_t(kRounds));
        CHECK_EQ(s.frees, std::size_t(kRounds));
        CHECK_EQ(ws->check_heap(), std::string());
    }
}
