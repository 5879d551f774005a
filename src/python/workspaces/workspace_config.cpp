/// src/python/workspaces/workspace_config.cpp -- wsarray.WorkspaceConfig (the policies of a workspace, parsed
/// from keyword arguments with an error naming the field for every mistake) and wsarray.parse_size.
#include "workspaces/workspace_config.h"

#include "common/hooks.h"

#include "common/errors.h"

#include "memory/backing.h"
#include "memory/config.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <iterator>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace wsa_py {

namespace {

/// A size field: an int (bytes, at most 2^62) or a string such as '64MB' (wsa::parse_size).
std::size_t size_arg(nb::handle v, const char *field, const char *fn = "WorkspaceConfig") {
    const std::string where = "wsarray." + std::string(fn) + "(): " + std::string(field);
    if (PyBool_Check(v.ptr()))
        raise(PyExc_TypeError, where + " must be a number of bytes or a string like '64MB', not a bool");
    if (PyLong_Check(v.ptr())) {
        int overflow = 0;
        long long n = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
        if (overflow > 0 || n > (1ll << 62)) raise(PyExc_ValueError, where + " is too large");
        if (overflow < 0 || n < 0)
            raise(PyExc_ValueError, where + " must be >= 0, got " + nb::cast<std::string>(nb::str(v)));
        return (std::size_t) n;
    }
    if (PyUnicode_Check(v.ptr())) {
        try {
            return wsa::parse_size(nb::cast<std::string>(v));
        } catch (const std::exception &e) {
            raise(PyExc_ValueError, where + ": " + e.what());
        }
    }
    raise(PyExc_TypeError,
          where + " must be an int (bytes) or a string like '64MB', not " + std::string(Py_TYPE(v.ptr())->tp_name));
}

/// A policy field: a string that `parse` knows (wsa::spill_from_string, ...).
template <typename E> E policy_arg(nb::handle v, const char *field, E (*parse)(const std::string &)) {
    if (!PyUnicode_Check(v.ptr()))
        raise(PyExc_TypeError, "wsarray.WorkspaceConfig(): " + std::string(field) + " must be a string");
    try {
        return parse(nb::cast<std::string>(v));
    } catch (const std::exception &e) {
        raise(PyExc_ValueError, "wsarray.WorkspaceConfig(): " + std::string(field) + ": " + e.what());
    }
}

/// A count field (cycles): an int in [0, INT_MAX].
int count_arg(nb::handle v, const char *field) {
    const std::string where = "wsarray.WorkspaceConfig(): " + std::string(field);
    if (PyBool_Check(v.ptr()) || !PyLong_Check(v.ptr()))
        raise(PyExc_TypeError, where + " must be an int, not " + std::string(Py_TYPE(v.ptr())->tp_name));
    int overflow = 0;
    long long n = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (overflow || n < 0 || n > INT_MAX)
        raise(PyExc_ValueError, where + " must be in [0, " + std::to_string(INT_MAX) + "]");
    return (int) n;
}

/// The directory an mmap workspace will create its files in must exist and be writable now (not
/// at the end of some cycle, when learning maps its first file).
void check_file_directory(const std::string &path) {
    std::string dir = wsa::file_directory(path);
    struct stat st;
    const std::string where = "wsarray.WorkspaceConfig(): temp_file_path '" + dir + "' ";
    if (stat(dir.c_str(), &st) != 0) {
        PyErr_SetObject(PyExc_FileNotFoundError, nb::make_tuple(ENOENT, where + "does not exist").ptr());
        throw nb::python_error();
    }
    if (!S_ISDIR(st.st_mode)) {
        PyErr_SetObject(PyExc_NotADirectoryError, nb::make_tuple(ENOTDIR, where + "is not a directory").ptr());
        throw nb::python_error();
    }
    if (access(dir.c_str(), W_OK | X_OK) != 0) {
        PyErr_SetObject(PyExc_PermissionError, nb::make_tuple(EACCES, where + "is not writable").ptr());
        throw nb::python_error();
    }
}

/// A WorkspaceConfig from keyword arguments (see the class docstring for the fields).
wsa::Config config_from(nb::args args, nb::kwargs kwargs) {
    const std::string where = "wsarray.WorkspaceConfig(): ";
    if (nb::len(args) != 0)
        raise(PyExc_TypeError, where + "takes keyword arguments only, e.g. "
                                       "WorkspaceConfig(initial_size='64MB', learning='none')");
    // clang-format off: a table laid out by hand
    static const char *fields[] = {"initial_size", "min_size", "max_size", "overallocation_limit",
                                   "allocation", "learning", "cycles_before_initialization", "spill",
                                   "reset", "location", "temp_file_path", "trim_after_cycles", "device"};
    // clang-format on
    for (auto item : kwargs) {
        std::string key = nb::cast<std::string>(nb::str(item.first));
        if (std::none_of(std::begin(fields), std::end(fields), [&](const char *f) { return key == f; })) {
            std::string valid;
            for (const char *f : fields) valid += std::string(valid.empty() ? "" : ", ") + f;
            raise(PyExc_TypeError, where + "unexpected keyword '" + key + "'; the fields are " + valid);
        }
    }
    auto get = [&](const char *key) -> nb::handle {
        return kwargs.contains(key) ? nb::handle(kwargs[key]) : nb::handle();
    };
    wsa::Config cfg;
    if (nb::handle v = get("initial_size")) cfg.initial_size = size_arg(v, "initial_size");
    if (nb::handle v = get("min_size")) cfg.min_size = size_arg(v, "min_size");
    if (nb::handle v = get("max_size")) cfg.max_size = size_arg(v, "max_size");
    if (nb::handle v = get("overallocation_limit")) {
        if (PyBool_Check(v.ptr()) || !(PyFloat_Check(v.ptr()) || PyLong_Check(v.ptr())))
            raise(PyExc_TypeError,
                  where + "overallocation_limit must be a number, not " + std::string(Py_TYPE(v.ptr())->tp_name));
        double x = PyFloat_AsDouble(v.ptr());
        if (x == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            x = -1.0;
        }
        if (!std::isfinite(x) || x < 0 || x > 1000)
            raise(PyExc_ValueError, where + "overallocation_limit must be a finite fraction in "
                                            "[0, 1000] (0.3 means 30% extra)");
        cfg.overallocation_limit = x;
    }
    if (nb::handle v = get("cycles_before_initialization"))
        cfg.cycles_before_initialization = count_arg(v, "cycles_before_initialization");
    if (nb::handle v = get("trim_after_cycles")) cfg.trim_after_cycles = count_arg(v, "trim_after_cycles");
    if (nb::handle v = get("allocation")) cfg.allocation = policy_arg(v, "allocation", wsa::allocation_from_string);
    if (nb::handle v = get("learning")) cfg.learning = policy_arg(v, "learning", wsa::learning_from_string);
    if (nb::handle v = get("spill")) cfg.spill = policy_arg(v, "spill", wsa::spill_from_string);
    if (nb::handle v = get("reset")) cfg.reset = policy_arg(v, "reset", wsa::reset_from_string);
    if (nb::handle v = get("location")) cfg.location = policy_arg(v, "location", wsa::location_from_string);
    if (nb::handle v = get("temp_file_path")) {
        nb::object path = nb::borrow(v);
        if (!PyUnicode_Check(v.ptr()) && nb::hasattr(v, "__fspath__"))  // os.PathLike, as open() takes
            path = nb::module_::import_("os").attr("fspath")(v);
        v = path;
        cfg.temp_file_path = text_arg(v, "WorkspaceConfig", "temp_file_path");
        if (cfg.temp_file_path.find('\0') != std::string::npos)
            raise(PyExc_ValueError, where + "temp_file_path holds a NUL character");
    }
    // 'cpu' (the default) or a device that can be used here ('cuda:N'; an unusable one raises
    // wsarray.cuda's error saying what is missing). wsarray.workspace() routes such a config.
    if (nb::handle v = get("device"))
        cfg.device_name = nb::cast<std::string>(hook(Hook::ConfigDevice)(v, "WorkspaceConfig"));
    if (cfg.max_size && cfg.initial_size > cfg.max_size)
        raise(PyExc_ValueError, where + "initial_size (" + std::to_string(cfg.initial_size) + ") exceeds max_size (" +
                                    std::to_string(cfg.max_size) + ")");
    if (cfg.max_size && cfg.min_size > cfg.max_size) raise(PyExc_ValueError, where + "min_size exceeds max_size");
    if (cfg.location != wsa::LocationPolicy::Mmap && !cfg.temp_file_path.empty())
        raise(PyExc_ValueError, where + "temp_file_path needs location='mmap'" +
                                    (cfg.location == wsa::LocationPolicy::Shared
                                         ? " (location='shared' memory has no directory: it is anonymous)"
                                         : ""));
    if (cfg.location == wsa::LocationPolicy::Shared && !cfg.device_name.empty())
        raise(PyExc_ValueError, where + "location='shared' is host memory; a workspace of device '" + cfg.device_name +
                                    "' cannot be shared (leave location out, or use device='cpu')");
    if (cfg.location == wsa::LocationPolicy::Mmap) check_file_directory(cfg.temp_file_path);
    return cfg;
}

} // namespace

void export_workspace_config(nb::module_ &m) {
    auto cls =
        nb::class_<wsa::Config>(m, "WorkspaceConfig", R"doc(Policies of a workspace (ND4J's WorkspaceConfiguration).

WorkspaceConfig(*, initial_size=0, min_size=0, max_size=0, overallocation_limit=0.3,
                allocation='overallocate', learning='first_loop', cycles_before_initialization=0,
                spill='external', reset='block_left', location='ram', temp_file_path='',
                trim_after_cycles=16, device='cpu')

Sizes take an int (bytes) or a string: '64MB' (10**6), '1.5GiB' (2**30), '512 KiB'.

initial_size      bytes mapped when the workspace is created (0: none until learning)
min_size          a learned size never goes below this
max_size          hard cap on everything the workspace maps, chunks and spills (0: no cap)
overallocation_limit
                  extra fraction on top of a learned size (0.3: 30%); ignored when strict
allocation        'overallocate' (learned size * (1 + overallocation_limit)) or 'strict'
learning          'first_loop': size the workspace from its first cycle; 'over_time': after
                  cycles_before_initialization cycles; 'none': keep initial_size
cycles_before_initialization
                  cycles measured before an 'over_time' workspace sizes itself
spill             when the chunks are full: 'external' (serve outside, counted), 'reallocate'
                  (grow by a chunk), 'fail' (WorkspaceMemoryError)
reset             'block_left': arrays are valid for their cycle; 'end_of_buffer': circular,
                  arrays stay valid until the workspace is destroyed
location          'ram', 'mmap' (an unlinked temporary file) or 'shared' (anonymous shared memory,
                  chunks and spills alike, that another process can map: see
                  wsarray._native._shared_segment; after os.fork() the child's view of it is
                  private copy-on-write); 'shared' takes no device
temp_file_path    directory of the 'mmap' files ($TMPDIR or /tmp if empty); must exist; only
                  with location='mmap'
trim_after_cycles every this many cycles, pages none of them touched go back to the OS (0: never)
device            'cpu' or 'cuda:N': wsarray.workspace(name, config) then gives a workspace of that
                  GPU's memory for CuPy arrays; without CuPy, a driver or a GPU it raises
                  wsarray.cuda.CudaUnavailableError saying which is missing

The config only describes: memory is mapped by wsarray.workspace(name, config).)doc");
    cls.def("__init__",
            [](wsa::Config *c, nb::args args, nb::kwargs kwargs) {
        // Arguments are parsed here rather than by nanobind so that every mistake gets a
        // message naming wsarray.WorkspaceConfig() and the field.
        new (c) wsa::Config(config_from(args, kwargs));
    },
            // The signature type checkers and editors see (the stub, wsarray/_native.pyi).
            nb::sig("def __init__(self, *, initial_size: int | str = 0, min_size: int | str = 0, "
                    "max_size: int | str = 0, overallocation_limit: float = 0.3, "
                    "allocation: typing.Literal['overallocate', 'strict'] = 'overallocate', "
                    "learning: typing.Literal['first_loop', 'over_time', 'none'] = 'first_loop', "
                    "cycles_before_initialization: int = 0, "
                    "spill: typing.Literal['external', 'reallocate', 'fail'] = 'external', "
                    "reset: typing.Literal['block_left', 'end_of_buffer'] = 'block_left', "
                    "location: typing.Literal['ram', 'mmap', 'shared'] = 'ram', temp_file_path: str = '', "
                    "trim_after_cycles: int = 16, device: str = 'cpu') -> None"),
            "WorkspaceConfig(*, initial_size=0, min_size=0, max_size=0, overallocation_limit=0.3, "
            "allocation='overallocate', learning='first_loop', cycles_before_initialization=0, "
            "spill='external', reset='block_left', location='ram', temp_file_path='', "
            "trim_after_cycles=16, device='cpu')");
    cls.def_ro("initial_size", &wsa::Config::initial_size);
    cls.def_ro("min_size", &wsa::Config::min_size);
    cls.def_ro("max_size", &wsa::Config::max_size);
    cls.def_ro("overallocation_limit", &wsa::Config::overallocation_limit);
    cls.def_ro("cycles_before_initialization", &wsa::Config::cycles_before_initialization);
    cls.def_ro("temp_file_path", &wsa::Config::temp_file_path);
    cls.def_ro("trim_after_cycles", &wsa::Config::trim_after_cycles);
    cls.def_prop_ro("allocation", [](const wsa::Config &c) { return wsa::to_string(c.allocation); },
                    nb::for_getter(nb::sig("def allocation(self) -> typing.Literal['overallocate', 'strict']")));
    cls.def_prop_ro("learning", [](const wsa::Config &c) { return wsa::to_string(c.learning); },
                    nb::for_getter(nb::sig("def learning(self) -> typing.Literal['first_loop', 'over_time', 'none']")));
    cls.def_prop_ro("spill", [](const wsa::Config &c) { return wsa::to_string(c.spill); },
                    nb::for_getter(nb::sig("def spill(self) -> typing.Literal['external', 'reallocate', 'fail']")));
    cls.def_prop_ro("reset", [](const wsa::Config &c) { return wsa::to_string(c.reset); },
                    nb::for_getter(nb::sig("def reset(self) -> typing.Literal['block_left', 'end_of_buffer']")));
    cls.def_prop_ro("location", [](const wsa::Config &c) { return wsa::to_string(c.location); },
                    nb::for_getter(nb::sig("def location(self) -> typing.Literal['ram', 'mmap', 'shared']")));
    cls.def_prop_ro("device", [](const wsa::Config &c) {
        return c.device ? c.device->name : c.device_name.empty() ? std::string("cpu") : c.device_name;
    });
    // A device config that still needs its device source (wsarray.workspace() gives it one).
    cls.def_prop_ro("_needs_device_source", [](const wsa::Config &c) { return !c.device && !c.device_name.empty(); });
    // Anything else compares unequal (NotImplemented), as Python's own objects do.
    cls.def("__eq__", [](const wsa::Config &a, nb::handle b) -> nb::object {
        if (!nb::isinstance<wsa::Config>(b)) return nb::borrow(Py_NotImplemented);
        return nb::bool_(a == nb::cast<const wsa::Config &>(b));
    }, nb::arg("other").none(), nb::sig("def __eq__(self, other: object, /) -> bool"));
    cls.def("__repr__", [](const wsa::Config &c) {
        return "WorkspaceConfig(initial_size=" + std::to_string(c.initial_size) +
               ", min_size=" + std::to_string(c.min_size) + ", max_size=" + std::to_string(c.max_size) +
               ", overallocation_limit=" + nb::cast<std::string>(nb::repr(nb::float_(c.overallocation_limit))) +
               ", allocation='" + wsa::to_string(c.allocation) + "', learning='" + wsa::to_string(c.learning) +
               "', cycles_before_initialization=" + std::to_string(c.cycles_before_initialization) + ", spill='" +
               wsa::to_string(c.spill) + "', reset='" + wsa::to_string(c.reset) + "', location='" +
               wsa::to_string(c.location) +
               "', temp_file_path=" + nb::cast<std::string>(nb::repr(nb::str(c.temp_file_path.c_str()))) +
               ", trim_after_cycles=" + std::to_string(c.trim_after_cycles) +
               (c.device_name.empty() ? std::string() : ", device='" + c.device_name + "'") + ")";
    });

    m.def("parse_size", [](nb::handle v) { return size_arg(v, "size"); }, nb::arg("size").none(),
          nb::sig("def parse_size(size: int | str) -> int"),
          "Bytes in a size given as an int or a string like '64MB' or '1.5GiB'.");
}

} // namespace wsa_py
