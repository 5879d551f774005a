/// src/core/memory/registry.h -- the address registry: every chunk of every workspace by base
/// address, so that a pointer NumPy frees (on any thread) finds its chunk, and the one lock that
/// guards the registry and all workspace state.
#pragma once
#include "chunk.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace wsa {

#ifdef __linux__
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

/// The registry's lock. It is taken twice for every array a workspace serves (allocate, free):
/// glibc's pthread mutex costs ~55 instructions a lock/unlock pair out of line, this one an inline
/// compare-and-swap and exchange (np.zeros(64) in a workspace: 7% faster). Waiters sleep on a
/// futex (Drepper, "Futexes Are Tricky", mutex 3): 0 free, 1 locked, 2 locked with waiters.
class RegistryMutex {
public:
    void lock() {
        int c = 0;
        if (!state_.compare_exchange_strong(c, 1, std::memory_order_acquire, std::memory_order_relaxed))
            lock_contended(c);
    }
    bool try_lock() {
        int c = 0;
        return state_.compare_exchange_strong(c, 1, std::memory_order_acquire, std::memory_order_relaxed);
    }
    void unlock() {
        if (state_.exchange(0, std::memory_order_release) == 2) futex_wake_one(state_);
    }

private:
    void lock_contended(int c) {
        // Holders keep the lock for a few hundred instructions (a map or unmap at most): spin a
        // little before sleeping.
        for (int i = 0; i < 64 && c == 1; ++i) {
            cpu_relax();
            c = 0;
            if (state_.compare_exchange_strong(c, 1, std::memory_order_acquire, std::memory_order_relaxed)) return;
        }
        if (c != 2) c = state_.exchange(2, std::memory_order_acquire);
        while (c != 0) {
            futex_wait(state_, 2);
            c = state_.exchange(2, std::memory_order_acquire);
        }
    }
    std::atomic<int> state_{0};
};
#else
using RegistryMutex = std::mutex;
#endif

/// Every chunk of every workspace by base address, so that a pointer NumPy frees (on any thread)
/// finds its chunk. `g_mu` guards the registry and all workspace state.
struct Registry {
    RegistryMutex mu;
    std::map<std::uintptr_t, Chunk *> chunks;
    std::atomic<std::uintptr_t> lo{UINTPTR_MAX}, hi{0};  ///< quick reject for foreign pointers
    Chunk *last_found = nullptr;  ///< the chunk find() answered last (registered still)
    std::size_t zombie_bytes = 0;
    /// Device chunks to give back once the mutex is down (a device source's callbacks may need
    /// the GIL; calling them with the mutex held can deadlock against a thread that holds the GIL
    /// and waits for the mutex). The source's shared pointer keeps it alive until then.
    std::vector<std::pair<Mapping, std::shared_ptr<const DeviceSource>>> deferred;

    Chunk *find(const void *p) {
        auto a = (std::uintptr_t) p;
        if (a < lo.load(std::memory_order_relaxed) || a >= hi.load(std::memory_order_relaxed)) return nullptr;
        if (last_found && last_found->contains(p)) return last_found;  // a loop frees where it allocates
        auto it = chunks.upper_bound(a);
        if (it == chunks.begin()) return nullptr;
        --it;
        if (!it->second->contains(p)) return nullptr;
        last_found = it->second;
        return last_found;
    }
    void add(Chunk *c) {
        chunks.emplace((std::uintptr_t) c->base(), c);
        auto a = (std::uintptr_t) c->base();
        if (a < lo) lo = a;
        if (a + c->capacity() > hi) hi = a + c->capacity();
    }
    void remove(Chunk *c) {
        if (last_found == c) last_found = nullptr;
        chunks.erase((std::uintptr_t) c->base());
        // Shrink the range to the chunks left (they never overlap: the last by address ends
        // highest). A heap spill's low address would otherwise leave every NumPy free taking the
        // lock and the map lookup for as long as any chunk exists.
        if (chunks.empty()) {
            lo = UINTPTR_MAX;
            hi = 0;
        } else {
            lo = chunks.begin()->first;
            const Chunk *top = chunks.rbegin()->second;
            hi = (std::uintptr_t) top->base() + top->capacity();
        }
    }
};

/// A new registry, with the fork handlers installed (install_fork_handlers): registry() makes one.
Registry *make_registry();

/// The registry, made on first use (never destroyed: frees may arrive during shutdown). Inline:
/// every free of a NumPy array asks it (surely_foreign).
inline Registry &registry() {
    static Registry *r = make_registry();
    return *r;
}

/// Installs the handlers that hold the registry's lock across fork() and tidy the child: defined
/// by the fork handling (fork.cpp), called once by make_registry().
void install_fork_handlers();

/// Unmap `c`'s memory (deferred for a device chunk: see Registry::deferred) and delete `c`.
/// Mutex held; `c` is no longer registered.
void drop_chunk_locked(Chunk *c);

/// Holds the registry mutex; on the way out, gives back the device chunks deferred meanwhile,
/// with the mutex down.
class Locked {
public:
    Locked() : lock_(registry().mu) {}
    Locked(const Locked &) = delete;
    Locked &operator=(const Locked &) = delete;
    ~Locked() {
        if (registry().deferred.empty()) return;
        std::vector<std::pair<Mapping, std::shared_ptr<const DeviceSource>>> out;
        out.swap(registry().deferred);
        lock_.unlock();
        for (auto &m : out) unmap(m.first);
    }

private:
    std::unique_lock<RegistryMutex> lock_;
};

/// Outside every chunk's address range: certainly foreign, no lock needed. A chunk is registered
/// (and the range widened) before any block of it is handed out, and the range shrinks only when
/// no chunk is left.
inline bool surely_foreign(Registry &r, const void *p) {
    auto a = (std::uintptr_t) p;
    return a < r.lo.load(std::memory_order_acquire) || a >= r.hi.load(std::memory_order_acquire);
}

} // namespace wsa
