/// src/python/workspace_bind.cpp -- WorkspaceConfig, workspaces, scopes and the memory manager.
#include "common.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>

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

/// A WorkspaceConfig from keyword arguments (see the class docstring for the fields).
wsa::Config config_from(nb::args args, nb::kwargs kwargs) {
    const std::string where = "wsarray.WorkspaceConfig(): ";
    if (nb::len(args) != 0)
        raise(PyExc_TypeError, where + "takes keyword arguments only, e.g. "
                                       "WorkspaceConfig(initial_size='64MB', learning='none')");
    static const char *fields[] = {"initial_size", "min_size", "max_size", "overallocation_limit",
                                   "allocation", "learning", "cycles_before_initialization", "spill",
                                   "reset", "location", "temp_file_path"};
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
    if (nb::handle v = get("cycles_before_initialization")) {
        if (PyBool_Check(v.ptr()) || !PyLong_Check(v.ptr()))
            raise(PyExc_TypeError, where + "cycles_before_initialization must be an int, not " +
                                       std::string(Py_TYPE(v.ptr())->tp_name));
        int overflow = 0;
        long long n = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
        if (overflow || n < 0 || n > INT_MAX)
            raise(PyExc_ValueError, where + "cycles_before_initialization must be in [0, " +
                                        std::to_string(INT_MAX) + "]");
        cfg.cycles_before_initialization = (int) n;
    }
    if (nb::handle v = get("allocation")) cfg.allocation = policy_arg(v, "allocation", wsa::allocation_from_string);
    if (nb::handle v = get("learning")) cfg.learning = policy_arg(v, "learning", wsa::learning_from_string);
    if (nb::handle v = get("spill")) cfg.spill = policy_arg(v, "spill", wsa::spill_from_string);
    if (nb::handle v = get("reset")) cfg.reset = policy_arg(v, "reset", wsa::reset_from_string);
    if (nb::handle v = get("location")) cfg.location = policy_arg(v, "location", wsa::location_from_string);
    if (nb::handle v = get("temp_file_path")) {
        if (!PyUnicode_Check(v.ptr()))
            raise(PyExc_TypeError, where + "temp_file_path must be a str, not " +
                                       std::string(Py_TYPE(v.ptr())->tp_name));
        cfg.temp_file_path = nb::cast<std::string>(v);
    }
    if (cfg.max_size && cfg.initial_size > cfg.max_size)
        raise(PyExc_ValueError, where + "initial_size (" + std::to_string(cfg.initial_size) +
                                    ") exceeds max_size (" + std::to_string(cfg.max_size) + ")");
    if (cfg.max_size && cfg.min_size > cfg.max_size)
        raise(PyExc_ValueError, where + "min_size exceeds max_size");
    if (cfg.location != wsa::LocationPolicy::Mmap && !cfg.temp_file_path.empty())
        raise(PyExc_ValueError, where + "temp_file_path needs location='mmap'");
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

struct WorkspaceHandle {
    std::shared_ptr<wsa::Workspace> ws;
    std::vector<std::uint64_t> frames;
};

struct BorrowScope {
    std::shared_ptr<wsa::Workspace> ws;
    std::uint64_t frame = 0;
};

struct ScopeOut {
    std::uint64_t frame = 0;
};

void close_frame(std::uint64_t id, const char *fn) {
    std::size_t above = named(fn, [&] { return wsa::ThreadWorkspaces::current().close(id); });
    if (above)
        PyErr_WarnEx(PyExc_RuntimeWarning,
                     ("wsarray: " + std::to_string(above) + " inner workspace scope(s) were still open "
                      "and have been closed").c_str(), 1);
}

} // namespace

void export_workspace(nb::module_ &m) {
    gc_state.collect = nb::module_::import_("gc").attr("collect").inc_ref();

    nb::class_<wsa::Config>(m, "WorkspaceConfig",
                            "Policies of a workspace (ND4J's WorkspaceConfiguration). Sizes take "
                            "ints (bytes) or strings like '64MB' (10^6) or '1.5GiB' (2^30).")
        .def("__init__", [](wsa::Config *c, nb::args args, nb::kwargs kwargs) {
                 // Arguments are parsed here rather than by nanobind so that every mistake gets a
                 // message naming wsarray.WorkspaceConfig() and the field.
                 new (c) wsa::Config(config_from(args, kwargs));
             },
             "WorkspaceConfig(*, initial_size=0, min_size=0, max_size=0, overallocation_limit=0.3, "
             "allocation='overallocate', learning='first_loop', cycles_before_initialization=0, "
             "spill='external', reset='block_left', location='ram', temp_file_path='')")
        .def_ro("initial_size", &wsa::Config::initial_size)
        .def_ro("min_size", &wsa::Config::min_size)
        .def_ro("max_size", &wsa::Config::max_size)
        .def_ro("overallocation_limit", &wsa::Config::overallocation_limit)
        .def_ro("cycles_before_initialization", &wsa::Config::cycles_before_initialization)
        .def_ro("temp_file_path", &wsa::Config::temp_file_path)
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
                   "', temp_file_path='" + c.temp_file_path + "')";
        });

    nb::class_<BorrowScope>(m, "BorrowScope", "Allocations inside go to an enclosing open workspace.")
        .def("__enter__", [](BorrowScope &b) {
            b.frame = named("Workspace.borrow", [&] { return wsa::ThreadWorkspaces::current().borrow(b.ws); });
        })
        .def("__exit__", [](BorrowScope &b, nb::args) {
            close_frame(b.frame, "Workspace.borrow");
            return false;
        });

    nb::class_<ScopeOut>(m, "ScopeOut", "Allocations inside bypass every workspace.")
        .def("__enter__", [](ScopeOut &s) { s.frame = wsa::ThreadWorkspaces::current().scope_out(); })
        .def("__exit__", [](ScopeOut &s, nb::args) {
            close_frame(s.frame, "scope_out");
            return false;
        });
    m.def("scope_out", []() { return ScopeOut{}; },
          "Context manager: allocations inside bypass every workspace (arrays are detached).");

    nb::class_<WorkspaceHandle>(m, "Workspace", "A named per-thread workspace; `with ws:` runs one cycle.")
        .def_prop_ro("name", [](WorkspaceHandle &h) { return h.ws->name(); })
        .def_prop_ro("config", [](WorkspaceHandle &h) { return h.ws->config(); })
        .def_prop_ro("generation", [](WorkspaceHandle &h) { return h.ws->generation(); })
        .def_prop_ro("is_open", [](WorkspaceHandle &h) { return h.ws->cycle_open(); })
        .def_prop_ro("alive", [](WorkspaceHandle &h) { return h.ws->alive(); })
        .def("__enter__", [](nb::handle self) {
            WorkspaceHandle &h = nb::cast<WorkspaceHandle &>(self);
            h.frames.push_back(named("Workspace.__enter__", [&] {
                return wsa::ThreadWorkspaces::current().open_cycle(h.ws);
            }));
            return nb::borrow(self);
        })
        .def("__exit__", [](WorkspaceHandle &h, nb::args) {
            if (h.frames.empty())
                raise(WorkspaceError, "wsarray.Workspace.__exit__(): workspace '" + h.ws->name() +
                                          "' was not entered through this handle");
            std::uint64_t id = h.frames.back();
            h.frames.pop_back();
            close_frame(id, "Workspace.__exit__");
            maybe_collect();
            return false;
        })
        .def("borrow", [](WorkspaceHandle &h) { return BorrowScope{h.ws, 0}; },
             "Context manager: allocations inside go to this (open, enclosing) workspace.")
        .def("stats", [](WorkspaceHandle &h) { return stats_dict(*h.ws); })
        .def("_check_heap", [](WorkspaceHandle &h) { return h.ws->check_heap(); },
             "Heap invariants of every chunk ('' when consistent); for tests.")
        .def("destroy", [](WorkspaceHandle &h) {
            named("Workspace.destroy", [&] { wsa::ThreadWorkspaces::current().destroy(h.ws->name()); });
        })
        .def("__repr__", [](WorkspaceHandle &h) {
            return "<wsarray.Workspace '" + h.ws->name() + "' generation=" + std::to_string(h.ws->generation()) +
                   (h.ws->alive() ? (h.ws->cycle_open() ? " open>" : " closed>") : " destroyed>");
        });

    m.def("workspace", [](const std::string &name, const wsa::Config *config) {
        return WorkspaceHandle{named("workspace", [&] {
            return wsa::ThreadWorkspaces::current().get_or_create(name, config);
        }), {}};
    }, nb::arg("name"), nb::arg("config").none() = nb::none(),
       "The workspace `name` of this thread, created with `config` on first use.");

    // ---- memory manager -----------------------------------------------------------------------
    m.def("_destroy_all", []() { named("memory.destroy_all_workspaces_for_current_thread",
                                       [] { wsa::ThreadWorkspaces::current().destroy_all(); }); });
    m.def("_destroy", [](const std::string &name) {
        named("memory.destroy_workspace", [&] { wsa::ThreadWorkspaces::current().destroy(name); });
    });
    m.def("_exists", [](const std::string &name) { return (bool) wsa::ThreadWorkspaces::current().find(name); });
    m.def("_active", [](const std::string &name) {
        auto &tw = wsa::ThreadWorkspaces::current();
        auto ws = tw.find(name);
        return ws && tw.is_open(ws.get());
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
        for (auto &f : wsa::ThreadWorkspaces::current().frames()) {
            const char *kind = f.kind == wsa::FrameKind::Cycle ? "cycle"
                             : f.kind == wsa::FrameKind::Borrow ? "borrow" : "scope_out";
            out.append(nb::make_tuple(kind, f.ws ? nb::object(nb::str(f.ws->name().c_str())) : nb::none()));
        }
        return out;
    });
    m.def("_zombie_bytes", []() { return wsa::Workspace::zombie_bytes(); });
    m.def("_set_gc_window", [](long long ms) {
        if (ms < 0) raise(PyExc_ValueError, "wsarray.memory.set_auto_gc_window(): the window must be >= 0 ms (0 turns it off)");
        gc_state.window_ms = ms;
        gc_state.last = std::chrono::steady_clock::now();
    });
    m.def("_get_gc_window", []() { return gc_state.window_ms; });
    m.def("_gc_collections", []() { return gc_state.collections; });
    m.def("_collect", []() {
        nb::object r = gc_state.collect();
        ++gc_state.collections;
        gc_state.last = std::chrono::steady_clock::now();
        return r;
    });
    m.def("parse_size", [](nb::handle v) { return size_arg(v, "size"); }, nb::arg("size").none(),
          "Bytes in a size given as an int or a string like '64MB' or '1.5GiB'.");
}

} // namespace wsa_py
