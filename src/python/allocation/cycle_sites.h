/// src/python/allocation/cycle_sites.h -- while tracemalloc traces (wsarray.memory.record_history(stacks=True)),
/// which lines allocated how much in each cycle of each workspace: the history's per-cycle sites.
#pragma once
#include <nanobind/nanobind.h>

#include <cstddef>

namespace wsa {
class Workspace;
}

namespace wsa_py {

/// Count `bytes` of the block at `p` just handed out by `ws` (tracemalloc traced it) against the
/// innermost Python frames running now, and as spilled if it is a spill. Under the GIL; never
/// raises (a failure only loses the count).
void note_site(const wsa::Workspace *ws, const void *p, std::size_t bytes);

/// The sites counted for `ws` since its last cycle ended, as a list of (frames, bytes, blocks,
/// spilled bytes, spilled blocks), frames a tuple of (filename, lineno) innermost first, and
/// forget them; None if there are none.
nanobind::object take_sites(const wsa::Workspace &ws);

} // namespace wsa_py
