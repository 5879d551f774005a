/// src/python/array_record.cpp -- Array records (see array_record.h): making them, checking their
/// cycle, and the per-workspace list of Arrays that destroy() empties.
#include "array_record.h"

#include "ndarray_pool.h"
#include "numpy_access.h"
#include "numpy_alloc.h"

#include <new>
#include <vector>

namespace wsa_py {

PyTypeObject *ArrayType = nullptr;

void raise_stale(const Array &a, const char *fn) { raise_stale_token(a.token, fn); }

void raise_stale_token(const Token &token, const char *fn) {
    const wsa::Workspace &ws = *token.ws;
    std::string where = "wsarray." + std::string(fn) + "(): ";
    if (ws.orphaned_by_fork())
        raise(WorkspaceError, where + "this array belonged to workspace '" + ws.name() +
                                  "' of another thread of the parent process; after os.fork() only "
                                  "the forking thread's workspaces exist in the child. Detach arrays "
                                  "(.detach()) before forking to share them.");
    if (ws.destroy_reason() == wsa::DestroyReason::ThreadExit)
        raise(WorkspaceError, where + "this array belonged to workspace '" + ws.name() + "' of thread " +
                                  (ws.owner_label().empty() ? std::string("(unnamed)") : "'" + ws.owner_label() + "'") +
                                  ", which has exited: a thread's workspaces end with it. Call .detach() "
                                  "on results in that thread (before its 'with' block ends) to keep them.");
    if (!ws.alive())
        raise(WorkspaceError, where + "this array belonged to workspace '" + ws.name() +
                                  "', which was destroyed. Call .detach() on arrays you need before "
                                  "destroying their workspace.");
    std::string now =
        ws.cycle_open() ? "it is now in cycle " + std::to_string(ws.generation()) : "it has no open cycle now";
    if (!ws.stale_hint().empty())
        raise(WorkspaceError, where + "this array was made in cycle " + std::to_string(token.generation) +
                                  " of workspace '" + ws.name() + "', and that cycle has ended. " + ws.stale_hint());
    raise(WorkspaceError, where + "this array was made in cycle " + std::to_string(token.generation) +
                              " of workspace '" + ws.name() + "', and that cycle has ended (" + now +
                              "). Arrays of a workspace are valid only during the cycle that made them. To keep a "
                              "result, call .detach() (or .leverage_to('<outer workspace>')) on it inside the "
                              "'with wsarray.workspace(\"" +
                              ws.name() + "\")' block.");
}

Token token_for(PyObject *o) {
    Token t;
    void *p = ndarray_data(o);
    if (!p) return t;
    t.ws = wsa::Workspace::owner_of(p);
    if (t.ws) t.generation = t.ws->generation();
    return t;
}

namespace {
PyObject *g_released = nullptr;  // the empty ndarray stale Arrays hold once they let go (kept forever)

void unlink_holder(Array &a) {
    if (!a.ws_linked) return;
    if (a.ws_prev) array_of(a.ws_prev).ws_next = a.ws_next;
    else a.token.ws->holders = a.ws_next;
    if (a.ws_next) array_of(a.ws_next).ws_prev = a.ws_prev;
    a.ws_prev = a.ws_next = nullptr;
    a.ws_linked = false;
}
} // namespace

void link_holder(PyObject *o) {
    Array &a = array_of(o);
    if (!a.token.ws) return;
    wsa::Workspace &ws = *a.token.ws;
    auto *head = (PyObject *) ws.holders;
    a.ws_prev = nullptr;
    a.ws_next = head;
    if (head) array_of(head).ws_prev = o;
    ws.holders = o;
    a.ws_linked = true;
}

void init_array_records() {
    nb::module_ np = nb::module_::import_("numpy");
    nb::object released = np.attr("empty")(0);
    released.attr("flags").attr("writeable") = false;
    g_released = released.release().ptr();
}

Array::~Array() {
    if (ws_linked) unlink_holder(*this);
    // Its ndarray, seen by nothing else, is kept for the next result (ndarray_pool.h).
    if (nd_.is_valid() && retire_ndarray(nd_.ptr())) (void) nd_.release();
}

void release_holders(wsa::Workspace &ws) {
    // Hold every Array first: dropping an ndarray may run Python code (elements of an object
    // array) that makes or frees Arrays of this workspace.
    std::vector<nb::object> held;
    for (auto *o = (PyObject *) ws.holders; o; o = array_of(o).ws_next) held.push_back(nb::borrow(o));
    for (auto &o : held) {
        Array &a = array_of(o.ptr());
        a.ws_prev = a.ws_next = nullptr;
        a.ws_linked = false;
    }
    ws.holders = nullptr;
    for (auto &o : held) {
        Array &a = array_of(o.ptr());
        if (a.interface_exported) continue;
        // A stale Array can never be used again: its ndarray (and the block) goes now, unless raw
        // views (numpy.asarray, memoryview, DLPack) still reference the ndarray.
        a.base = nb::object();
        a.nd_ = nb::borrow(g_released);
    }
}

} // namespace wsa_py
