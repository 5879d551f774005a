/// src/core/memory/chunk.cpp -- block allocation inside one chunk (see chunk.h).
#include "chunk.h"

#include <algorithm>

namespace wsa {

static int size_class(std::size_t size) { return 63 - __builtin_clzll((unsigned long long) size); }

BlockHeader *Chunk::next_of(BlockHeader *b) const {
    char *n = (char *) b + b->size;
    return n < base() + top ? (BlockHeader *) n : nullptr;
}

BlockHeader *Chunk::prev_of(BlockHeader *b) const {
    return b->prev_size ? (BlockHeader *) ((char *) b - b->prev_size) : nullptr;
}

void Chunk::push_free(BlockHeader *b) {
    int c = size_class(b->size);
    b->prev_free = nullptr;
    b->next_free = free_lists[c];
    if (free_lists[c]) free_lists[c]->prev_free = b;
    free_lists[c] = b;
    nonempty |= 1ull << c;
}

void Chunk::unlink_free(BlockHeader *b) {
    int c = size_class(b->size);
    if (b->prev_free) b->prev_free->next_free = b->next_free;
    else free_lists[c] = b->next_free;
    if (b->next_free) b->next_free->prev_free = b->prev_free;
    if (!free_lists[c]) nonempty &= ~(1ull << c);
    b->next_free = b->prev_free = nullptr;
}

BlockHeader *Chunk::take_from_lists(std::size_t total) {
    int c = size_class(total);
    BlockHeader *found = nullptr;
    // Same class: sizes in [2^c, 2^(c+1)) may be too small, so check a few; higher classes always fit.
    int scanned = 0;
    for (BlockHeader *b = free_lists[c]; b && scanned < 16; b = b->next_free, ++scanned)
        if (b->size >= total) {
            found = b;
            break;
        }
    if (!found) {
        std::uint64_t higher = (c + 1 < 64) ? (nonempty & ~((2ull << c) - 1)) : 0;
        if (!higher) return nullptr;
        found = free_lists[__builtin_ctzll(higher)];
    }
    unlink_free(found);
    std::size_t rest = found->size - total;
    if (rest >= 2 * kAlign) {  // split: the tail stays free
        BlockHeader *tail = (BlockHeader *) ((char *) found + total);
        tail->size = rest;
        tail->prev_size = total;
        tail->requested = 0;
        tail->live = 0;
        tail->magic = kMagic;
        tail->freed_at = found->freed_at;
        found->size = total;
        if (BlockHeader *after = next_of(tail)) after->prev_size = rest;
        push_free(tail);
    }
    return found;
}

BlockHeader *Chunk::take_from_top(std::size_t total) {
    if (capacity() - top < total) return nullptr;
    BlockHeader *b = (BlockHeader *) (base() + top);
    b->size = total;
    b->prev_size = last_size;
    last_size = total;
    top += total;
    return b;
}

BlockHeader *Chunk::allocate(std::size_t total, bool prefer_top, std::size_t &dirty) {
    std::size_t old_high = high_water;
    BlockHeader *b = prefer_top ? take_from_top(total) : take_from_lists(total);
    if (!b) b = prefer_top ? take_from_lists(total) : take_from_top(total);
    if (!b) return nullptr;
    std::size_t data = (std::size_t) ((char *) b - base()) + kHeader;
    dirty = old_high > data ? std::min(old_high, data + b->size - kHeader) - data : 0;
    if (top > high_water) high_water = top;
    if (top > window_top) window_top = top;
    b->live = 1;
    b->magic = kMagic;
    b->next_free = b->prev_free = nullptr;
    ++live_blocks;
    live_bytes += b->size;
    return b;
}

void Chunk::release(BlockHeader *b) {
    b->live = 0;
    b->requested = 0;
    --live_blocks;
    live_bytes -= b->size;
    if (BlockHeader *n = next_of(b); n && !n->live) {
        unlink_free(n);
        b->size += n->size;
        if (BlockHeader *after = next_of(b)) after->prev_size = b->size;
    }
    if (BlockHeader *p = prev_of(b); p && !p->live) {
        unlink_free(p);
        p->size += b->size;
        b = p;
        if (BlockHeader *after = next_of(b)) after->prev_size = b->size;
    }
    b->freed_at = cycles;  // part of the merged block was in use this cycle
    if ((char *) b + b->size == base() + top) {  // top of the bump stack: shrink it
        top = (std::size_t) ((char *) b - base());
        last_size = b->prev_size;
    } else {
        push_free(b);
    }
}

std::size_t Chunk::free_bytes_below_top() const { return top - live_bytes; }

std::size_t Chunk::release_free_block_at(std::size_t off) {
    if (off >= top) {  // the block merged into the free space above `top`
        std::size_t used = round_up(std::max(high_water, top), page_size());
        std::size_t from = round_up(top, page_size());
        if (used <= from) return 0;
        if (release_pages(mapping, from, used - from)) high_water = from;
        return used - from;
    }
    // The free block that holds `off`: walk from the start (zombie chunks only, rare).
    std::size_t pos = 0;
    while (pos < top) {
        auto *b = (BlockHeader *) (base() + pos);
        if (pos <= off && off < pos + b->size) {
            if (b->live) return 0;
            release_pages(mapping, pos + kHeader, b->size - kHeader);
            return b->size - kHeader;
        }
        pos += b->size;
    }
    return 0;
}

std::size_t Chunk::trim(std::size_t min_bytes, std::uint64_t age) {
    if (mapping.heap) return 0;
    std::size_t released = 0;
    std::size_t keep = round_up(std::max(window_top, top), page_size());
    // Whole pages up to the one holding high_water: a partial page left behind would be used
    // memory above the new high_water, which zeroed allocations trust to read as zeros.
    std::size_t used = round_up(high_water, page_size());
    if (used > keep && used - keep >= min_bytes) {
        if (release_pages(mapping, keep, used - keep)) high_water = keep;
        released += used - keep;
    }
    // Free holes below `top` (arrays that lived long pinned the blocks above them).
    for (int c = 0; c < kClasses; ++c) {
        if (!(nonempty & (1ull << c)) || (std::size_t(1) << c) < min_bytes) continue;
        for (BlockHeader *b = free_lists[c]; b; b = b->next_free) {
            std::size_t off = (std::size_t) ((char *) b - base());
            if (b->size >= min_bytes && cycles - b->freed_at >= age &&
                release_pages(mapping, off + kHeader, b->size - kHeader))
                released += b->size - kHeader;
        }
    }
    window_top = top;
    return released;
}

std::string Chunk::check() const {
    std::size_t off = 0, prev = 0, live = 0, live_b = 0, free_blocks = 0;
    bool prev_free = false;
    while (off < top) {
        auto *b = (const BlockHeader *) (base() + off);
        if (b->magic != kMagic) return "bad magic at offset " + std::to_string(off);
        if (b->size < kHeader || b->size % kAlign || off + b->size > top)
            return "bad size " + std::to_string(b->size) + " at offset " + std::to_string(off);
        if (b->prev_size != prev) return "bad prev_size at offset " + std::to_string(off);
        if (!b->live && prev_free) return "two adjacent free blocks at offset " + std::to_string(off);
        if (b->live) {
            ++live;
            live_b += b->size;
        } else {
            ++free_blocks;
        }
        prev_free = !b->live;
        prev = b->size;
        off += b->size;
    }
    if (prev_free) return "a free block ends at the top";
    if (prev != last_size) return "last_size does not match the top block";
    if (live != live_blocks || live_b != live_bytes) return "live counters do not match the blocks";
    std::size_t listed = 0;
    for (int c = 0; c < kClasses; ++c) {
        if (bool(nonempty & (1ull << c)) != (free_lists[c] != nullptr)) return "bad nonempty bitmap";
        for (const BlockHeader *b = free_lists[c]; b; b = b->next_free) {
            if (b->live || !contains(b)) return "a listed block is live or foreign";
            if (63 - __builtin_clzll((unsigned long long) b->size) != c) return "a block is in the wrong class";
            ++listed;
        }
    }
    if (listed != free_blocks) return "free lists do not hold every free block";
    return "";
}

} // namespace wsa
