/// src/python/common/errors.cpp -- wsarray's exception types, argument errors, and the traceback entries
/// that name wsarray's functions in NumPy's and Python's errors (see errors.h).
#include "common/errors.h"

#include "common/hooks.h"

#include <cstring>
#include <frameobject.h>

namespace wsa_py {

PyObject *WorkspaceError = nullptr;
PyObject *WorkspaceMemoryError = nullptr;

void raise(PyObject *type, const std::string &msg) {
    PyErr_SetString(type, msg.c_str());
    throw nb::python_error();
}

std::string text_arg(nb::handle v, const char *fn, const char *what) {
    const std::string where = "wsarray." + std::string(fn) + "(): " + what;
    if (!PyUnicode_Check(v.ptr()))
        raise(PyExc_TypeError, where + " must be a str, not " + std::string(Py_TYPE(v.ptr())->tp_name));
    Py_ssize_t n = 0;
    const char *utf8 = PyUnicode_AsUTF8AndSize(v.ptr(), &n);
    if (!utf8) {
        PyErr_Clear();
        raise(PyExc_ValueError, where + " is not valid Unicode text (it holds a lone surrogate, as "
                                        "undecodable bytes turned into text do)");
    }
    if (std::memchr(utf8, '\0', (std::size_t) n))  // C strings below (names in reports, paths) would stop there
        raise(PyExc_ValueError, where + " must not hold a NUL character ('\\x00')");
    return std::string(utf8, (std::size_t) n);
}

namespace {
/// An exception class of Python's or NumPy's (what bad input to a NumPy function raises), not
/// one of the program's own (a signal handler's timeout, a callback's error): only those are named.
bool python_or_numpy_error(PyObject *value) {
    nb::object module = nb::steal(PyObject_GetAttrString((PyObject *) Py_TYPE(value), "__module__"));
    if (!module || !PyUnicode_Check(module.ptr())) {
        PyErr_Clear();
        return false;
    }
    std::string m = nb::cast<std::string>(nb::handle(module.ptr()));
    return m == "builtins" || m == "numpy" || m.rfind("numpy.", 0) == 0 || m == "wsarray" ||
           m.rfind("wsarray.", 0) == 0;
}

/// Is this one of wsarray's own errors, which name the function in the message ("wsarray.fn(): ...")?
bool own_message(PyObject *value) {
    nb::object text = nb::steal(PyObject_Str(value));
    if (!text) {
        PyErr_Clear();
        return false;
    }
    nb::str mark("wsarray.");
    return PyUnicode_Tailmatch(text.ptr(), mark.ptr(), 0, 8, -1) == 1;
}

/// The file name of the traceback entries that name wsarray's functions.
constexpr const char *kTracebackFile = "<wsarray>";

/// Is the outermost traceback entry so far one of wsarray's (a wsarray function nearer the error
/// named it already)?
bool named_in_traceback(PyObject *tb) {
    if (!tb || !PyTraceBack_Check(tb)) return false;
    PyFrameObject *frame = ((PyTracebackObject *) tb)->tb_frame;
    if (!frame) return false;
    PyCodeObject *code = PyFrame_GetCode(frame);
    bool ours = PyUnicode_CompareWithASCIIString(code->co_filename, kTracebackFile) == 0;
    Py_DECREF(code);
    return ours;
}
} // namespace

/// NumPy's "Device not understood ... received: cuda:0" for a device= argument: replaced by
/// wsarray's error for that device (the package's device_error hook says what is missing: CuPy, a
/// driver, a GPU). Only ever runs on the error path.
static void replace_device_error(const char *name, PyObject *&type, PyObject *&value, PyObject *&tb) {
    if (!value || !PyErr_GivenExceptionMatches(value, PyExc_ValueError)) return;
    PyObject *text = PyObject_Str(value);
    if (!text) {
        PyErr_Clear();
        return;
    }
    const char *msg = PyUnicode_AsUTF8(text);
    bool device_error = msg && std::strncmp(msg, "Device not understood", 21) == 0;
    PyObject *replacement = nullptr;
    if (device_error) {
        PyObject *answer = hook_or_null(Hook::DeviceError);
        replacement = answer ? PyObject_CallFunction(answer, "Os", text, name) : nullptr;
        if (!replacement) PyErr_Clear();
    }
    Py_DECREF(text);
    if (!replacement || replacement == Py_None) {
        Py_XDECREF(replacement);
        return;
    }
    Py_XDECREF(type);
    Py_XDECREF(tb);
    PyException_SetCause(replacement, nullptr);
    PyException_SetContext(replacement, value);  // NumPy's error stays visible as the context
    type = (PyObject *) Py_TYPE(replacement);
    Py_INCREF(type);
    value = replacement;
    tb = nullptr;
}

void name_error_for(const char *name) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    replace_device_error(name, type, value, tb);
    // The class and message stay NumPy's (drop-in code prints, matches and doctests them); the
    // function appears in the traceback as an entry of its own, as a Python function would (the
    // way Cython names compiled functions): File "<wsarray>", line 1, in wsarray.reshape.
    PyFrameObject *frame = nullptr;
    if (value && PyObject_TypeCheck(value, (PyTypeObject *) PyExc_Exception) && python_or_numpy_error(value) &&
        !own_message(value) && !named_in_traceback(tb)) {
        std::string fn = "wsarray." + std::string(name);
        PyCodeObject *code = PyCode_NewEmpty(kTracebackFile, fn.c_str(), 1);
        PyObject *globals = code ? PyDict_New() : nullptr;
        if (globals) frame = PyFrame_New(PyThreadState_Get(), code, globals, nullptr);
        Py_XDECREF(globals);
        Py_XDECREF(code);
        if (!frame) PyErr_Clear();
    }
    PyErr_Restore(type, value, tb);
    if (frame) {
        PyTraceBack_Here(frame);  // on failure (no memory) the error stays pending, chained
        Py_DECREF(frame);
    }
}

void raise_pending(const char *name) {
    name_error_for(name);
    throw nb::python_error();
}

std::string with_memory_report(std::string message) {
    // What the workspace holds, from the package (largest live blocks and the lines that made them,
    // or how to see them); the error keeps its own message if the report cannot be made.
    PyObject *report = hook_or_null(Hook::MemoryReport);
    if (!report) return message;
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyObject *text = PyObject_CallNoArgs(report);
    if (text && PyUnicode_Check(text)) {
        Py_ssize_t n = 0;
        if (const char *s = PyUnicode_AsUTF8AndSize(text, &n); s && n) message += "\n" + std::string(s, (size_t) n);
    }
    Py_XDECREF(text);
    PyErr_Clear();
    PyErr_Restore(t, v, tb);
    return message;
}

void export_errors(nb::module_ &m) {
    WorkspaceError = PyErr_NewExceptionWithDoc(
        "wsarray.WorkspaceError", "Misuse of a workspace, or use of an array whose workspace cycle has ended.",
        PyExc_RuntimeError, nullptr);
    nb::object bases = nb::make_tuple(nb::handle(WorkspaceError), nb::handle(PyExc_MemoryError));
    WorkspaceMemoryError = PyErr_NewExceptionWithDoc(
        "wsarray.WorkspaceMemoryError",
        "A workspace could not satisfy an allocation under its policy (spill='fail' or max_size).", bases.ptr(),
        nullptr);
    m.attr("WorkspaceError") = nb::handle(WorkspaceError);
    m.attr("WorkspaceMemoryError") = nb::handle(WorkspaceMemoryError);
}

} // namespace wsa_py
