/// src/python/allocation/block_descriptions.h -- while tracemalloc traces (wsarray.memory's
/// stacks=True), what is known of each live workspace block of g_describe_min_bytes and more: its
/// workspace, the cycle it was made in, and the dtype and shape of the array made over it. The
/// snapshot's live blocks read them (wsarray.memory.sites.live_blocks); tracemalloc gives the frames.
#pragma once
#include <nanobind/nanobind.h>

#include <cstddef>

namespace wsa {
class Workspace;
}

namespace wsa_py {

/// Blocks from this size on are described (wsarray.memory.record_history(describe_min_bytes=)): by
/// default 4 KiB, as smaller ones' operations would pay a visible share for the bookkeeping (a map
/// entry per block), and large blocks are what a snapshot is read for; 0 describes every block.
extern std::size_t g_describe_min_bytes;
constexpr std::size_t kDefaultDescribeMinBytes = 4 << 10;

/// How many blocks are described now (0: nothing to do on any path).
extern std::size_t g_described_blocks;

/// A block of `bytes` at `p` just handed out by `ws` and traced by tracemalloc. Under the GIL.
void note_new_block(const wsa::Workspace &ws, const void *p, std::size_t bytes);
/// The block at `p` is being freed (a no-op for blocks not described). Under the GIL.
void forget_block(const void *p);
/// The array `nd` (an exact ndarray, a fresh result) was made over a described block: note its dtype
/// and shape (the first array made over the block's start names it). Under the GIL.
void describe_block(PyObject *nd);
inline void describe_block_if_any(PyObject *nd) {
    if (g_described_blocks) describe_block(nd);
}

/// The live described blocks: a list of (address, bytes, workspace, cycle, dtype str or None,
/// shape tuple or None).
nanobind::list described_blocks();

} // namespace wsa_py
