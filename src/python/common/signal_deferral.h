/// src/python/common/signal_deferral.h -- wsarray._native.defer_signals: a call no signal handler splits.
#pragma once
#include <nanobind/nanobind.h>

namespace wsa_py {

/// Define defer_signals, _record_signal and _signals_after_fork (signal_deferral.cpp).
void export_signal_deferral(nanobind::module_ &m);

} // namespace wsa_py
