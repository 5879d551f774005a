/// src/python/calls/device_arrays.h -- the core's side of arrays on a device (wsarray/_devices/array.py):
/// cycle tokens for their blocks, and the two places the namespace hands a call to the device layer.
#pragma once
#include <nanobind/nanobind.h>

namespace wsa_py {

namespace nb = nanobind;

/// Is a device array (the type wsarray._devices registered) among the arguments, or inside their
/// lists and tuples (one level, as concatenate([a, b]))? Asked only on the foreign-operand path.
bool holds_device_array(PyObject *const *args, Py_ssize_t nargs, PyObject *kwargs);
/// Does `kwargs` carry a device= that is not None and not the string 'cpu' (the device layer's
/// to decide)? A dict lookup, asked only for calls with keyword arguments.
bool wants_device(PyObject *kwargs);
/// The device layer's answer to wsarray.<name>(*args, **kwargs): a new reference, or
/// Py_NotImplemented (borrowed) to go on as on the host; nullptr with an error set.
PyObject *device_dispatch(const char *name, PyObject *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwargs);

/// Define _CycleToken, _cycle_token(address), _set_device_dispatch(type, hook).
void export_device_arrays(nb::module_ &m);

} // namespace wsa_py
