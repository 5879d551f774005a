/// src/python/types/array_membership.cpp -- which workspace an Array's memory belongs to, and copies
/// elsewhere (ND4J's names, snake_case): detach(), leverage(), leverage_to(), is_attached(),
/// is_in_scope(), .workspace.
#include "types/array_internal.h"

#include "calls/engine.h"
#include "allocation/numpy_alloc.h"
#include "workspaces/scopes.h"

#include <string>

namespace wsa_py {

namespace {

/// Copy the array into `target` (null: outside every workspace).
nb::object copy_into(nb::handle self, wsa::Workspace *target, const char *fn) {
    Array &a = self_of(self, fn);
    return wrap_ndarray(routed_call(fn, target, [&] { return PyObject_CallMethod(a.data().ptr(), "copy", nullptr); }));
}

} // namespace

void export_array_membership(ArrayDefs &cls) {
    // Workspace membership (ND4J names, snake_case).
    cls.def("detach", [](nb::handle s) { return copy_into(s, nullptr, "ndarray.detach"); },
            "An independent copy outside every workspace (valid forever).");
    cls.def("leverage", [](nb::handle s) {
        Array &a = self_of(s, "ndarray.leverage");
        if (!a.token.ws) return nb::borrow(s);
        wsa::Stack stack = current_stack();
        auto parent = wsa::parent_of(stack, a.token.ws.get());
        // A host array goes to the innermost host workspace around it, past device ones.
        while (parent && parent->config().device) parent = wsa::parent_of(stack, parent.get());
        return copy_into(s, parent.get(), "ndarray.leverage");
    }, "A copy in the workspace open just outside this array's workspace (detached if none).");
    cls.def("leverage_to", [](nb::handle s, nb::handle name_arg) {
        Array &a = self_of(s, "ndarray.leverage_to");
        if (!PyUnicode_Check(name_arg.ptr()))
            raise(PyExc_TypeError, "wsarray.ndarray.leverage_to(): the workspace name must be a str, not " +
                                       std::string(Py_TYPE(name_arg.ptr())->tp_name));
        std::string name = text_arg(name_arg, "ndarray.leverage_to", "the workspace name");
        auto ws = wsa::ThreadWorkspaces::current().find(name);
        if (!ws || !wsa::is_open_in(current_stack(), ws.get()))
            raise(WorkspaceError, "wsarray.ndarray.leverage_to(): workspace '" + name +
                                      "' has no open cycle on this thread; leverage_to() copies into a workspace "
                                      "whose 'with' block encloses the current code");
        if (a.token.ws == ws) return nb::borrow(s);
        if (ws->config().device)
            raise(WorkspaceError, "wsarray.ndarray.leverage_to(): workspace '" + name + "' holds memory of device " +
                                      ws->config().device->name +
                                      ", and this array is in host memory: move it with .to_device() inside "
                                      "that workspace's 'with' block");
        return copy_into(s, ws.get(), "ndarray.leverage_to");
    }, nb::arg("name").none(), "A copy in the named open workspace (the array itself if it is there already).");
    cls.def("is_attached", [](nb::handle s) { return (bool) array_arg(s, "ndarray.is_attached").token.ws; },
            "True if the array's memory belongs to a workspace.");
    cls.def("is_in_scope", [](nb::handle s) {
        const Token &t = array_arg(s, "ndarray.is_in_scope").token;
        return t.ws && token_valid(t) && (t.ws->circular() || t.ws->cycle_open());
    }, "True if the array belongs to a workspace whose cycle is still open (usable now).");
    cls.def_prop_ro("workspace", [](nb::handle s) -> nb::object {
        const Token &t = array_arg(s, "ndarray.workspace").token;
        if (!t.ws) return nb::none();
        return nb::str(t.ws->name().c_str());
    }, "Name of the workspace the memory belongs to (None for detached arrays).");
}

} // namespace wsa_py
