/// src/python/fast_ops.h -- the operators' lean path for float64 arrays.
///
/// `x op y`, `-x`, `abs(x)` and `x op= y` on wsarray Arrays of float64 whose rows are contiguous
/// (C-contiguous arrays, and 2-D slices such as u[1:-1, 2:]), with an Array of the same shape or a
/// Python float/int as the other operand, run C++ kernels (src/core/compute/kernels.h) instead of a NumPy
/// ufunc call: no argument tuples, no type resolution, and large arrays are split over a small
/// thread pool. Results are NumPy's, bit for bit, and floating-point errors are reported as NumPy
/// reports them (np.errstate). Everything else returns null so that the caller takes the general
/// path through NumPy.
///
/// A temporary (an Array that only the interpreter's stack holds, whose memory nothing else can
/// see) is overwritten with the result instead of allocating another array, like NumPy's own
/// temporary elision, which cannot fire through the wrapper.
#pragma once
#include "common.h"

#include "compute/kernels.h"

namespace wsa_py {

/// Import NumPy's C API for this file; call once from module init.
void init_fast_ops();

/// New reference to the result, or null with no error set when the fast path does not apply.
/// Raises (nb::python_error) for stale arrays and for floating-point errors np.errstate turns into
/// exceptions.
PyObject *fast_binary(wsa::BinaryOp op, PyObject *x, PyObject *y, const char *fn);
PyObject *fast_unary(wsa::UnaryOp op, PyObject *x, const char *fn);
/// `x.sum()` (no arguments) of a C-contiguous float64 Array: NumPy's pairwise sum, bit for bit,
/// as a 0-d Array; null when it does not apply.
/// `mean`: `x.mean()` instead (NumPy's mean of float64 divides that sum by the count).
PyObject *fast_sum(PyObject *x, const char *fn, bool mean = false);
/// `self op= other` written into self; returns false (nothing written) when it does not apply.
bool fast_inplace(wsa::BinaryOp op, PyObject *self, PyObject *other, const char *fn);

/// What a 1-input, 1-output NumPy ufunc needs per input dtype for the lean path, resolved the
/// first time that dtype is seen (one per wsarray function; the GIL guards it).
struct UfuncCache {
    struct Entry;
    Entry *entries = nullptr;  ///< indexed by NumPy type number (builtin numeric types)
    UfuncCache() = default;
    UfuncCache(const UfuncCache &) = delete;
    UfuncCache &operator=(const UfuncCache &) = delete;
    ~UfuncCache();
};

/// `ufunc(x)` for a C-contiguous, non-empty Array `x` of a builtin numeric dtype: NumPy's own
/// strided loop for that dtype (the one NumPy's dispatch picks, from the documented
/// ufunc._resolve_dtypes_and_context / _get_strided_loop pair) run on an output allocated in the
/// current workspace, without NumPy's per-call argument parsing and dispatch. `real_only`: complex
/// inputs take the general path (wsarray patches NumPy's complex results there). Null with no
/// error set when it does not apply, and when the loop raised a floating-point flag (the general
/// path then recomputes, so np.errstate reports it as NumPy does).
PyObject *fast_ufunc1(UfuncCache &cache, PyObject *ufunc, bool real_only, PyObject *x, const char *fn);

/// `ufunc.reduce(x, axis=None)` (x.max(), x.min()) for a C-contiguous Array of a real builtin
/// numeric dtype with 1 .. 8192 elements: the first element, then NumPy's own reduction loop over
/// the rest (as NumPy's reduce without identity runs it). Null with no error set when it does not
/// apply or a floating-point flag was raised.
PyObject *fast_reduce_all(UfuncCache &cache, PyObject *ufunc, PyObject *x, const char *fn);

/// NumPy creation functions with a lean path.
enum class Creation { None, Zeros, Empty, Ones, Full, Arange };
/// `zeros/empty/ones(shape[, dtype])`, `full(shape, fill[, dtype])` with an int or a tuple of ints
/// as shape, a builtin numeric dtype and a Python number as fill: allocated straight in the
/// current workspace; `arange(stop)` / `arange(start, stop)` with Python ints (NumPy's default
/// integer). Null with no error set when it does not apply.
PyObject *fast_create(Creation kind, PyObject *const *args, Py_ssize_t nargs, PyObject *kwargs);

/// `a[key]` for an integer (or a tuple of integers, one per axis) selecting one element of a
/// builtin numeric dtype: the 0-d result made directly (as NumPy's scalar wrapped). Null with no
/// error set when it does not apply (out-of-range indices included: the general path raises).
PyObject *fast_item(Array &a, PyObject *key);

} // namespace wsa_py
