/// src/python/workspaces/workspaces.cpp -- wsarray.Workspace (a named workspace of a thread and its cycles),
/// wsarray.workspace(), borrows and scope_out() (wsarray.Scope), the data pipeline's batch slots
/// (_Slot), and the end of a thread's workspaces when the thread exits.
#include "workspaces/workspaces.h"

#include "results/array_object.h"
#include "workspaces/cycle_end.h"
#include "common/hooks.h"
#include "workspaces/scopes.h"

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace wsa_py {

namespace {

/// What wsarray.Workspace wraps: a workspace of this thread (handles of one workspace compare equal).
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
    close_orphans_of_this_thread();  // its last cycle may be one another thread handed over to close
    wsa::Workspace &ws = *h.ws;
    const char *fn = "Workspace.__enter__";
    auto where = [&] { return "wsarray.Workspace.__enter__(): workspace '" + ws.name() + "' "; };
    if (ws.owner_thread() != std::this_thread::get_id())
        raise(WorkspaceError, where() +
                                  "belongs to another thread; workspaces are per thread: call wsarray.workspace('" +
                                  ws.name() + "') in this thread to get its own");
    if (!ws.alive())
        raise(WorkspaceError, where() + "was destroyed; get a new one with wsarray.workspace('" + ws.name() + "')");
    if (!wsa::ThreadWorkspaces::current().owns(&ws))
        raise(WorkspaceError, where() +
                                  "is no longer registered on this thread; get it again with wsarray.workspace('" +
                                  ws.name() + "')");
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

void exit_cycle(WorkspaceHandle &h, bool finalizing) {
    auto frame = h.ws->cycle_frame();
    if ((!frame || !frame->open) && finalizing) return;  // its cycle ended already (its thread exited)
    if (!frame || !frame->open)
        raise(WorkspaceError, "wsarray.Workspace.__exit__(): workspace '" + h.ws->name() +
                                  "' has no open cycle to close (exited twice, or never entered)");
    if (finalizing) {  // a generator suspended in the block, collected anywhere: see scopes.h
        if (close_scope_finalizing(frame, "Workspace.__exit__") && frame->thread == std::this_thread::get_id())
            notify_cycle_end(*h.ws);
        return;
    }
    close_scope(*frame, "Workspace.__exit__");
    notify_cycle_end(*h.ws);
}

PyObject *workspace_enter(PyObject *self, PyObject *) {
    return guarded([&]() -> PyObject * {
        enter_cycle(*nb::inst_ptr<WorkspaceHandle>(self));
        return Py_NewRef(self);
    }, (PyObject *) nullptr);
}

PyObject *workspace_exit(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    return guarded([&]() -> PyObject * {
        exit_cycle(*nb::inst_ptr<WorkspaceHandle>(self), finalizing_exit(args, nargs));
        return Py_NewRef(Py_False);
    }, (PyObject *) nullptr);
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

void exit_scope(ScopeObject &o, const char *fn, bool finalizing = false) {
    if (o.frames.empty())
        raise(WorkspaceError, "wsarray." + std::string(fn) + "(): this scope is not open (exited twice?)");
    std::shared_ptr<wsa::Frame> frame = o.frames.back();
    if (finalizing) (void) close_scope_finalizing(frame, fn);
    else close_scope(*frame, fn);  // raises (closing nothing) for another context's frame
    o.frames.pop_back();
}

const char *scope_function(const ScopeObject &o) {
    return o.fill ? "data.AsyncIterator" : o.ws ? "Workspace.borrow" : "scope_out";
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

/// Lives in the thread state's dict: CPython clears it (GIL held) when the thread finishes, before
/// join() returns, so the thread's workspaces end then, and their memory goes back to the OS.
struct ThreadCleanup {
    std::thread::id thread = std::this_thread::get_id();
    bool armed = false;  // only the instance in the thread's dict (not temporaries) cleans up
    ~ThreadCleanup() {
        // The main thread at interpreter exit (the process ends), or another thread's state cleared
        // in a forked child (its workspaces were destroyed by the fork handler).
        if (!armed || _Py_IsFinalizing() || thread != std::this_thread::get_id()) return;
        try {
            close_orphans_of_this_thread();  // a generator of this thread finalized elsewhere
            wsa::ThreadWorkspaces::current().destroy_all(wsa::DestroyReason::ThreadExit, true);
            wsa::Workspace::flush_thread_cache();  // blocks of a workspace of its own outside `tw`
        } catch (...) {
            PyErr_Clear();  // a destructor lets nothing out
        }
    }
};
thread_local bool tl_watched = false;

/// Make sure this thread's workspaces are destroyed, with the GIL held, when the thread exits
/// (before threading.Thread.join() returns), and label them with the thread's name.
void watch_thread_exit(wsa::Workspace &ws) {
    nb::object thread = nb::module_::import_("threading").attr("current_thread")();
    binding_of(ws).owner_label = nb::cast<std::string>(nb::str(thread.attr("name")));
    if (tl_watched) return;
    PyObject *dict = PyThreadState_GetDict();
    if (!dict) return;
    nb::object cleanup = nb::cast(ThreadCleanup{});
    nb::cast<ThreadCleanup &>(cleanup).armed = true;
    if (PyDict_SetItemString(dict, "wsarray.thread_cleanup", cleanup.ptr()) < 0) throw nb::python_error();
    tl_watched = true;
}

/// The last workspace() answer of this thread with no config: a loop that calls
/// wsarray.workspace("LOOP") each iteration gets its handle without a lookup while no workspace was
/// created or destroyed on the thread since. Kept in the thread state's dictionary, (name, handle,
/// version), which CPython clears with the thread (and at exit).
PyObject *last_workspace_key() {
    static PyObject *key = PyUnicode_InternFromString("wsarray.last_workspace");  // kept
    return key;
}

PyObject *cached_workspace(nb::handle name_arg, std::uint64_t version) {
    PyObject *dict = PyThreadState_GetDict();  // borrowed
    PyObject *entry = dict ? PyDict_GetItemWithError(dict, last_workspace_key()) : nullptr;  // borrowed
    if (!entry) {
        PyErr_Clear();
        return nullptr;
    }
    PyObject *name = PyTuple_GET_ITEM(entry, 0), *handle = PyTuple_GET_ITEM(entry, 1);
    if (PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(entry, 2)) != version) return nullptr;
    if (name_arg.ptr() != name &&
        !(PyUnicode_CheckExact(name_arg.ptr()) && PyUnicode_Compare(name_arg.ptr(), name) == 0)) {
        PyErr_Clear();
        return nullptr;
    }
    if (!nb::inst_ptr<WorkspaceHandle>(handle)->ws->alive()) return nullptr;
    return handle;
}

void remember_workspace(nb::handle name_arg, nb::handle handle, std::uint64_t version) {
    PyObject *dict = PyThreadState_GetDict();
    if (!dict || !PyUnicode_CheckExact(name_arg.ptr())) return;
    nb::object entry = nb::make_tuple(name_arg, handle, nb::int_(version));
    if (PyDict_SetItem(dict, last_workspace_key(), entry.ptr()) < 0) PyErr_Clear();
}

/// At exit (atexit, before modules are torn down): drop the cached handles of every thread still
/// alive, daemon threads included, so that no Workspace outlives the interpreter's last
/// reference count of it (nanobind reports such instances as leaked).
/// Dropping a handle may run Python (a weakref callback) and let another thread end and free its
/// thread state: the dictionaries are gathered first, held, and emptied after the walk.
void forget_cached_workspaces() {
    PyInterpreterState *interp = PyThreadState_GetInterpreter(PyThreadState_Get());
    std::vector<nb::object> dicts;
    for (PyThreadState *t = PyInterpreterState_ThreadHead(interp); t; t = PyThreadState_Next(t))
        if (t->dict) dicts.push_back(nb::borrow(t->dict));  // no Python runs in this walk
    for (auto &dict : dicts)
        if (PyDict_DelItem(dict.ptr(), last_workspace_key()) < 0) PyErr_Clear();
}

/// Named workspaces live until destroyed: a thread that makes one per request or task keeps them
/// all. Said once the thread holds 100 of them, again at 1,000, 10,000...
void warn_if_many(wsa::ThreadWorkspaces &tw) {
    auto all = tw.all();
    std::size_t n = all.size();
    std::size_t step = 100;
    while (step * 10 <= n) step *= 10;
    if (n != step) return;
    std::size_t idle = 0, bytes = 0;
    for (auto &w : all)
        if (!w->cycle_open()) {
            ++idle;
            bytes += w->stats().capacity;
        }
    std::string msg = "wsarray.workspace(): this thread holds " + std::to_string(n) + " named workspaces (" +
                      std::to_string(idle) + " idle, holding " + std::to_string(bytes >> 20) +
                      " MiB); a named workspace lives until it is destroyed: use "
                      "wsarray.transient_workspace() for one per request or task, or "
                      "wsarray.memory.destroy_workspace(name)";
    if (PyErr_WarnEx(PyExc_RuntimeWarning, msg.c_str(), 1) < 0) throw nb::python_error();
}

/// Set once a device workspace exists: only then are names asked of the device layer first.
bool g_device_workspaces = false;

nb::object workspace_entry(nb::handle name_arg, nb::handle config_arg) {
    auto &tw = wsa::ThreadWorkspaces::current();
    bool plain = config_arg.is_none();
    if (plain)
        if (PyObject *cached = cached_workspace(name_arg, tw.version())) return nb::borrow(cached);
    std::string name = name_of(name_arg, "workspace");
    const wsa::Config *config = nullptr;
    if (!plain) {
        if (!nb::isinstance<wsa::Config>(config_arg))
            raise(PyExc_TypeError, "wsarray.workspace(): config must be a wsarray.WorkspaceConfig, not " +
                                       std::string(Py_TYPE(config_arg.ptr())->tp_name));
        config = &nb::cast<const wsa::Config &>(config_arg);
    }
    // A device workspace (a config naming a device, or one made before under this name): the device
    // layer's (wsarray/_devices/workspace.py), which makes its core workspace through this function
    // with a config that carries the device's memory source.
    bool wants_device = config && !config->device_name.empty() && !config->device;
    if (wants_device) g_device_workspaces = true;
    if (g_device_workspaces) {
        nb::object found = hook(Hook::DeviceWorkspace)(nb::str(name.c_str()), config_arg);
        if (!found.is_none()) return found;
    }
    bool fresh = !tw.find(name);
    auto ws = named("workspace", [&] { return tw.get_or_create(name, config); });
    if (fresh) {
        watch_thread_exit(*ws);
        warn_if_many(tw);
    }
    nb::object handle = nb::cast(WorkspaceHandle{ws});
    if (plain) remember_workspace(name_arg, handle, tw.version());
    return handle;
}

} // namespace

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

void destroy_named(const std::string &name, const char *fn) {
    auto &tw = wsa::ThreadWorkspaces::current();
    named(fn, [&] { tw.destroy(name); });
}

void export_workspaces(nb::module_ &m) {
    nb::module_::import_("atexit").attr("register")(nb::cpp_function(forget_cached_workspaces));
    nb::class_<ThreadCleanup>(m, "_ThreadCleanup", "Ends a thread's workspaces when it exits (internal).");

    auto scope_cls = nb::class_<ScopeObject>(m, "Scope",
                                             "A borrow of an enclosing open workspace, or a scope_out(): "
                                             "`with` it (in the context that opened the workspace).");
    scope_cls.def("__enter__", [](nb::handle self) {
        ScopeObject &o = nb::cast<ScopeObject &>(self);
        enter_scope(o, scope_function(o));
        return nb::borrow(self);
    }, nb::sig("def __enter__(self) -> Scope"));
    scope_cls.def("__exit__", [](ScopeObject &o, nb::args args) {
        PyObject *first = args.size() ? args[0].ptr() : nullptr;
        exit_scope(o, scope_function(o), finalizing_exit(&first, first ? 1 : 0));
        return false;
    }, nb::sig("def __exit__(self, *args: object) -> typing.Literal[False]"));
    scope_cls.def("__repr__", [](ScopeObject &o) {
        return o.ws ? "<wsarray.Scope borrow of '" + o.ws->name() + "'>" : std::string("<wsarray.Scope scope_out>");
    });
    m.def("scope_out", []() { return ScopeObject{}; }, nb::sig("def scope_out() -> Scope"),
          "Context manager: allocations inside bypass every workspace (arrays are detached).");

    auto slot_cls = nb::class_<Slot>(m, "_Slot", "A batch slot of the data pipeline's ring (wsarray.data; internal).");
    slot_cls.def("__init__", [](Slot *slot, nb::handle name, const wsa::Config &config, nb::handle hint) {
        std::string n = text_arg(name, "data.AsyncIterator", "slot name");
        auto ws = named("data.AsyncIterator", [&] { return std::make_shared<wsa::Workspace>(n, config); });
        if (!hint.is_none()) binding_of(*ws).stale_hint = text_arg(hint, "data.AsyncIterator", "hint");
        new (slot) Slot{ws, ScopeObject{ws, {}, true}};
    }, nb::arg("name"), nb::arg("config"), nb::arg("hint").none() = nb::none());
    slot_cls.def_prop_ro("name", [](Slot &s) { return s.ws->name(); });
    slot_cls.def_prop_ro("is_open", [](Slot &s) { return s.ws->cycle_open(); });
    slot_cls.def_prop_ro("alive", [](Slot &s) { return s.ws->alive(); });
    slot_cls.def("begin", [](Slot &s) { named("data.AsyncIterator", [&] { s.ws->begin_cycle(); }); },
                 "Open the slot's cycle (the producer, before it fills it).");
    slot_cls.def("fill", [](Slot &s) -> ScopeObject & { return s.filling; }, nb::rv_policy::reference_internal,
                 "Context manager: allocations inside go to the slot, whose cycle must be open.");
    slot_cls.def("retire", [](Slot &s) {
        // Any thread (the consumer). The slot's arrays become stale; warnings as for a cycle end.
        std::string error = s.ws->end_cycle();
        if (!error.empty() &&
            PyErr_WarnEx(PyExc_RuntimeWarning, ("wsarray.data.AsyncIterator: " + error).c_str(), 1) < 0)
            throw nb::python_error();
        notify_cycle_end(*s.ws);
    }, "End the slot's cycle: its arrays become stale and its memory serves a later batch.");
    slot_cls.def("stats", [](Slot &s) { return stats_dict(*s.ws); });
    slot_cls.def("destroy", [](Slot &s) {
        (void) s.ws->end_cycle();
        s.ws->destroy();
    }, "Give the slot's memory back to the OS; its arrays become stale.");

    auto workspace_cls = nb::class_<WorkspaceHandle>(
        m, "Workspace", nb::is_weak_referenceable(),
        "A named workspace of the thread that created it. `with ws:` runs one cycle: arrays made "
        "inside come from its memory and become invalid when the block ends (.detach() keeps one). "
        "wsarray.workspace(name) on the same thread returns a handle equal to this one (==, hash). "
        "stats() gives its statistics; destroy() gives its memory back to the OS.");
    workspace_cls.def_prop_ro("name", [](WorkspaceHandle &h) { return h.ws->name(); });
    workspace_cls.def_prop_ro("config", [](WorkspaceHandle &h) { return h.ws->config(); });
    workspace_cls.def_prop_ro("generation", [](WorkspaceHandle &h) { return h.ws->generation(); });
    workspace_cls.def_prop_ro("is_open", [](WorkspaceHandle &h) {
        close_orphans_of_this_thread();
        return h.ws->cycle_open();
    });
    workspace_cls.def_prop_ro("alive", [](WorkspaceHandle &h) { return h.ws->alive(); });
    {
        // `with ws:` is the hot path of a workspace loop: plain CPython methods (no argument
        // conversion; __exit__ looks at none of its arguments).
        static PyMethodDef cycle_methods[] = {
            {"__enter__", (PyCFunction) (void (*)(void)) workspace_enter, METH_NOARGS,
             "__enter__(self) -> Workspace\n--\n\nBegin a cycle of this workspace (the `with` block)."},
            {"__exit__", (PyCFunction) (void (*)(void)) workspace_exit, METH_FASTCALL,
             "__exit__(self, *args) -> False\n--\n\nEnd the cycle: its arrays become stale."},
            {nullptr, nullptr, 0, nullptr}};
        auto *type = (PyTypeObject *) workspace_cls.ptr();
        for (PyMethodDef *d = cycle_methods; d->ml_name; ++d) {
            nb::object method = nb::steal(PyDescr_NewMethod(type, d));
            if (!method || PyDict_SetItemString(type->tp_dict, d->ml_name, method.ptr()) < 0) throw nb::python_error();
        }
        PyType_Modified(type);
    }
    workspace_cls.def("__eq__", [](WorkspaceHandle &h, nb::handle other) -> nb::object {
        if (!nb::isinstance<WorkspaceHandle>(other)) return nb::borrow(Py_NotImplemented);
        return nb::bool_(nb::cast<WorkspaceHandle &>(other).ws == h.ws);
    }, nb::arg("other").none(), nb::sig("def __eq__(self, other: object, /) -> bool"));
    workspace_cls.def("__hash__", [](WorkspaceHandle &h) { return (Py_hash_t) std::hash<const void *>()(h.ws.get()); });
    workspace_cls.def("borrow", [](WorkspaceHandle &h) { return ScopeObject{h.ws, {}}; },
                      "Context manager: allocations inside go to this workspace, whose cycle must be open in "
                      "an enclosing 'with' block of the same context.");
    workspace_cls.def("stats", [](WorkspaceHandle &h) { return stats_dict(*h.ws); },
                      nb::sig("def stats(self) -> dict[str, typing.Any]"),
                      "stats() -> dict: name, capacity (bytes mapped), used (bytes in live blocks), peak_cycle_bytes "
                      "(peak of the last cycle), spilled_bytes / spilled_cycle_bytes / spills (served outside "
                      "the chunks), cycles, allocations, allocated_bytes, reused_bytes (served from memory used "
                      "before: no fresh pages), frees, os_maps, learned_size, live_arrays, wraps (circular), "
                      "chunks, trimmed_bytes (idle pages given back), zeroed_bytes, initialized (learning done), "
                      "generation, open, alive.");
    workspace_cls.def("_check_heap", [](WorkspaceHandle &h) { return h.ws->check_heap(); },
                      "Heap invariants of every chunk ('' when consistent); for tests.");
    // The allocator without arrays: the device layers' blocks (wsarray/_devices), and tests of
    // memory no array may read (location='_notouch').
    m.def("_workspace_allocate",
          [](WorkspaceHandle &h, std::size_t nbytes, bool zero) {
        return (std::uintptr_t) named("_workspace_allocate", [&] { return h.ws->allocate(nbytes, zero); });
    }, nb::arg("ws"), nb::arg("nbytes"), nb::arg("zero") = false,
          "Allocate `nbytes` from the workspace without an array; returns the address.");
    m.def("_workspace_free", [](std::uintptr_t address) { return wsa::Workspace::free_if_owned((void *) address); },
          nb::arg("address"), "Free a block by address; False if no workspace owns it.");
    m.def("_test_owned_size", [](std::uintptr_t address) -> nb::object {
        std::size_t n = wsa::Workspace::owned_size((const void *) address);
        if (n == wsa::Workspace::kNotOwned) return nb::none();
        return nb::int_(n);
    }, nb::arg("address"), "Bytes requested for the live block at `address`, None if none (for tests).");
    workspace_cls.def("destroy", [](WorkspaceHandle &h) {
        wsa::Workspace &ws = *h.ws;
        const std::string where = "wsarray.Workspace.destroy(): workspace '" + ws.name() + "' ";
        if (!ws.alive()) raise(WorkspaceError, where + "was destroyed already");
        if (ws.owner_thread() != std::this_thread::get_id())
            raise(WorkspaceError, where + "belongs to another thread; destroy it in that thread");
        if (!wsa::ThreadWorkspaces::current().owns(&ws))
            raise(WorkspaceError, where + "is no longer registered on this thread");
        destroy_named(ws.name(), "Workspace.destroy");
    }, "Give the workspace's memory back to the OS; its arrays become invalid.");
    workspace_cls.def("__repr__", [](WorkspaceHandle &h) {
        close_orphans_of_this_thread();
        return "<wsarray.Workspace '" + h.ws->name() + "' generation=" + std::to_string(h.ws->generation()) +
               (h.ws->alive() ? (h.ws->cycle_open() ? " open>" : " closed>") : " destroyed>");
    });

    // name accepts None so that a wrong type gets wsarray's message, not nanobind's overload list.
    m.def("workspace", &workspace_entry, nb::arg("name").none() = "WSA_DEFAULT", nb::arg("config").none() = nb::none(),
          nb::sig("def workspace(name: str = 'WSA_DEFAULT', config: WorkspaceConfig | None = None) -> Workspace"),
          "The workspace ``name`` of the current thread (created on first use with ``config``).\n\n"
          "``with wsarray.workspace(\"LOOP\"):`` runs one cycle: every array made inside comes from the "
          "workspace's memory and becomes invalid when the block ends; ``.detach()`` keeps a result. "
          "Calling it again with the same name on the same thread returns the same workspace; a "
          "different ``config`` for an existing name raises ``WorkspaceError``. A config with "
          "``device=\"cuda:N\"`` gives a workspace of that GPU's memory (its CuPy arrays come from it).");
}

} // namespace wsa_py
