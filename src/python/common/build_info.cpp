/// src/python/common/build_info.cpp -- facts about this build of the extension (compiler, build type,
/// sanitizers, kernels, threads), which wsarray.show_config() prints.
#include "common/build_info.h"

#include "compute/kernels.h"
#include "compute/thread_pool.h"
#include "memory/backing.h"

#include <nanobind/stl/string.h>

#include <string>

namespace nb = nanobind;

namespace wsa_py {

void export_build_info(nb::module_ &m) {
    m.def("_build_info", []() {
        nb::dict d;
        d["compiler"] = std::string(
#if defined(__clang__)
            "clang "
#elif defined(__GNUC__)
            "gcc "
#endif
            __VERSION__);
        d["cxx_standard"] = (long) __cplusplus;
        d["build_type"] = WSARRAY_BUILD_TYPE;
#ifdef WSARRAY_SANITIZED_BUILD
        d["sanitizers"] = "address,undefined";
#else
        d["sanitizers"] = "none";
#endif
        d["kernels"] = wsa::kernel_isa();
        d["threads"] = wsa::pool_threads();
        d["nanobind"] = std::to_string(NB_VERSION_MAJOR) + "." + std::to_string(NB_VERSION_MINOR) + "." +
                        std::to_string(NB_VERSION_PATCH);
        d["available_memory"] = wsa::available_memory();
        return d;
    }, "Facts about this build (wsarray.show_config() prints them).");
}

} // namespace wsa_py
