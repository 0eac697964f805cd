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

/* All channels of S(x, y) of a uint32 table, 0 when x or y is -1. On the GPU
 * a 4-channel corner on a 16-byte boundary is one vector load. */
SAT_HD void libscan__sat_u32_corner(const unsigned char *t, size_t pitch, int channels, long long x, long long y,
                            uint32_t v[4]) {
    if (x < 0 || y < 0) {
        v[0] = v[1] = v[2] = v[3] = 0u;
        return;
    }
    const uint32_t *p = (const uint32_t *)(const void *)(t + (size_t)y * pitch) + (size_t)x * (size_t)channels;
#ifdef __CUDA_ARCH__
    if (channels == 4 && ((uintptr_t)p & 15u) == 0) {
        const uint4 q = __ldg((const uint4 *)(const void *)p);
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
        return;
    }
#endif
    for (int c = 0; c < channels; ++c) v[c] = p[c];
}

/* Sums of every channel over [x0, x1] x [y0, y1] (inclusive, inside the
 * image), modulo 2^32: exact when the true sum is below 2^32. */
SAT_HD void libscan__sat_u32_box(const unsigned char *t, size_t pitch, int channels, long long x0, long long y0, long long x1,
                         long long y1, uint32_t s[4]) {
    uint32_t a[4], b[4], c[4], d[4];
    libscan__sat_u32_corner(t, pitch, channels, x1, y1, a);
    libscan__sat_u32_corner(t, pitch, channels, x0 - 1, y1, b);
    libscan__sat_u32_corner(t, pitch, channels, x1, y0 - 1, c);
    libscan__sat_u32_corner(t, pitch, channels, x0 - 1, y0 - 1, d);
    for (int k = 0; k < channels; ++k) s[k] = a[k] - b[k] - c[k] + d[k];
}

/* floor(a / b) for a < 2^48 and 0 < b < 2^48, given inv = 1.0 / b. The
 * double estimate is within 1/16 of a / b, so its floor is off by at most
 * one, and one integer step makes it exact: the result does not depend on
 * how either compiler rounds, and there is no 64-bit division (which the
 * GPU runs as a long software loop). */
SAT_HD uint64_t libscan__sat_div_floor(uint64_t a, uint64_t b, double inv) {
    uint64_t q = (uint64_t)((double)a * inv);
    const uint64_t p = q * b;
    if (p > a)
        q -= 1u;
    else if (a - p >= b)
        q += 1u;
    return q;
}

/* 16.16 fixed-point means of the box of half-width R around (x, y), clamped
 * to the image: m[c] = floor(sum_c * 65536 / weight), weight = the weight
 * table's box sum or the clamped area (m = 0 if the weight is 0). */
SAT_HD void libscan__sat_box_means(const unsigned char *t, size_t pitch, int channels, const unsigned char *wt, size_t wpitch,
                           size_t width, size_t height, size_t x, size_t y, size_t R, uint64_t m[4]) {
    const long long x0 = (long long)(x >= R ? x - R : 0), y0 = (long long)(y >= R ? y - R : 0);
    const long long x1 = (long long)(x + R < width ? x + R : width - 1);
    const long long y1 = (long long)(y + R < height ? y + R : height - 1);
    uint64_t weight;
    if (wt) {
        uint32_t w[4];
        libscan__sat_u32_box(wt, wpitch, 1, x0, y0, x1, y1, w);
        weight = w[0];
    } else {
        weight = (uint64_t)(x1 - x0 + 1) * (uint64_t)(y1 - y0 + 1);
    }
    uint32_t s[4];
    libscan__sat_u32_box(t, pitch, channels, x0, y0, x1, y1, s);
    if (!weight) {
        for (int c = 0; c < channels; ++c) m[c] = 0u;
        return;
    }
    const double inv = 1.0 / (double)weight;
    for (int c = 0; c < channels; ++c) m[c] = libscan__sat_div_floor((uint64_t)s[c] << 16, weight, inv);
}

/* The filtered pixel (x, y) for radius r_q8 (8.8 fixed point): the two
 * nearest boxes' means blended by the fraction and rounded half up. */
SAT_HD void libscan__sat_filter_pixel(const unsigned char *t, size_t pitch, int channels, const unsigned char *wt,
                              size_t wpitch, size_t width, size_t height, size_t x, size_t y, unsigned r_q8,
                              uint32_t out[4]) {
    const size_t R = r_q8 >> 8;
    const uint64_t f = r_q8 & 255u;
    uint64_t m0[4] = {0, 0, 0, 0}, m1[4] = {0, 0, 0, 0};
    libscan__sat_box_means(t, pitch, channels, wt, wpitch, width, height, x, y, R, m0);
    if (f) libscan__sat_box_means(t, pitch, channels, wt, wpitch, width, height, x, y, R + 1, m1);
    for (int c = 0; c < channels; ++c) {
        const uint64_t blend = (256u - f) * m0[c] + f * m1[c];
        out[c] = (uint32_t)((blend + (1u << 23)) >> 24);
    }
}

#endif
