/// tests/cpp/test_config.cpp -- sizes and policy names (src/core/memory/config.h), and the harness
/// itself: a test that must fail (run only when named) proves a failing check is reported.
#include "check.h"

#include "memory/config.h"

#include <stdexcept>

using wsa::parse_size;

TEST(config_parses_sizes_in_both_unit_systems) {
    CHECK_EQ(parse_size("4096"), std::size_t(4096));
    CHECK_EQ(parse_size("0"), std::size_t(0));
    CHECK_EQ(parse_size("64MB"), std::size_t(64000000));
    CHECK_EQ(parse_size("2kb"), std::size_t(2000));
    CHECK_EQ(parse_size(".5KB"), std::size_t(500));
    CHECK_EQ(parse_size(" 512 KiB "), std::size_t(512) << 10);
    CHECK_EQ(parse_size("1.5GiB"), std::size_t(3) << 29);
    CHECK_EQ(parse_size("1TiB"), std::size_t(1) << 40);
    CHECK_EQ(parse_size("7B"), std::size_t(7));
}

TEST(config_refuses_what_is_not_a_size) {
    CHECK_THROWS(parse_size(""), std::invalid_argument, "is not a size");
    CHECK_THROWS(parse_size("MB"), std::invalid_argument, "is not a size");
    CHECK_THROWS(parse_size("-1"), std::invalid_argument, "is not a size");
    CHECK_THROWS(parse_size("1.2.3"), std::invalid_argument, "is not a size");
    CHECK_THROWS(parse_size("12XB"), std::invalid_argument, "unknown unit 'xb'");
    CHECK_THROWS(parse_size("1e3"), std::invalid_argument, "unknown unit");
    CHECK_THROWS(parse_size("99999999999999999999GB"), std::invalid_argument, "too large");
}

TEST(config_policy_names_round_trip) {
    using namespace wsa;
    for (auto p : {AllocationPolicy::Overallocate, AllocationPolicy::Strict})
        CHECK(allocation_from_string(to_string(p)) == p);
    for (auto p : {LearningPolicy::FirstLoop, LearningPolicy::OverTime, LearningPolicy::None})
        CHECK(learning_from_string(to_string(p)) == p);
    for (auto p : {SpillPolicy::External, SpillPolicy::Reallocate, SpillPolicy::Fail})
        CHECK(spill_from_string(to_string(p)) == p);
    for (auto p : {ResetPolicy::BlockLeft, ResetPolicy::EndOfBuffer}) CHECK(reset_from_string(to_string(p)) == p);
    for (auto p : {LocationPolicy::Ram, LocationPolicy::Mmap, LocationPolicy::Shared})
        CHECK(location_from_string(to_string(p)) == p);
    CHECK_THROWS(location_from_string("disk"), std::invalid_argument, "'ram', 'mmap', 'shared'");
    CHECK_EQ(std::string(to_string(LearningPolicy::FirstLoop)), std::string("first_loop"));
    CHECK_THROWS(spill_from_string("spill"), std::invalid_argument, "'external', 'reallocate', 'fail'");
}

TEST(config_equality_compares_every_field) {
    wsa::Config a, b;
    CHECK(a == b);
    b.trim_after_cycles = 0;
    CHECK(!(a == b));
    b = a;
    b.temp_file_path = "/tmp";
    CHECK(!(a == b));
}

// Run by tests/cpp/test_core_cpp.py by name: it must fail, and the harness must say where.
TEST(_harness_must_report_this_failure) {
    CHECK_EQ(parse_size("1KB"), std::size_t(1024));
    CHECK_THROWS(parse_size("1KB"), std::invalid_argument, "");
}
