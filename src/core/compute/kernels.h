/// src/core/compute/kernels.h -- float64 elementwise kernels for the operators' fast path.
///
/// An operand is a 2-D grid of doubles (rows x cols) whose rows are contiguous and may sit at any
/// distance from each other (a slice like u[1:-1, 2:]), or a scalar. The result grid has the same
/// shape. Large grids are split over the thread pool (thread_pool.h). Every kernel computes exactly
/// what NumPy computes for float64 (IEEE operations, no contraction into fused multiply-add); when
/// any element raises a floating-point exception (divide by zero, overflow, underflow, invalid)
/// the kernel reports it so that the caller can report it as NumPy would (np.errstate).
#pragma once
#include <cstddef>
#include <cstdint>

namespace wsa {

enum class BinaryOp { Add, Sub, Mul, Div, Less, LessEqual, Equal, NotEqual, Greater, GreaterEqual };
enum class UnaryOp { Negative, Absolute };

inline bool is_comparison(BinaryOp op) { return op >= BinaryOp::Less; }

struct Grid {
    const double *data = nullptr;  ///< first element (unused for scalars)
    std::ptrdiff_t row_stride = 0; ///< elements between the starts of consecutive rows
    bool scalar = false;
    double value = 0;              ///< the scalar
};

struct OutGrid {
    void *data = nullptr;          ///< double for arithmetic, bool (one byte) for comparisons
    std::ptrdiff_t row_stride = 0; ///< elements
};

/// Floating-point exceptions a kernel raised (NumPy's order: divide, over, under, invalid).
enum FpFlags { kDivideByZero = 1, kOverflow = 2, kUnderflow = 4, kInvalid = 8 };

/// out = a op b over rows x cols. The output is always complete (IEEE results, as NumPy's);
/// returns the FpFlags raised, which the caller reports the way NumPy's np.errstate asks.
int binary_f64(BinaryOp op, std::size_t rows, std::size_t cols, const Grid &a, const Grid &b, const OutGrid &out);

/// out = op(a) over rows x cols. Never raises floating-point exceptions.
void unary_f64(UnaryOp op, std::size_t rows, std::size_t cols, const Grid &a, const OutGrid &out);

/// NumPy's sum of `n` contiguous doubles, bit for bit: 0.0 + the pairwise sum NumPy's add.reduce
/// computes (blocks of 128 with eight accumulators, split in halves rounded to multiples of 8).
/// Large sums compute the top halves of that tree on the thread pool and add them in the same
/// order, so the result does not depend on the thread count. `flags` receives the FpFlags raised.
double sum_f64(const double *a, std::size_t n, int &flags);

/// Write `v` into `n` contiguous doubles (np.ones, np.full): a vectorised loop here, where the
/// bindings, built for size, would store one double at a time.
void fill_f64(double *out, std::size_t n, double v);

/// Write start, start + 1, ... into `n` contiguous 64-bit integers (np.arange with ints), likewise.
void iota_i64(std::int64_t *out, std::size_t n, std::int64_t start);

/// The instruction set of the loops in use: "avx2" or "baseline" (x86-64), picked at run time.
const char *kernel_isa();

/// Elements (4 MiB of doubles) from which work is split over the thread pool. Below it, waking a
/// worker costs more than it saves, and loops that mix BLAS calls with elementwise work (an MLP
/// step) would make our workers compete with BLAS's spinning threads.
constexpr std::size_t kParallelThreshold = std::size_t(1) << 19;

} // namespace wsa
