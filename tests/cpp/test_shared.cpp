/// tests/cpp/test_shared.cpp -- shared-memory chunks (location 'shared', src/core/memory/backing.h):
/// map_shared's memory reached through its descriptor both ways, private to its user, the /dev/shm
/// fallback leaving no file behind, prefault and hole punching, a shared workspace's chunks and
/// spills found by address (Workspace::mapping_of), and a forked child that writes only its own
/// copy-on-write view.
#include "check.h"

#include "memory/backing.h"
#include "memory/workspace.h"

#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using wsa::Config;
using wsa::Mapping;
using wsa::Workspace;

namespace {

/// Entries of /dev/shm whose name holds "wsarray".
int wsarray_files_in_dev_shm() {
    int n = 0;
    if (DIR *d = opendir("/dev/shm")) {
        while (dirent *e = readdir(d)) n += std::strstr(e->d_name, "wsarray") != nullptr;
        closedir(d);
    }
    return n;
}

/// What /proc/self/fd/<fd> points to.
std::string fd_target(int fd) {
    char buf[256] = {};
    ssize_t n = readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, (std::size_t) n) : std::string();
}

/// The mapping holding `p` (checked to exist) and the offset of `p` in it.
Mapping mapping_at(const void *p, std::size_t &offset) {
    Mapping m;
    REQUIRE(Workspace::mapping_of(p, m, offset));
    return m;
}

/// In a forked child: the inherited chunk is private, the child writes an inherited block and a new
/// one, and gets a spill of shared memory of its own.
bool child_writes_its_own_view(Workspace &ws, unsigned char *inherited) {
    std::size_t off = 0;
    Mapping m;
    bool ok = Workspace::mapping_of(inherited, m, off) && m.fd == -1 && m.file_private;
    std::memset(inherited, 2, 4096);
    auto *q = (unsigned char *) ws.allocate(1000, /*zero=*/true);
    ok = ok && q[0] == 0 && q[999] == 0;
    std::memset(q, 5, 1000);
    return ok && Workspace::mapping_of(ws.allocate(2 << 20), m, off) && m.fd >= 0 && !m.file_private;
}

} // namespace

TEST(shared_memory_is_reached_through_its_descriptor_both_ways) {
    Mapping m = wsa::map_shared(1 << 20, false);
    REQUIRE(m.fd >= 0);
    CHECK(m.source == wsa::Source::Shared && m.host_accessible());
    CHECK_EQ(fd_target(m.fd).rfind("/memfd:wsarray", 0), std::size_t(0));
    struct stat st;
    REQUIRE(fstat(m.fd, &st) == 0);
    CHECK_EQ(st.st_mode & 0777, mode_t(0600));  // only this user may open it through /proc
    auto *p = (unsigned char *) m.ptr;
    CHECK(p[0] == 0 && p[(1 << 20) - 1] == 0);
    std::memset(p + 4096, 7, 100);
    unsigned char seen[100] = {};
    CHECK_EQ(pread(m.fd, seen, sizeof seen, 4096), ssize_t(100));
    CHECK(seen[0] == 7 && seen[99] == 7);
    const unsigned char nine[3] = {9, 9, 9};
    CHECK_EQ(pwrite(m.fd, nine, 3, 8192), ssize_t(3));
    CHECK(p[8192] == 9 && p[8194] == 9);
    wsa::unmap(m);
    CHECK(m.ptr == nullptr && m.fd == -1);
}

TEST(shared_memory_without_memfd_leaves_no_file_in_dev_shm) {
    if (access("/dev/shm", W_OK) != 0) return;  // no /dev/shm here: nothing to fall back to
    int before = wsarray_files_in_dev_shm();
    int fd = wsa::open_shared_memory(/*memfd=*/false);
    REQUIRE(fd >= 0);
    CHECK_EQ(wsarray_files_in_dev_shm(), before);  // unlinked as soon as it was opened
    std::string target = fd_target(fd);
    CHECK_EQ(target.rfind("/dev/shm/wsarray-", 0), std::size_t(0));
    CHECK_EQ(target.size(), std::string("/dev/shm/wsarray-").size() + 32 + std::string(" (deleted)").size());
    struct stat st;
    REQUIRE(fstat(fd, &st) == 0);
    CHECK_EQ(st.st_nlink, nlink_t(0));
    CHECK_EQ(st.st_mode & 0777, mode_t(0600));
    CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
    int other = wsa::open_shared_memory(false);
    CHECK(fd_target(other) != target);  // a fresh random name each time
    close(other);
    close(fd);
}

TEST(shared_memory_prefaults_and_gives_pages_back_as_holes) {
    const std::size_t size = 4 << 20;
    Mapping m = wsa::map_shared(size, true);
    struct stat st;
    REQUIRE(fstat(m.fd, &st) == 0);
    CHECK((std::size_t) st.st_blocks * 512 >= size);
    std::memset(m.ptr, 3, size);
    CHECK(wsa::release_pages(m, 0, size));  // a hole: reads zeros, holds no memory
    REQUIRE(fstat(m.fd, &st) == 0);
    CHECK_EQ((std::size_t) st.st_blocks, std::size_t(0));
    CHECK(((unsigned char *) m.ptr)[size / 2] == 0);
    wsa::unmap(m);
}

TEST(workspace_shared_location_serves_chunks_and_spills_of_shared_memory) {
    Config cfg;
    cfg.initial_size = 64 << 10;
    cfg.learning = wsa::LearningPolicy::None;
    cfg.location = wsa::LocationPolicy::Shared;
    auto ws = std::make_shared<Workspace>("shared", cfg);
    void *a = ws->allocate(1000);
    void *b = ws->allocate(1000);
    std::size_t off_a = 0, off_b = 0, off_s = 0;
    Mapping chunk = mapping_at(a, off_a);
    CHECK(chunk.source == wsa::Source::Shared && chunk.fd >= 0 && chunk.size == (64 << 10));
    CHECK_EQ(mapping_at((char *) b + 10, off_b).fd, chunk.fd);
    CHECK_EQ(off_b, off_a + 1024 + 10);
    void *small = ws->allocate(100 << 10);  // a spill a ram workspace would take from the C heap
    Mapping spill = mapping_at(small, off_s);
    CHECK(spill.source == wsa::Source::Shared && spill.fd >= 0 && spill.fd != chunk.fd);
    CHECK_EQ(off_s, std::size_t(0));
    int dummy = 0;
    Mapping none;
    CHECK(!Workspace::mapping_of(&dummy, none, off_s));
    for (void *p : {a, b, small}) Workspace::free_if_owned(p);
}

TEST(workspace_shared_memory_a_forked_child_writes_only_its_own_view) {
    Config cfg;
    cfg.initial_size = 1 << 20;
    cfg.learning = wsa::LearningPolicy::None;
    cfg.location = wsa::LocationPolicy::Shared;
    auto ws = std::make_shared<Workspace>("forked", cfg);
    auto *p = (unsigned char *) ws->allocate(4096);
    std::memset(p, 1, 4096);
    pid_t pid = fork();
    if (pid == 0) {  // the child: never back into the harness
        try {
            _exit(child_writes_its_own_view(*ws, p) ? 0 : 1);
        } catch (...) {
            _exit(2);
        }
    }
    REQUIRE(pid > 0);
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(p[0] == 1 && p[4095] == 1);
    std::size_t off = 0;
    Mapping m = mapping_at(p, off);
    CHECK(m.fd >= 0 && !m.file_private);  // the parent's stays shared
    unsigned char after[1000];
    CHECK_EQ(pread(m.fd, after, sizeof after, (off_t) (off + 4096)), ssize_t(sizeof after));
    CHECK(after[0] == 0 && after[999] == 0);  // the child's new block never reached it
    Workspace::free_if_owned(p);
}
