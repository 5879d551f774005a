/// src/python/array_type.h -- the wsarray.Array type.
#pragma once
#include <nanobind/nanobind.h>

namespace wsa_py {

/// Define wsarray.Array (array_type.cpp and the array_*.cpp files it calls) and make the scalar
/// results of np.True_ and np.False_.
void export_array(nanobind::module_ &m);

} // namespace wsa_py
