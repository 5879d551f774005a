/// src/python/results/array_record.cpp -- Array records (see array_record.h): the stale-array messages,
/// the workspace of memory found by address, and what a dying record does with its ndarray.
#include "results/array_record.h"

#include "common/hooks.h"
#include "results/ndarray_pool.h"
#include "numpy_access/numpy_access.h"
#include "allocation/numpy_alloc.h"

#include <new>
#include <vector>

namespace wsa_py {

void raise_stale(const Array &a, const char *fn) {
    // The held ndarray only (no adoption on an error path): its data is the array's block.
    raise_stale_token(a.token, fn, a.nd_.is_valid() ? ndarray_data(a.nd_.ptr()) : nullptr);
}

/// " (made at loop.py:12)" when tracemalloc traced the array's block (record_history(stacks=True)):
/// the package picks the program's own frame; empty otherwise.
static std::string made_at(const void *data) {
    PyObject *frames = block_traceback(data);
    PyObject *hook = frames ? hook_or_null(Hook::MadeAt) : nullptr;
    std::string text;
    if (hook) {
        PyObject *r = PyObject_CallOneArg(hook, frames);
        Py_ssize_t n = 0;
        if (r && PyUnicode_Check(r))
            if (const char *s = PyUnicode_AsUTF8AndSize(r, &n)) text.assign(s, (size_t) n);
        Py_XDECREF(r);
        PyErr_Clear();
    }
    Py_XDECREF(frames);
    return text;
}

void raise_stale_token(const Token &token, const char *fn, const void *data) {
    const wsa::Workspace &ws = *token.ws;
    std::string where = "wsarray." + std::string(fn) + "(): ";
    if (ws.orphaned_by_fork())
        raise(WorkspaceError, where + "this array belonged to workspace '" + ws.name() +
                                  "' of another thread of the parent process; after os.fork() only "
                                  "the forking thread's workspaces exist in the child. Detach arrays "
                                  "(.detach()) before forking to share them.");
    if (ws.destroy_reason() == wsa::DestroyReason::ThreadExit)
        raise(WorkspaceError, where + "this array belonged to workspace '" + ws.name() + "' of thread " +
                                  (binding_of(ws).owner_label.empty() ? std::string("(unnamed)")
                                                                      : "'" + binding_of(ws).owner_label + "'") +
                                  ", which has exited: a thread's workspaces end with it. Call .detach() "
                                  "on results in that thread (before its 'with' block ends) to keep them.");
    if (!ws.alive())
        raise(WorkspaceError, where + "this array belonged to workspace '" + ws.name() +
                                  "', which was destroyed. Call .detach() on arrays you need before "
                                  "destroying their workspace.");
    std::string now =
        ws.cycle_open() ? "it is now in cycle " + std::to_string(ws.generation()) : "it has no open cycle now";
    if (const std::string &hint = binding_of(ws).stale_hint; !hint.empty())
        raise(WorkspaceError, where + "this array was made in cycle " + std::to_string(token.generation) +
                                  " of workspace '" + ws.name() + "', and that cycle has ended. " + hint);
    raise(WorkspaceError, where + "this array was made in cycle " + std::to_string(token.generation) +
                              " of workspace '" + ws.name() + "'" + made_at(data) + ", and that cycle has ended (" +
                              now +
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

Array::~Array() {
    // Its ndarray, seen by nothing else, is kept for the next result (ndarray_pool.h).
    if (nd_.is_valid() && retire_ndarray(nd_.ptr())) (void) nd_.release();
}

void register_workspace_binding() {
    wsa::set_attachment_factory(
        []() -> std::unique_ptr<wsa::Attachment> { return std::make_unique<WorkspaceBinding>(); });
}

} // namespace wsa_py
