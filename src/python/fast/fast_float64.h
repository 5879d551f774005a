/// src/python/fast/fast_float64.h -- the operators' lean path for float64 arrays.
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
#include "results/array_object.h"

#include "compute/kernels.h"

namespace wsa_py {

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

} // namespace wsa_py
