/// src/python/fast_scalars.cpp -- float64/int64 scalar results' operators computed in C++ (see
/// fast_scalars.h): operand classification, NEP 50 promotion, the operations with the cases NumPy
/// flags left to NumPy, and the boxing of results.
#include "numpy_api.h"

#include "fast_scalars.h"

#include "array_record.h"

#include <numpy/arrayscalars.h>

#include <climits>
#include <cmath>

namespace wsa_py {

namespace {

static_assert(sizeof(long) == 8, "NumPy's int64 is C long here (NPY_LONG)");

/// An operand: a float64 or int64 value, strong (a scalar result: its dtype takes part in the
/// promotion) or weak (a Python float or int, NEP 50).
struct Num {
    bool is_float = false;
    bool weak = false;
    double f = 0.0;
    long long i = 0;
};

bool num_of(PyObject *o, Num &n) {
    if (is_array(o)) {
        Array &a = array_of(o);
        // The value is read from the NumPy scalar the result holds (scalar results hold ordinary
        // memory: no cycle to check).
        if (!a.from_scalar) return false;
        if (a.inline_kind == Array::Inline::Float64) {
            n.is_float = true;
            n.f = a.inline_float();
            return true;
        }
        if (a.inline_kind == Array::Inline::Int64) {
            n.i = a.inline_int();
            return true;
        }
        if (!a.scalar.is_valid() || !stands_for_scalar(a)) return false;
        PyObject *s = a.scalar.ptr();
        if (Py_TYPE(s) == &PyDoubleArrType_Type) {
            n.is_float = true;
            n.f = PyArrayScalar_VAL(s, Double);
            return true;
        }
        if (Py_TYPE(s) == &PyLongArrType_Type) {
            n.i = PyArrayScalar_VAL(s, Long);
            return true;
        }
        return false;
    }
    n.weak = true;
    if (PyFloat_CheckExact(o)) {
        n.is_float = true;
        n.f = PyFloat_AS_DOUBLE(o);
        return true;
    }
    if (PyLong_CheckExact(o)) {
        int overflow = 0;
        n.i = PyLong_AsLongLongAndOverflow(o, &overflow);  // an exact int sets no error
        return !overflow;  // out of int64: NumPy raises OverflowError (its path)
    }
    return false;
}

/// The value as the float64 NumPy computes with; false for a Python int beyond 2^53.
bool as_double(const Num &n, double &out) {
    if (n.is_float) {
        out = n.f;
        return true;
    }
    if (n.weak && (n.i > kExactInt || n.i < -kExactInt)) return false;
    out = static_cast<double>(n.i);  // NumPy's int64 -> float64 cast
    return true;
}

PyObject *boxed_bool(bool v) { return make_scalar_result(v ? PyArrayScalar_True : PyArrayScalar_False); }

bool is_comparison(ScalarOp op) { return op >= ScalarOp::Lt && op <= ScalarOp::Ge; }

template <class T> bool compare(ScalarOp op, T a, T b) {
    switch (op) {
    case ScalarOp::Lt: return a < b;
    case ScalarOp::Le: return a <= b;
    case ScalarOp::Eq: return a == b;
    case ScalarOp::Ne: return a != b;
    case ScalarOp::Gt: return a > b;
    default: return a >= b;
    }
}

/// Float arithmetic; null where NumPy would see a floating-point flag: the result is not a normal
/// number, unless it is an exact zero (x - x, 0 * y, 0 / y: no flag) -- overflow gives inf, invalid
/// gives NaN, underflow gives a subnormal or an inexact zero, a zero divisor is refused first.
/// // and % of floats stay NumPy's (npy_divmod's sign rules).
PyObject *float_arithmetic(ScalarOp op, double a, double b) {
    double r;
    switch (op) {
    case ScalarOp::Add: r = a + b; break;
    case ScalarOp::Sub: r = a - b; break;
    case ScalarOp::Mul: r = a * b; break;
    case ScalarOp::Div:
        if (b == 0.0) return nullptr;
        r = a / b;
        break;
    default: return nullptr;
    }
    if (!std::isnormal(r)) {
        bool finite = std::isfinite(a) && std::isfinite(b);
        bool exact_zero = r == 0.0 && finite &&
                          (op == ScalarOp::Add || op == ScalarOp::Sub || a == 0.0 || (op == ScalarOp::Mul && b == 0.0));
        if (!exact_zero) return nullptr;
    }
    return make_float64_result(r);
}

/// int64 arithmetic (true division gives float64, as NumPy's); null on overflow or a zero divisor
/// (NumPy warns there and gives its own values).
PyObject *int_arithmetic(ScalarOp op, long long a, long long b) {
    long long r;
    switch (op) {
    case ScalarOp::Add:
        if (__builtin_add_overflow(a, b, &r)) return nullptr;
        return make_int64_result(r);
    case ScalarOp::Sub:
        if (__builtin_sub_overflow(a, b, &r)) return nullptr;
        return make_int64_result(r);
    case ScalarOp::Mul:
        if (__builtin_mul_overflow(a, b, &r)) return nullptr;
        return make_int64_result(r);
    case ScalarOp::Div: return float_arithmetic(op, static_cast<double>(a), static_cast<double>(b));
    case ScalarOp::FloorDiv:
        if (b == 0 || (a == LLONG_MIN && b == -1)) return nullptr;
        r = a / b;
        if (a % b != 0 && ((a < 0) != (b < 0))) --r;  // toward minus infinity
        return make_int64_result(r);
    case ScalarOp::Mod:
        if (b == 0) return nullptr;
        if (b == -1) return make_int64_result(0);  // LLONG_MIN % -1 is undefined in C++; NumPy gives 0
        r = a % b;
        if (r != 0 && ((r < 0) != (b < 0))) r += b;  // the sign of the divisor
        return make_int64_result(r);
    default: return nullptr;
    }
}

} // namespace

PyObject *fast_scalar_binary(ScalarOp op, PyObject *x, PyObject *y) {
    if (op == ScalarOp::None) return nullptr;
    Num a, b;
    if (!num_of(x, a) || !num_of(y, b)) return nullptr;
    if (!a.is_float && !b.is_float) {  // int64 with int64 or a Python int that fits: int64
        if (is_comparison(op)) return boxed_bool(compare(op, a.i, b.i));
        return int_arithmetic(op, a.i, b.i);
    }
    double fa, fb;  // float64 with anything here: float64 (NEP 50)
    if (!as_double(a, fa) || !as_double(b, fb)) return nullptr;
    if (is_comparison(op)) return boxed_bool(compare(op, fa, fb));
    return float_arithmetic(op, fa, fb);
}

} // namespace wsa_py
