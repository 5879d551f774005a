/// src/python/workspaces/device_source.cpp -- a core device source whose alloc/free are Python callables.
///
/// The device layers (wsarray/_devices: CUDA through CuPy, the test-only fake device) allocate
/// chunks in Python. The core calls the callables with its mutex down and from any thread, so each
/// call takes the GIL itself. Frees can arrive while the interpreter shuts down: then the memory
/// is left to the process's end (the device context dies with it) rather than calling Python.
#include "workspaces/device_source.h"

#include "common/errors.h"

#include "memory/backing.h"
#include "memory/config.h"

#include <memory>
#include <string>

namespace wsa_py {

namespace {

struct Callables {
    nb::object alloc, free;
};

void *call_alloc(void *ctx, std::size_t size, std::string &why) {
    if (_Py_IsFinalizing()) {
        why = "the interpreter is shutting down";
        return nullptr;
    }
    nb::gil_scoped_acquire gil;
    try {
        nb::object r = ((Callables *) ctx)->alloc(size);
        if (r.is_none()) return nullptr;
        return (void *) nb::cast<std::uintptr_t>(r);
    } catch (nb::python_error &e) {
        why = nb::cast<std::string>(nb::str(e.type().attr("__name__"))) + ": " +
              nb::cast<std::string>(nb::str(e.value()));
        return nullptr;
    } catch (const std::exception &e) {
        why = e.what();
        return nullptr;
    }
}

void call_free(void *ctx, void *ptr, std::size_t size) {
    if (_Py_IsFinalizing()) return;
    nb::gil_scoped_acquire gil;
    try {
        ((Callables *) ctx)->free((std::uintptr_t) ptr, size);
    } catch (nb::python_error &e) {
        e.discard_as_unraisable("wsarray: a device source's free()");
    } catch (const std::exception &) {
        // nothing sensible to do: the block is lost to this workspace
    }
}

/// Deletes the callables with the GIL (never during shutdown: then they are leaked).
void drop_source(wsa::DeviceSource *s) {
    auto *c = (Callables *) s->ctx;
    if (c && !_Py_IsFinalizing()) {
        nb::gil_scoped_acquire gil;
        delete c;
    }
    delete s;
}

} // namespace

void export_device_source(nb::module_ &m) {
    m.def(
        "_config_with_device_source",
        [](const wsa::Config &config, std::string name, nb::callable alloc, nb::callable free, std::size_t alignment) {
        if (alignment < 64 || (alignment & (alignment - 1)))
            raise(PyExc_ValueError, "wsarray._native._config_with_device_source(): alignment must be a power of two "
                                    ">= 64, got " +
                                        std::to_string(alignment));
        auto *s = new wsa::DeviceSource();
        s->alloc = call_alloc;
        s->free = call_free;
        s->ctx = new Callables{nb::borrow(alloc), nb::borrow(free)};
        s->name = std::move(name);
        s->alignment = alignment;
        wsa::Config out = config;
        out.device = std::shared_ptr<const wsa::DeviceSource>(s, drop_source);
        return out;
    }, nb::arg("config"), nb::arg("name"), nb::arg("alloc"), nb::arg("free"), nb::arg("alignment") = 256,
        "A copy of `config` whose chunks come from alloc(size) -> address or None and go back through "
        "free(address, size); both are called without the core's mutex, from any thread (device layers).");
}

} // namespace wsa_py
