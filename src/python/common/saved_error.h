/// src/python/common/saved_error.h -- SavedError: the pending Python exception put aside for a scope.
#pragma once
#include <Python.h>

namespace wsa_py {

/// The pending exception (if any) put aside while the scope's code runs, and restored at its end;
/// whatever that code leaves pending is dropped. For code that must neither see nor lose it:
/// releases that may run a finalizer, bookkeeping inside an allocation.
class SavedError {
public:
    SavedError() { PyErr_Fetch(&type_, &value_, &tb_); }
    ~SavedError() {
        PyErr_Clear();
        PyErr_Restore(type_, value_, tb_);
    }
    SavedError(const SavedError &) = delete;
    SavedError &operator=(const SavedError &) = delete;

private:
    PyObject *type_, *value_, *tb_;
};

} // namespace wsa_py
