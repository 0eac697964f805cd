// ops.cuh -- monoids: an associative operator together with its identity.
//
// Every scan in libscan takes a monoid: any copyable struct with
//
//     __host__ __device__ T operator()(const T& a, const T& b) const;  // a (+) b
//     __host__ __device__ T identity() const;                          // e: e (+) a == a (+) e == a
//
// The operator must be associative; it need not be commutative: libscan
// always combines the earlier element on the left. The identity is what an
// exclusive scan writes first and what pads partial tiles.
#pragma once

#include <cstdint>
#include <cfloat>

namespace libscan {

namespace detail {
template <typename T> struct limits;
template <> struct limits<uint32_t> {
    __host__ __device__ static constexpr uint32_t lowest() { return 0u; }
    __host__ __device__ static constexpr uint32_t highest() { return 0xffffffffu; }
};
template <> struct limits<int32_t> {
    __host__ __device__ static constexpr int32_t lowest() { return INT32_MIN; }
    __host__ __device__ static constexpr int32_t highest() { return INT32_MAX; }
};
template <> struct limits<uint64_t> {
    __host__ __device__ static constexpr uint64_t lowest() { return 0u; }
    __host__ __device__ static constexpr uint64_t highest() { return ~uint64_t(0); }
};
template <> struct limits<int64_t> {
    __host__ __device__ static constexpr int64_t lowest() { return INT64_MIN; }
    __host__ __device__ static constexpr int64_t highest() { return INT64_MAX; }
};
template <> struct limits<float> {
    __host__ __device__ static float lowest() { return -__builtin_huge_valf(); }
    __host__ __device__ static float highest() { return __builtin_huge_valf(); }
};
template <> struct limits<double> {
    __host__ __device__ static double lowest() { return -__builtin_huge_val(); }
    __host__ __device__ static double highest() { return __builtin_huge_val(); }
};

template <typename T> struct is_float { static constexpr bool value = false; };
template <> struct is_float<float> { static constexpr bool value = true; };
template <> struct is_float<double> { static constexpr bool value = true; };

template <typename T> __host__ __device__ inline bool is_nan(T x) { return x != x; }
template <typename T> __host__ __device__ inline bool sign_bit(T x) { return x < T(0) || (x == T(0) && T(1) / x < T(0)); }

// Quiet NaN of the type, used so that every NaN result has the same bits
// whatever order NaNs were met in (keeps min/max exactly associative).
template <typename T> __host__ __device__ inline T quiet_nan();
template <> __host__ __device__ inline float quiet_nan<float>() { return __builtin_nanf(""); }
template <> __host__ __device__ inline double quiet_nan<double>() { return __builtin_nan(""); }
} // namespace detail

// a + b. Integers wrap. The float identity is -0.0 so that a lone -0.0
// survives (+0.0 + -0.0 would give +0.0).
template <typename T> struct Sum {
    __host__ __device__ T operator()(const T &a, const T &b) const { return a + b; }
    __host__ __device__ T identity() const {
        if constexpr (detail::is_float<T>::value) return -T(0);
        else return T(0);
    }
};

// min(a, b). Floats: NaN propagates as one canonical quiet NaN, and -0.0 is
// below +0.0; with both rules min is exactly associative and commutative, so
// every association gives the same bits.
template <typename T> struct Min {
    __host__ __device__ T operator()(const T &a, const T &b) const {
        if constexpr (detail::is_float<T>::value) {
            if (detail::is_nan(a) || detail::is_nan(b)) return detail::quiet_nan<T>();
            if (a == b) return detail::sign_bit(a) ? a : b;
        }
        return b < a ? b : a;
    }
    __host__ __device__ T identity() const { return detail::limits<T>::highest(); }
};

// max(a, b), the mirror image of Min (+0.0 above -0.0).
template <typename T> struct Max {
    __host__ __device__ T operator()(const T &a, const T &b) const {
        if constexpr (detail::is_float<T>::value) {
            if (detail::is_nan(a) || detail::is_nan(b)) return detail::quiet_nan<T>();
            if (a == b) return detail::sign_bit(a) ? b : a;
        }
        return a < b ? b : a;
    }
    __host__ __device__ T identity() const { return detail::limits<T>::lowest(); }
};

} // namespace libscan
