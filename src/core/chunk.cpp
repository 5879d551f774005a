/// src/core/chunk.cpp -- block allocation inside one chunk (see chunk.h).
#include "chunk.h"

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
        if (b->size >= total) { found = b; break; }
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

BlockHeader *Chunk::allocate(std::size_t total, bool prefer_top, bool &reused) {
    std::size_t old_high = high_water;
    BlockHeader *b = prefer_top ? take_from_top(total) : take_from_lists(total);
    if (!b) b = prefer_top ? take_from_lists(total) : take_from_top(total);
    if (!b) return nullptr;
    std::size_t offset = (std::size_t) ((char *) b - base());
    reused = offset + b->size <= old_high;
    if (top > high_water) high_water = top;
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
    if ((char *) b + b->size == base() + top) {  // top of the bump stack: shrink it
        top = (std::size_t) ((char *) b - base());
        last_size = b->prev_size;
    } else {
        push_free(b);
    }
}

std::size_t Chunk::free_bytes_below_top() const { return top - live_bytes; }

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
