/// src/python/fast/fusion.cpp -- the block runner of wsarray.fuse: a fused plan's NumPy inner loops
/// called block by block from C++, on the thread pool, without the GIL.
///
/// wsarray/fusion/native.py resolves each step of a plan to the strided inner loop NumPy itself
/// runs for those dtypes (ufunc._resolve_dtypes_and_context and ._get_strided_loop, the documented
/// pair fast_numpy's lean paths also use) and hands the loops here with the operands' slots. Each
/// block then costs one C call per step: no Python, no allocation, every temporary in a block
/// buffer of the thread. Results are NumPy's bit for bit (the same loops on the same values).
/// When a loop raises a floating-point flag or fails, the runner says so and the caller redoes
/// the work through NumPy's Python calls, which report exactly as NumPy does (np.errstate).
#include "common/gil.h"
#include "numpy_access/numpy_api.h"

#include "fast/fusion.h"

#include "numpy_access/numpy_loops.h"

#include <nanobind/stl/string.h>

#include "compute/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace nb = nanobind;

namespace wsa_py {

namespace {

/// An operand of the plan over a rows x cols grid: an array (element (r, c) at data + r *
/// row_stride + c * elem_stride; strides may be 0 for broadcasting), a constant (a 0-d array of the
/// loop's dtype), or a temporary (a block buffer per thread).
struct Slot {
    enum Kind { Array, Scalar, Temp } kind;
    char *data = nullptr;     ///< Array / Scalar: the data
    npy_intp itemsize = 0;
    npy_intp row_stride = 0;  ///< Array: bytes between rows
    npy_intp elem_stride = 0; ///< Array: bytes between the elements of a row
};

struct Step {
    UfuncCallInfo *info;
    std::vector<int> in;  ///< slots of the inputs
    int out;              ///< slot of the output
};

struct Plan {
    std::vector<Slot> slots;
    std::vector<Step> steps;
    npy_intp cols = 0;  ///< elements per row of the grid (a 1-D plan: one row)
};

/// Per-thread block buffers of the temporaries.
struct Buffers {
    std::vector<std::unique_ptr<char, void (*)(void *)>> temp;
    Buffers(const Plan &p, npy_intp block) {
        for (const Slot &s : p.slots) {
            void *mem = nullptr;
            if (s.kind == Slot::Temp && posix_memalign(&mem, 64, (std::size_t) (block * s.itemsize + 64)) != 0)
                mem = nullptr;
            temp.emplace_back((char *) mem, std::free);
        }
    }
    bool ok(const Plan &p) const {
        for (std::size_t i = 0; i < p.slots.size(); ++i)
            if (p.slots[i].kind == Slot::Temp && !temp[i]) return false;
        return true;
    }
};

/// Run the steps over elements [c, c + n) of row r (n <= block). 0: done; 1: a loop failed.
int run_block(const Plan &p, Buffers &b, npy_intp r, npy_intp c, npy_intp n) {
    char *data[NPY_MAXARGS];
    npy_intp strides[NPY_MAXARGS];
    for (const Step &st : p.steps) {
        int k = 0;
        auto add = [&](int slot) {
            const Slot &s = p.slots[(std::size_t) slot];
            switch (s.kind) {
            case Slot::Array:
                data[k] = s.data + r * s.row_stride + c * s.elem_stride;
                strides[k] = s.elem_stride;
                break;
            case Slot::Scalar:
                data[k] = s.data;
                strides[k] = 0;
                break;
            case Slot::Temp:
                data[k] = b.temp[(std::size_t) slot].get();
                strides[k] = s.itemsize;
                break;
            }
            ++k;
        };
        for (int i : st.in) add(i);
        add(st.out);
        if (st.info->strided_loop(st.info->context, data, &n, strides, st.info->auxdata) != 0) return 1;
    }
    return 0;
}

UfuncCallInfo *call_info(nb::handle capsule) {
    auto *info = (UfuncCallInfo *) PyCapsule_GetPointer(capsule.ptr(), "numpy_1.24_ufunc_call_info");
    if (!info) throw nb::python_error();
    if (!info->strided_loop || info->requires_pyapi)
        throw std::invalid_argument("wsarray.fuse: a loop needs the Python API");
    return info;
}

char *array_data(nb::handle a, npy_intp &itemsize) {
    if (!PyArray_Check(a.ptr())) throw std::invalid_argument("wsarray.fuse: an operand is not an ndarray");
    auto *nd = (PyArrayObject *) a.ptr();
    itemsize = PyArray_ITEMSIZE(nd);
    if (PyArray_NDIM(nd) > 1 || !PyArray_ISCARRAY_RO(nd))
        throw std::invalid_argument("wsarray.fuse: operands must be 1-D contiguous or 0-d");
    return PyArray_BYTES(nd);
}

/// An array operand over the grid: ("array", ndarray, row_stride, elem_stride); the ndarray (the
/// operand broadcast to rows x cols, or 1-D) keeps the memory alive and must span what the strides
/// reach (checked: the caller passes NumPy's own strides of a broadcast view).
char *grid_data(nb::tuple t, npy_intp rows, npy_intp cols, Slot &s) {
    if (!PyArray_Check(t[1].ptr())) throw std::invalid_argument("wsarray.fuse: an operand is not an ndarray");
    auto *nd = (PyArrayObject *) t[1].ptr();
    s.itemsize = PyArray_ITEMSIZE(nd);
    s.row_stride = nb::cast<npy_intp>(t[2]);
    s.elem_stride = nb::cast<npy_intp>(t[3]);
    int ndim = PyArray_NDIM(nd);
    npy_intp want_rows = ndim == 2 ? PyArray_DIM(nd, 0) : 1;
    npy_intp want_cols = ndim == 0 ? 1 : PyArray_DIM(nd, ndim - 1);
    npy_intp have_row = ndim == 2 ? PyArray_STRIDE(nd, 0) : 0;
    npy_intp have_elem = ndim >= 1 ? PyArray_STRIDE(nd, ndim - 1) : 0;
    if (ndim > 2 || want_rows != rows || want_cols != cols || (rows > 1 && have_row != s.row_stride) ||
        (cols > 1 && have_elem != s.elem_stride) || !PyArray_ISALIGNED(nd))
        throw std::invalid_argument("wsarray.fuse: an operand does not match the grid");
    return PyArray_BYTES(nd);
}

/// slots: list of ("array", ndarray, row_stride, elem_stride) | ("scalar", 0-d ndarray) |
/// ("temp", itemsize); steps: list of (capsule, (input slots...), output slot).
Plan make_plan(nb::list slots, nb::list steps, npy_intp rows, npy_intp cols) {
    Plan p;
    p.cols = cols;
    for (nb::handle h : slots) {
        nb::tuple t = nb::borrow<nb::tuple>(h);
        std::string kind = nb::cast<std::string>(t[0]);
        Slot s;
        if (kind == "temp") {
            s.kind = Slot::Temp;
            s.itemsize = nb::cast<npy_intp>(t[1]);
        } else if (kind == "array") {
            s.kind = Slot::Array;
            s.data = grid_data(t, rows, cols, s);
        } else {
            s.kind = Slot::Scalar;
            s.data = array_data(t[1], s.itemsize);
        }
        p.slots.push_back(s);
    }
    for (nb::handle h : steps) {
        nb::tuple t = nb::borrow<nb::tuple>(h);
        Step st;
        st.info = call_info(t[0]);
        for (nb::handle i : nb::borrow<nb::tuple>(t[1])) st.in.push_back(nb::cast<int>(i));
        st.out = nb::cast<int>(t[2]);
        if (st.in.size() + 1 > NPY_MAXARGS) throw std::invalid_argument("wsarray.fuse: too many operands");
        for (int i : st.in)
            if (i < 0 || (std::size_t) i >= p.slots.size()) throw std::invalid_argument("wsarray.fuse: bad slot");
        if (st.out < 0 || (std::size_t) st.out >= p.slots.size()) throw std::invalid_argument("wsarray.fuse: bad slot");
        p.steps.push_back(std::move(st));
    }
    return p;
}

/// Run `p` over `ranges` (lo, length) of the flattened grid split into `parts` (blocks never cross
/// a row); after each range `finish(thread buffers, range index)` (the reduction of its block,
/// which then spans one block of one row). False when a loop raised a flag or failed.
template <class Finish> bool run_ranges(const Plan &p, const std::vector<std::pair<npy_intp, npy_intp>> &ranges,
                                        npy_intp block, std::size_t parts, Finish finish) {
    std::atomic<bool> clean{true};
    auto work = [&](std::size_t part) {
        Buffers b(p, block);
        if (!b.ok(p)) {
            clean = false;
            return;
        }
        fp_clear();
        std::size_t begin = ranges.size() * part / parts, end = ranges.size() * (part + 1) / parts;
        for (std::size_t r = begin; r < end && clean.load(std::memory_order_relaxed); ++r) {
            for (npy_intp lo = ranges[r].first, left = ranges[r].second; left > 0;) {
                npy_intp row = lo / p.cols, col = lo % p.cols;
                npy_intp m = std::min(std::min(left, block), p.cols - col);
                if (run_block(p, b, row, col, m) != 0) clean = false;
                lo += m;
                left -= m;
            }
            // Before the reduction: NumPy's maximum/minimum loops clear the flags (NaN compares).
            if (fp_raised()) clean = false;
            if (!finish(b, r)) clean = false;
        }
        if (fp_raised()) clean = false;
        fp_clear();
    };
    {
        GilReleased release;  // NumPy's numeric loops need no Python
        if (parts <= 1) work(0);
        else wsa::parallel_for(parts, work);
    }
    // A loop that reports an error through Python (npy_gil_error) leaves it set on the thread
    // that ran it: raised here when that was this thread (native.py keeps such loops out).
    if (PyErr_Occurred()) throw nb::python_error();
    return clean;
}

} // namespace

void export_fusion(nb::module_ &m) {
    // Elementwise: fill the output slot of every block; spans of whole blocks per thread.
    m.def("_fusion_run",
          [](nb::list slots, nb::list steps, npy_intp rows, npy_intp cols, npy_intp block, std::size_t parts) {
        if (rows < 1 || cols < 1 || block < 1) throw std::invalid_argument("wsarray.fuse: bad grid");
        Plan p = make_plan(slots, steps, rows, cols);
        npy_intp n = rows * cols;
        std::vector<std::pair<npy_intp, npy_intp>> ranges;
        // Spans of whole rows (a 1-D plan: of whole blocks), one per thread.
        npy_intp unit = rows > 1 ? cols : block;
        npy_intp units = (n + unit - 1) / unit;
        parts = std::max<std::size_t>(1, std::min<std::size_t>(parts, (std::size_t) units));
        for (std::size_t k = 0; k < parts; ++k) {
            npy_intp lo = units * (npy_intp) k / (npy_intp) parts * unit;
            npy_intp hi = std::min(n, units * (npy_intp) (k + 1) / (npy_intp) parts * unit);
            if (hi > lo) ranges.push_back({lo, hi - lo});
        }
        return run_ranges(p, ranges, block, ranges.size(), [](Buffers &, std::size_t) { return true; });
    }, nb::arg("slots"), nb::arg("steps"), nb::arg("rows"), nb::arg("cols"), nb::arg("block"), nb::arg("parts"),
          "Run a fused plan block by block (wsarray/fusion/native.py); False: redo it through NumPy.");

    // Reductions: each range (at most one block) is computed, then reduced by NumPy's reduce loop
    // `reduce` into partials[i]: from `identity` (a 0-d array) when given, else from the range's
    // first element. `carry`: ranges in order on one thread, each continuing the previous result.
    m.def("_fusion_reduce",
          [](nb::list slots, nb::list steps, int result_slot, nb::handle reduce_capsule, nb::list ranges_in,
             nb::handle partials, nb::handle identity, bool carry, npy_intp block, std::size_t parts) {
        npy_intp total = 0;
        for (nb::handle h : ranges_in)
            total = std::max(total, nb::cast<npy_intp>(nb::borrow<nb::tuple>(h)[0]) +
                                        nb::cast<npy_intp>(nb::borrow<nb::tuple>(h)[1]));
        Plan p = make_plan(slots, steps, 1, std::max<npy_intp>(total, 1));  // 1-D: one row
        UfuncCallInfo *reduce = call_info(reduce_capsule);
        npy_intp out_size = 0;
        char *out = array_data(partials, out_size);
        npy_intp id_size = 0;
        const char *id = identity.is_none() ? nullptr : array_data(identity, id_size);
        std::vector<std::pair<npy_intp, npy_intp>> ranges;
        for (nb::handle h : ranges_in) {
            nb::tuple t = nb::borrow<nb::tuple>(h);
            npy_intp len = nb::cast<npy_intp>(t[1]);
            if (len < 1 || len > block) throw std::invalid_argument("wsarray.fuse: bad reduction range");
            ranges.push_back({nb::cast<npy_intp>(t[0]), len});
        }
        if ((npy_intp) ranges.size() > PyArray_SIZE((PyArrayObject *) partials.ptr()))
            throw std::invalid_argument("wsarray.fuse: partials too short");
        if (result_slot < 0 || (std::size_t) result_slot >= p.slots.size())
            throw std::invalid_argument("wsarray.fuse: bad slot");
        const Slot &res = p.slots[(std::size_t) result_slot];
        auto finish = [&](Buffers &b, std::size_t r) {
            npy_intp n = ranges[r].second;
            char *values = res.kind == Slot::Temp    ? b.temp[(std::size_t) result_slot].get()
                           : res.kind == Slot::Array ? res.data + ranges[r].first * res.elem_stride
                                                     : res.data;
            npy_intp step = res.kind == Slot::Scalar ? 0 : res.kind == Slot::Temp ? res.itemsize : res.elem_stride;
            char *acc = out + (npy_intp) r * out_size;
            if (carry && r > 0) {
                std::memcpy(acc, acc - out_size, (std::size_t) out_size);
            } else if (id) {
                std::memcpy(acc, id, (std::size_t) out_size);
            } else {
                std::memcpy(acc, values, (std::size_t) out_size);
                values += step;
                --n;
            }
            if (n == 0) return true;
            char *data[3] = {acc, values, acc};
            npy_intp strides[3] = {0, step, 0};
            return reduce->strided_loop(reduce->context, data, &n, strides, reduce->auxdata) == 0;
        };
        return run_ranges(p, ranges, block, carry ? 1 : std::max<std::size_t>(1, std::min(parts, ranges.size())),
                          finish);
    },
          nb::arg("slots"), nb::arg("steps"), nb::arg("result_slot"), nb::arg("reduce"), nb::arg("ranges"),
          nb::arg("partials"), nb::arg("identity").none(), nb::arg("carry"), nb::arg("block"), nb::arg("parts"),
          "Partial reductions of a fused plan's blocks (wsarray/fusion/native.py).");
}

} // namespace wsa_py
