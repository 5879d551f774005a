/// tests/cpp/check_main.cpp -- runs the TESTs of check.h: every test, or those named as arguments
/// (tests whose name starts with '_' run only when named). Prints a line per test and a summary;
/// exits 1 if any check failed.
#include "check.h"

#include <cstdio>
#include <cstring>
#include <exception>

namespace check {

std::vector<Test> &registry() {
    static std::vector<Test> tests;
    return tests;
}

namespace {
int failures_in_test = 0;
} // namespace

void fail(const char *file, int line, const std::string &what) {
    ++failures_in_test;
    std::fprintf(stdout, "  %s:%d: %s\n", file, line, what.c_str());
}

} // namespace check

int main(int argc, char **argv) {
    int run = 0, failed = 0;
    for (const check::Test &t : check::registry()) {
        bool named = argc < 2;
        for (int i = 1; i < argc; ++i) named |= std::strcmp(argv[i], t.name) == 0;
        if (!named || (argc < 2 && t.name[0] == '_')) continue;
        check::failures_in_test = 0;
        try {
            t.body();
        } catch (const check::Abort &) {
        } catch (const std::exception &e) {
            check::fail(__FILE__, __LINE__, std::string("unexpected exception: ") + e.what());
        }
        ++run;
        if (check::failures_in_test) ++failed;
        std::fprintf(stdout, "%s %s\n", check::failures_in_test ? "FAIL" : "ok  ", t.name);
        std::fflush(stdout);
    }
    std::fprintf(stdout, "%d tests run, %d failed\n", run, failed);
    return failed || run == 0 ? 1 : 0;
}
