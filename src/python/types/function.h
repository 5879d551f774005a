/// src/python/types/function.h -- wsarray.<name> callables (the Function type) that run a NumPy function
/// through the engine.
#pragma once
#include <nanobind/nanobind.h>

namespace wsa_py {

/// Define wsarray._native.Function (after wsarray.Array: a probe instance is made at export).
void export_function(nanobind::module_ &m);

} // namespace wsa_py
