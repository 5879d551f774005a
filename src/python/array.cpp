/// src/python/array.cpp -- the wsarray.Array type: a validity-checked NumPy array over workspace
/// memory. Every method checks the array's workspace cycle first, then lets NumPy compute with
/// its allocations routed into the current workspace.
#include "common.h"
#include "scopes.h"
#include "fast_ops.h"
#include "numpy_alloc.h"

namespace wsa_py {

namespace {

/// NumPy callables the operators use, looked up once (never released: they live as long as NumPy).
struct NumpyOps {
    PyObject *add, *subtract, *multiply, *true_divide, *floor_divide, *remainder, *power, *matmul,
        *bitwise_and, *bitwise_or, *bitwise_xor, *left_shift, *right_shift, *negative, *positive,
        *absolute, *invert, *less, *less_equal, *equal, *not_equal, *greater, *greater_equal,
        *divmod, *getitem, *setitem, *array, *copy, *numpy, *eq, *ne,
        *setattr,  ///< builtins.setattr (a.real = ..., through the engine)
        *pow,  ///< operator.pow: ndarray's ** has fast paths (x ** 2 is np.square, keeping bool -> int8)
        *imatmul;  ///< operator.imatmul: ndarray's @= checks the result keeps the target's shape
};
NumpyOps ops;

PyObject *lookup(nb::handle module, const char *name) { return module.attr(name).inc_ref().ptr(); }

/// Python's operators for the ufuncs above: when an operand stands for a NumPy scalar, NumPy's
/// scalar arithmetic answers (its overflow warnings, its libm pow, its complex division), as in
/// NumPy. Pairs (ufunc, operator); set_operator() re-keys a pair whose ufunc it replaces.
struct ScalarOp {
    PyObject *ufunc, *op;
};
ScalarOp scalar_ops[16];
std::size_t n_scalar_ops = 0;

void load_scalar_ops() {
    nb::module_ np = nb::module_::import_("numpy");
    nb::module_ op = nb::module_::import_("operator");
    nb::module_ builtins = nb::module_::import_("builtins");
    const char *pairs[][2] = {{"add", "add"}, {"subtract", "sub"}, {"multiply", "mul"},
                              {"true_divide", "truediv"}, {"floor_divide", "floordiv"},
                              {"remainder", "mod"}, {"bitwise_and", "and_"}, {"bitwise_or", "or_"},
                              {"bitwise_xor", "xor"}, {"left_shift", "lshift"},
                              {"right_shift", "rshift"}, {"matmul", "matmul"}};
    for (auto &p : pairs) scalar_ops[n_scalar_ops++] = {lookup(np, p[0]), lookup(op, p[1])};
    scalar_ops[n_scalar_ops++] = {lookup(np, "divmod"), lookup(builtins, "divmod")};
}

bool stands_for_scalar(nb::handle o) { return is_array(o.ptr()) && stands_for_scalar(array_of(o.ptr())); }

/// The callable an operator runs: Python's operator when an operand stands for a NumPy scalar.
PyObject *operator_for(PyObject *f, nb::handle x, nb::handle y) {
    if (!stands_for_scalar(x) && !stands_for_scalar(y)) return f;
    for (std::size_t i = 0; i < n_scalar_ops; ++i)
        if (scalar_ops[i].ufunc == f) return scalar_ops[i].op;
    return f;
}


void load_ops() {
    nb::module_ np = nb::module_::import_("numpy");
    nb::module_ op = nb::module_::import_("operator");
    ops = {lookup(np, "add"), lookup(np, "subtract"), lookup(np, "multiply"), lookup(np, "true_divide"),
           lookup(np, "floor_divide"), lookup(np, "remainder"), lookup(np, "power"), lookup(np, "matmul"),
           lookup(np, "bitwise_and"), lookup(np, "bitwise_or"), lookup(np, "bitwise_xor"),
           lookup(np, "left_shift"), lookup(np, "right_shift"), lookup(np, "negative"),
           lookup(np, "positive"), lookup(np, "absolute"), lookup(np, "invert"),
           // Comparisons fall back to ndarray's own operators: for operands NumPy cannot convert
           // (a != (4, "ii"), a == None) they answer as ndarray does, unlike the ufuncs.
           lookup(op, "lt"), lookup(op, "le"), lookup(op, "eq"), lookup(op, "ne"), lookup(op, "gt"),
           lookup(op, "ge"), lookup(np, "divmod"), lookup(op, "getitem"),
           lookup(op, "setitem"), lookup(np, "array"), lookup(np, "copy"), np.inc_ref().ptr(),
           lookup(op, "eq"), lookup(op, "ne"), lookup(nb::module_::import_("builtins"), "setattr"),
           lookup(op, "pow"), lookup(op, "imatmul")};
}

/// `_core._set_operator(name, func)`: the operators named `name` (only "floor_divide" so far) call
/// `func` instead of NumPy's ufunc, for the few cases where NumPy deviates from the array API.
void set_operator(const std::string &name, nb::object func) {
    PyObject **slot = nullptr;
    if (name == "floor_divide") slot = &ops.floor_divide;
    if (!slot) raise(PyExc_ValueError, "wsarray._core._set_operator(): unknown operator '" + name + "'");
    // A scalar result still computes as NumPy's scalar does (operator.floordiv): re-key its pair.
    for (std::size_t i = 0; i < n_scalar_ops; ++i)
        if (scalar_ops[i].ufunc == *slot) scalar_ops[i].ufunc = func.ptr();
    Py_XSETREF(*slot, func.inc_ref().ptr());
}

/// Array(shape, dtype=float, buffer=None, offset=0, strides=None, order=None) as ndarray(...), or
/// Array(value) for a number that is not an integer (a Fraction, a Decimal, a float): the scalar
/// result of that value, as np.float64(value) / np.complex128(value) give it.
PyObject *array_new(PyTypeObject *, PyObject *args, PyObject *kwargs) {
    return guarded([&]() -> PyObject * {
        if (PyTuple_GET_SIZE(args) == 1 && (!kwargs || !PyDict_GET_SIZE(kwargs))) {
            PyObject *v = PyTuple_GET_ITEM(args, 0);
            nb::module_ numbers = nb::module_::import_("numbers");
            if (PyObject_IsInstance(v, numbers.attr("Number").ptr()) == 1 &&
                PyObject_IsInstance(v, numbers.attr("Integral").ptr()) != 1) {
                nb::module_ np = nb::module_::import_("numpy");
                bool complex = PyObject_IsInstance(v, numbers.attr("Real").ptr()) != 1;
                nb::object scalar = np.attr(complex ? "complex128" : "float64")(
                    complex ? nb::object(nb::borrow(v)) : nb::object(nb::float_(nb::borrow(v))));
                return make_scalar_result(scalar.ptr());
            }
        }
        nb::object ndarray = nb::module_::import_("numpy").attr("ndarray");
        return apply("ndarray", ndarray.ptr(), args, kwargs).release().ptr();
    }, (PyObject *) nullptr);
}

/// `<wsarray.Array stale: cycle 12 of 'LOOP' ended>` and the like.
std::string stale_repr(const Array &a) {
    const wsa::Workspace &ws = *a.token.ws;
    std::string why;
    switch (ws.destroy_reason()) {
    case wsa::DestroyReason::Alive:
        why = "cycle " + std::to_string(a.token.generation) + " of '" + ws.name() + "' ended";
        break;
    case wsa::DestroyReason::ThreadExit:
        why = "workspace '" + ws.name() + "' ended with its thread";
        break;
    case wsa::DestroyReason::Fork:
        why = "workspace '" + ws.name() + "' belonged to another thread of the parent process";
        break;
    default:
        why = "workspace '" + ws.name() + "' was destroyed";
    }
    return "<wsarray.Array stale: " + why + ">";
}

Array &self_of(nb::handle self, const char *fn) {
    Array &a = array_of(self.ptr());
    check_valid(a, fn);
    return a;
}

/// What forwarded attributes are looked up on: the NumPy scalar for an array that stands for one
/// (so s.astype(), s.is_integer(), s.round() behave as on np.float64), else the ndarray.
nb::object attribute_owner(Array &a) {
    if (!stands_for_scalar(a)) return a.data();
    return nb::borrow(scalar_of(a));
}

/// NumPy's `f(x)` through the engine (a scalar result's unary operators never come here: see
/// unary_slot).
nb::object call1(const char *name, PyObject *f, nb::handle x) {
    PyObject *args[1] = {x.ptr()};
    return apply_vector(name, f, args, 1, nullptr);
}

/// `seq * s` / `s * seq` with `s` a scalar result and `seq` a list, tuple, str or bytes: NumPy's
/// scalars defer to Python (repetition for integers, TypeError otherwise), so these do too.
bool defers_to_sequence(nb::handle s, nb::handle seq) {
    PyObject *q = seq.ptr();
    return is_array(s.ptr()) && array_of(s.ptr()).from_scalar &&
           (PyList_CheckExact(q) || PyTuple_CheckExact(q) || PyUnicode_CheckExact(q) || PyBytes_CheckExact(q));
}

/// A value NumPy's scalar arithmetic takes as is: a Python number or a NumPy number scalar.
bool is_plain_number(PyObject *o) {
    return PyFloat_CheckExact(o) || PyLong_CheckExact(o) || PyBool_Check(o) || PyComplex_CheckExact(o) ||
           is_numpy_scalar(o);
}

/// `compute(x, y)` on the values when both operands are scalars (a scalar result, a Python number
/// or a NumPy scalar; one of them is an Array): NumPy's scalar arithmetic, exactly as NumPy computes
/// it for its own scalars, without the engine (no argument to check or unwrap, nothing to route:
/// scalar results hold ordinary memory). Null: not such a pair.
template <class Compute> PyObject *on_scalar_pair(const char *name, PyObject *x, PyObject *y, Compute compute) {
    bool x_scalar = is_array(x) ? stands_for_scalar(array_of(x)) : is_plain_number(x);
    if (!x_scalar) return nullptr;
    bool y_scalar = is_array(y) ? stands_for_scalar(array_of(y)) : is_plain_number(y);
    if (!y_scalar) return nullptr;
    nb::object r = nb::steal(compute(is_array(x) ? scalar_of(array_of(x)) : x, is_array(y) ? scalar_of(array_of(y)) : y));
    if (!r) raise_pending(name);
    if (is_numpy_scalar(r.ptr())) return make_scalar_result(r.ptr());
    return r.release().ptr();
}

/// on_scalar_pair() with a Python callable (operator.pow, operator.and_, ...).
PyObject *scalar_call2(const char *name, PyObject *op, nb::handle x, nb::handle y) {
    return on_scalar_pair(name, x.ptr(), y.ptr(), [op](PyObject *a, PyObject *b) {
        PyObject *args[2] = {a, b};
        return PyObject_Vectorcall(op, args, 2, nullptr);
    });
}

nb::object call2(const char *name, PyObject *f, nb::handle x, nb::handle y) {
    if (f == ops.multiply && (defers_to_sequence(x, y) || defers_to_sequence(y, x)))
        return nb::borrow(Py_NotImplemented);
    PyObject *op = operator_for(f, x, y);
    // Python's operators already (comparisons, **) or swapped in by operator_for: try scalars.
    if (op != f || f == ops.less || f == ops.less_equal || f == ops.equal || f == ops.not_equal ||
        f == ops.greater || f == ops.greater_equal || f == ops.pow)
        if (PyObject *r = scalar_call2(name, op, x, y)) return nb::steal(r);
    f = op;
    PyObject *args[2] = {x.ptr(), y.ptr()};  // no argument tuple
    return apply_vector(name, f, args, 2, nullptr);
}

bool is_basic_index_item(PyObject *k) {
    return PyLong_CheckExact(k) || PySlice_Check(k) || k == Py_Ellipsis || k == Py_None;
}

/// A key NumPy answers with a view (or a scalar), never an Array that needs unwrapping.
bool is_basic_index(PyObject *key) {
    if (is_basic_index_item(key)) return true;
    if (!PyTuple_CheckExact(key)) return false;
    for (Py_ssize_t i = 0, n = PyTuple_GET_SIZE(key); i < n; ++i)
        if (!is_basic_index_item(PyTuple_GET_ITEM(key, i))) return false;
    return true;
}

/// NumPy's binary-operator deferral: an operand whose type sets `__array_ufunc__ = None` (numpy
/// polynomials, user classes opting out) gets its reflected operator: `a * p` is `p.__rmul__(a)`.
/// Plain Python values, ndarrays, NumPy scalars and Arrays never defer (no lookup for them).
bool should_defer(PyObject *other) {
    if (is_array(other) || other == Py_None || PyLong_CheckExact(other) || PyFloat_CheckExact(other) ||
        PyBool_Check(other) || PyComplex_CheckExact(other) || PyList_CheckExact(other) ||
        PyTuple_CheckExact(other) || PyUnicode_CheckExact(other) || is_ndarray_exact(other) ||
        is_numpy_scalar(other))
        return false;
    static PyObject *name = PyUnicode_InternFromString("__array_ufunc__");
    return _PyType_Lookup(Py_TYPE(other), name) == Py_None;
}

/// `x op y` through the float64 fast path when it applies (fast_ops.h), else through NumPy.
nb::object binary(const char *name, wsa::BinaryOp op, PyObject *f, nb::handle x, nb::handle y) {
    if (PyObject *r = fast_binary(op, x.ptr(), y.ptr(), name)) return nb::steal(r);
    return call2(name, f, x, y);
}

nb::object unary(const char *name, wsa::UnaryOp op, PyObject *f, nb::handle x) {
    if (PyObject *r = fast_unary(op, x.ptr(), name)) return nb::steal(r);
    return call1(name, f, x);
}

/// In-place operator: NumPy writes into the array's own memory, so no allocation is made.
nb::object inplace(const char *name, PyObject *f, nb::handle self, nb::handle other) {
    Array &a = self_of(self, name);
    // s += 1 on a scalar result rebinds s to a new scalar, as for NumPy's immutable scalars
    // (with the type NumPy's scalar arithmetic gives); other references to s keep the old value.
    if (stands_for_scalar(a)) return call2(name, f == ops.power ? ops.pow : f, self, other);
    nb::object args = nb::make_tuple(self, other);
    if (f == ops.matmul) {
        // ndarray's own @=: it checks that the result keeps self's shape (matmul(out=) would
        // broadcast a 1-D result over self).
        apply(name, ops.imatmul, args.ptr(), nullptr);
        return nb::borrow(self);
    }
    nb::dict kw;
    kw["out"] = nb::make_tuple(a.data());
    apply(name, f, args.ptr(), kw.ptr());
    return nb::borrow(self);
}

/// Copy the array into `target` (null: outside every workspace).
nb::object copy_into(nb::handle self, wsa::Workspace *target, const char *fn) {
    Array &a = self_of(self, fn);
    RouteGuard route(target);
    nb::object copy = nb::steal(PyObject_CallMethod(a.data().ptr(), "copy", nullptr));
    if (!copy) {
        std::string err = take_allocation_error();
        if (!err.empty()) {
            PyErr_Clear();
            raise(WorkspaceMemoryError, "wsarray." + std::string(fn) + "(): " + err);
        }
        throw nb::python_error();
    }
    return wrap_ndarray(copy);
}

/// A bound NumPy method of an Array, called through the engine when invoked.
struct BoundMethod {
    nb::object self;
    std::string name;
    nb::object method;  ///< the ndarray's bound method (an Array's ndarray never changes)
};

/// iter(a): the items a[0], a[1], ... made one at a time (as NumPy's iterator), each checked
/// against the array's cycle.
struct ArrayIter {
    nb::object array;
    Py_ssize_t next, n;
};

/// The next item (the caller has checked that one is left).
nb::object array_iter_next(ArrayIter &it) {
    Array &a = self_of(it.array, "Array.__iter__");
    {
        RouteGuard route(current_target());
        if (PyObject *item = PySequence_GetItem(a.data().ptr(), it.next)) {
            nb::object owned = nb::steal(item);
            ++it.next;
            // Iteration is NumPy's API (the array API leaves it out): items of a 1-D array are
            // NumPy's scalars, as NumPy gives them; rows are views, checked as Arrays.
            if (is_numpy_scalar(item)) return owned;
            return wrap_ndarray(owned, it.array);
        }
        PyErr_Clear();
        take_allocation_error();
    }
    // The general path reports the failure (a WorkspaceMemoryError for a full workspace).
    return as_numpy_result(call2("Array.__iter__", ops.getitem, it.array, nb::int_(it.next++)));
}

int array_getbuffer(PyObject *self, Py_buffer *view, int flags) {
    Array &a = array_of(self);
    if (!token_valid(a.token)) {
        try {
            check_valid(a, "Array.__buffer__");
        } catch (nb::python_error &e) {
            e.restore();
        }
        view->obj = nullptr;
        return -1;
    }
    if (ndarray_void(a.data().ptr())) {
        // NumPy cannot always read back the format string it exports for these (padding, str
        // fields; raw V24 becomes "24x", an empty structure): refusing makes np.asarray(x) take
        // __array_interface__, which carries the dtype.
        PyErr_SetString(PyExc_BufferError, "wsarray.Array.__buffer__(): arrays of void dtypes (structured "
                                           "or raw bytes) do not export a buffer; use np.asarray(x) or x.to_numpy()");
        view->obj = nullptr;
        return -1;
    }
    return PyObject_GetBuffer(a.data().ptr(), view, flags);
}

/// iter(a), as a type slot: a failing iter() (what np.iterable() and matplotlib ask of every
/// scalar result) sets its TypeError without a C++ exception, as cheaply as NumPy's.
/// next(iterator), as a type slot (no method lookup or argument dispatch per item).
PyObject *array_iternext(PyObject *self) {
    return guarded([&]() -> PyObject * {
        ArrayIter &it = *nb::inst_ptr<ArrayIter>(self);
        if (it.next >= it.n) return nullptr;  // exhausted: no exception set means StopIteration
        return array_iter_next(it).release().ptr();
    }, (PyObject *) nullptr);
}

PyObject *iterator_self(PyObject *self) {
    Py_INCREF(self);
    return self;
}

PyType_Slot iterator_slots[] = {{Py_tp_iter, (void *) iterator_self},
                                {Py_tp_iternext, (void *) array_iternext},
                                {0, nullptr}};

PyObject *array_iter(PyObject *self) {
    try {
        Array &a = self_of(self, "Array.__iter__");
        if (stands_for_scalar(a) || ndarray_ndim(a.data().ptr()) == 0) {  // NumPy's error: 0-d array, or the scalar's type
            if (stands_for_scalar(a)) {
                PyErr_Format(PyExc_TypeError, "wsarray.Array.__iter__(): '%s' object is not iterable",
                             Py_TYPE(scalar_of(a))->tp_name);
            } else {
                PyErr_SetString(PyExc_TypeError, "wsarray.Array.__iter__(): iteration over a 0-d array");
            }
            return nullptr;
        }
        Py_ssize_t n = PyObject_Length(a.data().ptr());
        if (n < 0) raise_pending("Array.__iter__");
        return nb::cast(ArrayIter{nb::borrow(self), 0, n}).release().ptr();
    } catch (nb::python_error &e) {
        e.restore();
    } catch (const std::bad_alloc &) {
        PyErr_NoMemory();
    }
    return nullptr;
}



/// a[key]. Slots instead of methods: Python calls them directly, without a method lookup and
/// nanobind's argument dispatch (the per-call cost of indexing in loops).
PyObject *array_subscript(PyObject *s, PyObject *key) {
    return guarded([&]() -> PyObject * {
        Array &a = self_of(s, "Array.__getitem__");
        // One element of a numeric array: its 0-d result made directly (fast_ops.h).
        if (PyObject *r = fast_item(a, key)) return r;
        // Basic indexing (ints, slices, ..., None, and tuples of them) and a single Array key (a
        // mask, indices) go straight to the ndarray; anything else (lists, tuples holding Arrays)
        // takes the general path, as do errors of basic indexing (which it names).
        bool array_key = is_array(key);
        if (array_key || is_basic_index(key)) {
            PyObject *k = array_key ? self_of(key, "Array.__getitem__").data().ptr() : key;
            RouteGuard route(current_target());  // a scalar result becomes a 0-d array here
            if (PyObject *r = PyObject_GetItem(a.data().ptr(), k)) {
                // A view of this array's own memory belongs to the same workspace cycle, and has
                // this Array as its .base (as NumPy's views name their base).
                return wrap_derived(nb::steal(r), a, s).release().ptr();
            }
            if (array_key) raise_routed_error("Array.__getitem__");
            PyErr_Clear();
            clear_allocation_error();
        }
        return call2("Array.__getitem__", ops.getitem, s, key).release().ptr();
    }, (PyObject *) nullptr);
}

/// How deep a nested list/tuple goes along its first elements ([[1, 2]]: 2, [], 1).
int nesting_depth(PyObject *o) {
    int depth = 0;
    while (PyList_Check(o) || PyTuple_Check(o)) {
        ++depth;
        if (PySequence_Fast_GET_SIZE(o) == 0) break;
        o = PySequence_Fast_ITEMS(o)[0];
    }
    return depth;
}

void setitem_general(nb::handle s, nb::handle key, nb::handle value) {
    Array &a = self_of(s, "Array.__setitem__");
    nb::object v = nb::borrow(value);
    // NumPy converts a list element by element while writing, so a bad element would leave
    // the target half-assigned: convert first (same casting), assign only if that worked. A
    // read-only target gets NumPy's error first, as NumPy checks that before any element.
    if ((PyList_Check(value.ptr()) || PyTuple_Check(value.ptr())) && ndarray_writeable(a.data().ptr())) {
        nb::object dtype = a.data().attr("dtype");
        std::string kind = nb::cast<std::string>(dtype.attr("kind"));
        if (kind != "O" && kind != "V") {
            // NumPy's own verdict, from assigning into scratch memory of the same shape: its
            // error (its order of key and value checks), the target untouched; should NumPy
            // accept the value after all, it is assigned to the target as NumPy would.
            auto numpys_verdict = [&] {
                nb::object scratch;
                {
                    RouteGuard outside(nullptr);
                    scratch = nb::handle(ops.numpy).attr("empty_like")(a.data());
                }
                nb::object scratch_args = nb::make_tuple(scratch, key, value);
                apply("Array.__setitem__", ops.setitem, scratch_args.ptr(), nullptr);
                return nb::borrow(value);
            };
            // A list nested deeper than the target (a[0] = [1, 2], a[...] = [[1.0]] on 1-D):
            // NumPy refuses what broadcasting the converted array would accept.
            int target_ndim = -1;
            if (is_basic_index(key.ptr())) {
                nb::object target = nb::steal(PyObject_GetItem(a.data().ptr(), key.ptr()));
                if (!target) PyErr_Clear();
                else target_ndim = nb::cast<int>(nb::getattr(target, "ndim", nb::int_(0)));
            }
            if (target_ndim >= 0 && nesting_depth(value.ptr()) > target_ndim) {
                v = numpys_verdict();
            } else {
                nb::dict kw;
                kw["dtype"] = dtype;
                nb::object conv_args = nb::make_tuple(value);
                try {
                    v = apply("Array.__setitem__", ops.array, conv_args.ptr(), kw.ptr());
                } catch (nb::python_error &) {
                    v = numpys_verdict();
                }
                if (target_ndim >= 0 && is_array(v.ptr()) && nb::cast<int>(array_of(v.ptr()).data().attr("ndim")) > target_ndim)
                    v = numpys_verdict();
            }
        }
    }
    nb::object args = nb::make_tuple(s, key, v);
    apply("Array.__setitem__", ops.setitem, args.ptr(), nullptr);
}

/// A value NumPy writes in one step (no partial assignment possible): a Python number or a valid
/// Array (its ndarray).
PyObject *plain_value(PyObject *value) {
    if (PyFloat_CheckExact(value) || PyLong_CheckExact(value) || PyBool_Check(value) || PyComplex_CheckExact(value))
        return value;
    if (is_array(value)) return self_of(value, "Array.__setitem__").data().ptr();
    return nullptr;
}

int array_ass_subscript(PyObject *s, PyObject *key, PyObject *value) {
    return guarded([&]() -> int {
        Array &a = self_of(s, "Array.__setitem__");
        if (!value) {  // del a[key]: NumPy's error
            if (PyObject_DelItem(a.data().ptr(), key) < 0) raise_pending("Array.__delitem__");
            return 0;
        }
        if (stands_for_scalar(a))  // a value, as NumPy's scalars
            raise(PyExc_TypeError, "wsarray.Array.__setitem__(): '" + std::string(Py_TYPE(scalar_of(a))->tp_name) +
                                       "' object does not support item assignment");
        if (is_basic_index(key)) {
            if (PyObject *v = plain_value(value)) {
                RouteGuard route(current_target());
                if (PyObject_SetItem(a.data().ptr(), key, v) < 0) raise_routed_error("Array.__setitem__");
                return 0;
            }
        }
        setitem_general(s, key, value);
        return 0;
    }, -1);
}

Py_ssize_t array_length(PyObject *s) {
    return guarded([&]() -> Py_ssize_t {
        Array &a = self_of(s, "Array.__len__");
        Py_ssize_t n = PyObject_Length(a.data().ptr());
        if (n < 0) raise_pending("Array.__len__");
        return n;
    }, (Py_ssize_t) -1);
}

PyObject *get_shape(PyObject *s, void *) {
    return guarded([&]() -> PyObject * {
        Array &a = self_of(s, "Array.shape");
        if (stands_for_scalar(a)) return PyTuple_New(0);
        PyObject *r = ndarray_shape(a.data().ptr());
        if (!r) throw nb::python_error();
        return r;
    }, (PyObject *) nullptr);
}

/// a.shape = (3, 2) / a.dtype = "<i2": NumPy changes the ndarray in place (a reshape without copy,
/// else AttributeError; a reinterpretation under a view's rules), named after `fn`.
int set_ndarray_attr(PyObject *s, const char *attr, PyObject *value, const char *fn) {
    return guarded([&]() -> int {
        Array &a = self_of(s, fn);
        if (!value) raise(PyExc_AttributeError, std::string("wsarray.") + fn + ": cannot delete array " + attr);
        if (stands_for_scalar(a))  // a value, as NumPy's scalars (whose message this is)
            raise(PyExc_AttributeError, std::string("wsarray.") + fn + "(): attribute '" + attr +
                                            "' of 'numpy.generic' objects is not writable");
        if (PyObject_SetAttrString(a.data().ptr(), attr, value) < 0) raise_pending(fn);
        return 0;
    }, -1);
}

int set_shape(PyObject *s, PyObject *shape, void *) { return set_ndarray_attr(s, "shape", shape, "Array.shape"); }

PyObject *get_dtype(PyObject *s, void *) {
    return guarded([&] {
        Array &a = self_of(s, "Array.dtype");
        if (stands_for_scalar(a) && !a.nd_.is_valid()) return scalar_dtype(scalar_of(a));
        return ndarray_dtype(a.data().ptr());
    }, (PyObject *) nullptr);
}

int set_dtype(PyObject *s, PyObject *dtype, void *) { return set_ndarray_attr(s, "dtype", dtype, "Array.dtype"); }

PyObject *get_ndim(PyObject *s, void *) {
    return guarded([&] {
        Array &a = self_of(s, "Array.ndim");
        return PyLong_FromLong(stands_for_scalar(a) ? 0 : ndarray_ndim(a.data().ptr()));
    },
                   (PyObject *) nullptr);
}

PyObject *get_size(PyObject *s, void *) {
    return guarded([&] {
        Array &a = self_of(s, "Array.size");
        return PyLong_FromSsize_t(stands_for_scalar(a) ? 1 : ndarray_size(a.data().ptr()));
    },
                   (PyObject *) nullptr);
}

PyGetSetDef array_getset[] = {
    {"shape", get_shape, set_shape, "Dimensions of the array (assignable, as NumPy's).", nullptr},
    {"dtype", get_dtype, set_dtype, "Data type of the array's elements (assignable, as NumPy's).", nullptr},
    {"ndim", get_ndim, nullptr, "Number of dimensions.", nullptr},
    {"size", get_size, nullptr, "Number of elements.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

/// a[i] through the sequence protocol (what reversed() and PySequence_GetItem use), as ndarray
/// offers it: the same as a[i].
PyObject *array_sq_item(PyObject *s, Py_ssize_t i) {
    PyObject *key = PyLong_FromSsize_t(i);
    if (!key) return nullptr;
    PyObject *r = array_subscript(s, key);
    Py_DECREF(key);
    return r;
}

/// Binary operators (+ - * / // % **) and the comparisons as type slots: Python calls them
/// directly (no `__add__` lookup, no nanobind argument dispatch), which is most of the cost of
/// `s + x` on scalars in element loops. A binary slot gets both operand orders:
/// `a + 1` as (a, 1), `1 + a` as (1, a) -- the reflected operator.
struct BinarySlot {
    const char *name, *rname;
    bool kernel;  ///< has a float64 kernel (fast_ops.h) ...
    wsa::BinaryOp op;  ///< ... this one (else NumPy's path only)
    PyObject *NumpyOps::*f;
    binaryfunc scalar_op;  ///< Python's operator, for two scalars (null: comparisons)
};

/// `x op y` when both are scalars (`s += a[i]`, `x * x` in element loops): on_scalar_pair() with
/// Python's operator (`op`), or the comparison `cmp` when `op` is null.
PyObject *scalar_pair(const char *name, binaryfunc op, int cmp, PyObject *x, PyObject *y) {
    return on_scalar_pair(name, x, y, [op, cmp](PyObject *a, PyObject *b) {
        return op ? op(a, b) : PyObject_RichCompare(a, b, cmp);
    });
}

template <const BinarySlot &S> PyObject *binary_slot(PyObject *x, PyObject *y) {
    return guarded([&]() -> PyObject * {
        const char *name = is_array(x) ? S.name : S.rname;
        if (PyObject *r = scalar_pair(name, S.scalar_op, 0, x, y)) return r;
        if (is_array(x) && should_defer(y)) return nb::borrow(Py_NotImplemented).release().ptr();
        if (S.kernel) return binary(name, S.op, ops.*S.f, x, y).release().ptr();
        return call2(name, ops.*S.f, x, y).release().ptr();
    }, (PyObject *) nullptr);
}

PyObject *power2(PyObject *a, PyObject *b) { return PyNumber_Power(a, b, Py_None); }

using wsa::BinaryOp;
constexpr BinarySlot kAdd{"Array.__add__", "Array.__radd__", true, BinaryOp::Add, &NumpyOps::add, PyNumber_Add};
constexpr BinarySlot kSub{"Array.__sub__", "Array.__rsub__", true, BinaryOp::Sub, &NumpyOps::subtract,
                          PyNumber_Subtract};
constexpr BinarySlot kMul{"Array.__mul__", "Array.__rmul__", true, BinaryOp::Mul, &NumpyOps::multiply,
                          PyNumber_Multiply};
constexpr BinarySlot kDiv{"Array.__truediv__", "Array.__rtruediv__", true, BinaryOp::Div, &NumpyOps::true_divide,
                          PyNumber_TrueDivide};
constexpr BinarySlot kFloorDiv{"Array.__floordiv__", "Array.__rfloordiv__", false, BinaryOp::Add,
                               &NumpyOps::floor_divide, PyNumber_FloorDivide};
constexpr BinarySlot kMod{"Array.__mod__", "Array.__rmod__", false, BinaryOp::Add, &NumpyOps::remainder,
                          PyNumber_Remainder};
// ndarray's ** runs operator.pow (its fast paths: x ** 2 is np.square).
constexpr BinarySlot kPow{"Array.__pow__", "Array.__rpow__", false, BinaryOp::Add, &NumpyOps::pow, power2};

/// x ** y (both orders); a three-argument pow() is refused as ndarray refuses it.
PyObject *power_slot(PyObject *x, PyObject *y, PyObject *modulo) {
    if (modulo != Py_None) return nb::borrow(Py_NotImplemented).release().ptr();
    return binary_slot<kPow>(x, y);
}

/// -x, +x, abs(x), ~x as slots: a scalar result answers with NumPy's scalar arithmetic directly.
struct UnarySlot {
    const char *name;
    unaryfunc scalar_op;
    PyObject *NumpyOps::*f;
    bool kernel;  ///< has a float64 kernel (fast_ops.h) ...
    wsa::UnaryOp op;  ///< ... this one
};

template <const UnarySlot &S> PyObject *unary_slot(PyObject *x) {
    return guarded([&]() -> PyObject * {
        Array &a = self_of(x, S.name);
        if (stands_for_scalar(a)) {
            nb::object r = nb::steal(S.scalar_op(scalar_of(a)));
            if (!r) raise_pending(S.name);
            if (is_numpy_scalar(r.ptr())) return make_scalar_result(r.ptr());
            return r.release().ptr();
        }
        if (S.kernel) return unary(S.name, S.op, ops.*S.f, x).release().ptr();
        return call1(S.name, ops.*S.f, x).release().ptr();
    }, (PyObject *) nullptr);
}

constexpr UnarySlot kNeg{"Array.__neg__", PyNumber_Negative, &NumpyOps::negative, true, wsa::UnaryOp::Negative};
constexpr UnarySlot kAbs{"Array.__abs__", PyNumber_Absolute, &NumpyOps::absolute, true, wsa::UnaryOp::Absolute};
constexpr UnarySlot kPos{"Array.__pos__", PyNumber_Positive, &NumpyOps::positive, false, wsa::UnaryOp::Negative};
constexpr UnarySlot kInvert{"Array.__invert__", PyNumber_Invert, &NumpyOps::invert, false, wsa::UnaryOp::Negative};

PyObject *array_richcompare(PyObject *self, PyObject *other, int cmp) {
    static const BinarySlot table[] = {
        {"Array.__lt__", nullptr, true, BinaryOp::Less, &NumpyOps::less, nullptr},
        {"Array.__le__", nullptr, true, BinaryOp::LessEqual, &NumpyOps::less_equal, nullptr},
        {"Array.__eq__", nullptr, true, BinaryOp::Equal, &NumpyOps::eq, nullptr},
        {"Array.__ne__", nullptr, true, BinaryOp::NotEqual, &NumpyOps::ne, nullptr},
        {"Array.__gt__", nullptr, true, BinaryOp::Greater, &NumpyOps::greater, nullptr},
        {"Array.__ge__", nullptr, true, BinaryOp::GreaterEqual, &NumpyOps::greater_equal, nullptr}};
    static_assert(Py_LT == 0 && Py_LE == 1 && Py_EQ == 2 && Py_NE == 3 && Py_GT == 4 && Py_GE == 5);
    return guarded([&]() -> PyObject * {
        const BinarySlot &t = table[cmp];
        if (PyObject *r = scalar_pair(t.name, nullptr, cmp, self, other)) return r;
        if (should_defer(other)) return nb::borrow(Py_NotImplemented).release().ptr();
        return binary(t.name, t.op, ops.*t.f, self, other).release().ptr();
    }, (PyObject *) nullptr);
}

PyType_Slot array_slots[] = {{Py_bf_getbuffer, (void *) array_getbuffer},
                             {Py_nb_add, (void *) binary_slot<kAdd>},
                             {Py_nb_subtract, (void *) binary_slot<kSub>},
                             {Py_nb_multiply, (void *) binary_slot<kMul>},
                             {Py_nb_true_divide, (void *) binary_slot<kDiv>},
                             {Py_nb_floor_divide, (void *) binary_slot<kFloorDiv>},
                             {Py_nb_power, (void *) power_slot},
                             {Py_nb_remainder, (void *) binary_slot<kMod>},
                             {Py_nb_negative, (void *) unary_slot<kNeg>},
                             {Py_nb_absolute, (void *) unary_slot<kAbs>},
                             {Py_nb_positive, (void *) unary_slot<kPos>},
                             {Py_nb_invert, (void *) unary_slot<kInvert>},
                             {Py_tp_richcompare, (void *) array_richcompare},
                             {Py_sq_item, (void *) array_sq_item},
                             {Py_sq_length, (void *) array_length},
                             {Py_tp_iter, (void *) array_iter},
                             {Py_mp_subscript, (void *) array_subscript},
                             {Py_mp_ass_subscript, (void *) array_ass_subscript},
                             {Py_mp_length, (void *) array_length},
                             {Py_tp_getset, (void *) array_getset},
                             {0, nullptr}};

} // namespace

void export_array(nb::module_ &m) {
    load_ops();
    load_scalar_ops();
    m.def("_set_operator", &set_operator, nb::arg("name"), nb::arg("func"));
    init_fast_ops();

    nb::class_<BoundMethod>(m, "_BoundMethod")
        .def("__call__", [](BoundMethod &b, nb::args args, nb::kwargs kwargs) {
            std::string fn = "Array." + b.name;
            self_of(b.self, fn.c_str());  // still in its cycle when called
            // NumPy's methods are beyond the array API: NumPy scalars as NumPy returns them.
            return as_numpy_result(apply(fn.c_str(), b.method.ptr(), args.ptr(), kwargs.ptr(), b.self.ptr()));
        })
        .def("__repr__", [](BoundMethod &b) { return "<bound method wsarray.Array." + b.name + ">"; });

    nb::class_<ArrayIter>(m, "_ArrayIterator", nb::type_slots(iterator_slots));

    // pooled: dead instances are kept for reuse (no allocation, no instance-map update per result).
    auto cls = nb::class_<Array>(m, "Array", nb::type_slots(array_slots), nb::pooled(),
                                 "An n-dimensional array whose memory comes from the current "
                                 "thread's workspace (made by wsarray functions, never directly).");
    ArrayType = (PyTypeObject *) cls.ptr();
    // wsarray.Array(...) (also wsarray.ndarray(...)): NumPy's ndarray constructor, in the current
    // workspace; and type(s)(value) for a scalar result, as code written for NumPy's scalars calls
    // it (statistics.mean() converts its result with type(x)(fraction)).
    ArrayType->tp_new = array_new;
    ArrayType->tp_init = [](PyObject *, PyObject *, PyObject *) { return 0; };
    ArrayType->tp_vectorcall = nullptr;  // nanobind's constructor dispatch would bypass tp_new
    PyType_Modified(ArrayType);

#define WSA_BINARY(py, rpy, ipy, f)                                                                \
    cls.def(py, [](nb::handle s, nb::handle o) {                                                 \
        if (should_defer(o.ptr())) return nb::borrow(Py_NotImplemented);                         \
        return call2("Array." py, ops.f, s, o);                                                  \
    },                                                                                           \
            nb::arg("other").none());                                                             \
    cls.def(rpy, [](nb::handle s, nb::handle o) { return call2("Array." rpy, ops.f, o, s); },    \
            nb::arg("other").none());                                                             \
    cls.def(ipy, [](nb::handle s, nb::handle o) { return inplace("Array." ipy, ops.f, s, o); },  \
            nb::arg("other").none());
    // Operators with a float64 fast path (fast_ops.h) try it first.
    // x + y and y + x are type slots (binary_slot); the in-place forms are methods.
#define WSA_BINARY_FAST(py, rpy, ipy, f, OP)                                                          \
    cls.def(ipy, [](nb::handle s, nb::handle o) {                                                     \
        if (fast_inplace(OP, s.ptr(), o.ptr(), "Array." ipy)) return nb::borrow(s);                  \
        return inplace("Array." ipy, ops.f, s, o);                                                    \
    }, nb::arg("other").none());
    WSA_BINARY_FAST("__add__", "__radd__", "__iadd__", add, wsa::BinaryOp::Add)
    WSA_BINARY_FAST("__sub__", "__rsub__", "__isub__", subtract, wsa::BinaryOp::Sub)
    WSA_BINARY_FAST("__mul__", "__rmul__", "__imul__", multiply, wsa::BinaryOp::Mul)
    WSA_BINARY_FAST("__truediv__", "__rtruediv__", "__itruediv__", true_divide, wsa::BinaryOp::Div)
#undef WSA_BINARY_FAST
    // x // y, x % y (both orders) are type slots (binary_slot); the in-place forms are methods.
    cls.def("__ifloordiv__", [](nb::handle s, nb::handle o) { return inplace("Array.__ifloordiv__", ops.floor_divide, s, o); },
            nb::arg("other").none());
    cls.def("__imod__", [](nb::handle s, nb::handle o) { return inplace("Array.__imod__", ops.remainder, s, o); },
            nb::arg("other").none());
    // x ** y and y ** x: the nb_power slot (power_slot).
    cls.def("__ipow__", [](nb::handle s, nb::handle o) { return inplace("Array.__ipow__", ops.power, s, o); },
            nb::arg("other").none());
    WSA_BINARY("__matmul__", "__rmatmul__", "__imatmul__", matmul)
    WSA_BINARY("__and__", "__rand__", "__iand__", bitwise_and)
    WSA_BINARY("__or__", "__ror__", "__ior__", bitwise_or)
    WSA_BINARY("__xor__", "__rxor__", "__ixor__", bitwise_xor)
    WSA_BINARY("__lshift__", "__rlshift__", "__ilshift__", left_shift)
    WSA_BINARY("__rshift__", "__rrshift__", "__irshift__", right_shift)
#undef WSA_BINARY
    // Comparisons: the tp_richcompare slot (array_richcompare).
    // divmod() is beyond the array API standard: NumPy's scalars, as NumPy returns them.
    cls.def("__divmod__", [](nb::handle s, nb::handle o) {
        return as_numpy_result(call2("Array.__divmod__", ops.divmod, s, o));
    }, nb::arg("other").none());
    cls.def("__rdivmod__", [](nb::handle s, nb::handle o) {
        return as_numpy_result(call2("Array.__rdivmod__", ops.divmod, o, s));
    }, nb::arg("other").none());
    // -x, +x, abs(x), ~x: type slots (unary_slot).

    // __getitem__, __setitem__, __delitem__, __len__, __iter__, shape, dtype, ndim, size: type
    // slots (array_slots).
    cls.def("__sizeof__", [](nb::handle s) {
        // sys.getsizeof(a) as in NumPy (a classic exercise prints it): the ndarray's own size,
        // which counts the data it owns; a scalar result's is the NumPy scalar's. Arrays are not
        // tracked by the GC, so sys.getsizeof() adds nothing to this.
        Array &a = self_of(s, "Array.__sizeof__");
        nb::object size = nb::module_::import_("sys").attr("getsizeof")(attribute_owner(a));
        return nb::cast<Py_ssize_t>(size);
    });
    cls.def("__contains__", [](nb::handle s, nb::handle v) {
        Array &a = self_of(s, "Array.__contains__");
        nb::object uv = is_array(v.ptr()) ? self_of(v, "Array.__contains__").data() : nb::borrow(v);
        int r = PySequence_Contains(a.data().ptr(), uv.ptr());
        if (r < 0) raise_pending("Array.__contains__");
        return r == 1;
    }, nb::arg("value").none());

    // Conversions to Python scalars follow NumPy (errors for arrays of more than one element).
    cls.def("__bool__", [](nb::handle s) {
        Array &a = self_of(s, "Array.__bool__");
        int r = PyObject_IsTrue(stands_for_scalar(a) ? scalar_of(a) : a.data().ptr());
        if (r < 0) raise_pending("Array.__bool__");
        return r == 1;
    });
#define WSA_CONVERT(py, expr)                                                                      \
    cls.def(py, [](nb::handle s) {                                                               \
        Array &a = self_of(s, "Array." py);                                                      \
        PyObject *d = stands_for_scalar(a) ? scalar_of(a) : a.data().ptr();                      \
        nb::object r = nb::steal(expr);                                                          \
        if (!r) raise_pending("Array." py);                                                      \
        return r;                                                                                \
    });
    WSA_CONVERT("__int__", PyNumber_Long(d))
    WSA_CONVERT("__float__", PyNumber_Float(d))
    WSA_CONVERT("__index__", PyNumber_Index(d))
    WSA_CONVERT("__complex__", PyObject_CallOneArg((PyObject *) &PyComplex_Type, d))
    WSA_CONVERT("__str__", PyObject_Str(d))
#undef WSA_CONVERT
    cls.def("__repr__", [](nb::handle s) -> nb::object {
        // A stale array says so instead of raising: debuggers, logging and the repr of containers
        // that hold one keep working. Every use of its data still raises.
        if (!token_valid(array_of(s.ptr()).token)) return nb::str(stale_repr(array_of(s.ptr())).c_str());
        // A scalar NumPy returned (a.sum(), a[0], ...) prints as NumPy prints it: np.float64(3.0).
        Array &a = self_of(s, "Array.__repr__");
        PyObject *shown = stands_for_scalar(a) ? scalar_of(a) : a.data().ptr();
        nb::object r = nb::steal(PyObject_Repr(shown));
        if (!r) throw nb::python_error();
        return r;
    });
    {
        // A scalar result reports NumPy's scalar type as its __class__, which isinstance() also
        // consults: isinstance(a.sum(), float / np.floating / np.integer) hold as in NumPy, while
        // type(x) and isinstance(x, wsarray.Array) still see the Array. Never raises (no check).
        // Put into the type's dict directly: setattr(type, "__class__") would set the metaclass.
        nb::object getter = nb::cpp_function([](nb::handle s) -> nb::object {
            Array &a = array_of(s.ptr());
            if (stands_for_scalar(a))
                return nb::borrow((PyObject *) Py_TYPE(scalar_of(a)));
            return nb::borrow((PyObject *) Py_TYPE(s.ptr()));
        });
        nb::object prop = nb::module_::import_("builtins").attr("property")(getter);
        if (PyDict_SetItemString(ArrayType->tp_dict, "__class__", prop.ptr()) < 0) throw nb::python_error();
        PyType_Modified(ArrayType);
    }
    cls.def("__round__", [](nb::handle s, nb::handle ndigits) {
        // round(x, n) as for NumPy scalars; ndarray itself has no __round__ (TypeError as NumPy).
        Array &a = self_of(s, "Array.__round__");
        if (!stands_for_scalar(a) && ndarray_ndim(a.data().ptr()) != 0)
            raise(PyExc_TypeError, "type wsarray.Array doesn't define __round__ method "
                                   "(as numpy.ndarray); use wsarray.round(x, decimals)");
        nb::object scalar = stands_for_scalar(a) ? nb::borrow(scalar_of(a))
                                                 : nb::steal(PyObject_GetItem(a.data().ptr(), nb::tuple().ptr()));
        if (!scalar) throw nb::python_error();
        nb::object f = scalar.attr("__round__");
        nb::object args = ndigits.is_none() ? nb::tuple() : nb::make_tuple(ndigits);
        return apply("Array.__round__", f.ptr(), args.ptr(), nullptr);
    }, nb::arg("ndigits") = nb::none());
    cls.def("__format__", [](nb::handle s, nb::handle spec) {
        if (!PyUnicode_Check(spec.ptr()))
            raise(PyExc_TypeError, "wsarray.Array.__format__(): the format spec must be a str, not " +
                                       std::string(Py_TYPE(spec.ptr())->tp_name));
        Array &a = self_of(s, "Array.__format__");
        nb::object r = nb::steal(PyObject_Format(stands_for_scalar(a) ? scalar_of(a) : a.data().ptr(), spec.ptr()));
        if (!r) raise_pending("Array.__format__");
        return r;
    }, nb::arg("spec").none());
    cls.def("__hash__", [](nb::handle s) -> Py_hash_t {
        // 0-d arrays hash like their value so that results of reductions work as dict keys.
        Array &a = self_of(s, "Array.__hash__");
        if (stands_for_scalar(a)) {
            Py_hash_t h = PyObject_Hash(scalar_of(a));
            if (h == -1 && PyErr_Occurred()) throw nb::python_error();
            return h;
        }
        if (ndarray_ndim(a.data().ptr()) != 0)
            raise(PyExc_TypeError, "unhashable type: 'wsarray.Array' (only 0-d arrays are hashable)");
        Py_hash_t h = PyObject_Hash(a.data().attr("item")().ptr());
        if (h == -1 && PyErr_Occurred()) throw nb::python_error();
        return h;
    });

    // a.real = ..., a.imag = ..., a.flat = ...: NumPy writes into the array (a scalar result
    // refuses, as NumPy's scalars do). Reading goes through the same path as other attributes.
    for (const char *attr : {"real", "imag", "flat"}) {
        std::string fn = std::string("Array.") + attr, name = attr;
        cls.def_prop_rw(attr, [fn, name](nb::handle s) {
            Array &a = self_of(s, fn.c_str());
            return wrap_ndarray(attribute_owner(a).attr(name.c_str()), s);
        }, [fn, name](nb::handle s, nb::handle value) {
            nb::object args = nb::make_tuple(s, nb::str(name.c_str()), value);
            apply(fn.c_str(), ops.setattr, args.ptr(), nullptr);
        }, nb::arg("value").none());
    }
    cls.def_prop_ro("base", [](nb::handle s) -> nb::object {
        // y = x[2:]; y.base is x, as in NumPy: the Array the view was made from, else (the array
        // that made the memory is gone) one Array kept for the base, so repeated reads agree.
        Array &a = self_of(s, "Array.base");
        if (stands_for_scalar(a)) return nb::none();  // NumPy's scalars have no base
        PyObject *b = ndarray_base(a.data().ptr());
        if (!b) return nb::none();
        if (a.base.is_valid() && array_of(a.base.ptr()).data().ptr() == b) return a.base;
        nb::object w = wrap_ndarray(b);
        if (is_array(w.ptr())) a.base = w;
        return w;
    });
    cls.def_prop_ro("device", [](nb::handle s) { self_of(s, "Array.device"); return nb::str("cpu"); });
    cls.def_prop_ro("T", [](nb::handle s) {
        // NumPy's .T: reversed axes for any rank (the array API's 2-D-only rule is a "should";
        // NumPy programs use v.T on vectors).
        Array &a = self_of(s, "Array.T");
        static PyObject *name = PyUnicode_InternFromString("T");  // kept forever
        nb::object t = nb::steal(PyObject_GetAttr(a.data().ptr(), name));
        if (!t) raise_pending("Array.T");
        return wrap_derived(t, a, s);
    });
    cls.def_prop_ro("mT", [](nb::handle s) {
        Array &a = self_of(s, "Array.mT");
        if (nb::cast<int>(a.data().attr("ndim")) < 2)
            raise(PyExc_ValueError, "wsarray.Array.mT: the array must have at least 2 dimensions");
        return wrap_derived(a.data().attr("mT"), a, s);
    });

    cls.def("__array__", [](nb::handle s, nb::handle dtype, nb::handle copy) {
        Array &a = self_of(s, "Array.__array__");
        nb::dict kw;
        if (!dtype.is_none()) kw["dtype"] = dtype;
        kw["copy"] = copy.is_none() ? nb::object(nb::bool_(false)) : nb::borrow(copy);
        if (copy.is_none()) {
            nb::object r = nb::steal(PyObject_Call(ops.array, nb::make_tuple(a.data()).ptr(), kw.ptr()));
            if (r) return r;
            PyErr_Clear();  // dtype conversion needs a copy, which copy=None allows
            kw["copy"] = nb::bool_(true);
        }
        nb::object r = nb::steal(PyObject_Call(ops.array, nb::make_tuple(a.data()).ptr(), kw.ptr()));
        if (!r) throw nb::python_error();
        return r;
    }, nb::arg("dtype") = nb::none(), nb::arg("copy") = nb::none());
    // x.__array_interface__ as NumPy's (the same memory; np.rec.array and other code read it). NumPy
    // itself converts an Array through the buffer protocol first, so this changes no conversion.
    cls.def_prop_ro("__array_interface__", [](nb::handle s) {
        // NumPy makes the array it builds from this dict hold *this Array* (not its ndarray): the
        // Array keeps its memory from then on, even once stale (release_holders() skips it).
        Array &a = self_of(s, "Array.__array_interface__");
        a.interface_exported = true;
        return a.data().attr("__array_interface__");
    });
    // a.to_numpy(): the NumPy array over the same memory (no copy), as pandas and xarray offer it.
    // matplotlib and seaborn call it before they fall back to reading an object element by element
    // (plt.hist of 10^6 elements: 5.5 s that way, 0.03 s through NumPy).
    cls.def("to_numpy", [](nb::handle s) {
        Array &a = self_of(s, "Array.to_numpy");
        return a.data();
    });
    // The Arrays among the inputs are checked (and unwrapped) by apply(); self needs no extra step.
    cls.def("__array_ufunc__", [](nb::handle, nb::handle ufunc, nb::str method, nb::args inputs, nb::kwargs kwargs) {
        nb::object f = ufunc.attr(method);
        std::string name = nb::cast<std::string>(ufunc.attr("__name__"));
        if (nb::cast<std::string>(method) != "__call__") name += "." + nb::cast<std::string>(method);
        return apply(name.c_str(), f.ptr(), inputs.ptr(), kwargs.ptr());
    });
    cls.def("__array_function__", [](nb::handle, nb::handle func, nb::handle /* types */, nb::tuple args, nb::dict kwargs) {
        std::string name = nb::cast<std::string>(func.attr("__name__"));
        return apply(name.c_str(), func.ptr(), args.ptr(), kwargs.ptr());
    });
    cls.def("__array_namespace__", [](nb::handle s, nb::handle api_version) {
        self_of(s, "Array.__array_namespace__");
        nb::module_ ws = nb::module_::import_("wsarray");
        if (!api_version.is_none()) {
            nb::object supported = ws.attr("_SUPPORTED_API_VERSIONS");
            if (!PySequence_Contains(supported.ptr(), api_version.ptr()))
                raise(PyExc_ValueError, "wsarray.Array.__array_namespace__(): unsupported api_version " +
                                            nb::cast<std::string>(nb::repr(api_version)));
        }
        return nb::object(ws);
    }, nb::kw_only(), nb::arg("api_version") = nb::none());
    cls.def("__dlpack__", [](nb::handle s, nb::kwargs kwargs) {
        Array &a = self_of(s, "Array.__dlpack__");
        nb::object f = a.data().attr("__dlpack__");
        nb::object r = nb::steal(PyObject_Call(f.ptr(), nb::tuple().ptr(), kwargs.ptr()));
        if (!r) { name_error_for("Array.__dlpack__"); throw nb::python_error(); }
        return r;
    });
    cls.def("__dlpack_device__", [](nb::handle s) {
        return self_of(s, "Array.__dlpack_device__").data().attr("__dlpack_device__")();
    });
    cls.def("to_device", [](nb::handle s, nb::handle device, nb::handle /* stream: CPU has none */) {
        self_of(s, "Array.to_device");
        if (!(nb::isinstance<nb::str>(device) && nb::cast<std::string>(device) == "cpu"))
            raise(PyExc_ValueError, "wsarray.Array.to_device(): unknown device " +
                                        nb::cast<std::string>(nb::repr(device)) + "; this build has 'cpu'");
        return nb::borrow(s);
    }, nb::arg("device").none(), nb::kw_only(), nb::arg("stream") = nb::none());

    // Workspace membership (ND4J names, snake_case).
    cls.def("detach", [](nb::handle s) { return copy_into(s, nullptr, "Array.detach"); },
            "An independent copy outside every workspace (valid forever).");
    cls.def("leverage", [](nb::handle s) {
        Array &a = self_of(s, "Array.leverage");
        if (!a.token.ws) return nb::borrow(s);
        auto parent = wsa::parent_of(current_stack(), a.token.ws.get());
        return copy_into(s, parent.get(), "Array.leverage");
    }, "A copy in the workspace open just outside this array's workspace (detached if none).");
    cls.def("leverage_to", [](nb::handle s, nb::handle name_arg) {
        Array &a = self_of(s, "Array.leverage_to");
        if (!PyUnicode_Check(name_arg.ptr()))
            raise(PyExc_TypeError, "wsarray.Array.leverage_to(): the workspace name must be a str, not " +
                                       std::string(Py_TYPE(name_arg.ptr())->tp_name));
        std::string name = text_arg(name_arg, "Array.leverage_to", "the workspace name");
        auto ws = wsa::ThreadWorkspaces::current().find(name);
        if (!ws || !wsa::is_open_in(current_stack(), ws.get()))
            raise(WorkspaceError, "wsarray.Array.leverage_to(): workspace '" + name + "' has no open "
                                  "cycle on this thread; leverage_to() copies into a workspace whose "
                                  "'with' block encloses the current code");
        if (a.token.ws == ws) return nb::borrow(s);
        return copy_into(s, ws.get(), "Array.leverage_to");
    }, nb::arg("name").none(), "A copy in the named open workspace (the array itself if it is there already).");
    cls.def("is_attached", [](nb::handle s) { return (bool) array_of(s.ptr()).token.ws; },
            "True if the array's memory belongs to a workspace.");
    cls.def("is_in_scope", [](nb::handle s) {
        const Token &t = array_of(s.ptr()).token;
        return t.ws && token_valid(t) && (t.ws->circular() || t.ws->cycle_open());
    }, "True if the array belongs to a workspace whose cycle is still open (usable now).");
    cls.def_prop_ro("workspace", [](nb::handle s) -> nb::object {
        const Token &t = array_of(s.ptr()).token;
        if (!t.ws) return nb::none();
        return nb::str(t.ws->name().c_str());
    }, "Name of the workspace the memory belongs to (None for detached arrays).");

    // Copies of a scalar result are scalar results (x[()] of the 0-d array gives NumPy's scalar).
    cls.def("__copy__", [](nb::handle s) {
        if (array_of(s.ptr()).from_scalar) return call2("Array.__copy__", ops.getitem, s, nb::tuple());
        return call1("Array.__copy__", ops.copy, s);
    });
    cls.def("__deepcopy__", [](nb::handle s, nb::handle memo) {
        if (array_of(s.ptr()).from_scalar) return call2("Array.__deepcopy__", ops.getitem, s, nb::tuple());
        // ndarray.__deepcopy__: the elements of an object array are deep-copied too.
        nb::object f = self_of(s, "Array.__deepcopy__").data().attr("__deepcopy__");
        nb::object args = nb::make_tuple(memo.is_none() ? nb::object(nb::dict()) : nb::borrow(memo));
        return apply("Array.__deepcopy__", f.ptr(), args.ptr(), nullptr);
    }, nb::arg("memo").none());
    cls.def("resize", [](nb::handle s, nb::args args, nb::kwargs kwargs) {
        // NumPy refuses to resize an array that other names reference (refcheck=True): here the
        // names reference the Array (the caller's and this call's), not the ndarray it holds.
        Array &a = self_of(s, "Array.resize");
        if (stands_for_scalar(a)) {  // NumPy's scalar's resize: a value stays as it is
            nb::object f = nb::borrow(scalar_of(a)).attr("resize");
            return apply("Array.resize", f.ptr(), args.ptr(), kwargs.ptr());
        }
        nb::object refcheck = kwargs.contains("refcheck") ? nb::object(kwargs["refcheck"]) : nb::object(nb::bool_(true));
        int check = PyObject_IsTrue(refcheck.ptr());
        if (check < 0) raise_pending("Array.resize");
        if (check && Py_REFCNT(s.ptr()) > 2)
            raise(PyExc_ValueError, "wsarray.Array.resize(): cannot resize an array that references or is "
                                    "referenced\nby another object in this way.\nUse the np.resize function "
                                    "to get a new resized copy or\n set refcheck=False to disable this check");
        nb::object f = a.data().attr("resize");
        return apply("Array.resize", f.ptr(), args.ptr(), kwargs.ptr());
    });
    cls.def("__reduce__", [](nb::handle s) {
        // Pickling reads the array's own memory, which a workspace never reuses while the Array
        // holds it: an array whose cycle ended still pickles (a multiprocessing.Queue pickles on
        // its feeder thread after put() returned, maybe after the cycle: the item must arrive, not
        // vanish on that thread). Once its workspace is destroyed the memory is gone: that raises.
        Array &a = array_of(s.ptr());
        bool intact = a.token.ws && a.token.ws->alive();
        if (!intact) self_of(s, "Array.__reduce__");
        nb::module_ ws = nb::module_::import_("wsarray");
        if (stands_for_scalar(a))
            return nb::make_tuple(ws.attr("_rebuild_scalar"),
                                  nb::make_tuple(attribute_owner(a)));
        return nb::make_tuple(ws.attr("_rebuild_array"), nb::make_tuple(a.data().attr("copy")()));
    });
    // a.sum(), a.reshape(), ... (the methods loops call): methods.cpp.
    export_methods(ArrayType);
    cls.def("__getattr__", [](nb::handle s, const std::string &name) -> nb::object {
        // Everything else an ndarray has (sum, reshape, astype, tolist, strides, ...), through the
        // engine. Dunder names are not forwarded: NumPy must not find __array_interface__ & co.
        if (name.size() > 1 && name[0] == '_')
            raise(PyExc_AttributeError, "'wsarray.Array' object has no attribute '" + name + "'");
        std::string fn = "Array." + name;
        Array &a = self_of(s, fn.c_str());
        nb::object attr = nb::steal(PyObject_GetAttrString(attribute_owner(a).ptr(), name.c_str()));
        if (!attr) {
            // NumPy's own error for an attribute it has (a.data of datetimes: ValueError).
            if (!PyErr_ExceptionMatches(PyExc_AttributeError)) raise_pending(fn.c_str());
            PyErr_Clear();
            raise(PyExc_AttributeError, "'wsarray.Array' object has no attribute '" + name + "'");
        }
        if (PyCallable_Check(attr.ptr())) return nb::cast(BoundMethod{nb::borrow(s), name, attr});
        return wrap_ndarray(attr, s);
    });
    cls.attr("__array_priority__") = 100;
}

} // namespace wsa_py
