/// src/python/main.cpp -- the wsarray._native extension module: what it exports, in order.
#include "types/array_type.h"
#include "common/build_info.h"
#include "common/errors.h"
#include "types/function.h"
#include "common/gate.h"
#include "common/gil.h"
#include "common/hooks.h"
#include "common/signal_deferral.h"
#include "fast/fusion.h"
#include "workspaces/cycle_end.h"
#include "workspaces/memory_manager.h"
#include "results/array_record.h"
#include "results/ndarray_pool.h"
#include "allocation/numpy_alloc.h"
#include "workspaces/scopes.h"
#include "workspaces/workspace_config.h"
#include "calls/device_arrays.h"
#include "workspaces/device_source.h"
#include "workspaces/workspaces.h"

NB_MODULE(_native, m) {
    using namespace wsa_py;
    install_exit_guard();          // a daemon thread CPython ends at exit parks, never aborts (gil.h)
    register_workspace_binding();  // what the bindings keep per workspace, before the first one
    init_numpy_alloc();          // NumPy's C API and the allocation handler, before anything else
    init_ndarray_pool(m);        // dead ndarrays kept for the next result
    export_errors(m);            // WorkspaceError, WorkspaceMemoryError
    export_hooks(m);             // _set_hook: what the package answers for the core (hooks.h)
    export_gate(m);              // Gate (waits a signal handler cannot break: wsarray/_interrupts.py)
    export_signal_deferral(m);   // defer_signals (calls a signal handler cannot split: wsarray/_interrupts.py)
    export_scopes(m);            // the context-local stack of scopes
    export_workspace_config(m);  // WorkspaceConfig, parse_size
    export_device_source(m);     // _config_with_device_source (device layers)
    export_workspaces(m);        // Workspace, workspace(), Scope, scope_out(), _Slot
    export_memory_manager(m);    // what wsarray.memory calls
    export_cycle_end(m);         // the GC window and cycle listeners (wsarray.memory)
    export_build_info(m);        // _build_info (wsarray.show_config())
    export_array(m);             // Array
    export_function(m);          // Function (wsarray.<name>), after Array
    export_device_arrays(m);     // _CycleToken, _cycle_token, _set_device_dispatch (wsarray._devices)
    export_fusion(m);            // _fusion_run, _fusion_reduce (wsarray.fuse's block runner)
}
