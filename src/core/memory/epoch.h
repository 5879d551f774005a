/// src/core/memory/epoch.h -- the scope epoch: a process-wide counter that says "what a thread
/// cached about its allocation target may be out of date".
///
/// Bumped whenever any workspace's cycle opens or ends, a workspace is destroyed, or a scope opens
/// or closes (manager.h): the bindings cache a thread's allocation target until it changes, and
/// a thread's block cache (block_cache.h) is valid within one epoch. Defined in workspace.cpp.
#pragma once
#include <atomic>
#include <cstdint>

namespace wsa {

extern std::atomic<std::uint64_t> g_scope_epoch;
inline std::uint64_t scope_epoch() { return g_scope_epoch.load(std::memory_order_acquire); }
void bump_scope_epoch();

} // namespace wsa
