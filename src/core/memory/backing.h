/// src/core/memory/backing.h -- where a workspace's chunks of memory come from.
///
/// The arena only hands out offsets into chunks (its bookkeeping lives on the host, out of band: see
/// chunk.h); a source maps and unmaps the chunks. Host memory is anonymous mmap (huge pages advised;
/// workspaces map chunks without touching them, so RSS follows what cycles use); "mmap" location
/// maps an unlinked temporary file; "shared" location maps anonymous shared memory (a memfd, or an
/// unlinked file in /dev/shm) whose file descriptor another process can map, spills included;
/// small spills of the other host locations come from the C heap. A device source (CUDA) is a
/// pair of callbacks the bindings supply; the core never calls a device API itself. The test-only
/// "no-touch" source maps chunks PROT_NONE: any read or write of chunk memory by the core crashes,
/// which proves the core keeps its hands off memory it may not be able to reach (a GPU's).
///
/// Requests larger than the memory the process can still get fail with MappingRefused up front:
/// touching pages the machine does not have would get the process OOM-killed instead.
#pragma once
#include <atomic>
#include <cstddef>
#include <new>
#include <string>

namespace wsa {

/// Where a chunk's memory comes from.
enum class Source : unsigned char {
    Ram,      ///< anonymous host mmap
    File,     ///< shared mapping of an unlinked temporary file
    Shared,   ///< shared mapping of anonymous shared memory (memfd) another process can map
    Heap,     ///< the C heap (small spills), released with free()
    NoTouch,  ///< host mmap with PROT_NONE (tests): the core must never read or write it
    Device,   ///< a DeviceSource's memory (not addressable by the host)
};

/// Chunk memory from outside the core (a GPU's, through the CUDA layer). `alloc` returns `size`
/// bytes aligned to `alignment`, or nullptr when it cannot (`why` may then name the reason); `free`
/// gives them back. The core calls both with its mutex down (they may take the GIL and call back
/// into the core), from any thread, a free possibly long after the workspace was destroyed.
struct DeviceSource {
    void *(*alloc)(void *ctx, std::size_t size, std::string &why) = nullptr;
    void (*free)(void *ctx, void *ptr, std::size_t size) = nullptr;
    void *ctx = nullptr;
    std::string name;               ///< for messages ("cuda:0")
    std::size_t alignment = 256;    ///< block alignment inside its chunks
};

struct Mapping {
    void *ptr = nullptr;
    std::size_t size = 0;
    int fd = -1;  ///< file descriptor for file-backed and shared mappings, -1 otherwise
    Source source = Source::Ram;
    const DeviceSource *device = nullptr;  ///< for Source::Device
    /// A copy-on-write view of a workspace file or shared memory (after fork()): writes stay
    /// private, pages given back read the file again (not zeros). A frozen file is no longer
    /// written; shared memory a child unshared (unshare_in_child) may still be by the parent.
    bool file_private = false;

    /// The core may read and write this memory (clear it for zero-filled allocations).
    bool host_accessible() const {
        return source == Source::Ram || source == Source::File || source == Source::Shared || source == Source::Heap;
    }
};

/// Told of each host chunk and spill a workspace maps (`mapped` true) or gives back: its address and
/// size. Called with the core's lock held, on whichever thread maps or releases: it must be quick,
/// must not call the core, and must not wait for anything a caller of the core may hold (the
/// GIL). Device chunks are not reported.
using MappingObserver = void (*)(const void *address, std::size_t size, bool mapped);
/// Register the observer (null: none). The bindings report the maps to tracemalloc through it.
void set_mapping_observer(MappingObserver observer);
/// Tell the observer that a workspace mapped `m` (`mapped` true) or is giving it back.
void notify_mapping(const Mapping &m, bool mapped);

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

/// A file descriptor (close-on-exec) of new anonymous shared memory, of size 0: memfd_create, or,
/// where the kernel has none (or `use_memfd` is false: tests), a file in /dev/shm created with an
/// unguessable name, mode 0600, and unlinked at once (nothing is left there, even after kill -9).
/// Only this user can open it. Throws MappingRefused saying why when there is none.
int open_shared_memory(bool use_memfd = true);

/// Map `size` bytes of zero-initialised shared memory (open_shared_memory, MAP_SHARED); the
/// mapping keeps the descriptor, which another process can map to see and write the same bytes.
/// `prefault` allocates and touches every page now. Throws MappingRefused when the operating
/// system refuses or the memory is not available.
Mapping map_shared(std::size_t size, bool prefault);

/// `size` bytes, 64-byte aligned, from the C heap: small spills, where an mmap per allocation
/// would cost a system call and page faults every time. Throws MappingRefused when out of memory.
Mapping map_heap(std::size_t size);

/// `size` bytes mapped PROT_NONE (the test-only no-touch source): the address range is reserved,
/// any access faults. Throws MappingRefused when the operating system refuses.
Mapping map_notouch(std::size_t size);

/// `size` bytes from a device source; throws MappingRefused naming the device when it refuses.
Mapping map_device(const DeviceSource &source, std::size_t size);

/// Give the mapping back to where it came from.
void unmap(Mapping &m);

/// Remap a shared file mapping (Source::File; other sources are left alone) copy-on-write from the
/// same file, at the same address (before fork(): parent and child must never write into one
/// file). One system call whatever the size; the contents stay. Returns false (mapping unchanged)
/// if the kernel refuses.
bool freeze_file(Mapping &m);

/// Map a fresh file of the mapping's size in `directory` over a frozen file mapping (Source::File),
/// shared again (its contents become zeros: call it only when nothing lives in the mapping).
/// False: unchanged (and always for other sources).
bool refile(Mapping &m, const std::string &directory);

/// In a forked child: remap a shared-memory mapping (Source::Shared) copy-on-write from its
/// descriptor at the same address, and close the child's copy of the descriptor, so that nothing
/// the child does writes into the parent's memory (pages the child has not written still show
/// what the parent writes). If the kernel refuses, the mapping is made read-only instead (a write
/// then crashes the child rather than reach the parent). Returns false in that case.
bool unshare_in_child(Mapping &m);

/// Give the pages inside [offset, offset + length) back to the operating system (rounded inward to
/// whole pages). Returns true if those pages read as zeros afterwards (anonymous memory, a shared
/// file's or shared memory's punched hole), false if they read earlier contents (a frozen file, an
/// unshared child's view) or nothing was done
/// (heap, no-touch or device memory, less than a page).
bool release_pages(Mapping &m, std::size_t offset, std::size_t length);

/// Bytes of memory this process can still get: MemAvailable + SwapFree, capped by the cgroup
/// limit. SIZE_MAX when unknown.
std::size_t available_memory();

/// Sleep while `word` holds `expected` (a private futex; may return early or spuriously: the caller
/// looks again). Linux only: the registry's lock (workspace.cpp) sleeps here.
void futex_wait(std::atomic<int> &word, int expected);
/// Wake one thread sleeping in futex_wait on `word`.
void futex_wake_one(std::atomic<int> &word);

/// Run `before` in the parent just before fork(), `parent` in the parent and `child` in the child
/// just after it (pthread_atfork).
void register_fork_handlers(void (*before)(), void (*parent)(), void (*child)());

/// Give the C heap's free memory back to the operating system (glibc's malloc_trim; nothing
/// elsewhere).
void trim_heap();

/// Page size and huge page size used for rounding.
std::size_t page_size();
constexpr std::size_t kHugePage = std::size_t(2) << 20;

} // namespace wsa
