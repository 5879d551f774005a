/// src/python/common/hooks.cpp -- the Python package's answers to the core's questions (see hooks.h).
#include "common/hooks.h"

#include <nanobind/stl/string.h>

#include <string>

namespace wsa_py {

namespace {

const char *const kNames[] = {"namespace",    "host_to_device",   "config_device", "cpu",
                              "device_error", "device_workspace", "memory_report", "made_at"};
static_assert(sizeof(kNames) / sizeof(kNames[0]) == (size_t) Hook::Count, "a name per hook");

PyObject *g_hooks[(size_t) Hook::Count] = {};  // strong references, kept for the process

} // namespace

nb::handle hook(Hook h) {
    PyObject *v = g_hooks[(size_t) h];
    if (!v) {
        PyErr_Format(PyExc_RuntimeError,
                     "wsarray._native: the package has not registered its '%s' hook (is `import wsarray` "
                     "still running?)",
                     kNames[(size_t) h]);
        throw nb::python_error();
    }
    return v;
}

PyObject *hook_or_null(Hook h) { return g_hooks[(size_t) h]; }

void export_hooks(nb::module_ &m) {
    m.def("_set_hook", [](const std::string &name, nb::handle value) {
        for (size_t i = 0; i < (size_t) Hook::Count; ++i) {
            if (name != kNames[i]) continue;
            PyObject *old = g_hooks[i];
            g_hooks[i] = value.inc_ref().ptr();
            Py_XDECREF(old);
            return;
        }
        PyErr_Format(PyExc_ValueError, "wsarray._native._set_hook(): unknown hook '%s'", name.c_str());
        throw nb::python_error();
    }, nb::arg("name"), nb::arg("value"));
}

} // namespace wsa_py
