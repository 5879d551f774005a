/// src/core/compute/kernels.cpp -- see kernels.h. Built with -ffp-contract=off so that a*b+c is never
/// fused (NumPy rounds each operation separately).
#include "kernels.h"

#include "thread_pool.h"

#include <algorithm>
#include <cfenv>
#include <cmath>
#if defined(__SSE2__)
#include <immintrin.h>
#endif
#include <vector>

namespace wsa {

namespace {

// Baseline loops, and the same loops compiled for AVX2 (GCC; other compilers get the baseline).
namespace generic {
#include "kernel_loops.inc"
} // namespace generic

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define WSA_HAVE_AVX2_LOOPS 1
#pragma GCC push_options
#pragma GCC target("avx2")
namespace avx2 {
#include "kernel_loops.inc"
} // namespace avx2
#pragma GCC pop_options
#endif

/// The loops this CPU runs, chosen once.
struct Loops {
    decltype(&generic::run_binary) run_binary;
    decltype(&generic::run_unary) run_unary;
    decltype(&generic::pairwise) pairwise;
};

const Loops &loops() {
    static const Loops chosen = [] {
#ifdef WSA_HAVE_AVX2_LOOPS
        // pairwise() stays on the baseline build: GCC's AVX2 code for its eight accumulators
        // measured 1.8x slower than the SSE2 code (131,072 doubles).
        if (__builtin_cpu_supports("avx2")) return Loops{avx2::run_binary, avx2::run_unary, generic::pairwise};
#endif
        return Loops{generic::run_binary, generic::run_unary, generic::pairwise};
    }();
    return chosen;
}

/// Split rows x cols elements into `parts` ranges of the flattened grid and call
/// seg(row, first column, count) for every contiguous run of part `p`.
template <typename Seg> void for_part(std::size_t p, std::size_t parts, std::size_t rows, std::size_t cols, Seg seg) {
    std::size_t total = rows * cols;
    std::size_t begin = total * p / parts, end = total * (p + 1) / parts;
    while (begin < end) {
        std::size_t r = begin / cols, c = begin % cols;
        std::size_t n = std::min(cols - c, end - begin);
        seg(r, c, n);
        begin += n;
    }
}

/// Parts of at least 64 Ki elements, up to four per thread: a caller whose worker is slow to wake
/// (a busy machine, BLAS threads spinning) takes the unclaimed parts itself instead of waiting.
std::size_t parts_for(std::size_t total) {
    if (total < kParallelThreshold || pool_threads() == 1) return 1;
    return std::min(4 * pool_threads(), total / (std::size_t(1) << 16));
}

/// Runs `body` with clean floating-point exception flags and returns the FpFlags it raised,
/// leaving the thread's flags as they were. On x86-64 double arithmetic raises its flags in the
/// SSE control register only, which is much cheaper to read and write than the full
/// <cfenv> state (that also saves and restores the x87 unit's).
template <typename Body> int watch_fp(Body body) {
#if defined(__SSE2__)
    unsigned saved = _mm_getcsr();
    _mm_setcsr(saved & ~0x3Fu);
    body();
    unsigned raised = _mm_getcsr();
    _mm_setcsr(saved);
    return (raised & 0x04 ? kDivideByZero : 0) | (raised & 0x08 ? kOverflow : 0) | (raised & 0x10 ? kUnderflow : 0) |
           (raised & 0x01 ? kInvalid : 0);
#else
    std::fexcept_t saved;
    std::fegetexceptflag(&saved, FE_ALL_EXCEPT);
    std::feclearexcept(FE_ALL_EXCEPT);
    body();
    int fe = std::fetestexcept(FE_ALL_EXCEPT);
    std::fesetexceptflag(&saved, FE_ALL_EXCEPT);
    return (fe & FE_DIVBYZERO ? kDivideByZero : 0) | (fe & FE_OVERFLOW ? kOverflow : 0) |
           (fe & FE_UNDERFLOW ? kUnderflow : 0) | (fe & FE_INVALID ? kInvalid : 0);
#endif
}

/// The leaves of the top `levels` levels of pairwise()'s tree, left to right.
void split_tree(const double *a, std::size_t n, int levels, std::vector<std::pair<const double *, std::size_t>> &out) {
    if (levels == 0 || n <= 128) {
        out.emplace_back(a, n);
        return;
    }
    std::size_t n2 = n / 2;
    n2 -= n2 % 8;
    split_tree(a, n2, levels - 1, out);
    split_tree(a + n2, n - n2, levels - 1, out);
}

/// Add the leaf sums back up the same tree.
double combine_tree(const double *a, std::size_t n, int levels, const std::vector<double> &sums, std::size_t &next) {
    if (levels == 0 || n <= 128) return sums[next++];
    std::size_t n2 = n / 2;
    n2 -= n2 % 8;
    double left = combine_tree(a, n2, levels - 1, sums, next);
    double right = combine_tree(a + n2, n - n2, levels - 1, sums, next);
    return left + right;
}

} // namespace

const char *kernel_isa() {
#ifdef WSA_HAVE_AVX2_LOOPS
    if (loops().run_binary == avx2::run_binary) return "avx2";
#endif
    return "baseline";
}

void fill_f64(double *out, std::size_t n, double v) {
    for (std::size_t i = 0; i < n; ++i) out[i] = v;
}

void iota_i64(std::int64_t *out, std::size_t n, std::int64_t start) {
    for (std::size_t i = 0; i < n; ++i) out[i] = start + (std::int64_t) i;
}

double sum_f64(const double *a, std::size_t n, int &flags) {
    double total = 0.0;
    int levels = 0;
    if (n >= kParallelThreshold)
        while ((std::size_t(2) << levels) <= pool_threads() && levels < 3) ++levels;
    if (levels == 0) {
        auto pairwise = loops().pairwise;
        flags = watch_fp([&] { total = 0.0 + pairwise(a, n); });
        return total;
    }
    std::vector<std::pair<const double *, std::size_t>> leaves;
    split_tree(a, n, levels, leaves);
    std::vector<double> sums(leaves.size());
    std::vector<int> raised(leaves.size(), 0);
    parallel_for(leaves.size(), [&](std::size_t i) {
        raised[i] = watch_fp([&] { sums[i] = loops().pairwise(leaves[i].first, leaves[i].second); });
    });
    std::size_t next = 0;
    int top = watch_fp([&] { total = 0.0 + combine_tree(a, n, levels, sums, next); });
    flags = top;
    for (int r : raised) flags |= r;
    return total;
}

int binary_f64(BinaryOp op, std::size_t rows, std::size_t cols, const Grid &a, const Grid &b, const OutGrid &out) {
    auto run_binary = loops().run_binary;
    std::size_t parts = parts_for(rows * cols);
    if (parts == 1) {
        return watch_fp([&] {
            for (std::size_t r = 0; r < rows; ++r) run_binary(op, r, 0, cols, a, b, out);
        });
    }
    // Each thread has its own floating-point flags: every part checks its own.
    std::vector<int> raised(parts, 0);
    parallel_for(parts, [&](std::size_t p) {
        raised[p] = watch_fp([&] {
            for_part(p, parts, rows, cols,
                     [&](std::size_t r, std::size_t c, std::size_t n) { run_binary(op, r, c, n, a, b, out); });
        });
    });
    int all = 0;
    for (int r : raised) all |= r;
    return all;
}

void unary_f64(UnaryOp op, std::size_t rows, std::size_t cols, const Grid &a, const OutGrid &out) {
    auto run_unary = loops().run_unary;
    std::size_t parts = parts_for(rows * cols);
    parallel_for(parts, [&](std::size_t p) {
        for_part(p, parts, rows, cols,
                 [&](std::size_t r, std::size_t c, std::size_t n) { run_unary(op, r, c, n, a, out); });
    });
}

} // namespace wsa
