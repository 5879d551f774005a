/// src/core/memory/chunk.cpp -- block allocation inside one chunk, bookkeeping on the host (see chunk.h).
#include "chunk.h"

#include <algorithm>

namespace wsa {

static int size_class(std::size_t size) { return 63 - __builtin_clzll((unsigned long long) size); }

// ---- LiveMap ----

void LiveMap::grow() {
    std::vector<Slot> old = std::move(slots_);
    std::size_t cap = old.empty() ? 8 : old.size() * 2;
    slots_.assign(cap, Slot{kEmpty, 0});
    mask_ = cap - 1;
    shift_ = 64 - __builtin_ctzll((unsigned long long) cap);
    for (const Slot &s : old)
        if (s.key != kEmpty) {
            std::size_t i = home(s.key);
            while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
            slots_[i] = s;
        }
}

void LiveMap::erase_slot(std::size_t i) {
    // Backward shift: move later entries of the probe run into the hole when their home allows.
    for (std::size_t j = (i + 1) & mask_; slots_[j].key != kEmpty; j = (j + 1) & mask_) {
        std::size_t h = home(slots_[j].key);
        bool movable = i <= j ? (h <= i || h > j) : (h <= i && h > j);
        if (movable) {
            slots_[i] = slots_[j];
            i = j;
        }
    }
    slots_[i].key = kEmpty;
    --count_;
}

// ---- Chunk ----

Chunk::Chunk() { std::fill(std::begin(free_lists), std::end(free_lists), kNil); }

std::uint32_t Chunk::new_record() {
    if (unused_ != kNil) {
        std::uint32_t i = unused_;
        unused_ = records_[i].next;
        return i;
    }
    records_.push_back(Block{});
    return (std::uint32_t) (records_.size() - 1);
}

void Chunk::drop_record(std::uint32_t b) {
    records_[b].live = 0;
    records_[b].size = 0;
    records_[b].next = unused_;
    unused_ = b;
}

void Chunk::push_free(std::uint32_t i) {
    Block &b = records_[i];
    int c = size_class(b.size);
    b.prev_free = kNil;
    b.next_free = free_lists[c];
    if (free_lists[c] != kNil) records_[free_lists[c]].prev_free = i;
    free_lists[c] = i;
    nonempty |= 1ull << c;
}

void Chunk::unlink_free(std::uint32_t i) {
    Block &b = records_[i];
    int c = size_class(b.size);
    if (b.prev_free != kNil) records_[b.prev_free].next_free = b.next_free;
    else free_lists[c] = b.next_free;
    if (b.next_free != kNil) records_[b.next_free].prev_free = b.prev_free;
    if (free_lists[c] == kNil) nonempty &= ~(1ull << c);
    b.next_free = b.prev_free = kNil;
}

std::uint32_t Chunk::take_from_lists(std::size_t total) {
    int c = size_class(total);
    std::uint32_t found = kNil;
    // Same class: sizes in [2^c, 2^(c+1)) may be too small, so check a few; higher classes always fit.
    int scanned = 0;
    for (std::uint32_t b = free_lists[c]; b != kNil && scanned < 16; b = records_[b].next_free, ++scanned)
        if (records_[b].size >= total) {
            found = b;
            break;
        }
    if (found == kNil) {
        std::uint64_t higher = (c + 1 < 64) ? (nonempty & ~((2ull << c) - 1)) : 0;
        if (!higher) return kNil;
        found = free_lists[__builtin_ctzll(higher)];
    }
    unlink_free(found);
    std::size_t rest = records_[found].size - total;
    if (rest >= align) {  // split: the tail stays free
        std::uint32_t t = new_record();  // may move records_: index from here on
        Block &f = records_[found], &tail = records_[t];
        tail.offset = f.offset + total;
        tail.size = rest;
        tail.requested = 0;
        tail.live = 0;
        tail.freed_at = f.freed_at;
        tail.prev = found;
        tail.next = f.next;  // a free block is never the top one: there is always a next
        records_[f.next].prev = t;
        f.next = t;
        f.size = total;
        push_free(t);
    }
    return found;
}

std::uint32_t Chunk::take_from_top(std::size_t total) {
    if (capacity() - top < total) return kNil;
    std::uint32_t i = new_record();
    Block &b = records_[i];
    b.offset = top;
    b.size = total;
    b.prev = last;
    b.next = kNil;
    b.freed_at = cycles;
    if (last != kNil) records_[last].next = i;
    else first = i;
    last = i;
    top += total;
    return i;
}

std::uint32_t Chunk::remove_stash_slot(int k) {
    std::uint32_t b = stash_[k];
    for (int j = k + 1; j < stashed_; ++j) stash_[j - 1] = stash_[j];
    --stashed_;
    return b;
}

std::uint32_t Chunk::take_from_stash(std::size_t total) {
    for (int k = stashed_ - 1; k >= 0; --k)  // newest first: its memory is the warmest
        if (records_[stash_[k]].size == total) return remove_stash_slot(k);
    return kNil;
}

void Chunk::stash(std::uint32_t b) {
    if (stashed_ == kStashSlots) unstash_at(0);  // the oldest makes room
    Block &r = records_[b];
    r.requested = 0;
    r.freed_at = cycles;
    --live_blocks;
    live_bytes -= r.size;
    stash_[stashed_++] = b;
}

void Chunk::unstash_at(int k) {
    std::uint32_t b = remove_stash_slot(k);
    // release_unmapped() takes a live block: count it live for the moment.
    ++live_blocks;
    live_bytes += records_[b].size;
    release_unmapped(b);
}

std::uint32_t Chunk::allocate(std::size_t total, bool prefer_top, std::size_t &dirty) {
    std::size_t old_high = high_water;
    if (stashed_ && !prefer_top)
        if (std::uint32_t i = take_from_stash(total); i != kNil) {
            Block &b = records_[i];  // still marked live, its links untouched
            dirty = old_high > b.offset ? std::min<std::size_t>(old_high, b.offset + b.size) - b.offset : 0;
            ++live_blocks;
            live_bytes += b.size;
            live_.insert(b.offset, i);
            return i;
        }
    std::uint32_t i = prefer_top ? take_from_top(total) : nonempty ? take_from_lists(total) : kNil;
    if (i == kNil) i = prefer_top ? (nonempty ? take_from_lists(total) : kNil) : take_from_top(total);
    if (i == kNil) return kNil;
    Block &b = records_[i];
    dirty = old_high > b.offset ? std::min<std::size_t>(old_high, b.offset + b.size) - b.offset : 0;
    if (top > high_water) high_water = top;
    if (top > window_top) window_top = top;
    b.live = 1;
    b.next_free = b.prev_free = kNil;
    ++live_blocks;
    live_bytes += b.size;
    live_.insert(b.offset, i);
    return i;
}

void Chunk::release_unmapped(std::uint32_t i) {
    Block *b = &records_[i];
    b->live = 0;
    b->requested = 0;
    --live_blocks;
    live_bytes -= b->size;
    if (std::uint32_t n = b->next; n != kNil && !records_[n].live) {
        unlink_free(n);
        b->size += records_[n].size;
        b->next = records_[n].next;
        records_[b->next].prev = i;  // a free block is never the top one
        drop_record(n);
    }
    if (std::uint32_t p = b->prev; p != kNil && !records_[p].live) {
        unlink_free(p);
        Block &pb = records_[p];
        pb.size += b->size;
        pb.next = b->next;
        if (b->next != kNil) records_[b->next].prev = p;
        else last = p;
        drop_record(i);
        i = p;
        b = &pb;
    }
    b->freed_at = cycles;  // part of the merged block was in use this cycle
    if (b->next == kNil) {  // top of the bump stack: shrink it
        top = b->offset;
        last = b->prev;
        if (last != kNil) records_[last].next = kNil;
        else first = kNil;
        drop_record(i);
    } else {
        push_free(i);
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
    // The block that holds `off`: walk the records in address order (zombie chunks only, rare).
    for (std::uint32_t i = first; i != kNil; i = records_[i].next) {
        const Block &b = records_[i];
        if (b.offset <= off && off < b.offset + b.size) {
            if (b.live) return 0;
            release_pages(mapping, b.offset, b.size);
            return b.size;
        }
    }
    return 0;
}

std::size_t Chunk::trim(std::size_t min_bytes, std::uint64_t age) {
    if (!mapping.host_accessible() || mapping.source == Source::Heap) return 0;
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
        for (std::uint32_t i = free_lists[c]; i != kNil; i = records_[i].next_free) {
            const Block &b = records_[i];
            if (b.size >= min_bytes && cycles - b.freed_at >= age && release_pages(mapping, b.offset, b.size))
                released += b.size;
        }
    }
    window_top = top;
    return released;
}

std::string Chunk::check() const {
    std::size_t off = 0, live = 0, live_b = 0, free_blocks = 0, stashed_seen = 0;
    if (stashed_ < 0 || stashed_ > kStashSlots) return "bad stash count";
    auto in_stash = [&](std::uint32_t i) {
        for (int k = 0; k < stashed_; ++k)
            if (stash_[k] == i) return true;
        return false;
    };
    std::uint32_t prev = kNil;
    bool prev_free = false;
    std::size_t walked = 0;
    for (std::uint32_t i = first; i != kNil; i = records_[i].next) {
        if (i >= records_.size() || ++walked > records_.size()) return "broken address-order links";
        const Block &b = records_[i];
        std::string at = " at offset " + std::to_string(off);
        if (b.offset != off) return "a gap or overlap" + at;
        if (b.size == 0 || b.size % align || off + b.size > top) return "bad size " + std::to_string(b.size) + at;
        if (b.prev != prev) return "bad prev link" + at;
        if (!b.live && prev_free) return "two adjacent free blocks" + at;
        if (b.live && in_stash(i)) {  // kept whole: neither in the live map nor in the counters
            ++stashed_seen;
            if (b.size > kStashMaxBytes || b.requested) return "a bad stashed block" + at;
            if (live_.find(b.offset) != kNil) return "a stashed block in the live map" + at;
        } else if (b.live) {
            ++live;
            live_b += b.size;
            if (live_.find(b.offset) != i) return "a live block missing from the live map" + at;
        } else {
            ++free_blocks;
        }
        prev_free = !b.live;
        prev = i;
        off += b.size;
    }
    if (off != top) return "blocks end at " + std::to_string(off) + ", not at top " + std::to_string(top);
    if (prev_free) return "a free block ends at the top";
    if (stashed_seen != (std::size_t) stashed_) return "the stash names blocks that are not in the chunk (or twice)";
    if (prev != last) return "last does not name the top block";
    if (live != live_blocks || live_b != live_bytes) return "live counters do not match the blocks";
    if (live_.size() != live) return "the live map holds blocks that are not live";
    std::size_t listed = 0;
    for (int c = 0; c < kClasses; ++c) {
        if (bool(nonempty & (1ull << c)) != (free_lists[c] != kNil)) return "bad nonempty bitmap";
        for (std::uint32_t i = free_lists[c]; i != kNil; i = records_[i].next_free) {
            if (i >= records_.size() || ++listed > records_.size()) return "broken free list links";
            const Block &b = records_[i];
            if (b.live || b.size == 0) return "a listed block is live or unused";
            if (size_class(b.size) != c) return "a block is in the wrong class";
        }
    }
    if (listed != free_blocks) return "free lists do not hold every free block";
    return "";
}

} // namespace wsa
