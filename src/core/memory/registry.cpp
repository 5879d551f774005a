/// src/core/memory/registry.cpp -- the address registry (registry.h): making it, and giving a
/// chunk's memory back.
#include "registry.h"

namespace wsa {

Registry *make_registry() {
    auto *reg = new Registry();
    install_fork_handlers();
    return reg;
}

void drop_chunk_locked(Chunk *c) {
    notify_mapping(c->mapping, false);
    if (c->mapping.source == Source::Device) registry().deferred.emplace_back(c->mapping, c->device);
    else unmap(c->mapping);
    delete c;
}

} // namespace wsa
