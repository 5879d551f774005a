/// src/core/compute/thread_pool.h -- a small fixed pool of worker threads for large elementwise work.
///
/// `parallel_for(parts, fn)` runs fn(0) .. fn(parts-1), part 0 on the calling thread and the rest
/// on workers, and returns when all are done. Workers only run the plain C++ functions they are
/// given: they never call into Python or allocate through NumPy. Tasks must not throw (a task that
/// throws terminates the process); the pool has no state that an interrupted caller could leave
/// broken, because the caller always waits for every part. A forked child starts a fresh pool.
#pragma once
#include <cstddef>
#include <functional>

namespace wsa {

/// Threads that share the work (the caller included): WSARRAY_NUM_THREADS if set (1 turns
/// threading off), else the number of CPUs, at most 8.
std::size_t pool_threads();

/// Run fn(i) for every i in [0, parts); parts beyond pool_threads() run on the calling thread.
void parallel_for(std::size_t parts, const std::function<void(std::size_t)> &fn);

} // namespace wsa
