// dispatch.cuh -- from the C API's enums to the device layer's types, one
// switch each, for the launch files (scan_launch.cu, segmented_launch.cu).
//
//   with_dtype(dtype, fallback, [&](auto t) { using T = decltype(t); ... });
//   with_op<T>(op, fallback, [&](auto op) { using Op = decltype(op); ... });
//
// f receives a value of the element type (or the operator); fallback is
// returned for an enum value that names none (the entry points have already
// refused those).
#pragma once

#include <cstdint>

#include "libscan/libscan.h"
#include "libscan/cuda/ops.cuh"

namespace libscan::detail::dispatch {

template <class R, class F> R with_dtype(libscan_dtype_t dtype, R fallback, F &&f) {
    switch (dtype) {
    case LIBSCAN_U32: return f(uint32_t());
    case LIBSCAN_I32: return f(int32_t());
    case LIBSCAN_U64: return f(uint64_t());
    case LIBSCAN_I64: return f(int64_t());
    case LIBSCAN_F32: return f(float());
    case LIBSCAN_F64: return f(double());
    default: return fallback; // U8, U16: not scan types
    }
}

template <typename T, class R, class F> R with_op(libscan_op_t op, R fallback, F &&f) {
    switch (op) {
    case LIBSCAN_OP_SUM: return f(libscan::Sum<T>());
    case LIBSCAN_OP_MIN: return f(libscan::Min<T>());
    case LIBSCAN_OP_MAX: return f(libscan::Max<T>());
    }
    return fallback;
}

} // namespace libscan::detail::dispatch
