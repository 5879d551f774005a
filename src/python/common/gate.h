/// src/python/common/gate.h -- wsarray._native.Gate: an event that a signal handler cannot break.
#pragma once
#include <nanobind/nanobind.h>

namespace wsa_py {

/// Define wsarray._native.Gate (gate.cpp).
void export_gate(nanobind::module_ &m);

/// Whether the calling thread is the one Python runs signal handlers on.
bool on_main_thread();

} // namespace wsa_py
