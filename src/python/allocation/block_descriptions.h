/// src/python/allocation/block_descriptions.h -- while wsarray.memory.record_history(stacks=True)
/// records, what is known of each live workspace block: its size, workspace, the cycle it was made
/// in, the Python frames that made it, and the dtype and shape of the array made over it. The
/// snapshot's sites and live blocks, the stale-array and escape messages ("made at") and the
/// out-of-memory report read them.
///
/// Capturing frames is cheap on purpose: a block keeps each frame's code object and instruction
/// offset, and line numbers are computed only when someone reads them (tracemalloc computes them
/// for every allocation, which made stacks=True cost several times NumPy's call).
#pragma once
#include <nanobind/nanobind.h>

#include <cstddef>

namespace wsa {
class Workspace;
}

namespace wsa_py {

/// Frames kept per block at most (record_history(frames=) is clamped to this).
constexpr int kMaxBlockFrames = 16;

/// How many frames new blocks record (0: recording is off).
extern int g_block_frames;
/// How many blocks have a record now (0: nothing to do on any path).
extern std::size_t g_recorded_blocks;

/// Record blocks from now on with `frames` frames each (0: stop; records already made stay until
/// their blocks are freed). Under the GIL.
void record_blocks(int frames);

/// A block of `bytes` at `p` just handed out by `ws`. Under the GIL.
void note_new_block(const wsa::Workspace &ws, const void *p, std::size_t bytes);
/// The block at `p` is being freed (a no-op for blocks without a record). Under the GIL.
void forget_block(const void *p);
/// The array `nd` (an exact ndarray, a fresh result) was made over a recorded block: note its
/// dtype and shape (the first array made over the block's start names it). Under the GIL.
void describe_block(PyObject *nd);
inline void describe_block_if_any(PyObject *nd) {
    if (g_recorded_blocks) describe_block(nd);
}

/// The frames recorded for the block at `p` (a tuple of (filename, lineno), innermost first), or
/// null with no error set when it has no record.
PyObject *recorded_frames(const void *p);

/// The live recorded blocks: a list of (address, bytes, workspace, cycle, dtype str or None,
/// shape tuple or None, frames tuple of (filename, lineno) innermost first).
nanobind::list recorded_blocks();

} // namespace wsa_py
