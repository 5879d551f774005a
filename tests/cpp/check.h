/// tests/cpp/check.h -- a small test harness for the core's C++ tests (CI has no network to fetch a
/// framework). TEST(name) { ... } defines a test; CHECK(cond), CHECK_EQ(a, b) and
/// CHECK_THROWS(expr, Type, text) record a failure (file:line, the expression, the values) and let
/// the test go on; REQUIRE(cond) stops the test. check_main.cpp runs every test, or those named on
/// the command line, and exits 1 if any check failed.
#pragma once
#include <cstddef>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace check {

struct Test {
    const char *name;
    void (*body)();
};

/// Every TEST of the binary, in definition order within a file.
std::vector<Test> &registry();

struct Register {
    Register(const char *name, void (*body)()) { registry().push_back({name, body}); }
};

/// Record a failed check of the running test.
void fail(const char *file, int line, const std::string &what);

/// Thrown by REQUIRE: the running test stops there.
struct Abort {};

template <class T, class = void> struct printable : std::false_type {};
template <class T>
struct printable<T, std::void_t<decltype(std::declval<std::ostream &>() << std::declval<const T &>())>>
    : std::true_type {};

/// A value as a failure message shows it.
template <class T> std::string show(const T &v) {
    if constexpr (printable<T>::value) {
        std::ostringstream s;
        s << v;
        return s.str();
    } else {
        return "(a value that cannot be printed)";
    }
}

} // namespace check

#define CHECK_JOIN2(a, b) a##b
#define CHECK_JOIN(a, b) CHECK_JOIN2(a, b)

#define TEST(name)                                                          \
    static void test_##name();                                              \
    static check::Register CHECK_JOIN(register_, name)(#name, test_##name); \
    static void test_##name()

#define CHECK(cond)                                                       \
    do {                                                                  \
        if (!(cond)) check::fail(__FILE__, __LINE__, "CHECK(" #cond ")"); \
    } while (0)

#define REQUIRE(cond)                                              \
    do {                                                           \
        if (!(cond)) {                                             \
            check::fail(__FILE__, __LINE__, "REQUIRE(" #cond ")"); \
            throw check::Abort{};                                  \
        }                                                          \
    } while (0)

#define CHECK_EQ(a, b)                                                                                          \
    do {                                                                                                        \
        const auto &check_a_ = (a);                                                                             \
        const auto &check_b_ = (b);                                                                             \
        if (!(check_a_ == check_b_))                                                                            \
            check::fail(__FILE__, __LINE__,                                                                     \
                        "CHECK_EQ(" #a ", " #b "): " + check::show(check_a_) + " != " + check::show(check_b_)); \
    } while (0)

/// `expr` throws `Type` whose what() contains `text` ("" for any message).
#define CHECK_THROWS(expr, Type, text)                                                                        \
    do {                                                                                                      \
        std::string check_what_ = "no exception";                                                             \
        bool check_ok_ = false;                                                                               \
        try {                                                                                                 \
            (void) (expr);                                                                                    \
        } catch (const Type &e) {                                                                             \
            check_what_ = e.what();                                                                           \
            check_ok_ = check_what_.find(text) != std::string::npos;                                          \
        } catch (const std::exception &e) {                                                                   \
            check_what_ = std::string("another exception: ") + e.what();                                      \
        }                                                                                                     \
        if (!check_ok_)                                                                                       \
            check::fail(__FILE__, __LINE__, "CHECK_THROWS(" #expr ", " #Type ", " #text "): " + check_what_); \
    } while (0)
