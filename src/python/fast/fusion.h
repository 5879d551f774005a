/// src/python/fast/fusion.h -- the block runner of wsarray.fuse.
#pragma once
#include <nanobind/nanobind.h>

namespace wsa_py {

/// Define _native._fusion_run and _native._fusion_reduce (wsarray/fusion/native.py calls them).
void export_fusion(nanobind::module_ &m);

} // namespace wsa_py
