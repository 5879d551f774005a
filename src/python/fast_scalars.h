/// src/python/fast_scalars.h -- arithmetic and comparisons of scalar results computed in C++.
///
/// Element loops (`s += a[i] * a[i]`, `if b[i] % 3 == 0`) apply operators to scalar results (0-d
/// Arrays standing for NumPy scalars) and Python numbers, one element at a time. For float64 and
/// int64 values, with Python floats and ints that fit, the result is computed here and boxed as
/// NumPy boxes it, without NumPy's scalar-math dispatch. The values are NumPy's exactly: the
/// promotion is NEP 50's, float results are IEEE operations on the same doubles, integer division
/// and remainder floor as NumPy's. Whenever NumPy would set a floating-point flag or warn (a result
/// that is not a normal number unless it is an exact zero, integer overflow, a zero divisor) the
/// function declines and the caller takes NumPy's own path, which warns or raises as np.errstate
/// says.
#pragma once
#include <Python.h>

namespace wsa_py {

enum class ScalarOp { Add, Sub, Mul, Div, FloorDiv, Mod, Lt, Le, Eq, Ne, Gt, Ge, None };

/// The comparison for a rich-compare code (Py_LT ... Py_GE).
inline ScalarOp scalar_comparison(int cmp) { return static_cast<ScalarOp>(static_cast<int>(ScalarOp::Lt) + cmp); }

/// `x op y` when one operand is a float64/int64 scalar result and the other one too or a Python
/// float or int (int64 range): a new scalar result (a new reference). Null, with no error set,
/// when the pair or the result is not one this path answers exactly as NumPy.
PyObject *fast_scalar_binary(ScalarOp op, PyObject *x, PyObject *y);

} // namespace wsa_py
