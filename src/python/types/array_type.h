/// src/python/types/array_type.h -- the wsarray.Array type.
#pragma once
#include <nanobind/nanobind.h>

namespace wsa_py {

/// Define wsarray.Array (array_type.cpp and the array_*.cpp files it calls).
void export_array(nanobind::module_ &m);

} // namespace wsa_py
