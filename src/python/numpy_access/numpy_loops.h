/// src/python/numpy_access/numpy_loops.h -- NumPy's strided inner loops as the lean paths (fast_numpy.cpp) and
/// wsarray.fuse's block runner (fusion.cpp) call them: the layout of the capsule that
/// ufunc._get_strided_loop fills, and the floating-point flags a loop raised.
#pragma once
#include "numpy_access/numpy_api.h"

#include <cfenv>

namespace wsa_py {

/// NumPy's "numpy_1.24_ufunc_call_info" capsule (documented in ufunc._get_strided_loop).
struct UfuncCallInfo {
    int (*strided_loop)(void *context, char *const *data, const npy_intp *dims, const npy_intp *strides, void *auxdata);
    void *context;
    void *auxdata;
    npy_bool requires_pyapi;
    npy_bool no_floatingpoint_errors;
};

constexpr int kFpFlags = FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID;

/// Floating-point flags a NumPy loop raised. SIMD loops raise them in the SSE register (MXCSR),
/// but NumPy's npy_set_floatstatus_*() (overflow/underflow found in software: float32 exp,
/// float16 loops) raise them through glibc's feraiseexcept, in the x87 unit: fetestexcept() reads
/// both (cheaply). Cleared only when set, as NumPy does (feclearexcept reloads the x87 state).
inline bool fp_raised() { return std::fetestexcept(kFpFlags) != 0; }
inline void fp_clear() {
    if (std::fetestexcept(kFpFlags)) std::feclearexcept(kFpFlags);
}

} // namespace wsa_py
