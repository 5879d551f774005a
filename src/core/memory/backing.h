/// src/core/memory/backing.h -- where a workspace's chunks of memory come from.
///
/// The arena only hands out offsets into chunks; a Backing maps and unmaps the chunks. Host memory
/// is anonymous mmap (huge pages advised; workspaces map chunks without touching them, so RSS follows
/// what cycles use); "mmap" location maps an unlinked temporary file. A device backing (CUDA) plugs in here.
///
/// Requests larger than the memory the process can still get fail with MappingRefused up front:
/// touching pages the machine does not have would get the process OOM-killed instead.
#pragma once
#include <cstddef>
#include <new>
#include <string>

namespace wsa {

struct Mapping {
    void *ptr = nullptr;
    std::size_t size = 0;
    int fd = -1;  ///< file descriptor for file-backed mappings, -1 otherwise
    bool heap = false;  ///< from the C heap (small spills), released with free()
    /// A copy-on-write view of a workspace file (after fork()): writes stay private, pages given
    /// back read the file again (not zeros); the file itself is no longer written.
    bool file_private = false;
};

/// The operating system cannot (or would not safely) provide a mapping; what() says why.
struct MappingRefused : std::bad_alloc {
    explicit MappingRefused(std::string why) : why_(std::move(why)) {}
    const char *what() const noexcept override { return why_.c_str(); }

private:
    std::string why_;
};

/// Map `size` bytes of zero-initialised host memory. `prefault` touches every page now.
/// Throws MappingRefused when the operating system refuses or the memory is not available.
Mapping map_host(std::size_t size, bool prefault);

/// The directory file-backed workspaces use: `directory`, or $TMPDIR, or /tmp.
std::string file_directory(const std::string &directory);

/// Map `size` bytes backed by an unlinked temporary file in `directory` (empty: $TMPDIR or /tmp).
/// Throws std::runtime_error naming the directory when the file cannot be created, and
/// MappingRefused when the file system has no room for it.
Mapping map_file(std::size_t size, const std::string &directory, bool prefault);

/// `size` bytes, 64-byte aligned, from the C heap: small spills, where an mmap per allocation
/// would cost a system call and page faults every time. Throws MappingRefused when out of memory.
Mapping map_heap(std::size_t size);

/// Give the mapping back to the operating system.
void unmap(Mapping &m);

/// Remap a shared file mapping copy-on-write from the same file, at the same address (before
/// fork(): parent and child must never write into one file). One system call whatever the size;
/// the contents stay. Returns false (mapping unchanged) if the kernel refuses.
bool freeze_file(Mapping &m);

/// Map a fresh file of the mapping's size in `directory` over a frozen mapping, shared again (its
/// contents become zeros: call it only when nothing lives in the mapping). False: unchanged.
bool refile(Mapping &m, const std::string &directory);

/// Give the pages inside [offset, offset + length) back to the operating system (rounded inward to
/// whole pages). Returns true if those pages read as zeros afterwards (anonymous memory, a shared
/// file's punched hole), false if they read earlier contents (a frozen file) or nothing was done
/// (heap memory, less than a page).
bool release_pages(Mapping &m, std::size_t offset, std::size_t length);

/// Bytes of memory this process can still get: MemAvailable + SwapFree, capped by the cgroup
/// limit. SIZE_MAX when unknown.
std::size_t available_memory();

/// Page size and huge page size used for rounding.
std::size_t page_size();
constexpr std::size_t kHugePage = std::size_t(2) << 20;

} // namespace wsa
