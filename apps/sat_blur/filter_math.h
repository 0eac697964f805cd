/* filter_math.h -- the per-pixel arithmetic of the box filter, shared word
 * for word by the GPU kernel (sat_gpu.cu) and the CPU path (blur_cpu.c), so
 * both give bitwise the same output. Integer only (no float rounding that
 * could differ between nvcc and the host compiler). Private. */
#ifndef LIBSCAN_SAT_FILTER_MATH_H
#define LIBSCAN_SAT_FILTER_MATH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define SAT_HD static __host__ __device__ __forceinline__
#else
#define SAT_HD static inline
#endif

/* S(x, y) of channel c of a uint32 table, 0 when x or y is -1. */
SAT_HD uint32_t sat__u32_at(const unsigned char *t, size_t pitch, int channels, long long x, long long y, int c) {
    if (x < 0 || y < 0) return 0u;
    return ((const uint32_t *)(const void *)(t + (size_t)y * pitch))[(size_t)x * (size_t)channels + (size_t)c];
}

/* Sum of channel c over [x0, x1] x [y0, y1] (inclusive, inside the image),
 * modulo 2^32: exact when the true sum is below 2^32. */
SAT_HD uint32_t sat__u32_box(const unsigned char *t, size_t pitch, int channels, long long x0, long long y0,
                             long long x1, long long y1, int c) {
    return sat__u32_at(t, pitch, channels, x1, y1, c) - sat__u32_at(t, pitch, channels, x0 - 1, y1, c) -
           sat__u32_at(t, pitch, channels, x1, y0 - 1, c) + sat__u32_at(t, pitch, channels, x0 - 1, y0 - 1, c);
}

/* 16.16 fixed-point means of the box of half-width R around (x, y), clamped
 * to the image: m[c] = floor(sum_c * 65536 / weight), weight = the weight
 * table's box sum or the clamped area (m = 0 if the weight is 0). */
SAT_HD void sat__box_means(const unsigned char *t, size_t pitch, int channels, const unsigned char *wt, size_t wpitch,
                           size_t width, size_t height, size_t x, size_t y, size_t R, uint64_t m[4]) {
    const long long x0 = (long long)(x >= R ? x - R : 0), y0 = (long long)(y >= R ? y - R : 0);
    const long long x1 = (long long)(x + R < width ? x + R : width - 1);
    const long long y1 = (long long)(y + R < height ? y + R : height - 1);
    const uint64_t weight = wt ? (uint64_t)sat__u32_box(wt, wpitch, 1, x0, y0, x1, y1, 0)
                               : (uint64_t)(x1 - x0 + 1) * (uint64_t)(y1 - y0 + 1);
    for (int c = 0; c < channels; ++c) {
        const uint64_t s = sat__u32_box(t, pitch, channels, x0, y0, x1, y1, c);
        m[c] = weight ? (s << 16) / weight : 0u;
    }
}

/* The filtered pixel (x, y) for radius r_q8 (8.8 fixed point): the two
 * nearest boxes' means blended by the fraction and rounded half up. */
SAT_HD void sat__filter_pixel(const unsigned char *t, size_t pitch, int channels, const unsigned char *wt,
                              size_t wpitch, size_t width, size_t height, size_t x, size_t y, unsigned r_q8,
                              uint32_t out[4]) {
    const size_t R = r_q8 >> 8;
    const uint64_t f = r_q8 & 255u;
    uint64_t m0[4] = {0, 0, 0, 0}, m1[4] = {0, 0, 0, 0};
    sat__box_means(t, pitch, channels, wt, wpitch, width, height, x, y, R, m0);
    if (f) sat__box_means(t, pitch, channels, wt, wpitch, width, height, x, y, R + 1, m1);
    for (int c = 0; c < channels; ++c) {
        const uint64_t blend = (256u - f) * m0[c] + f * m1[c];
        out[c] = (uint32_t)((blend + (1u << 23)) >> 24);
    }
}

#endif
