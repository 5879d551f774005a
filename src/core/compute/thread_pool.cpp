/// src/core/compute/thread_pool.cpp -- see thread_pool.h.
#include "thread_pool.h"

#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace wsa {

namespace {

struct Pool {
    std::mutex mu;               ///< guards everything below, and serialises callers
    std::mutex call_mu;          ///< one parallel_for at a time (callers on several threads queue)
    std::condition_variable work_cv, done_cv;
    std::vector<std::thread> workers;
    const std::function<void(std::size_t)> *fn = nullptr;
    std::size_t parts = 0, next = 0, pending = 0;
    std::uint64_t round = 0;

    void worker_loop() {
        std::uint64_t seen = 0;
        std::unique_lock<std::mutex> lock(mu);
        for (;;) {
            work_cv.wait(lock, [&] { return round != seen; });
            seen = round;
            while (next < parts) {
                std::size_t i = next++;
                lock.unlock();
                (*fn)(i);
                lock.lock();
                if (--pending == 0) done_cv.notify_all();
            }
        }
    }
};

Pool *g_pool = nullptr;
std::once_flag g_atfork_once;

std::size_t configured_threads() {
    if (const char *env = std::getenv("WSARRAY_NUM_THREADS")) {
        long n = std::strtol(env, nullptr, 10);
        if (n >= 1) return (std::size_t) std::min<long>(n, 64);
    }
    unsigned hc = std::thread::hardware_concurrency();
    return std::max<std::size_t>(1, std::min<std::size_t>(hc ? hc : 1, 8));
}

/// After fork() only the forking thread exists in the child: forget the parent's pool (its
/// mutexes may be held by threads that are gone; the memory is deliberately leaked).
void forget_pool_in_child() { g_pool = nullptr; }

Pool &pool() {
    std::call_once(g_atfork_once, [] { pthread_atfork(nullptr, nullptr, forget_pool_in_child); });
    if (!g_pool) {
        auto *p = new Pool();  // never destroyed: workers run until the process exits
        std::size_t n = pool_threads();
        for (std::size_t i = 1; i < n; ++i) {
            p->workers.emplace_back([p] { p->worker_loop(); });
            p->workers.back().detach();
        }
        g_pool = p;
    }
    return *g_pool;
}

} // namespace

std::size_t pool_threads() {
    static const std::size_t n = configured_threads();
    return n;
}

void parallel_for(std::size_t parts, const std::function<void(std::size_t)> &fn) {
    if (parts == 0) return;
    if (parts == 1 || pool_threads() == 1) {
        for (std::size_t i = 0; i < parts; ++i) fn(i);
        return;
    }
    Pool &p = pool();
    std::lock_guard<std::mutex> call(p.call_mu);
    std::unique_lock<std::mutex> lock(p.mu);
    p.fn = &fn;
    p.parts = parts;
    p.next = 0;
    p.pending = parts;
    ++p.round;
    p.work_cv.notify_all();
    // The caller works too, then waits until the workers have finished every part.
    while (p.next < p.parts) {
        std::size_t i = p.next++;
        lock.unlock();
        fn(i);
        lock.lock();
        --p.pending;
    }
    p.done_cv.wait(lock, [&] { return p.pending == 0; });
    p.fn = nullptr;
}

} // namespace wsa
