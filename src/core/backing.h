/// src/core/backing.h -- where a workspace's chunks of memory come from.
///
/// The arena only hands out offsets into chunks; a Backing maps and unmaps the chunks. Host memory
/// is anonymous mmap (huge pages advised, pages touched up front so the steady state takes no page
/// faults); "mmap" location maps an unlinked temporary file. A device backing (CUDA) plugs in here.
#pragma once
#include <cstddef>
#include <string>

namespace wsa {

struct Mapping {
    void *ptr = nullptr;
    std::size_t size = 0;
    int fd = -1;  ///< file descriptor for file-backed mappings, -1 otherwise
};

/// Map `size` bytes of zero-initialised host memory. `prefault` touches every page now.
/// Throws std::bad_alloc when the operating system refuses.
Mapping map_host(std::size_t size, bool prefault);

/// Map `size` bytes backed by an unlinked temporary file in `directory` (empty: $TMPDIR or /tmp).
/// Throws std::runtime_error naming the directory when the file cannot be created.
Mapping map_file(std::size_t size, const std::string &directory, bool prefault);

/// Give the mapping back to the operating system.
void unmap(Mapping &m);

/// Page size and huge page size used for rounding.
std::size_t page_size();
constexpr std::size_t kHugePage = std::size_t(2) << 20;

} // namespace wsa
