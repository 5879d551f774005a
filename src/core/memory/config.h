/// src/core/memory/config.h -- workspace configuration (ND4J's WorkspaceConfiguration) and size parsing.
#pragma once
#include "backing.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace wsa {

enum class AllocationPolicy { Overallocate, Strict };
enum class LearningPolicy { FirstLoop, OverTime, None };
enum class SpillPolicy { External, Reallocate, Fail };
enum class ResetPolicy { BlockLeft, EndOfBuffer };
/// Host memory of a workspace. Shared ("shared"): chunks and spills of shared memory another process
/// can map (backing.h, map_shared). NoTouch ("_notouch") is for tests only: chunks mapped PROT_NONE.
enum class LocationPolicy { Ram, Mmap, NoTouch, Shared };

struct Config {
    std::size_t initial_size = 0;          ///< bytes mapped when the workspace is created
    std::size_t min_size = 0;              ///< learned size never goes below this
    std::size_t max_size = 0;              ///< hard ceiling on capacity + live spill (0: none)
    double overallocation_limit = 0.3;     ///< extra fraction on top of a learned size
    AllocationPolicy allocation = AllocationPolicy::Overallocate;
    LearningPolicy learning = LearningPolicy::FirstLoop;
    int cycles_before_initialization = 0;  ///< for LearningPolicy::OverTime
    SpillPolicy spill = SpillPolicy::External;
    ResetPolicy reset = ResetPolicy::BlockLeft;
    LocationPolicy location = LocationPolicy::Ram;
    std::string temp_file_path;            ///< directory for LocationPolicy::Mmap (empty: $TMPDIR or /tmp)
    /// Every this many cycles, pages of the workspace that none of those cycles touched go back to
    /// the operating system (0: never). Memory a loop stopped needing does not stay resident.
    int trim_after_cycles = 16;
    /// Chunks (and spills) from this device source instead of host memory (null: the host).
    std::shared_ptr<const DeviceSource> device;
    /// The device the workspace is for ('cuda:0'; empty: the host), as asked in WorkspaceConfig;
    /// the Python layer gives such a config its device source (wsarray.workspace()).
    std::string device_name;

    bool operator==(const Config &o) const;
};

/// Parse "64MB", "1.5GiB", "4096", "512 KiB" into bytes. Throws std::invalid_argument with a
/// message that says what was wrong.
std::size_t parse_size(const std::string &text);

/// Enum <-> string helpers; from_string throws std::invalid_argument listing the valid values.
const char *to_string(AllocationPolicy p);
const char *to_string(LearningPolicy p);
const char *to_string(SpillPolicy p);
const char *to_string(ResetPolicy p);
const char *to_string(LocationPolicy p);
AllocationPolicy allocation_from_string(const std::string &s);
LearningPolicy learning_from_string(const std::string &s);
SpillPolicy spill_from_string(const std::string &s);
ResetPolicy reset_from_string(const std::string &s);
LocationPolicy location_from_string(const std::string &s);

} // namespace wsa
