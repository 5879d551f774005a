/// src/core/memory/backing.cpp -- host, file-backed and shared-memory chunk mappings.
#include "backing.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdexcept>
#include <utility>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#ifdef __linux__
#include <linux/futex.h>
#endif
#include <unistd.h>

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif

namespace wsa {

/// Mappings at least this big are checked against the memory the process can still get. Smaller
/// ones are not worth reading /proc for (spills map one small chunk per allocation).
constexpr std::size_t kCheckAbove = std::size_t(64) << 20;

/// Chunks at least this big get MADV_HUGEPAGE.
constexpr std::size_t kHugePageChunk = std::size_t(32) << 20;

std::size_t page_size() {
    static const std::size_t ps = (std::size_t) sysconf(_SC_PAGESIZE);
    return ps;
}

/// First number in a file (cgroup files hold one, or the word "max"); false if there is none.
static bool read_number(const char *path, unsigned long long &out) {
    FILE *f = std::fopen(path, "r");
    if (!f) return false;
    bool ok = std::fscanf(f, "%llu", &out) == 1;
    std::fclose(f);
    return ok;
}

std::size_t available_memory() {
    std::size_t avail = SIZE_MAX;
    if (FILE *f = std::fopen("/proc/meminfo", "r")) {
        char key[64];
        unsigned long long kb;
        std::size_t mem = 0, swap = 0;
        bool found = false;
        while (std::fscanf(f, "%63s %llu kB", key, &kb) == 2) {
            if (!std::strcmp(key, "MemAvailable:")) {
                mem = kb * 1024;
                found = true;
            } else if (!std::strcmp(key, "SwapFree:")) swap = kb * 1024;
        }
        std::fclose(f);
        if (found) avail = mem + swap;
    }
    // A container's memory limit (cgroup v2, then v1); absurd "unlimited" values are ignored.
    unsigned long long limit, usage;
    if ((read_number("/sys/fs/cgroup/memory.max", limit) && read_number("/sys/fs/cgroup/memory.current", usage)) ||
        (read_number("/sys/fs/cgroup/memory/memory.limit_in_bytes", limit) &&
         read_number("/sys/fs/cgroup/memory/memory.usage_in_bytes", usage))) {
        if (limit < (1ull << 60)) avail = std::min<std::size_t>(avail, limit > usage ? limit - usage : 0);
    }
    return avail;
}

static std::string mib(std::size_t n) { return std::to_string(n >> 20) + " MiB"; }

static void check_available(std::size_t size) {
    if (size < kCheckAbove) return;
    std::size_t avail = available_memory();
    if (size > avail)
        throw MappingRefused("the machine has only " + mib(avail) + " of memory available for " + mib(size));
}

/// Touch every page now. MADV_POPULATE_WRITE reports a failure instead of faulting page by page;
/// kernels without it fall back to writing one byte per page.
static bool touch_pages(void *ptr, std::size_t size) {
#ifdef MADV_POPULATE_WRITE
    if (madvise(ptr, size, MADV_POPULATE_WRITE) == 0) return true;
    if (errno != EINVAL) return false;  // ENOMEM, EFAULT, EHWPOISON: the memory is not there
#endif
    volatile char *p = (volatile char *) ptr;
    for (std::size_t off = 0; off < size; off += page_size()) p[off] = 0;
    return true;
}

Mapping map_host(std::size_t size, bool prefault) {
    check_available(size);
    // No MAP_NORESERVE: the kernel's overcommit check then refuses impossible sizes at once.
    void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        throw MappingRefused("the operating system refused to map " + std::to_string(size) +
                             " bytes: " + std::strerror(errno));
#ifdef MADV_HUGEPAGE
    // Huge pages only for big chunks: a touched huge page costs 2 MiB of RSS, which in a chunk of a
    // few MiB would exceed what the cycles really use (TLB savings matter for the big ones).
    if (size >= kHugePageChunk) madvise(p, size, MADV_HUGEPAGE);
#endif
    if (prefault && !touch_pages(p, size)) {
        int err = errno;
        munmap(p, size);
        throw MappingRefused("the operating system could not provide " + std::to_string(size) +
                             " bytes: " + std::strerror(err));
    }
    Mapping m;
    m.ptr = p;
    m.size = size;
    return m;
}

std::string file_directory(const std::string &directory) {
    if (!directory.empty()) return directory;
    const char *t = std::getenv("TMPDIR");
    return (t && *t) ? t : "/tmp";
}

Mapping map_file(std::size_t size, const std::string &directory, bool prefault) {
    std::string dir = file_directory(directory);
    struct statvfs fs;
    if (size >= kCheckAbove && statvfs(dir.c_str(), &fs) == 0 && size > (std::size_t) fs.f_bavail * fs.f_frsize)
        throw MappingRefused("the file system of '" + dir + "' has only " +
                             mib((std::size_t) fs.f_bavail * fs.f_frsize) + " free for " + mib(size));
    std::string path = dir + "/wsarray-XXXXXX";
    int fd = mkstemp(path.data());
    if (fd < 0) throw std::runtime_error("cannot create a workspace file in '" + dir + "': " + std::strerror(errno));
    unlink(path.c_str());
    if (ftruncate(fd, (off_t) size) != 0) {
        int err = errno;
        close(fd);
        throw std::runtime_error("cannot size a workspace file in '" + dir + "' to " + std::to_string(size) +
                                 " bytes: " + std::strerror(err));
    }
    void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        int err = errno;
        close(fd);
        throw MappingRefused("the operating system refused to map " + std::to_string(size) + " bytes of a file in '" +
                             dir + "': " + std::strerror(err));
    }
    if (prefault && !touch_pages(p, size)) {
        int err = errno;
        munmap(p, size);
        close(fd);
        throw MappingRefused("could not fill a workspace file in '" + dir + "' with " + std::to_string(size) +
                             " bytes: " + std::strerror(err));
    }
    Mapping m;
    m.ptr = p;
    m.size = size;
    m.fd = fd;
    m.source = Source::File;
    return m;
}

/// memfd_create through the system call (older C libraries lack the wrapper); ENOSYS where the
/// kernel (or the build's headers) has none.
static int memfd(const char *name) {
#ifdef SYS_memfd_create
    return (int) syscall(SYS_memfd_create, name, MFD_CLOEXEC);
#else
    (void) name;
    errno = ENOSYS;
    return -1;
#endif
}

/// `n` random bytes from the kernel (getrandom, else /dev/urandom); false if there are none.
static bool random_bytes(unsigned char *out, std::size_t n) {
#ifdef SYS_getrandom
    if (syscall(SYS_getrandom, out, n, 0) == (long) n) return true;
#endif
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    bool ok = read(fd, out, n) == (ssize_t) n;
    close(fd);
    return ok;
}

/// A new file in /dev/shm with an unguessable name (16 random bytes, hex), unlinked at once.
static int open_dev_shm() {
    unsigned char bytes[16];
    if (!random_bytes(bytes, sizeof bytes))
        throw MappingRefused("no random bytes for the name of a shared memory file: " +
                             std::string(std::strerror(errno)));
    char name[] = "/dev/shm/wsarray-0123456789abcdef0123456789abcdef";
    for (std::size_t k = 0; k < sizeof bytes; ++k) std::snprintf(name + 17 + 2 * k, 3, "%02x", bytes[k]);
    int fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        throw MappingRefused("cannot create a shared memory file in /dev/shm: " + std::string(std::strerror(errno)));
    unlink(name);
    return fd;
}

int open_shared_memory(bool use_memfd) {
    int fd = use_memfd ? memfd("wsarray") : -1;
    int err = use_memfd ? errno : ENOSYS;
    if (fd < 0 && err != ENOSYS)
        throw MappingRefused(std::string("memfd_create refused shared memory: ") + std::strerror(err) +
                             (err == EMFILE ? " (every chunk and spill of a shared workspace holds a file "
                                              "descriptor: raise RLIMIT_NOFILE)"
                                            : ""));
    if (fd < 0) fd = open_dev_shm();
    (void) fchmod(fd, 0600);  // a memfd is created 0777: only this user may open it through /proc
    return fd;
}

/// Closes a file descriptor on the way out unless released.
struct FdCloser {
    int fd;
    ~FdCloser() {
        if (fd >= 0) close(fd);
    }
    int release() { return std::exchange(fd, -1); }
};

/// Room for `size` bytes in the file system of shared memory `fd` (a /dev/shm file's has a size;
/// a memfd's has none), else MappingRefused.
static void check_shared_room(int fd, std::size_t size) {
    struct statvfs fs;
    if (size >= kCheckAbove && fstatvfs(fd, &fs) == 0 && fs.f_blocks != 0 &&
        size > (std::size_t) fs.f_bavail * fs.f_frsize)
        throw MappingRefused("the shared memory file system has only " + mib((std::size_t) fs.f_bavail * fs.f_frsize) +
                             " free for " + mib(size));
}

/// Size the shared memory of `fd` to `size` bytes (allocated now when `prefault`); false: errno.
static bool size_shared(int fd, std::size_t size, bool prefault) {
    if (ftruncate(fd, (off_t) size) != 0) return false;
    if (!prefault) return true;
    int err = posix_fallocate(fd, 0, (off_t) size);  // ENOSPC here, not SIGBUS at a touch
    if (err) errno = err;
    return err == 0;
}

Mapping map_shared(std::size_t size, bool prefault) {
    check_available(size);
    FdCloser fd{open_shared_memory()};
    check_shared_room(fd.fd, size);
    void *p = size_shared(fd.fd, size, prefault) ? mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd.fd, 0)
                                                 : MAP_FAILED;
    if (p == MAP_FAILED)
        throw MappingRefused("the operating system refused " + std::to_string(size) +
                             " bytes of shared memory: " + std::strerror(errno));
#ifdef MADV_HUGEPAGE
    if (size >= kHugePageChunk) madvise(p, size, MADV_HUGEPAGE);  // as map_host (where shmem allows)
#endif
    if (prefault && !touch_pages(p, size)) {
        int err = errno;
        munmap(p, size);
        throw MappingRefused("the operating system could not provide " + std::to_string(size) +
                             " bytes of shared memory: " + std::strerror(err));
    }
    Mapping m;
    m.ptr = p;
    m.size = size;
    m.fd = fd.release();
    m.source = Source::Shared;
    return m;
}

Mapping map_heap(std::size_t size) {
    void *p = nullptr;
    if (posix_memalign(&p, 64, size) != 0 || !p)
        throw MappingRefused("the C heap refused " + std::to_string(size) + " bytes");
    Mapping m;
    m.ptr = p;
    m.size = size;
    m.source = Source::Heap;
    return m;
}

Mapping map_notouch(std::size_t size) {
    void *p = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        throw MappingRefused("the operating system refused to reserve " + std::to_string(size) +
                             " bytes: " + std::strerror(errno));
    Mapping m;
    m.ptr = p;
    m.size = size;
    m.source = Source::NoTouch;
    return m;
}

Mapping map_device(const DeviceSource &source, std::size_t size) {
    std::string why;
    void *p = source.alloc ? source.alloc(source.ctx, size, why) : nullptr;
    if (!p)
        throw MappingRefused("device " + source.name + " refused " + std::to_string(size) + " bytes" +
                             (why.empty() ? std::string() : ": " + why));
    if ((std::uintptr_t) p % source.alignment) {
        source.free(source.ctx, p, size);
        throw MappingRefused("device " + source.name + " returned memory not aligned to " +
                             std::to_string(source.alignment) + " bytes");
    }
    Mapping m;
    m.ptr = p;
    m.size = size;
    m.source = Source::Device;
    m.device = &source;
    return m;
}

void unmap(Mapping &m) {
    if (m.source == Source::Heap) std::free(m.ptr);
    else if (m.source == Source::Device) {
        if (m.ptr) m.device->free(m.device->ctx, m.ptr, m.size);
    } else if (m.ptr) munmap(m.ptr, m.size);
    if (m.fd >= 0) close(m.fd);
    m = Mapping();
}

/// Remap `m` copy-on-write from its descriptor at the same address, then close the descriptor (the
/// private mapping keeps the file referenced). False (unchanged) if the kernel refuses.
static bool remap_private(Mapping &m) {
    if (m.fd < 0 || !m.ptr) return true;
    if (mmap(m.ptr, m.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, m.fd, 0) == MAP_FAILED) return false;
    close(m.fd);
    m.fd = -1;
    m.file_private = true;
    return true;
}

bool freeze_file(Mapping &m) { return m.source != Source::File || remap_private(m); }

bool unshare_in_child(Mapping &m) {
    if (m.source != Source::Shared || remap_private(m)) return true;
    mprotect(m.ptr, m.size, PROT_READ);  // never write into the parent's memory
    close(m.fd);
    m.fd = -1;
    m.file_private = true;
    return false;
}

bool refile(Mapping &m, const std::string &directory) {
    if (m.source != Source::File || !m.file_private || !m.ptr) return false;
    std::string path = file_directory(directory) + "/wsarray-XXXXXX";
    int fd = mkstemp(path.data());
    if (fd < 0) return false;
    unlink(path.c_str());
    if (ftruncate(fd, (off_t) m.size) != 0 ||
        mmap(m.ptr, m.size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
        close(fd);
        return false;
    }
    m.fd = fd;
    m.file_private = false;
    return true;
}

bool release_pages(Mapping &m, std::size_t offset, std::size_t length) {
    if (!m.host_accessible() || m.source == Source::Heap || !m.ptr || offset >= m.size) return false;
    std::size_t ps = page_size();
    std::size_t lo = (offset + ps - 1) / ps * ps;
    std::size_t hi = std::min(m.size, offset + length) / ps * ps;
    if (hi <= lo) return false;
    char *p = (char *) m.ptr + lo;
    if (m.fd >= 0) {
#ifdef MADV_REMOVE
        // A shared file or shared memory: punch a hole, so neither RSS nor the file keeps the pages.
        if (madvise(p, hi - lo, MADV_REMOVE) == 0) return true;
#endif
        return false;
    }
    if (madvise(p, hi - lo, MADV_DONTNEED) != 0) return false;
    return !m.file_private;
}

#ifdef __linux__
static_assert(sizeof(std::atomic<int>) == sizeof(int), "the futex word is the atomic's int");

void futex_wait(std::atomic<int> &word, int expected) {
    syscall(SYS_futex, (int *) &word, FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}

void futex_wake_one(std::atomic<int> &word) {
    syscall(SYS_futex, (int *) &word, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}
#endif

void register_fork_handlers(void (*before)(), void (*parent)(), void (*child)()) {
    pthread_atfork(before, parent, child);
}

void trim_heap() {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

namespace {
std::atomic<MappingObserver> g_mapping_observer{nullptr};
}

void set_mapping_observer(MappingObserver observer) { g_mapping_observer.store(observer, std::memory_order_release); }

void notify_mapping(const Mapping &m, bool mapped) {
    if (m.source == Source::Device) return;
    if (MappingObserver observe = g_mapping_observer.load(std::memory_order_acquire)) observe(m.ptr, m.size, mapped);
}

} // namespace wsa
