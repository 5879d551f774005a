/// src/python/fast/fast_numpy.h -- lean paths through NumPy's own loops, for the calls loops make most.
///
/// A 1-input ufunc on one contiguous Array (np.exp(a)), a small reduction (a.max()) and a 2-D
/// matrix product run the loop NumPy's own dispatch picks, on an output allocated in the current
/// workspace, without NumPy's per-call argument parsing and dispatch; zeros/empty/ones/full/arange
/// allocate straight in the workspace (indexing: fast_indexing.h). Results are NumPy's; whatever
/// does not fit (a raised floating-point flag included) returns null, and the caller takes the
/// general path through NumPy.
#pragma once
#include "results/array_object.h"

struct tagPyArrayObject;  // NumPy's PyArrayObject

namespace wsa_py {

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

/// `a @ b` for two aligned 2-D ndarrays of the same builtin numeric dtype (native byte order) whose
/// inner dimensions match, none of them zero: NumPy's own matmul loop for that dtype (BLAS or not,
/// as NumPy decides inside it) on an output allocated in the current target, without the ufunc
/// machinery around it. Null with no error set when it does not apply or a floating-point flag was
/// raised (the general path then computes and reports).
PyObject *fast_matmul_2d(PyObject *ufunc, tagPyArrayObject *a, tagPyArrayObject *b);

/// NumPy creation functions with a lean path.
enum class Creation { None, Zeros, Empty, Ones, Full, Arange };
/// `zeros/empty/ones(shape[, dtype])`, `full(shape, fill[, dtype])` with an int or a tuple of ints
/// as shape, a builtin numeric dtype and a Python number as fill: allocated straight in the
/// current workspace; `arange(stop)` / `arange(start, stop)` with Python ints (NumPy's default
/// integer). Null with no error set when it does not apply.
PyObject *fast_create(Creation kind, PyObject *const *args, Py_ssize_t nargs, PyObject *kwargs);

} // namespace wsa_py
