/// src/python/common/build_info.h -- facts about this build, for wsarray.show_config().
#pragma once
#include <nanobind/nanobind.h>

namespace wsa_py {

/// Define _native._build_info().
void export_build_info(nanobind::module_ &m);

} // namespace wsa_py
