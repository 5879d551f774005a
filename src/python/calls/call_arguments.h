/// src/python/calls/call_arguments.h -- walking a call's arguments (vectorcall form: positional array,
/// keyword dict), for the engine and the device layer's hooks alike.
#pragma once
#include <Python.h>

namespace wsa_py {

/// Does `pred` hold for one of a call's arguments, positional or keyword (values only)?
template <class Pred> bool any_argument(PyObject *const *args, Py_ssize_t nargs, PyObject *kwargs, Pred pred) {
    for (Py_ssize_t i = 0; i < nargs; ++i)
        if (pred(args[i])) return true;
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (kwargs && PyDict_Next(kwargs, &pos, &key, &value))
        if (pred(value)) return true;
    return false;
}

} // namespace wsa_py
