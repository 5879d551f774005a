/// src/core/backing.cpp -- host and file-backed chunk mappings.
#include "backing.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <stdexcept>
#include <sys/mman.h>
#include <unistd.h>

namespace wsa {

std::size_t page_size() {
    static const std::size_t ps = (std::size_t) sysconf(_SC_PAGESIZE);
    return ps;
}

static void touch_pages(void *ptr, std::size_t size) {
#ifdef MADV_POPULATE_WRITE
    if (madvise(ptr, size, MADV_POPULATE_WRITE) == 0) return;
#endif
    volatile char *p = (volatile char *) ptr;
    for (std::size_t off = 0; off < size; off += page_size()) p[off] = 0;
}

Mapping map_host(std::size_t size, bool prefault) {
    Mapping m;
    void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    if (size >= kHugePage) madvise(p, size, MADV_HUGEPAGE);
#endif
    if (prefault) touch_pages(p, size);
    m.ptr = p;
    m.size = size;
    return m;
}

Mapping map_file(std::size_t size, const std::string &directory, bool prefault) {
    std::string dir = directory;
    if (dir.empty()) {
        const char *t = std::getenv("TMPDIR");
        dir = (t && *t) ? t : "/tmp";
    }
    std::string path = dir + "/wsarray-XXXXXX";
    int fd = mkstemp(path.data());
    if (fd < 0)
        throw std::runtime_error("cannot create a workspace file in '" + dir +
                                 "': " + std::strerror(errno));
    unlink(path.c_str());
    if (ftruncate(fd, (off_t) size) != 0) {
        int err = errno;
        close(fd);
        throw std::runtime_error("cannot size a workspace file in '" + dir +
                                 "' to " + std::to_string(size) + " bytes: " + std::strerror(err));
    }
    void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        throw std::bad_alloc();
    }
    if (prefault) touch_pages(p, size);
    Mapping m;
    m.ptr = p;
    m.size = size;
    m.fd = fd;
    return m;
}

void unmap(Mapping &m) {
    if (m.ptr) munmap(m.ptr, m.size);
    if (m.fd >= 0) close(m.fd);
    m = Mapping();
}

} // namespace wsa
