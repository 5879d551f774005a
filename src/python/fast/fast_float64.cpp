/// src/python/fast/fast_float64.cpp -- the operators' lean path for float64 arrays (see fast_float64.h):
/// operands classified as rows of doubles, the C++ kernels run on them (large ones without the
/// GIL), floating-point errors reported through NumPy, and temporary elision.
#include "common/gil.h"
#include "numpy_access/numpy_api.h"

#include "fast/fast_float64.h"
#include "fast/fast_indexing.h"

#include "results/ndarray_pool.h"
#include "allocation/numpy_alloc.h"
#include "workspaces/scopes.h"

#include <algorithm>
#include <cstdlib>
#include <dlfcn.h>
#include <execinfo.h>
#include <limits>
#include <unordered_map>

namespace wsa_py {

namespace {

/// Elide temporaries only from this size on (NumPy's threshold): below it the saved allocation is
/// worth less than the stack walk that proves the caller is the interpreter.
constexpr npy_intp kElideBytes = 256 * 1024;

struct Operand {
    PyObject *obj = nullptr;        ///< the Python object (Array or number)
    PyArrayObject *nd = nullptr;    ///< its ndarray (null for scalars)
    /// A reference to `nd` while the operand is in use: large kernels run without the GIL, and
    /// meanwhile another thread destroying the Array's workspace makes the Array let go of it.
    nb::object keep;
    wsa::Grid grid;
    std::size_t rows = 0, cols = 0;
};

/// A float64 ndarray whose rows are contiguous: fill its grid. False for other layouts, and for a
/// dtype with metadata (NumPy's results keep it; the lean path makes plain float64 ones).
bool grid_of(PyArrayObject *nd, Operand &op) {
    if (PyArray_TYPE(nd) != NPY_DOUBLE || !PyArray_ISNOTSWAPPED(nd) || !PyArray_ISALIGNED(nd)) return false;
    if (PyDataType_METADATA(PyArray_DESCR(nd))) return false;
    int ndim = PyArray_NDIM(nd);
    npy_intp *shape = PyArray_DIMS(nd), *strides = PyArray_STRIDES(nd);
    op.grid.data = (const double *) PyArray_DATA(nd);
    if (PyArray_SIZE(nd) == 0) return false;
    if (ndim == 0) {
        op.rows = op.cols = 1;
    } else if (ndim == 1) {
        if (shape[0] > 1 && strides[0] != (npy_intp) sizeof(double)) return false;
        op.rows = 1;
        op.cols = (std::size_t) shape[0];
    } else if (ndim == 2) {
        if (shape[1] > 1 && strides[1] != (npy_intp) sizeof(double)) return false;
        if (strides[0] % (npy_intp) sizeof(double) != 0) return false;
        op.rows = (std::size_t) shape[0];
        op.cols = (std::size_t) shape[1];
        op.grid.row_stride = strides[0] / (npy_intp) sizeof(double);
    } else {
        if (!PyArray_IS_C_CONTIGUOUS(nd)) return false;
        op.rows = 1;
        op.cols = (std::size_t) PyArray_SIZE(nd);
    }
    return true;
}

/// Classify an operand: a valid float64 Array with contiguous rows, or a Python float / small
/// int. Raises WorkspaceError for a stale Array; false when the fast path does not apply.
bool operand_of(PyObject *o, Operand &op, const char *fn) {
    op.obj = o;
    if (is_array(o)) {
        Array &a = array_of(o);
        check_valid(a, fn);
        // 0-d operands take NumPy's path (NumPy returns a scalar for them).
        if (!PyArray_CheckExact(a.data().ptr()) || PyArray_NDIM((PyArrayObject *) a.data().ptr()) == 0) return false;
        op.nd = (PyArrayObject *) a.data().ptr();
        op.keep = nb::borrow((PyObject *) op.nd);
        return grid_of(op.nd, op);
    }
    op.grid.scalar = true;
    if (PyFloat_CheckExact(o)) {
        op.grid.value = PyFloat_AS_DOUBLE(o);
        return true;
    }
    if (PyLong_CheckExact(o)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (overflow || v > kExactInt || v < -kExactInt) return false;
        op.grid.value = (double) v;
        return true;
    }
    return false;
}

/// When every array operand's rows follow each other in memory, run them as one long row: one
/// vectorised kernel call instead of one per row (a 20000x32 array: 20,000 calls of 32 elements).
void merge_contiguous_rows(Operand &a, Operand &b) {
    for (const Operand *o : {&a, &b})
        if (o->nd && o->rows > 1 && o->grid.row_stride != (std::ptrdiff_t) o->cols) return;
    for (Operand *o : {&a, &b}) {
        if (!o->nd) continue;
        o->cols *= o->rows;
        o->rows = 1;
        o->grid.row_stride = (std::ptrdiff_t) o->cols;
    }
}

bool same_shape(PyArrayObject *a, PyArrayObject *b) {
    return PyArray_NDIM(a) == PyArray_NDIM(b) &&
           PyArray_CompareLists(PyArray_DIMS(a), PyArray_DIMS(b), PyArray_NDIM(a));
}

/// Bytes [lo, hi) an operand's elements span.
std::pair<const char *, const char *> extent(const Operand &op) {
    const char *first = (const char *) op.grid.data;
    const char *last_row = first + (std::ptrdiff_t) (op.rows - 1) * op.grid.row_stride * 8;
    const char *lo = std::min(first, last_row), *hi = std::max(first, last_row) + op.cols * 8;
    return {lo, hi};
}

/// True when writing the result over `out` while reading `in` is safe elementwise: no shared
/// memory, or exactly the same elements in the same layout.
bool safe_to_write_over(const Operand &out, const Operand &in) {
    if (in.grid.scalar) return true;
    auto a = extent(out), b = extent(in);
    if (a.second <= b.first || b.second <= a.first) return true;
    return out.grid.data == in.grid.data && (out.rows == 1 || out.grid.row_stride == in.grid.row_stride);
}

/// NumPy's guard for temporary elision: is the interpreter loop the direct caller of this
/// operator? C code (a Cython function, say) may hold the only reference to an array and still
/// use it after `x + y`; the interpreter's stack cannot. Every frame between here and
/// _PyEval_EvalFrameDefault must belong to this module or to Python itself.
bool called_from_interpreter() {
    static void *python_base = nullptr, *module_base = nullptr, *eval = nullptr;
    static bool initialised = false;
    if (!initialised) {
        Dl_info info;
        if (dladdr((void *) &PyNumber_Add, &info)) python_base = info.dli_fbase;
        if (dladdr((void *) &called_from_interpreter, &info)) module_base = info.dli_fbase;
        eval = dlsym(RTLD_DEFAULT, "_PyEval_EvalFrameDefault");
        initialised = true;
    }
    if (!python_base || !module_base || !eval) return false;
    // What each return address is, remembered: dladdr() searches every loaded object. The GIL is
    // held here, so the cache needs no lock; it stays small (one entry per call site).
    enum Kind : char { Other, Ours, Python, Eval };
    static std::unordered_map<void *, Kind> kinds;
    void *frames[32];
    int n = backtrace(frames, 32);
    for (int i = 1; i < n; ++i) {
        auto it = kinds.find(frames[i]);
        Kind k;
        if (it != kinds.end()) {
            k = it->second;
        } else {
            Dl_info info;
            if (!dladdr(frames[i], &info)) k = Other;
            else if (info.dli_fbase == module_base) k = Ours;
            else if (info.dli_fbase != python_base) k = Other;
            else k = info.dli_saddr == eval ? Eval : Python;
            if (kinds.size() < 4096) kinds.emplace(frames[i], k);
        }
        if (k == Eval) return true;
        if (k == Other) return false;
    }
    return false;
}

/// May the result of an arithmetic operation be written over operand `t`?
bool elidable(const Operand &t, wsa::Workspace *target) {
    // The ndarray's references: its Array's two (the record's, its fields' base) and the
    // operand's own (`keep`); nothing else views it.
    if (!t.nd || Py_REFCNT(t.obj) != 1 || Py_REFCNT((PyObject *) t.nd) != 3) return false;
    if (!PyArray_CHKFLAGS(t.nd, NPY_ARRAY_OWNDATA) || !writeable_quietly(t.nd)) return false;
    if (PyArray_NBYTES(t.nd) < kElideBytes || PyArray_BASE(t.nd)) return false;
    if (array_of(t.obj).token.ws.get() != target) return false;
    return called_from_interpreter();
}

const char *ufunc_name(wsa::BinaryOp op) {
    switch (op) {
    case wsa::BinaryOp::Add: return "add";
    case wsa::BinaryOp::Sub: return "subtract";
    case wsa::BinaryOp::Mul: return "multiply";
    case wsa::BinaryOp::Div: return "divide";
    default: return nullptr;
    }
}

/// Report the floating-point errors a kernel raised exactly as NumPy does, by running the same
/// ufunc on one pair of values that raises each flag alone (so np.errstate decides: ignore,
/// warn, raise, call, print or log, with NumPy's own messages). Throws if NumPy raised.
void report_fp_errors(wsa::BinaryOp op, int flags) {
    const char *name = ufunc_name(op);
    if (!flags || !name) return;
    constexpr double inf = std::numeric_limits<double>::infinity();
    struct Case {
        int flag;
        double x, y;
    };
    // Values per ufunc that raise one flag each; NumPy checks divide, over, under, invalid.
    Case cases[4] = {{wsa::kDivideByZero, 1.0, 0.0},
                     {wsa::kOverflow, 1e308, 1e308},
                     {wsa::kUnderflow, 1e-300, 1e-300},
                     {wsa::kInvalid, inf, -inf}};
    if (op == wsa::BinaryOp::Sub) {
        cases[1] = {wsa::kOverflow, -1e308, 1e308};
        cases[3] = {wsa::kInvalid, inf, inf};
    }
    if (op == wsa::BinaryOp::Mul) {
        cases[1] = {wsa::kOverflow, 1e308, 10.0};
        cases[3] = {wsa::kInvalid, 0.0, inf};
    }
    if (op == wsa::BinaryOp::Div) {
        cases[1] = {wsa::kOverflow, 1e308, 1e-10};
        cases[2] = {wsa::kUnderflow, 1e-300, 1e300};
        cases[3] = {wsa::kInvalid, 0.0, 0.0};
    }
    nb::object ufunc = nb::module_::import_("numpy").attr(name);
    for (const Case &c : cases) {
        if (!(flags & c.flag)) continue;
        nb::object x = nb::steal(PyArray_SimpleNew(0, nullptr, NPY_DOUBLE));
        nb::object y = nb::steal(PyArray_SimpleNew(0, nullptr, NPY_DOUBLE));
        if (!x || !y) throw nb::python_error();
        *(double *) PyArray_DATA((PyArrayObject *) x.ptr()) = c.x;
        *(double *) PyArray_DATA((PyArrayObject *) y.ptr()) = c.y;
        nb::object r = nb::steal(PyObject_CallFunctionObjArgs(ufunc.ptr(), x.ptr(), y.ptr(), nullptr));
        if (!r) throw nb::python_error();
    }
}

/// Allocate the result (shape of `like`, C order) in the current target. Null with no error set
/// if the allocation failed (the general path then reports the failure properly).
PyArrayObject *new_result(PyArrayObject *like, int type, wsa::Workspace *target) {
    if (PyArray_Descr *d = builtin_descr(type))
        if (PyArrayObject *r = new_owned_array(target, d, PyArray_NDIM(like), PyArray_DIMS(like), false)) return r;
    return (PyArrayObject *) routed_new_array(  // a builtin type number
        target, [&] { return PyArray_SimpleNew(PyArray_NDIM(like), PyArray_DIMS(like), type); });
}

wsa::OutGrid out_grid_of(PyArrayObject *nd, std::size_t cols) {
    wsa::OutGrid g;
    g.data = PyArray_DATA(nd);
    g.row_stride = (std::ptrdiff_t) cols;  // a fresh C-ordered result
    return g;
}

/// Run a kernel; large ones without the GIL (as NumPy's loops), so other Python threads go on.
/// The operands stay referenced by the caller's frame meanwhile.
int run_binary(wsa::BinaryOp op, std::size_t rows, std::size_t cols, const wsa::Grid &a, const wsa::Grid &b,
               const wsa::OutGrid &out) {
    if (rows * cols < wsa::kParallelThreshold) return wsa::binary_f64(op, rows, cols, a, b, out);
    GilReleased unlocked;
    return wsa::binary_f64(op, rows, cols, a, b, out);
}

void run_unary(wsa::UnaryOp op, std::size_t rows, std::size_t cols, const wsa::Grid &a, const wsa::OutGrid &out) {
    if (rows * cols < wsa::kParallelThreshold) return wsa::unary_f64(op, rows, cols, a, out);
    GilReleased unlocked;
    wsa::unary_f64(op, rows, cols, a, out);
}

/// Report floating-point errors of a sum the way np.add.reduce does (its own messages).
void report_reduce_errors(int flags) {
    if (!(flags & (wsa::kOverflow | wsa::kInvalid))) return;
    constexpr double inf = std::numeric_limits<double>::infinity();
    nb::object reduce = nb::module_::import_("numpy").attr("add").attr("reduce");
    struct Case {
        int flag;
        double x, y;
    };
    for (const Case &c : {Case{wsa::kOverflow, 1e308, 1e308}, Case{wsa::kInvalid, inf, -inf}}) {
        if (!(flags & c.flag)) continue;
        npy_intp two = 2;
        nb::object pair = nb::steal(PyArray_SimpleNew(1, &two, NPY_DOUBLE));
        if (!pair) throw nb::python_error();
        double *d = (double *) PyArray_DATA((PyArrayObject *) pair.ptr());
        d[0] = c.x;
        d[1] = c.y;
        nb::object r = nb::steal(PyObject_CallOneArg(reduce.ptr(), pair.ptr()));
        if (!r) throw nb::python_error();
    }
}

} // namespace

PyObject *fast_sum(PyObject *x, const char *fn, bool mean) {
    Operand a;
    if (!operand_of(x, a, fn) || !a.nd || !PyArray_IS_C_CONTIGUOUS(a.nd)) return nullptr;
    std::size_t n = (std::size_t) PyArray_SIZE(a.nd);
    int flags = 0;
    double total;
    if (n < wsa::kParallelThreshold) {
        total = wsa::sum_f64(a.grid.data, n, flags);
    } else {
        GilReleased unlocked;
        total = wsa::sum_f64(a.grid.data, n, flags);
    }
    report_reduce_errors(flags);
    // NumPy's mean of float64: the same add.reduce, divided by the count (as float64 / intp).
    if (mean) total /= (double) n;
    // NumPy returns an np.float64 scalar, and so does this.
    PyObject *value = float64_scalar(total);
    if (!value) PyErr_Clear();  // the general path reports the failure
    return value;
}

PyObject *fast_binary(wsa::BinaryOp op, PyObject *x, PyObject *y, const char *fn) {
    Operand a, b;
    bool ok_a = operand_of(x, a, fn), ok_b = operand_of(y, b, fn);
    if (!ok_a || !ok_b || (a.grid.scalar && b.grid.scalar)) return nullptr;
    if (a.nd && b.nd && !same_shape(a.nd, b.nd)) return nullptr;
    // Both arrays use the same split into rows: 2-D arrays by their rows, others flattened.
    const Operand &shape = a.nd ? a : b;
    if (a.nd && b.nd && (a.rows != b.rows || a.cols != b.cols)) return nullptr;
    merge_contiguous_rows(a, b);
    wsa::Workspace *target = current_target();
    bool compare = wsa::is_comparison(op);
    if (!compare) {
        for (const Operand *t : {&a, &b}) {
            if (!elidable(*t, target)) continue;
            const Operand &other = t == &a ? b : a;
            if (!safe_to_write_over(*t, other)) continue;
            wsa::OutGrid out{(void *) t->grid.data, t->grid.row_stride};
            int flags = run_binary(op, shape.rows, shape.cols, a.grid, b.grid, out);
            report_fp_errors(op, flags);
            Py_INCREF(t->obj);
            return t->obj;
        }
    }
    PyArrayObject *res = new_result(shape.nd, compare ? NPY_BOOL : NPY_DOUBLE, target);
    if (!res) return nullptr;
    nb::object guard = nb::steal((PyObject *) res);
    int flags = run_binary(op, shape.rows, shape.cols, a.grid, b.grid, out_grid_of(res, shape.cols));
    report_fp_errors(op, flags);
    return wrap_new(guard.release().ptr(), target);
}

PyObject *fast_unary(wsa::UnaryOp op, PyObject *x, const char *fn) {
    Operand a;
    if (!operand_of(x, a, fn) || a.grid.scalar) return nullptr;
    Operand none;
    merge_contiguous_rows(a, none);
    wsa::Workspace *target = current_target();
    if (elidable(a, target)) {
        run_unary(op, a.rows, a.cols, a.grid, wsa::OutGrid{(void *) a.grid.data, a.grid.row_stride});
        Py_INCREF(x);
        return x;
    }
    PyArrayObject *res = new_result(a.nd, NPY_DOUBLE, target);
    if (!res) return nullptr;
    run_unary(op, a.rows, a.cols, a.grid, out_grid_of(res, a.cols));
    return wrap_new((PyObject *) res, target);
}

bool fast_inplace(wsa::BinaryOp op, PyObject *self, PyObject *other, const char *fn) {
    if (wsa::is_comparison(op)) return false;
    Operand s, o;
    bool ok_s = operand_of(self, s, fn), ok_o = operand_of(other, o, fn);
    if (!ok_s || !ok_o || !s.nd || !writeable_quietly(s.nd)) return false;
    if (o.nd && (!same_shape(s.nd, o.nd) || s.rows != o.rows || s.cols != o.cols)) return false;
    // Rows of the target that overlap one another (as_strided): NumPy copies such an operand
    // first, so each element is written once from what it held before.
    if (s.rows > 1 && std::abs(s.grid.row_stride) < (std::ptrdiff_t) s.cols) return false;
    if (!safe_to_write_over(s, o)) return false;
    merge_contiguous_rows(s, o);
    wsa::OutGrid out{(void *) s.grid.data, s.grid.row_stride};
    int flags = run_binary(op, s.rows, s.cols, s.grid, o.grid, out);
    report_fp_errors(op, flags);
    return true;
}

} // namespace wsa_py
