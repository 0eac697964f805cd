// warp_scan.cuh -- scans across the 32 lanes of a warp with register shuffles.
//
// Lane order is element order: lane 0 holds the first element. All 32 lanes
// must call together (converged, full mask). Any monoid from ops.cuh or your
// own (see there); the earlier operand is always on the left, so operators
// need not be commutative. T may be any trivially copyable type whose size
// is a multiple of 4 bytes; it is shuffled as 32-bit words.
//
//   using WS = libscan::WarpScan<float>;
//   float incl = WS::InclusiveScan(x, libscan::Sum<float>());
//   float total;
//   float excl = WS::ExclusiveScan(x, libscan::Sum<float>(), total);
//
// Association (fixed, so results are bitwise reproducible): Kogge-Stone,
// step d = 1, 2, 4, 8, 16 combines (value d lanes back) (+) (own value).
#pragma once

#include <cstring>
#include "libscan/cuda/ops.cuh"

namespace libscan {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kWarpThreads = 32;

namespace detail {
// Shuffles of any 4-byte-multiple type, one 32-bit word at a time.
template <typename T> struct Words {
    static_assert(sizeof(T) % 4 == 0, "libscan: element size must be a multiple of 4 bytes");
    static constexpr int N = sizeof(T) / 4;
    unsigned w[N];
};
template <typename T> __device__ __forceinline__ Words<T> to_words(const T &v) {
    Words<T> r;
    memcpy(r.w, &v, sizeof(T));
    return r;
}
template <typename T> __device__ __forceinline__ T from_words(const Words<T> &r) {
    T v;
    memcpy(&v, r.w, sizeof(T));
    return v;
}
template <typename T> __device__ __forceinline__ T shfl_up(const T &v, int delta) {
    Words<T> r = to_words(v);
#pragma unroll
    for (int i = 0; i < Words<T>::N; ++i) r.w[i] = __shfl_up_sync(kFullMask, r.w[i], delta);
    return from_words<T>(r);
}
template <typename T> __device__ __forceinline__ T shfl(const T &v, int lane) {
    Words<T> r = to_words(v);
#pragma unroll
    for (int i = 0; i < Words<T>::N; ++i) r.w[i] = __shfl_sync(kFullMask, r.w[i], lane);
    return from_words<T>(r);
}
// __shfl_up_sync inside segments of `width` lanes (a power of two <= 32):
// a lane less than delta into its segment keeps its own value.
template <typename T> __device__ __forceinline__ T shfl_up_width(const T &v, int delta, int width) {
    Words<T> r = to_words(v);
#pragma unroll
    for (int i = 0; i < Words<T>::N; ++i) r.w[i] = __shfl_up_sync(kFullMask, r.w[i], delta, width);
    return from_words<T>(r);
}

// The exclusive prefix of lane totals inside segments of G = 2^log_g lanes
// (Kogge-Stone, d = 1, 2, .., G/2, earlier (+) later), identity at pos 0;
// *incl gets the inclusive one (the segment total in its last lane). All
// 32 lanes must call together. Used by the row scan's short-row kernels
// (row_scan.cuh) and the SAT build's row pass (sat_kernels.cuh).
template <typename T, class Op>
__device__ __forceinline__ T lane_prefix(T t, const Op &op, int log_g, int pos, T *incl) {
    const int g = 1 << log_g;
    for (int d = 1; d < g; d <<= 1) {
        const T y = shfl_up_width(t, d, g);
        if (pos >= d) t = op(y, t);
    }
    *incl = t;
    const T before = shfl_up_width(t, 1, g);
    return pos == 0 ? op.identity() : before;
}
} // namespace detail

__device__ __forceinline__ int lane_id() { return threadIdx.x & (kWarpThreads - 1); }

template <typename T> struct WarpScan {
    // Inclusive scan: lane i gets x[0] (+) ... (+) x[i].
    template <class Op> static __device__ __forceinline__ T InclusiveScan(T x, Op op) {
        const int lane = lane_id();
#pragma unroll
        for (int d = 1; d < kWarpThreads; d <<= 1) {
            T y = detail::shfl_up(x, d);
            if (lane >= d) x = op(y, x);
        }
        return x;
    }

    // Inclusive scan; every lane also receives the warp total x[0] (+) ... (+) x[31].
    template <class Op> static __device__ __forceinline__ T InclusiveScan(T x, Op op, T &warp_aggregate) {
        T incl = InclusiveScan(x, op);
        warp_aggregate = detail::shfl(incl, kWarpThreads - 1);
        return incl;
    }

    // Exclusive scan: lane 0 gets op.identity(), lane i gets x[0] (+) ... (+) x[i-1].
    template <class Op> static __device__ __forceinline__ T ExclusiveScan(T x, Op op) {
        T agg;
        return ExclusiveScan(x, op, agg);
    }

    // Exclusive scan with the warp total in every lane.
    template <class Op> static __device__ __forceinline__ T ExclusiveScan(T x, Op op, T &warp_aggregate) {
        T incl = InclusiveScan(x, op, warp_aggregate);
        T excl = detail::shfl_up(incl, 1);
        return lane_id() == 0 ? op.identity() : excl;
    }

    // Value of `lane` in every lane.
    static __device__ __forceinline__ T Broadcast(T x, int lane) { return detail::shfl(x, lane); }
};

} // namespace libscan
