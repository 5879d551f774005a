/// src/core/memory/config.cpp -- size parsing and policy names.
#include "config.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace wsa {

bool Config::operator==(const Config &o) const {
    return initial_size == o.initial_size && min_size == o.min_size && max_size == o.max_size &&
           overallocation_limit == o.overallocation_limit && allocation == o.allocation && learning == o.learning &&
           cycles_before_initialization == o.cycles_before_initialization && spill == o.spill && reset == o.reset &&
           location == o.location && temp_file_path == o.temp_file_path && trim_after_cycles == o.trim_after_cycles &&
           device == o.device && device_name == o.device_name;
}

std::size_t parse_size(const std::string &text) {
    std::size_t i = 0, n = text.size();
    while (i < n && std::isspace((unsigned char) text[i])) ++i;
    std::size_t num_start = i;
    while (i < n && (std::isdigit((unsigned char) text[i]) || text[i] == '.')) ++i;
    std::string number = text.substr(num_start, i - num_start);
    while (i < n && std::isspace((unsigned char) text[i])) ++i;
    std::string unit;
    for (; i < n; ++i)
        if (!std::isspace((unsigned char) text[i])) unit += (char) std::tolower((unsigned char) text[i]);
    if (number.empty() || number == "." || number.find('.') != number.rfind('.'))
        throw std::invalid_argument("'" + text +
                                    "' is not a size: expected a number followed by "
                                    "an optional unit such as B, KB, MB, GB, KiB, MiB or GiB");
    double scale;
    if (unit.empty() || unit == "b") scale = 1;
    else if (unit == "kb") scale = 1e3;
    else if (unit == "mb") scale = 1e6;
    else if (unit == "gb") scale = 1e9;
    else if (unit == "tb") scale = 1e12;
    else if (unit == "kib") scale = 1024.0;
    else if (unit == "mib") scale = 1024.0 * 1024;
    else if (unit == "gib") scale = 1024.0 * 1024 * 1024;
    else if (unit == "tib") scale = 1024.0 * 1024 * 1024 * 1024;
    else
        throw std::invalid_argument("'" + text + "' has an unknown unit '" + unit +
                                    "': use B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, "
                                    "TiB (powers of 1024)");
    // strtod, not stod: a number of hundreds of digits is "too large", not std::out_of_range.
    double value = std::strtod(number.c_str(), nullptr) * scale;
    if (!std::isfinite(value) || value >= 4.6e18)  // sizes are capped at 2**62 bytes
        throw std::invalid_argument("'" + text + "' is too large (sizes are at most 2**62 bytes)");
    return (std::size_t) std::llround(value);
}

#define WSA_ENUM(Type, fn, ...)                                                         \
    const char *to_string(Type p) {                                                     \
        static const char *names[] = {__VA_ARGS__};                                     \
        return names[(int) p];                                                          \
    }                                                                                   \
    Type fn(const std::string &s) {                                                     \
        static const char *names[] = {__VA_ARGS__};                                     \
        std::string valid;                                                              \
        for (std::size_t k = 0; k < sizeof(names) / sizeof(names[0]); ++k) {            \
            if (s == names[k]) return (Type) k;                                         \
            if (names[k][0] != '_') /* private values (tests) go unlisted */            \
                valid += std::string(valid.empty() ? "" : ", ") + "'" + names[k] + "'"; \
        }                                                                               \
        throw std::invalid_argument("'" + s + "' is not one of " + valid);              \
    }

WSA_ENUM(AllocationPolicy, allocation_from_string, "overallocate", "strict")
WSA_ENUM(LearningPolicy, learning_from_string, "first_loop", "over_time", "none")
WSA_ENUM(SpillPolicy, spill_from_string, "external", "reallocate", "fail")
WSA_ENUM(ResetPolicy, reset_from_string, "block_left", "end_of_buffer")
WSA_ENUM(LocationPolicy, location_from_string, "ram", "mmap", "_notouch", "shared")

#undef WSA_ENUM

} // namespace wsa
