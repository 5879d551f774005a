/// tests/cpp/test_manager.cpp -- scopes and the per-thread workspace table (src/core/memory/manager.h):
/// which frame decides the allocation target, frames leaving a stack out of order, closed frames,
/// ended cycles and other threads' frames not deciding anything, and ThreadWorkspaces.
#include "check.h"

#include "memory/manager.h"

#include <memory>
#include <thread>
#include <vector>

using wsa::Frame;
using wsa::FrameKind;
using wsa::Stack;
using wsa::Workspace;

namespace {

/// The identity of "the context" that opens the frames (opaque to the core).
const std::shared_ptr<void> context = std::make_shared<int>(0);

std::shared_ptr<Frame> frame(FrameKind kind, std::shared_ptr<Workspace> ws) {
    return std::make_shared<Frame>(kind, std::move(ws), context);
}

std::shared_ptr<Workspace> open(const char *name) {
    auto ws = std::make_shared<Workspace>(name, wsa::Config());
    ws->begin_cycle();
    return ws;
}

std::vector<const Frame *> frames(std::initializer_list<const std::shared_ptr<Frame> *> list) {
    std::vector<const Frame *> out;
    for (auto *f : list) out.push_back(f->get());
    return out;
}

} // namespace

TEST(scopes_the_top_live_frame_decides_the_target) {
    CHECK(wsa::target_of(Stack()) == nullptr);
    auto a = open("A"), b = open("B");
    auto fa = frame(FrameKind::Cycle, a), fb = frame(FrameKind::Cycle, b);
    auto out = frame(FrameKind::ScopeOut, nullptr), borrow = frame(FrameKind::Borrow, a);
    Stack s = wsa::push(Stack(), fa);
    CHECK(wsa::target_of(s) == a.get());
    s = wsa::push(s, fb);
    CHECK(wsa::target_of(s) == b.get());
    s = wsa::push(s, out);
    CHECK(wsa::target_of(s) == nullptr);  // scoped out of every workspace
    s = wsa::push(s, borrow);
    CHECK(wsa::target_of(s) == a.get());
    CHECK(wsa::live_frames(s) == frames({&fa, &fb, &out, &borrow}));  // outermost first
    CHECK(wsa::contains(s, fb.get()));
    CHECK(!wsa::contains(wsa::push(Stack(), fa), fb.get()));
}

TEST(scopes_a_frame_leaves_alone_and_takes_the_borrows_of_its_cycle) {
    auto a = open("A"), b = open("B");
    auto fa = frame(FrameKind::Cycle, a), fb = frame(FrameKind::Cycle, b);
    auto borrow = frame(FrameKind::Borrow, a), out = frame(FrameKind::ScopeOut, nullptr);
    Stack s = wsa::push(wsa::push(wsa::push(wsa::push(Stack(), fa), fb), borrow), out);
    Stack r = wsa::without(s, fa.get());  // closed out of order: frames opened after it stay
    CHECK(wsa::live_frames(r) == frames({&fb, &out}));
    CHECK(!wsa::contains(r, borrow.get()));
    CHECK(wsa::without(s, out.get()) == s->below);  // the top frame: nothing to rebuild
    auto stranger = frame(FrameKind::ScopeOut, nullptr);
    CHECK(wsa::without(s, stranger.get()) == s);  // not in the stack: the same stack
    out->open = false;
    CHECK(!wsa::contains(wsa::without(s, fb.get()), out.get()));  // closed frames are dropped
}

TEST(scopes_closed_frames_and_ended_cycles_decide_nothing) {
    auto a = open("A");
    std::uint64_t g = a->generation();
    auto fa = frame(FrameKind::Cycle, a), borrow = frame(FrameKind::Borrow, a);
    Stack s = wsa::push(wsa::push(Stack(), fa), borrow);
    CHECK(wsa::target_of(s) == a.get());
    CHECK_EQ(wsa::close_frame(*fa), std::string());  // ends the cycle
    CHECK(!fa->open);
    CHECK(!a->cycle_open());
    CHECK_EQ(a->generation(), g + 1);
    CHECK(wsa::target_of(s) == nullptr);  // the borrow lasted as long as the cycle
    a->begin_cycle();
    CHECK(wsa::target_of(s) == nullptr);  // a later cycle does not revive it
    CHECK_EQ(wsa::close_frame(*fa), std::string());  // closed twice: nothing happens
    CHECK(a->cycle_open());
}

TEST(scopes_frames_opened_on_another_thread_decide_nothing_here) {
    auto a = open("A");
    std::shared_ptr<Frame> theirs;
    std::thread([&] { theirs = frame(FrameKind::Borrow, a); }).join();
    CHECK(wsa::target_of(wsa::push(Stack(), theirs)) == nullptr);
    auto ours = frame(FrameKind::Cycle, a);
    Stack s = wsa::push(wsa::push(Stack(), ours), theirs);
    CHECK(wsa::target_of(s) == a.get());  // the top live frame is ours
    CHECK(wsa::live_frames(s) == frames({&ours}));
    // A stack carried to another thread shows it nothing. (Only our frame: a thread id may be
    // reused once its thread has ended, as the one that made `theirs` has.)
    Stack mine = wsa::push(Stack(), ours);
    const Workspace *seen_there = a.get();
    std::thread([&] { seen_there = wsa::target_of(mine); }).join();
    CHECK(seen_there == nullptr);
}

TEST(scopes_innermost_open_parent_of_and_is_open_in) {
    auto a = open("A"), b = open("B");
    auto c = std::make_shared<Workspace>("C", wsa::Config());
    auto fa = frame(FrameKind::Cycle, a), fb = frame(FrameKind::Cycle, b);
    auto borrow = frame(FrameKind::Borrow, a);
    Stack s = wsa::push(wsa::push(wsa::push(Stack(), fa), fb), borrow);
    CHECK(wsa::innermost_open(s) == b);  // borrows are not cycles
    CHECK(wsa::parent_of(s, b.get()) == a);
    CHECK(wsa::parent_of(s, a.get()) == nullptr);
    CHECK(wsa::is_open_in(s, a.get()));
    CHECK(!wsa::is_open_in(s, c.get()));
    wsa::close_frame(*fb);
    CHECK(wsa::innermost_open(s) == a);
    CHECK(!wsa::is_open_in(s, b.get()));
}

TEST(scopes_a_cycle_nothing_can_close_ends_with_its_frame) {
    auto a = open("A");
    {
        Stack s = wsa::push(Stack(), frame(FrameKind::Cycle, a));
        CHECK(a->cycle_open());
    }
    CHECK(!a->cycle_open());  // the last stack holding the frame went
    a->begin_cycle();
    auto old = frame(FrameKind::Cycle, a);
    a->end_cycle();
    a->begin_cycle();  // another cycle, which the old frame does not own
    old.reset();
    CHECK(a->cycle_open());
    a->end_cycle();
}

TEST(thread_workspaces_name_each_threads_workspaces) {
    std::thread([] {
        auto &tw = wsa::ThreadWorkspaces::current();
        auto a = tw.get_or_create("a", nullptr);
        CHECK(tw.get_or_create("a", nullptr) == a);
        CHECK(tw.get_or_create("a", &a->config()) == a);  // the same config is no conflict
        wsa::Config other;
        other.initial_size = 4096;
        CHECK_THROWS(tw.get_or_create("a", &other), wsa::WorkspaceMisuse, "different configuration");
        CHECK_THROWS(tw.get_or_create("", nullptr), wsa::WorkspaceMisuse, "non-empty name");
        CHECK(tw.find("a") == a);
        CHECK(tw.find("b") == nullptr);
        CHECK(tw.owns(a.get()));
        auto impostor = std::make_shared<Workspace>("a", wsa::Config());
        CHECK(!tw.owns(impostor.get()));
        a->begin_cycle();
        CHECK_THROWS(tw.destroy("a"), wsa::WorkspaceMisuse, "is in use");
        CHECK_THROWS(tw.destroy_all(), wsa::WorkspaceMisuse, "in use");
        CHECK(tw.find("a") == a && a->alive());  // nothing was destroyed
        a->end_cycle();
        tw.destroy("a");
        CHECK(!a->alive());
        CHECK(a->destroy_reason() == wsa::DestroyReason::Explicit);
        CHECK_THROWS(tw.destroy("a"), wsa::WorkspaceMisuse, "no workspace named 'a'");
        auto b = tw.get_or_create("b", nullptr);
        b->begin_cycle();
        tw.destroy_all(wsa::DestroyReason::ThreadExit, true);  // forced: open cycles end first
        CHECK(!b->alive() && !b->cycle_open());
        CHECK(b->destroy_reason() == wsa::DestroyReason::ThreadExit);
        CHECK(tw.empty());
    }).join();
}

TEST(thread_workspaces_end_with_their_thread) {
    std::shared_ptr<Workspace> kept;
    std::thread([&] {
        kept = wsa::ThreadWorkspaces::current().get_or_create("worker", nullptr);
        kept->begin_cycle();
    }).join();
    CHECK(!kept->alive());
    CHECK(kept->destroy_reason() == wsa::DestroyReason::ThreadExit);
    CHECK(wsa::ThreadWorkspaces::current().find("worker") == nullptr);  // this thread has its own
}
