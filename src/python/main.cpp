/// src/python/main.cpp -- the wsarray._core extension module.
#include "common.h"
#include "numpy_alloc.h"
#include "scopes.h"

NB_MODULE(_core, m) {
    using namespace wsa_py;
#ifndef WSARRAY_LEAK_WARNINGS
    // Arrays still referenced at interpreter exit (by test frameworks' caches, reference cycles
    // the final collection skips) are not leaks of ours; the report would only alarm users.
    nb::set_leak_warnings(false);
#endif
    init_numpy_alloc();
    WorkspaceError = PyErr_NewExceptionWithDoc(
        "wsarray.WorkspaceError",
        "Misuse of a workspace, or use of an array whose workspace cycle has ended.",
        PyExc_RuntimeError, nullptr);
    nb::object bases = nb::make_tuple(nb::handle(WorkspaceError), nb::handle(PyExc_MemoryError));
    WorkspaceMemoryError = PyErr_NewExceptionWithDoc(
        "wsarray.WorkspaceMemoryError",
        "A workspace could not satisfy an allocation under its policy (spill='fail' or max_size).",
        bases.ptr(), nullptr);
    m.attr("WorkspaceError") = nb::handle(WorkspaceError);
    m.attr("WorkspaceMemoryError") = nb::handle(WorkspaceMemoryError);
    export_scopes(m);
    export_workspace(m);
    export_array(m);
    init_scalar_results();
    export_function(m);
    export_fusion(m);
}
