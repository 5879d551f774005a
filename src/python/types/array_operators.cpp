/// src/python/types/array_operators.cpp -- wsarray.Array's operators: + - * / // % ** and the comparisons
/// as type slots (float64 kernels first, NumPy's ufuncs otherwise), the unary operators, and the in-place and remaining operators as methods.
#include "types/array_internal.h"

#include "calls/engine.h"
#include "fast/fast_float64.h"
#include "fast/fast_indexing.h"
#include "fast/fast_numpy.h"
#include "numpy_access/numpy_access.h"
#include "allocation/numpy_alloc.h"
#include "numpy_access/numpy_api.h"
#include "workspaces/scopes.h"

#include <cmath>
#include <cstring>
#include <string>

namespace wsa_py {

NumpyOps ops;

namespace {

PyObject *lookup(nb::handle module, const char *name) { return module.attr(name).inc_ref().ptr(); }

void load_ops() {
    nb::module_ np = nb::module_::import_("numpy");
    nb::module_ op = nb::module_::import_("operator");
    ops = {lookup(np, "add"), lookup(np, "subtract"), lookup(np, "multiply"), lookup(np, "true_divide"),
           lookup(np, "floor_divide"), lookup(np, "remainder"), lookup(np, "power"), lookup(np, "matmul"),
           lookup(np, "bitwise_and"), lookup(np, "bitwise_or"), lookup(np, "bitwise_xor"), lookup(np, "left_shift"),
           lookup(np, "right_shift"), lookup(np, "negative"), lookup(np, "positive"), lookup(np, "absolute"),
           lookup(np, "invert"),
           // Comparisons fall back to ndarray's own operators: for operands NumPy cannot convert
           // (a != (4, "ii"), a == None) they answer as ndarray does, unlike the ufuncs.
           lookup(op, "lt"), lookup(op, "le"), lookup(op, "eq"), lookup(op, "ne"), lookup(op, "gt"), lookup(op, "ge"),
           lookup(np, "divmod"), lookup(op, "getitem"), lookup(op, "setitem"), lookup(np, "array"), lookup(np, "copy"),
           np.inc_ref().ptr(), lookup(op, "eq"), lookup(op, "ne"), lookup(nb::module_::import_("builtins"), "setattr"),
           lookup(op, "pow"), lookup(op, "imatmul"), lookup(np, "floor_divide")};
}

/// `_native._set_operator(name, func)`: the operators named `name` (only "floor_divide" so far) call
/// `func` instead of NumPy's ufunc, for the few cases where NumPy deviates from the array API.
void set_operator(const std::string &name, nb::object func) {
    PyObject **slot = nullptr;
    if (name == "floor_divide") slot = &ops.floor_divide;
    if (!slot) raise(PyExc_ValueError, "wsarray._native._set_operator(): unknown operator '" + name + "'");
    Py_XSETREF(*slot, func.inc_ref().ptr());
}

}  // namespace

nb::object call1(const char *name, PyObject *f, nb::handle x) {
    PyObject *args[1] = {x.ptr()};
    return apply_vector(name, f, args, 1, nullptr);
}

nb::object call2(const char *name, PyObject *f, nb::handle x, nb::handle y) {
    PyObject *args[2] = {x.ptr(), y.ptr()};  // no argument tuple
    return apply_vector(name, f, args, 2, nullptr);
}

namespace {

/// NumPy's binary-operator deferral (NEP 13, ndarray's binop_should_defer): an operand whose type
/// sets `__array_ufunc__ = None` (numpy polynomials, user classes opting out) gets its reflected
/// operator: `a * p` is `p.__rmul__(a)`. One whose type defines `__array_ufunc__` (another array
/// library, a wrapper) does not: the ufunc runs, and NumPy's dispatch hands that object's
/// __array_ufunc__ the operands in their order (`a @ r` is `r.__array_ufunc__(matmul, "__call__",
/// a, r)`). Plain Python values, ndarrays, NumPy scalars and Arrays never defer (no lookup).
bool should_defer(PyObject *other, bool inplace = false) {
    if (is_array(other) || other == Py_None || PyLong_CheckExact(other) || PyFloat_CheckExact(other) ||
        PyBool_Check(other) || PyComplex_CheckExact(other) || PyList_CheckExact(other) || PyTuple_CheckExact(other) ||
        PyUnicode_CheckExact(other) || is_ndarray_exact(other) || is_numpy_scalar(other))
        return false;
    static PyObject *name = PyUnicode_InternFromString("__array_ufunc__");
    PyObject *override = _PyType_Lookup(Py_TYPE(other), name);
    if (override) return !inplace && override == Py_None;  // x += p still runs the ufunc
    // No __array_ufunc__ at all: NumPy's legacy rule, an operand whose __array_priority__ is above
    // an ndarray's (0.0) gets its reflected operator.
    static PyObject *priority_name = PyUnicode_InternFromString("__array_priority__");
    nb::object priority = nb::steal(PyObject_GetAttr(other, priority_name));
    if (!priority.is_valid()) {
        PyErr_Clear();
        return false;
    }
    double value = PyFloat_AsDouble(priority.ptr());
    if (value == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();  // as NumPy, which reads an unusable priority as the default
        return false;
    }
    return value > 0.0;
}

/// `x op y` through the float64 fast path when it applies (fast_float64.h), else through NumPy.
nb::object binary(const char *name, wsa::BinaryOp op, PyObject *f, nb::handle x, nb::handle y) {
    if (PyObject *r = fast_binary(op, x.ptr(), y.ptr(), name)) return nb::steal(r);
    return call2(name, f, x, y);
}

/// The ndarray of an Array operand of `@` when it has 2 or more dimensions (stale Arrays raise,
/// naming `fn`); null otherwise.
PyArrayObject *matmul_operand(PyObject *x, const char *fn) {
    if (!is_array(x)) return nullptr;
    PyArrayObject *d = plain_ndarray(self_of(x, fn));
    return d && PyArray_NDIM(d) >= 2 ? d : nullptr;
}

/// x @ y for two Arrays of 2 or more dimensions: two 2-D operands of one dtype run NumPy's matmul
/// loop directly (fast_matmul_2d); otherwise ndarray's own @ on their ndarrays, the result
/// (always a new array) wrapped as made in the current target. The general path's argument scan,
/// override checks and registry lookup cost a quarter of an 8 x 8 product. Null (nothing raised)
/// for anything else and for every error, which the general path then raises with its message.
PyObject *fast_matmul(PyObject *x, PyObject *y, const char *fn) {
    PyArrayObject *a = matmul_operand(x, fn);
    PyArrayObject *b = a ? matmul_operand(y, fn) : nullptr;
    if (!b) return nullptr;
    if (PyObject *r = fast_matmul_2d(ops.matmul, a, b)) return r;
    wsa::Workspace *target = current_target();
    PyObject *r =
        try_routed_call(target,  // both exact ndarrays: their type's slot directly (what PyNumber_MatrixMultiply finds)
                        [&] { return Py_TYPE(a)->tp_as_number->nb_matrix_multiply((PyObject *) a, (PyObject *) b); },
                        [&](PyObject *r) -> PyObject * {
        if (!is_ndarray_exact(r) || !ndarray_owns_data(r) ||
            (target && routed_owner_of(PyArray_DATA((PyArrayObject *) r)) != target))
            return nullptr;  // not the fresh result expected: the general path decides
        return Py_NewRef(r);
    });
    return r ? wrap_new(r, target) : nullptr;
}

nb::object unary(const char *name, wsa::UnaryOp op, PyObject *f, nb::handle x) {
    if (PyObject *r = fast_unary(op, x.ptr(), name)) return nb::steal(r);
    return call1(name, f, x);
}

/// In-place operator: NumPy writes into the array's own memory, so no allocation is made.
nb::object inplace(const char *name, PyObject *f, nb::handle self, nb::handle other) {
    Array &a = self_of(self, name);
    nb::object args = nb::make_tuple(self, other);
    if (f == ops.matmul && !foreign_override(other.ptr(), Protocol::Ufunc)) {
        // ndarray's own @=: it checks that the result keeps self's shape (matmul(out=) would
        // broadcast a 1-D result over self).
        apply(name, ops.imatmul, args.ptr(), nullptr);
        return nb::borrow(self);
    }
    nb::dict kw;
    kw["out"] = nb::make_tuple(a.data());
    nb::object r = apply(name, f, args.ptr(), kw.ptr());
    // An __array_ufunc__ override of the other operand answers for the whole operation, as with
    // ndarray's a += x (NDArrayOperatorsMixin's result type, a unit array subclass's new array):
    // its result, else this Array.
    if (!r.is_valid() || is_array(r.ptr()) || is_ndarray_exact(r.ptr())) return nb::borrow(self);
    return r;
}

/// Binary operators (+ - * / // % **) and the comparisons as type slots: Python calls them
/// directly (no `__add__` lookup, no nanobind argument dispatch). A binary slot gets both operand
/// orders: `a + 1` as (a, 1), `1 + a` as (1, a) -- the reflected operator.
struct BinarySlot {
    const char *name, *rname, *iname;
    bool kernel;  ///< has a float64 kernel (fast_float64.h) ...
    wsa::BinaryOp op;  ///< ... this one (else NumPy's path only)
    PyObject *NumpyOps::*f;
};

/// Every element of contiguous floating-point data `p` of `n` elements is finite.
template <class T> bool all_finite(const T *p, npy_intp n) {
    for (npy_intp i = 0; i < n; ++i)
        if (!std::isfinite(p[i])) return false;
    return true;
}

/// A Python int (bool included), a finite Python float, an Array of bool or integer dtype, or an Array of float32 or float64 whose elements
/// are all finite (contiguous ones are checked; any other layout or type answers false). Stale
/// Arrays raise (naming `fn`).
bool finite_reals(PyObject *o, const char *fn) {
    if (PyLong_Check(o)) return true;
    if (PyFloat_Check(o)) return std::isfinite(PyFloat_AS_DOUBLE(o));
    if (!is_array(o)) return false;
    PyArrayObject *d = plain_ndarray(self_of(o, fn));
    if (!d) return false;
    char kind = PyArray_DESCR(d)->kind;
    if (kind != 'f') return std::strchr("biu", kind) != nullptr;
    if (!PyArray_IS_C_CONTIGUOUS(d) && !PyArray_IS_F_CONTIGUOUS(d)) return false;
    switch (PyArray_TYPE(d)) {
    case NPY_DOUBLE: return all_finite((const double *) PyArray_DATA(d), PyArray_SIZE(d));
    case NPY_FLOAT: return all_finite((const float *) PyArray_DATA(d), PyArray_SIZE(d));
    default: return false;
    }
}

/// The function operator S runs on (x, y): `//` of finite real numbers is NumPy's floor_divide
/// itself (wsarray's differs from it only for infinite floats: the Python function's checks cost
/// 10x NumPy's time on small arrays).
template <const BinarySlot &S> PyObject *operator_function(PyObject *x, PyObject *y, const char *fn) {
    if (S.f == &NumpyOps::floor_divide && finite_reals(x, fn) && finite_reals(y, fn)) return ops.numpy_floor_divide;
    return ops.*S.f;
}

template <const BinarySlot &S> PyObject *binary_slot(PyObject *x, PyObject *y) {
    return guarded([&]() -> PyObject * {
        const char *name = is_array(x) ? S.name : S.rname;
        if (is_array(x) && should_defer(y)) return nb::borrow(Py_NotImplemented).release().ptr();
        if (S.kernel) return binary(name, S.op, ops.*S.f, x, y).release().ptr();
        return call2(name, operator_function<S>(x, y, name), x, y).release().ptr();
    }, (PyObject *) nullptr);
}

/// x @ y and (reflected) y @ x.
PyObject *matmul_slot(PyObject *x, PyObject *y) {
    return guarded([&]() -> PyObject * {
        const char *name = is_array(x) ? "ndarray.__matmul__" : "ndarray.__rmatmul__";
        if (PyObject *r = fast_matmul(x, y, name)) return r;
        if (is_array(x) && should_defer(y)) return nb::borrow(Py_NotImplemented).release().ptr();
        return call2(name, ops.matmul, x, y).release().ptr();
    }, (PyObject *) nullptr);
}

using wsa::BinaryOp;
// clang-format off: a table laid out by hand
constexpr BinarySlot kAdd{"ndarray.__add__", "ndarray.__radd__", "ndarray.__iadd__", true, BinaryOp::Add, &NumpyOps::add};
constexpr BinarySlot kSub{"ndarray.__sub__", "ndarray.__rsub__", "ndarray.__isub__", true, BinaryOp::Sub, &NumpyOps::subtract};
constexpr BinarySlot kMul{"ndarray.__mul__", "ndarray.__rmul__", "ndarray.__imul__", true, BinaryOp::Mul, &NumpyOps::multiply};
constexpr BinarySlot kDiv{"ndarray.__truediv__", "ndarray.__rtruediv__", "ndarray.__itruediv__", true, BinaryOp::Div, &NumpyOps::true_divide};
constexpr BinarySlot kFloorDiv{"ndarray.__floordiv__", "ndarray.__rfloordiv__", "ndarray.__ifloordiv__", false, BinaryOp::Add,
                               &NumpyOps::floor_divide};
constexpr BinarySlot kMod{"ndarray.__mod__", "ndarray.__rmod__", "ndarray.__imod__", false, BinaryOp::Add, &NumpyOps::remainder};
// ndarray's ** runs operator.pow (its fast paths: x ** 2 is np.square).
constexpr BinarySlot kPow{"ndarray.__pow__", "ndarray.__rpow__", "ndarray.__ipow__", false, BinaryOp::Add, &NumpyOps::pow};
// clang-format on

/// x ** y (both orders); a three-argument pow() is refused as ndarray refuses it.
PyObject *power_slot(PyObject *x, PyObject *y, PyObject *modulo) {
    if (modulo != Py_None) return nb::borrow(Py_NotImplemented).release().ptr();
    return binary_slot<kPow>(x, y);
}

/// x += y & co as type slots (nb_inplace_*): Python calls them without looking up `__iadd__`. An
/// array writes into its own memory (the float64 kernels first).
template <const BinarySlot &S> PyObject *inplace_slot(PyObject *x, PyObject *y) {
    return guarded([&]() -> PyObject * {
        const char *name = S.iname;
        // NumPy's legacy rule holds for in-place operators too: Python then tries x + y.
        if (should_defer(y, /*inplace=*/true)) return nb::borrow(Py_NotImplemented).release().ptr();
        if (S.kernel && fast_inplace(S.op, x, y, name)) return nb::borrow(x).release().ptr();
        return inplace(name, operator_function<S>(x, y, name), x, y).release().ptr();
    }, (PyObject *) nullptr);
}

/// x **= y (a three-argument form does not exist for in-place operators).
PyObject *inplace_power_slot(PyObject *x, PyObject *y, PyObject *) {
    return guarded([&]() -> PyObject * {
        if (should_defer(y, /*inplace=*/true)) return nb::borrow(Py_NotImplemented).release().ptr();
        return inplace("ndarray.__ipow__", ops.power, x, y).release().ptr();
    }, (PyObject *) nullptr);
}

/// -x, +x, abs(x), ~x as slots.
struct UnarySlot {
    const char *name;
    PyObject *NumpyOps::*f;
    bool kernel;  ///< has a float64 kernel (fast_float64.h) ...
    wsa::UnaryOp op;  ///< ... this one
};

template <const UnarySlot &S> PyObject *unary_slot(PyObject *x) {
    return guarded([&]() -> PyObject * {
        self_of(x, S.name);
        if (S.kernel) return unary(S.name, S.op, ops.*S.f, x).release().ptr();
        return call1(S.name, ops.*S.f, x).release().ptr();
    }, (PyObject *) nullptr);
}

constexpr UnarySlot kNeg{"ndarray.__neg__", &NumpyOps::negative, true, wsa::UnaryOp::Negative};
constexpr UnarySlot kAbs{"ndarray.__abs__", &NumpyOps::absolute, true, wsa::UnaryOp::Absolute};
constexpr UnarySlot kPos{"ndarray.__pos__", &NumpyOps::positive, false, wsa::UnaryOp::Negative};
constexpr UnarySlot kInvert{"ndarray.__invert__", &NumpyOps::invert, false, wsa::UnaryOp::Negative};

PyObject *array_richcompare(PyObject *self, PyObject *other, int cmp) {
    static const BinarySlot table[] = {
        {"ndarray.__lt__", nullptr, nullptr, true, BinaryOp::Less, &NumpyOps::less},
        {"ndarray.__le__", nullptr, nullptr, true, BinaryOp::LessEqual, &NumpyOps::less_equal},
        {"ndarray.__eq__", nullptr, nullptr, true, BinaryOp::Equal, &NumpyOps::eq},
        {"ndarray.__ne__", nullptr, nullptr, true, BinaryOp::NotEqual, &NumpyOps::ne},
        {"ndarray.__gt__", nullptr, nullptr, true, BinaryOp::Greater, &NumpyOps::greater},
        {"ndarray.__ge__", nullptr, nullptr, true, BinaryOp::GreaterEqual, &NumpyOps::greater_equal}};
    static_assert(Py_LT == 0 && Py_LE == 1 && Py_EQ == 2 && Py_NE == 3 && Py_GT == 4 && Py_GE == 5);
    return guarded([&]() -> PyObject * {
        const BinarySlot &t = table[cmp];
        if (should_defer(other)) return nb::borrow(Py_NotImplemented).release().ptr();
        return binary(t.name, t.op, ops.*t.f, self, other).release().ptr();
    }, (PyObject *) nullptr);
}

}  // namespace

/// operator.concat(a, b) (the sequence protocol's concatenation) raises as NumPy's arrays do,
/// rather than falling back to elementwise a + b.
static PyObject *array_concat(PyObject *, PyObject *) {
    PyErr_SetString(PyExc_TypeError, "Concatenation operation is not implemented for NumPy arrays, use "
                                     "np.concatenate() instead. Please do not rely on this error; it may not be "
                                     "given on all Python implementations.");
    return nullptr;
}

PyType_Slot array_operator_slots[] = {{Py_nb_add, (void *) binary_slot<kAdd>},
                                      {Py_nb_subtract, (void *) binary_slot<kSub>},
                                      {Py_nb_multiply, (void *) binary_slot<kMul>},
                                      {Py_nb_true_divide, (void *) binary_slot<kDiv>},
                                      {Py_nb_floor_divide, (void *) binary_slot<kFloorDiv>},
                                      {Py_nb_power, (void *) power_slot},
                                      {Py_nb_remainder, (void *) binary_slot<kMod>},
                                      {Py_nb_matrix_multiply, (void *) matmul_slot},
                                      {Py_nb_inplace_add, (void *) inplace_slot<kAdd>},
                                      {Py_nb_inplace_subtract, (void *) inplace_slot<kSub>},
                                      {Py_nb_inplace_multiply, (void *) inplace_slot<kMul>},
                                      {Py_nb_inplace_true_divide, (void *) inplace_slot<kDiv>},
                                      {Py_nb_inplace_floor_divide, (void *) inplace_slot<kFloorDiv>},
                                      {Py_nb_inplace_remainder, (void *) inplace_slot<kMod>},
                                      {Py_nb_inplace_power, (void *) inplace_power_slot},
                                      {Py_nb_negative, (void *) unary_slot<kNeg>},
                                      {Py_nb_absolute, (void *) unary_slot<kAbs>},
                                      {Py_nb_positive, (void *) unary_slot<kPos>},
                                      {Py_nb_invert, (void *) unary_slot<kInvert>},
                                      {Py_tp_richcompare, (void *) array_richcompare},
                                      {Py_sq_concat, (void *) array_concat},
                                      {0, nullptr}};

void export_array_operators(nb::module_ &m, ArrayDefs &cls) {
    load_ops();
    m.def("_set_operator", &set_operator, nb::arg("name"), nb::arg("func"));

#define WSA_BINARY(py, rpy, ipy, f)                                                             \
    cls.def(py, [](nb::handle s, nb::handle o) {                                                \
        if (should_defer(o.ptr())) return nb::borrow(Py_NotImplemented);                        \
        return call2("ndarray." py, ops.f, s, o);                                               \
    }, nb::arg("other").none());                                                                \
    cls.def(rpy, [](nb::handle s, nb::handle o) { return call2("ndarray." rpy, ops.f, o, s); }, \
            nb::arg("other").none());                                                           \
    cls.def(ipy, [](nb::handle s, nb::handle o) {                                               \
        if (should_defer(o.ptr(), true)) return nb::borrow(Py_NotImplemented);                  \
        return inplace("ndarray." ipy, ops.f, s, o);                                            \
    }, nb::arg("other").none());
    // x + y, y + x and x += y (also - * / // % **) are type slots (binary_slot, inplace_slot).
    // x @ y and y @ x are a type slot (matmul_slot); x @= y a method.
    cls.def("__imatmul__", [](nb::handle s, nb::handle o) {
        if (should_defer(o.ptr(), true)) return nb::borrow(Py_NotImplemented);
        return inplace("ndarray.__imatmul__", ops.matmul, s, o);
    }, nb::arg("other").none());
    WSA_BINARY("__and__", "__rand__", "__iand__", bitwise_and)
    WSA_BINARY("__or__", "__ror__", "__ior__", bitwise_or)
    WSA_BINARY("__xor__", "__rxor__", "__ixor__", bitwise_xor)
    WSA_BINARY("__lshift__", "__rlshift__", "__ilshift__", left_shift)
    WSA_BINARY("__rshift__", "__rrshift__", "__irshift__", right_shift)
#undef WSA_BINARY
    // Comparisons: the tp_richcompare slot (array_richcompare).
    cls.def("__divmod__", [](nb::handle s, nb::handle o) -> nb::object {
        if (should_defer(o.ptr())) return nb::borrow(Py_NotImplemented);  // divmod(a, Polynomial)
        return call2("ndarray.__divmod__", ops.divmod, s, o);
    }, nb::arg("other").none());
    cls.def("__rdivmod__", [](nb::handle s, nb::handle o) { return call2("ndarray.__rdivmod__", ops.divmod, o, s); },
            nb::arg("other").none());
    // -x, +x, abs(x), ~x: type slots (unary_slot).
}

}  // namespace wsa_py
