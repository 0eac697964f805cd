// compact_launch.cuh -- the C API's kernels for one element type: the
// built-in predicates as a selector, and the dispatch from a call that the
// entry path (core/entry.h) has validated and given temp to
// DeviceCompact<T>::run. Each compact_launch_<type>.cu instantiates it for
// one type (so the types compile in parallel).
#pragma once

#include <cstdint>
#include <type_traits>

#include "libscan/cuda/compact.cuh"
#include "compact_internal.h"

namespace libscan::compact {
namespace capi {

// Elements are compared in a 64-bit domain: int64_t, uint64_t or double.
template <typename T>
using Wide = std::conditional_t<std::is_floating_point_v<T>, double,
                                std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

template <typename W> W member(const libscan_value_t &v) {
    if constexpr (std::is_same_v<W, double>) return v.f;
    else if constexpr (std::is_same_v<W, int64_t>) return v.i;
    else return v.u;
}

// One functor per kind; x is widened exactly before comparing.
template <typename T> struct Gt { Wide<T> a; __device__ bool operator()(T x) const { return Wide<T>(x) > a; } };
template <typename T> struct Ge { Wide<T> a; __device__ bool operator()(T x) const { return Wide<T>(x) >= a; } };
template <typename T> struct Lt { Wide<T> a; __device__ bool operator()(T x) const { return Wide<T>(x) < a; } };
template <typename T> struct Le { Wide<T> a; __device__ bool operator()(T x) const { return Wide<T>(x) <= a; } };
template <typename T> struct Eq { Wide<T> a; __device__ bool operator()(T x) const { return Wide<T>(x) == a; } };
template <typename T> struct Ne { Wide<T> a; __device__ bool operator()(T x) const { return Wide<T>(x) != a; } };
template <typename T> struct InRange {
    Wide<T> lo, hi;
    __device__ bool operator()(T x) const { return lo <= Wide<T>(x) && Wide<T>(x) <= hi; }
};
template <typename T> struct NonZero { __device__ bool operator()(T x) const { return x != T(0); } };
template <typename T> struct Finite {
    __device__ bool operator()(T x) const {
        if constexpr (std::is_floating_point_v<T>) return isfinite(x);
        else return true;
    }
};
template <typename T> struct IsNan {
    __device__ bool operator()(T x) const {
        if constexpr (std::is_floating_point_v<T>) return x != x;
        else return false;
    }
};

// The predicate kind is uniform over the grid: one switch per thread, the
// element loop inside each case.
template <typename T> struct BuiltinSelect {
    int kind;
    Wide<T> lo, hi;
    __device__ __forceinline__ void prefetch_l2(size_t, size_t) const {} // reads only the input
    template <typename U, int K, int V>
    __device__ __forceinline__ unsigned keep_mask(const U (&x)[K][V], const U *in, size_t first, size_t n,
                                                  bool full) const {
        switch (kind) {
        case LIBSCAN_PRED_GT: return PredicateSelect<Gt<T>>{{lo}}.template keep_mask<U, K, V>(x, in, first, n, full);
        case LIBSCAN_PRED_GE: return PredicateSelect<Ge<T>>{{lo}}.template keep_mask<U, K, V>(x, in, first, n, full);
        case LIBSCAN_PRED_LT: return PredicateSelect<Lt<T>>{{lo}}.template keep_mask<U, K, V>(x, in, first, n, full);
        case LIBSCAN_PRED_LE: return PredicateSelect<Le<T>>{{lo}}.template keep_mask<U, K, V>(x, in, first, n, full);
        case LIBSCAN_PRED_EQ: return PredicateSelect<Eq<T>>{{lo}}.template keep_mask<U, K, V>(x, in, first, n, full);
        case LIBSCAN_PRED_NE: return PredicateSelect<Ne<T>>{{lo}}.template keep_mask<U, K, V>(x, in, first, n, full);
        case LIBSCAN_PRED_RANGE:
            return PredicateSelect<InRange<T>>{{lo, hi}}.template keep_mask<U, K, V>(x, in, first, n, full);
        case LIBSCAN_PRED_NONZERO:
            return PredicateSelect<NonZero<T>>{{}}.template keep_mask<U, K, V>(x, in, first, n, full);
        case LIBSCAN_PRED_FINITE:
            return PredicateSelect<Finite<T>>{{}}.template keep_mask<U, K, V>(x, in, first, n, full);
        default: return PredicateSelect<IsNan<T>>{{}}.template keep_mask<U, K, V>(x, in, first, n, full);
        }
    }
};

template <typename T, bool INDICES, typename OutT>
cudaError_t launch_out(const libscan__compact_call_t &c, cudaStream_t stream) {
    using DC = DeviceCompact<T>;
    const T *in = static_cast<const T *>(c.in);
    OutT *out = static_cast<OutT *>(c.out);
    OutT *rej = static_cast<OutT *>(c.rejected);
    switch (c.source) {
    case LIBSCAN__COMPACT_FLAGS:
        return DC::template run<INDICES>(in, DC::flag_select(c.flags), out, rej, c.num, c.count, c.temp,
                                         c.temp_bytes, stream);
    case LIBSCAN__COMPACT_PRED: {
        BuiltinSelect<T> sel{static_cast<int>(c.pred.kind), member<Wide<T>>(c.pred.value),
                             member<Wide<T>>(c.pred.hi)};
        return DC::template run<INDICES>(in, sel, out, rej, c.num, c.count, c.temp, c.temp_bytes, stream);
    }
    case LIBSCAN__COMPACT_UNIQUE:
        return DC::template run<INDICES>(in, UniqueSelect<UniqueEqual<T>>{}, out, rej, c.num, c.count, c.temp,
                                         c.temp_bytes, stream);
    }
    return cudaErrorInvalidValue;
}

template <typename T> cudaError_t launch(const libscan__compact_call_t &c, cudaStream_t stream) {
    if (c.indices) return launch_out<T, true, uint64_t>(c, stream);
    return launch_out<T, false, T>(c, stream);
}

} // namespace capi
} // namespace libscan::compact

#define LIBSCAN__COMPACT_DEFINE(name, T)                                                                   \
    extern "C" size_t libscan__compact_temp_bytes_##name(size_t count) {                                   \
        return libscan::compact::DeviceCompact<T>::temp_bytes(count);                                      \
    }                                                                                                      \
    extern "C" cudaError_t libscan__compact_launch_##name(const libscan__compact_call_t *call,              \
                                                          cudaStream_t stream) {                           \
        return libscan::compact::capi::launch<T>(*call, stream);                                           \
    }
