/// src/python/workspace_bind.cpp -- WorkspaceConfig, workspaces, scopes and the memory manager.
#include "common.h"
#include "scopes.h"
#include "compute/kernels.h"
#include "compute/thread_pool.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>

namespace wsa_py {

namespace {

/// Run `f`, turning the core's exceptions into wsarray's, with "wsarray.<fn>(): " in front.
template <typename F> auto named(const char *fn, F &&f) -> decltype(f()) {
    try {
        return f();
    } catch (const wsa::WorkspaceOutOfMemory &e) {
        raise(WorkspaceMemoryError, "wsarray." + std::string(fn) + "(): " + e.what());
    } catch (const wsa::WorkspaceMisuse &e) {
        raise(WorkspaceError, "wsarray." + std::string(fn) + "(): " + e.what());
    } catch (const std::invalid_argument &e) {
        raise(PyExc_ValueError, "wsarray." + std::string(fn) + "(): " + e.what());
    } catch (const std::bad_alloc &) {
        raise(PyExc_MemoryError, "wsarray." + std::string(fn) + "(): the operating system refused the memory");
    } catch (const std::runtime_error &e) {
        raise(PyExc_OSError, "wsarray." + std::string(fn) + "(): " + e.what());
    }
}

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
    raise(PyExc_TypeError, where + " must be an int (bytes) or a string like '64MB', not " +
                               std::string(Py_TYPE(v.ptr())->tp_name));
}

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
        PyErr_SetObject(PyExc_FileNotFoundError,
                        nb::make_tuple(ENOENT, where + "does not exist").ptr());
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
    static const char *fields[] = {"initial_size", "min_size", "max_size", "overallocation_limit",
                                   "allocation", "learning", "cycles_before_initialization", "spill",
                                   "reset", "location", "temp_file_path", "trim_after_cycles"};
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
            raise(PyExc_TypeError, where + "overallocation_limit must be a number, not " +
                                       std::string(Py_TYPE(v.ptr())->tp_name));
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
    if (cfg.max_size && cfg.initial_size > cfg.max_size)
        raise(PyExc_ValueError, where + "initial_size (" + std::to_string(cfg.initial_size) +
                                    ") exceeds max_size (" + std::to_string(cfg.max_size) + ")");
    if (cfg.max_size && cfg.min_size > cfg.max_size)
        raise(PyExc_ValueError, where + "min_size exceeds max_size");
    if (cfg.location != wsa::LocationPolicy::Mmap && !cfg.temp_file_path.empty())
        raise(PyExc_ValueError, where + "temp_file_path needs location='mmap'");
    if (cfg.location == wsa::LocationPolicy::Mmap) check_file_directory(cfg.temp_file_path);
    return cfg;
}

nb::dict stats_dict(const wsa::Workspace &ws) {
    wsa::Stats s = ws.stats();
    nb::dict d;
    d["name"] = ws.name();
    d["capacity"] = s.capacity;
    d["used"] = s.used;
    d["peak_cycle_bytes"] = s.peak_cycle_bytes;
    d["spilled_bytes"] = s.spilled_bytes;
    d["spilled_cycle_bytes"] = s.spilled_cycle_bytes;
    d["spills"] = s.spills;
    d["cycles"] = s.cycles;
    d["allocations"] = s.allocations;
    d["allocated_bytes"] = s.allocated_bytes;
    d["reused_bytes"] = s.reused_bytes;
    d["frees"] = s.frees;
    d["os_maps"] = s.os_maps;
    d["learned_size"] = s.learned_size;
    d["live_arrays"] = s.live_arrays;
    d["wraps"] = s.wraps;
    d["chunks"] = s.chunks;
    d["trimmed_bytes"] = s.trimmed_bytes;
    d["zeroed_bytes"] = s.zeroed_bytes;
    d["initialized"] = s.initialized;
    d["generation"] = ws.generation();
    d["open"] = ws.cycle_open();
    d["alive"] = ws.alive();
    return d;
}

// ---- the memory manager's garbage-collection knobs ------------------------------------------
// Python meaning (documented in wsarray/memory.py): "periodic GC" is Python's automatic cyclic
// collector (gc.enable/disable); the "auto GC window" makes wsarray call gc.collect() when a
// workspace cycle ends, at most once per window.
/// The longest window the clock can measure: milliseconds that still fit in steady_clock's
/// nanoseconds (a larger window would overflow and collect at every cycle).
constexpr long long kMaxGcWindowMs = std::chrono::steady_clock::duration::max().count() /
                                     (std::chrono::steady_clock::period::den / 1000) - 1;

struct GcState {
    long long window_ms = 0;
    std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
    std::size_t collections = 0;
    nb::handle collect;  // gc.collect, never released
};
GcState gc_state;

void collect_now() {
    nb::object r = gc_state.collect();
    (void) r;
    ++gc_state.collections;
    gc_state.last = std::chrono::steady_clock::now();
}

void maybe_collect() {
    if (gc_state.window_ms <= 0) return;
    auto now = std::chrono::steady_clock::now();
    if (now - gc_state.last >= std::chrono::milliseconds(gc_state.window_ms)) collect_now();
}

// ---- cycle listeners ---------------------------------------------------------------------------
// What runs when a workspace cycle ends (Workspace.__exit__, a batch slot retired), in order: the
// GC window (maybe_collect), then the Python callables added with wsarray.memory.add_cycle_listener
// (the performance listener, the data pipeline's accounting), as CuPy's memory hooks do. They run
// on the thread that ended the cycle, after it ended; a listener that raises is reported through
// sys.unraisablehook and never breaks the loop it watches.
std::vector<nb::object> *g_listeners = nullptr;  // kept forever (listeners may run at exit)

void notify_cycle_end(const wsa::Workspace &ws) {
    maybe_collect();
    if (!g_listeners || g_listeners->empty()) return;
    wsa::Stats st = ws.stats();
    nb::dict event;
    event["workspace"] = ws.name();
    event["cycle"] = st.cycles;
    event["peak_cycle_bytes"] = st.peak_cycle_bytes;
    event["spilled_cycle_bytes"] = st.spilled_cycle_bytes;
    event["capacity"] = st.capacity;
    event["used"] = st.used;
    event["thread"] = (unsigned long long) PyThread_get_thread_ident();
    std::vector<nb::object> now = *g_listeners;  // a listener may add or remove listeners
    for (nb::object &f : now) {
        PyObject *r = PyObject_CallOneArg(f.ptr(), event.ptr());
        if (r) Py_DECREF(r);
        else PyErr_WriteUnraisable(f.ptr());
    }
}

struct WorkspaceHandle {
    std::shared_ptr<wsa::Workspace> ws;
};

/// A borrow or scope-out: each `with` entry opens a frame in the current context.
struct ScopeObject {
    std::shared_ptr<wsa::Workspace> ws;  // null for scope_out
    std::vector<std::shared_ptr<wsa::Frame>> frames;
    bool fill = false;                   // a fill of a batch slot (Slot), not a borrow
};

void enter_cycle(WorkspaceHandle &h) {
    wsa::Workspace &ws = *h.ws;
    const char *fn = "Workspace.__enter__";
    auto where = [&] { return "wsarray.Workspace.__enter__(): workspace '" + ws.name() + "' "; };
    if (ws.owner_thread() != std::this_thread::get_id())
        raise(WorkspaceError, where() + "belongs to another thread; workspaces are per thread: call "
                                      "wsarray.workspace('" + ws.name() + "') in this thread to get its own");
    if (!ws.alive())
        raise(WorkspaceError, where() + "was destroyed; get a new one with wsarray.workspace('" + ws.name() + "')");
    if (!wsa::ThreadWorkspaces::current().owns(&ws))
        raise(WorkspaceError, where() + "is no longer registered on this thread; get it again with "
                                      "wsarray.workspace('" + ws.name() + "')");
    if (ws.cycle_open()) {
        auto frame = ws.cycle_frame();
        if (frame && opened_here(*frame))
            raise(WorkspaceError, where() + "is already open in this context; a workspace cannot be nested "
                                          "inside itself");
        raise(WorkspaceError, where() + "already has an open cycle in another context (another asyncio "
                                      "task, or a generator suspended inside its 'with' block); a workspace "
                                      "runs one cycle at a time: give each task its own workspace name");
    }
    named(fn, [&] { ws.begin_cycle(); });
    try {
        ws.set_cycle_frame(open_scope(wsa::FrameKind::Cycle, h.ws));
    } catch (...) {
        (void) ws.end_cycle();
        throw;
    }
}

void exit_cycle(WorkspaceHandle &h) {
    auto frame = h.ws->cycle_frame();
    if (!frame || !frame->open)
        raise(WorkspaceError, "wsarray.Workspace.__exit__(): workspace '" + h.ws->name() +
                                  "' has no open cycle to close (exited twice, or never entered)");
    close_scope(*frame, "Workspace.__exit__");
    notify_cycle_end(*h.ws);
}

void enter_scope(ScopeObject &o, const char *fn) {
    if (o.fill) {
        if (!o.ws->cycle_open())
            raise(WorkspaceError, "wsarray." + std::string(fn) + "(): slot '" + o.ws->name() +
                                      "' has no open cycle to fill (begin() it first)");
        o.frames.push_back(open_scope(wsa::FrameKind::Fill, o.ws));
    } else if (o.ws) {
        if (!wsa::is_open_in(current_stack(), o.ws.get()))
            raise(WorkspaceError, "wsarray." + std::string(fn) + "(): cannot borrow workspace '" + o.ws->name() +
                                      "': it has no open cycle in this context; borrow only a workspace "
                                      "whose 'with' block encloses this one");
        o.frames.push_back(open_scope(wsa::FrameKind::Borrow, o.ws));
    } else {
        o.frames.push_back(open_scope(wsa::FrameKind::ScopeOut, nullptr));
    }
}

void exit_scope(ScopeObject &o, const char *fn) {
    if (o.frames.empty())
        raise(WorkspaceError, "wsarray." + std::string(fn) + "(): this scope is not open (exited twice?)");
    std::shared_ptr<wsa::Frame> frame = o.frames.back();
    close_scope(*frame, fn);  // raises (closing nothing) for another context's frame
    o.frames.pop_back();
}

const char *scope_function(const ScopeObject &o) {
    return o.fill ? "data.AsyncIterator" : o.ws ? "Workspace.borrow" : "scope_out";
}

/// Destroy the workspace `name` of this thread and make its stale Arrays let go of their memory.
void destroy_named(const std::string &name, const char *fn) {
    auto &tw = wsa::ThreadWorkspaces::current();
    auto ws = tw.find(name);
    named(fn, [&] { tw.destroy(name); });
    if (ws) release_holders(*ws);
}

/// One slot of the data pipeline's batch ring (wsarray/data): a workspace owned by the ring, not by
/// a thread. Its cycle is begun by the producer thread, which fills it inside `with slot.fill():`,
/// and ended ("retired") by the consumer thread when it asks for the next batch: from then on the
/// batch's arrays are stale, and the slot's memory serves a later batch (blocks a stale array still
/// holds are never reused: the next batch spills instead, counted).
struct Slot {
    std::shared_ptr<wsa::Workspace> ws;
    ScopeObject filling;  // the fill frames open now (a fill is entered in one context at a time)
};

/// A workspace name argument (str, valid Unicode) for `fn`.
std::string name_of(nb::handle v, const char *fn) { return text_arg(v, fn, "name"); }

} // namespace

void export_workspace(nb::module_ &m) {
    gc_state.collect = nb::module_::import_("gc").attr("collect").inc_ref();

    nb::class_<wsa::Config>(m, "WorkspaceConfig", R"doc(Policies of a workspace (ND4J's WorkspaceConfiguration).

WorkspaceConfig(*, initial_size=0, min_size=0, max_size=0, overallocation_limit=0.3,
                allocation='overallocate', learning='first_loop', cycles_before_initialization=0,
                spill='external', reset='block_left', location='ram', temp_file_path='',
                trim_after_cycles=16)

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
location          'ram' or 'mmap' (an unlinked temporary file)
temp_file_path    directory of the 'mmap' files ($TMPDIR or /tmp if empty); must exist
trim_after_cycles every this many cycles, pages none of them touched go back to the OS (0: never)

The config only describes: memory is mapped by wsarray.workspace(name, config).)doc")
        .def("__init__", [](wsa::Config *c, nb::args args, nb::kwargs kwargs) {
                 // Arguments are parsed here rather than by nanobind so that every mistake gets a
                 // message naming wsarray.WorkspaceConfig() and the field.
                 new (c) wsa::Config(config_from(args, kwargs));
             },
             "WorkspaceConfig(*, initial_size=0, min_size=0, max_size=0, overallocation_limit=0.3, "
             "allocation='overallocate', learning='first_loop', cycles_before_initialization=0, "
             "spill='external', reset='block_left', location='ram', temp_file_path='', "
             "trim_after_cycles=16)")
        .def_ro("initial_size", &wsa::Config::initial_size)
        .def_ro("min_size", &wsa::Config::min_size)
        .def_ro("max_size", &wsa::Config::max_size)
        .def_ro("overallocation_limit", &wsa::Config::overallocation_limit)
        .def_ro("cycles_before_initialization", &wsa::Config::cycles_before_initialization)
        .def_ro("temp_file_path", &wsa::Config::temp_file_path)
        .def_ro("trim_after_cycles", &wsa::Config::trim_after_cycles)
        .def_prop_ro("allocation", [](const wsa::Config &c) { return wsa::to_string(c.allocation); })
        .def_prop_ro("learning", [](const wsa::Config &c) { return wsa::to_string(c.learning); })
        .def_prop_ro("spill", [](const wsa::Config &c) { return wsa::to_string(c.spill); })
        .def_prop_ro("reset", [](const wsa::Config &c) { return wsa::to_string(c.reset); })
        .def_prop_ro("location", [](const wsa::Config &c) { return wsa::to_string(c.location); })
        .def("__eq__", [](const wsa::Config &a, const wsa::Config &b) { return a == b; })
        .def("__repr__", [](const wsa::Config &c) {
            return "WorkspaceConfig(initial_size=" + std::to_string(c.initial_size) +
                   ", min_size=" + std::to_string(c.min_size) + ", max_size=" + std::to_string(c.max_size) +
                   ", overallocation_limit=" + nb::cast<std::string>(nb::repr(nb::float_(c.overallocation_limit))) +
                   ", allocation='" + wsa::to_string(c.allocation) + "', learning='" +
                   wsa::to_string(c.learning) + "', cycles_before_initialization=" +
                   std::to_string(c.cycles_before_initialization) + ", spill='" + wsa::to_string(c.spill) +
                   "', reset='" + wsa::to_string(c.reset) + "', location='" + wsa::to_string(c.location) +
                   "', temp_file_path=" + nb::cast<std::string>(nb::repr(nb::str(c.temp_file_path.c_str()))) +
                   ", trim_after_cycles=" + std::to_string(c.trim_after_cycles) + ")";
        });

    nb::class_<ScopeObject>(m, "Scope", "A borrow of an enclosing open workspace, or a scope_out(): "
                                         "`with` it (in the context that opened the workspace).")
        .def("__enter__", [](nb::handle self) {
            ScopeObject &o = nb::cast<ScopeObject &>(self);
            enter_scope(o, scope_function(o));
            return nb::borrow(self);
        })
        .def("__exit__", [](ScopeObject &o, nb::args) {
            exit_scope(o, scope_function(o));
            return false;
        })
        .def("__repr__", [](ScopeObject &o) {
            return o.ws ? "<wsarray.Scope borrow of '" + o.ws->name() + "'>" : std::string("<wsarray.Scope scope_out>");
        });
    m.def("scope_out", []() { return ScopeObject{}; },
          "Context manager: allocations inside bypass every workspace (arrays are detached).");

    nb::class_<Slot>(m, "_Slot", "A batch slot of the data pipeline's ring (wsarray.data; internal).")
        .def("__init__", [](Slot *slot, nb::handle name, const wsa::Config &config, nb::handle hint) {
            std::string n = text_arg(name, "data.AsyncIterator", "slot name");
            auto ws = named("data.AsyncIterator", [&] { return std::make_shared<wsa::Workspace>(n, config); });
            if (!hint.is_none()) ws->set_stale_hint(text_arg(hint, "data.AsyncIterator", "hint"));
            new (slot) Slot{ws, ScopeObject{ws, {}, true}};
        }, nb::arg("name"), nb::arg("config"), nb::arg("hint").none() = nb::none())
        .def_prop_ro("name", [](Slot &s) { return s.ws->name(); })
        .def_prop_ro("is_open", [](Slot &s) { return s.ws->cycle_open(); })
        .def_prop_ro("alive", [](Slot &s) { return s.ws->alive(); })
        .def("begin", [](Slot &s) { named("data.AsyncIterator", [&] { s.ws->begin_cycle(); }); },
             "Open the slot's cycle (the producer, before it fills it).")
        .def("fill", [](Slot &s) -> ScopeObject & { return s.filling; }, nb::rv_policy::reference_internal,
             "Context manager: allocations inside go to the slot, whose cycle must be open.")
        .def("retire", [](Slot &s) {
            // Any thread (the consumer). The slot's arrays become stale; warnings as for a cycle end.
            std::string error = s.ws->end_cycle();
            if (!error.empty() &&
                PyErr_WarnEx(PyExc_RuntimeWarning, ("wsarray.data.AsyncIterator: " + error).c_str(), 1) < 0)
                throw nb::python_error();
            notify_cycle_end(*s.ws);
        }, "End the slot's cycle: its arrays become stale and its memory serves a later batch.")
        .def("stats", [](Slot &s) { return stats_dict(*s.ws); })
        .def("destroy", [](Slot &s) {
            (void) s.ws->end_cycle();
            s.ws->destroy();
            release_holders(*s.ws);
        }, "Give the slot's memory back to the OS; its arrays become stale.");

    nb::class_<WorkspaceHandle>(m, "Workspace",
        "A named workspace of the thread that created it. `with ws:` runs one cycle: arrays made "
        "inside come from its memory and become invalid when the block ends (.detach() keeps one). "
        "wsarray.workspace(name) on the same thread returns a handle equal to this one (==, hash). "
        "stats() gives its statistics; destroy() gives its memory back to the OS.")
        .def_prop_ro("name", [](WorkspaceHandle &h) { return h.ws->name(); })
        .def_prop_ro("config", [](WorkspaceHandle &h) { return h.ws->config(); })
        .def_prop_ro("generation", [](WorkspaceHandle &h) { return h.ws->generation(); })
        .def_prop_ro("is_open", [](WorkspaceHandle &h) { return h.ws->cycle_open(); })
        .def_prop_ro("alive", [](WorkspaceHandle &h) { return h.ws->alive(); })
        .def("__enter__", [](nb::handle self) {
            enter_cycle(nb::cast<WorkspaceHandle &>(self));
            return nb::borrow(self);
        })
        .def("__exit__", [](WorkspaceHandle &h, nb::args) {
            exit_cycle(h);
            return false;
        })
        .def("__eq__", [](WorkspaceHandle &h, nb::handle other) -> nb::object {
            if (!nb::isinstance<WorkspaceHandle>(other)) return nb::borrow(Py_NotImplemented);
            return nb::bool_(nb::cast<WorkspaceHandle &>(other).ws == h.ws);
        }, nb::arg("other").none())
        .def("__hash__", [](WorkspaceHandle &h) { return (Py_hash_t) std::hash<const void *>()(h.ws.get()); })
        .def("borrow", [](WorkspaceHandle &h) { return ScopeObject{h.ws, {}}; },
             "Context manager: allocations inside go to this workspace, whose cycle must be open in "
             "an enclosing 'with' block of the same context.")
        .def("stats", [](WorkspaceHandle &h) { return stats_dict(*h.ws); },
             "stats() -> dict: name, capacity (bytes mapped), used (bytes in live blocks), peak_cycle_bytes "
             "(peak of the last cycle), spilled_bytes / spilled_cycle_bytes / spills (served outside "
             "the chunks), cycles, allocations, allocated_bytes, reused_bytes (served from memory used "
             "before: no fresh pages), frees, os_maps, learned_size, live_arrays, wraps (circular), "
             "chunks, trimmed_bytes (idle pages given back), zeroed_bytes, initialized (learning done), "
             "generation, open, alive.")
        .def("_check_heap", [](WorkspaceHandle &h) { return h.ws->check_heap(); },
             "Heap invariants of every chunk ('' when consistent); for tests.")
        .def("destroy", [](WorkspaceHandle &h) {
            wsa::Workspace &ws = *h.ws;
            const std::string where = "wsarray.Workspace.destroy(): workspace '" + ws.name() + "' ";
            if (!ws.alive()) raise(WorkspaceError, where + "was destroyed already");
            if (ws.owner_thread() != std::this_thread::get_id())
                raise(WorkspaceError, where + "belongs to another thread; destroy it in that thread");
            if (!wsa::ThreadWorkspaces::current().owns(&ws))
                raise(WorkspaceError, where + "is no longer registered on this thread");
            destroy_named(ws.name(), "Workspace.destroy");
        }, "Give the workspace's memory back to the OS; its arrays become invalid.")
        .def("__repr__", [](WorkspaceHandle &h) {
            return "<wsarray.Workspace '" + h.ws->name() + "' generation=" + std::to_string(h.ws->generation()) +
                   (h.ws->alive() ? (h.ws->cycle_open() ? " open>" : " closed>") : " destroyed>");
        });

    m.def("workspace", [](nb::handle name_arg, nb::handle config_arg) {
        std::string name = name_of(name_arg, "workspace");
        const wsa::Config *config = nullptr;
        if (!config_arg.is_none()) {
            if (!nb::isinstance<wsa::Config>(config_arg))
                raise(PyExc_TypeError, "wsarray.workspace(): config must be a wsarray.WorkspaceConfig, not " +
                                           std::string(Py_TYPE(config_arg.ptr())->tp_name));
            config = &nb::cast<const wsa::Config &>(config_arg);
        }
        auto &tw = wsa::ThreadWorkspaces::current();
        bool fresh = !tw.find(name);
        auto ws = named("workspace", [&] { return tw.get_or_create(name, config); });
        if (fresh) watch_thread_exit(*ws);
        return WorkspaceHandle{ws};
    }, nb::arg("name"), nb::arg("config").none() = nb::none(),
       "The workspace `name` of this thread, created with `config` on first use.");

    // ---- memory manager -----------------------------------------------------------------------
    m.def("_destroy_all", []() {
        auto &tw = wsa::ThreadWorkspaces::current();
        auto all = tw.all();
        named("memory.destroy_all_workspaces_for_current_thread", [&] { tw.destroy_all(); });
        for (auto &ws : all) release_holders(*ws);
    });
    m.def("_destroy", [](nb::handle name) {
        destroy_named(name_of(name, "memory.destroy_workspace"), "memory.destroy_workspace");
    });
    m.def("_exists", [](nb::handle name) {
        return (bool) wsa::ThreadWorkspaces::current().find(name_of(name, "memory.workspace_exists"));
    });
    m.def("_active", [](nb::handle name) {
        auto ws = wsa::ThreadWorkspaces::current().find(name_of(name, "memory.workspace_active"));
        return ws && ws->cycle_open();
    });
    m.def("_current", []() -> nb::object {
        wsa::Workspace *t = current_target();
        if (!t) return nb::none();
        return nb::str(t->name().c_str());
    });
    m.def("_statistics", []() {
        nb::dict d;
        for (auto &ws : wsa::ThreadWorkspaces::current().all()) d[ws->name().c_str()] = stats_dict(*ws);
        return d;
    });
    m.def("_stack", []() {
        nb::list out;
        for (const wsa::Frame *f : wsa::live_frames(current_stack())) {
            const char *kind = f->kind == wsa::FrameKind::Cycle ? "cycle"
                             : f->kind == wsa::FrameKind::Borrow ? "borrow"
                             : f->kind == wsa::FrameKind::Fill ? "fill" : "scope_out";
            out.append(nb::make_tuple(kind, f->ws ? nb::object(nb::str(f->ws->name().c_str())) : nb::none()));
        }
        return out;
    });
    g_listeners = new std::vector<nb::object>();
    m.def("_add_cycle_listener", [](nb::handle f) {
        if (!PyCallable_Check(f.ptr()))
            raise(PyExc_TypeError, "wsarray.memory.add_cycle_listener(): the listener must be callable, not " +
                                       std::string(Py_TYPE(f.ptr())->tp_name));
        g_listeners->push_back(nb::borrow(f));
    });
    m.def("_remove_cycle_listener", [](nb::handle f) {
        for (auto it = g_listeners->begin(); it != g_listeners->end(); ++it)
            if (it->is(f)) {
                g_listeners->erase(it);
                return;
            }
        raise(PyExc_ValueError, "wsarray.memory.remove_cycle_listener(): this listener was not added");
    });
    m.def("_cycle_listeners", []() {
        nb::list out;
        for (auto &f : *g_listeners) out.append(f);
        return out;
    });
    m.def("_zombie_bytes", []() { return wsa::Workspace::zombie_bytes(); });
    m.def("_set_gc_window", [](long long ms) {
        if (ms < 0) raise(PyExc_ValueError, "wsarray.memory.set_auto_gc_window(): the window must be >= 0 ms (0 turns it off)");
        if (ms > kMaxGcWindowMs)
            raise(PyExc_ValueError, "wsarray.memory.set_auto_gc_window(): the window must be at most " +
                                        std::to_string(kMaxGcWindowMs) + " ms (about 292 years)");
        gc_state.window_ms = ms;
        gc_state.last = std::chrono::steady_clock::now();
    });
    m.attr("_MAX_GC_WINDOW_MS") = kMaxGcWindowMs;
    m.def("_get_gc_window", []() { return gc_state.window_ms; });
    m.def("_gc_collections", []() { return gc_state.collections; });
    m.def("_collect", []() {
        nb::object r = gc_state.collect();
        ++gc_state.collections;
        gc_state.last = std::chrono::steady_clock::now();
        return r;
    });
    m.def("_build_info", []() {
        nb::dict d;
        d["compiler"] = std::string(
#if defined(__clang__)
            "clang "
#elif defined(__GNUC__)
            "gcc "
#endif
            __VERSION__);
        d["cxx_standard"] = (long) __cplusplus;
        d["build_type"] = WSARRAY_BUILD_TYPE;
#ifdef WSARRAY_SANITIZED_BUILD
        d["sanitizers"] = "address,undefined";
#else
        d["sanitizers"] = "none";
#endif
        d["kernels"] = wsa::kernel_isa();
        d["threads"] = wsa::pool_threads();
        d["nanobind"] = std::to_string(NB_VERSION_MAJOR) + "." + std::to_string(NB_VERSION_MINOR) + "." +
                        std::to_string(NB_VERSION_PATCH);
        d["available_memory"] = wsa::available_memory();
        return d;
    }, "Facts about this build (wsarray.show_config() prints them).");
    m.def("parse_size", [](nb::handle v) { return size_arg(v, "size"); }, nb::arg("size").none(),
          "Bytes in a size given as an int or a string like '64MB' or '1.5GiB'.");
}

} // namespace wsa_py
