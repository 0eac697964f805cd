/* filter_math.h -- the per-pixel arithmetic of the box filter, shared word
 * for word by the GPU kernel (sat_gpu.cu) and the CPU path (blur_cpu.c), so
 * both give bitwise the same output. Integer only (no float rounding that
 * could differ between nvcc and the host compiler). Tables are uint32
 * (box sums modulo 2^32) or uint64 ("wide": box sums modulo 2^64, for
 * inputs whose boxes outgrow 32 bits). Private. */
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

/* All channels of S(x, y) of a uint64 table, 0 when x or y is -1. On the GPU
 * an even channel count on a 16-byte boundary loads as 16-byte vectors. */
SAT_HD void libscan__sat_u64_corner(const unsigned char *t, size_t pitch, int channels, long long x, long long y,
                            uint64_t v[4]) {
    if (x < 0 || y < 0) {
        v[0] = v[1] = v[2] = v[3] = 0u;
        return;
    }
    const uint64_t *p = (const uint64_t *)(const void *)(t + (size_t)y * pitch) + (size_t)x * (size_t)channels;
#ifdef __CUDA_ARCH__
    if ((channels & 1) == 0 && ((uintptr_t)p & 15u) == 0) {
        for (int c = 0; c < channels; c += 2) {
            const ulonglong2 q = __ldg((const ulonglong2 *)(const void *)(p + c));
            v[c] = q.x, v[c + 1] = q.y;
        }
        return;
    }
#endif
    for (int c = 0; c < channels; ++c) v[c] = p[c];
}

/* libscan__sat_u32_box for a uint64 table: exact when the true sum is below 2^64. */
SAT_HD void libscan__sat_u64_box(const unsigned char *t, size_t pitch, int channels, long long x0, long long y0, long long x1,
                         long long y1, uint64_t s[4]) {
    uint64_t a[4], b[4], c[4], d[4];
    libscan__sat_u64_corner(t, pitch, channels, x1, y1, a);
    libscan__sat_u64_corner(t, pitch, channels, x0 - 1, y1, b);
    libscan__sat_u64_corner(t, pitch, channels, x1, y0 - 1, c);
    libscan__sat_u64_corner(t, pitch, channels, x0 - 1, y0 - 1, d);
    for (int k = 0; k < channels; ++k) s[k] = a[k] - b[k] - c[k] + d[k];
}

/* floor(a / b) for 0 < b, a + b < 2^64 and a / b < 2^48, given inv = 1.0 / b
 * (a < 2^48 is enough). Each of (double)a, inv and their product is within
 * 2^-53 of its exact value, so the estimate is within 3 * 2^-53 * a / b <
 * 1/8 of a / b, its floor off by at most one, and one integer step makes it
 * exact: the result does not depend on how either compiler rounds, and there
 * is no 64-bit division (which the GPU runs as a long software loop). */
SAT_HD uint64_t libscan__sat_div_floor(uint64_t a, uint64_t b, double inv) {
    uint64_t q = (uint64_t)((double)a * inv);
    const uint64_t p = q * b;
    if (p > a)
        q -= 1u;
    else if (a - p >= b)
        q += 1u;
    return q;
}

/* floor(sum * 65536 / b) for any sum of a wide table whose mean sum / b is
 * below 2^40 (b < 2^48, inv = 1.0 / b): the whole part and the remainder's
 * 16 fraction bits in two exact divisions, as sum << 16 may need 80 bits. */
SAT_HD uint64_t libscan__sat_mean_q16(uint64_t sum, uint64_t b, double inv) {
    const uint64_t q = libscan__sat_div_floor(sum, b, inv);
    return (q << 16) + libscan__sat_div_floor((sum - q * b) << 16, b, inv);
}

/* 1.0 / w, remembered for the last w asked: along a row most boxes have the
 * weight of their neighbour (the same clamped area), and the host's
 * division costs more than the rest of a box. The same double either way,
 * so a cache changes no output bit. NULL: no cache (the GPU's threads each
 * do one pixel). */
typedef struct libscan__sat_inv {
    uint64_t w;
    double inv;
} libscan__sat_inv_t;

SAT_HD double libscan__sat_inverse(uint64_t w, libscan__sat_inv_t *cache) {
    if (!cache) return 1.0 / (double)w;
    if (cache->w != w) {
        cache->w = w;
        cache->inv = 1.0 / (double)w;
    }
    return cache->inv;
}

/* 16.16 fixed-point means of the box of half-width R around (x, y), clamped
 * to the image: m[c] = floor(sum_c * 65536 / weight), weight = the weight
 * table's box sum or the clamped area (m = 0 if the weight is 0). `wide`:
 * t is a uint64 table, else a uint32 one. cache: libscan__sat_inverse's. */
SAT_HD void libscan__sat_box_means(const unsigned char *t, size_t pitch, int channels, int wide, const unsigned char *wt,
                           size_t wpitch, size_t width, size_t height, size_t x, size_t y, size_t R, uint64_t m[4],
                           libscan__sat_inv_t *cache) {
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
    if (!weight) {
        for (int c = 0; c < channels; ++c) m[c] = 0u;
        return;
    }
    const double inv = libscan__sat_inverse(weight, cache);
    if (wide) {
        uint64_t s[4];
        libscan__sat_u64_box(t, pitch, channels, x0, y0, x1, y1, s);
        for (int c = 0; c < channels; ++c) m[c] = libscan__sat_mean_q16(s[c], weight, inv);
    } else {
        uint32_t s[4];
        libscan__sat_u32_box(t, pitch, channels, x0, y0, x1, y1, s);
        for (int c = 0; c < channels; ++c) m[c] = libscan__sat_div_floor((uint64_t)s[c] << 16, weight, inv);
    }
}

/* The filtered pixel (x, y) for radius r_q8 (8.8 fixed point): the two
 * nearest boxes' means blended by the fraction and rounded half up. With
 * means below 2^40 (every mean of a wide table the filter accepts) the blend
 * stays below 2^64. cache: NULL, or two libscan__sat_inverse caches (the
 * inner box's and the outer's). */
SAT_HD void libscan__sat_filter_pixel(const unsigned char *t, size_t pitch, int channels, int wide,
                              const unsigned char *wt, size_t wpitch, size_t width, size_t height, size_t x, size_t y,
                              unsigned r_q8, uint64_t out[4], libscan__sat_inv_t *cache) {
    const size_t R = r_q8 >> 8;
    const uint64_t f = r_q8 & 255u;
    uint64_t m0[4] = {0, 0, 0, 0}, m1[4] = {0, 0, 0, 0};
    libscan__sat_box_means(t, pitch, channels, wide, wt, wpitch, width, height, x, y, R, m0, cache);
    if (f)
        libscan__sat_box_means(t, pitch, channels, wide, wt, wpitch, width, height, x, y, R + 1, m1,
                               cache ? cache + 1 : NULL);
    for (int c = 0; c < channels; ++c) {
        const uint64_t blend = (256u - f) * m0[c] + f * m1[c];
        out[c] = (blend + (1u << 23)) >> 24;
    }
}

/* Sample i of an output row of `bytes`-byte unsigned samples (1, 2, 4 or
 * 8), v clamped to the type's largest value. */
SAT_HD void libscan__sat_store(unsigned char *row, size_t i, int bytes, uint64_t v) {
    switch (bytes) {
    case 1: row[i] = (uint8_t)(v > 0xffu ? 0xffu : v); break;
    case 2: ((uint16_t *)(void *)row)[i] = (uint16_t)(v > 0xffffu ? 0xffffu : v); break;
    case 4: ((uint32_t *)(void *)row)[i] = (uint32_t)(v > 0xffffffffu ? 0xffffffffu : v); break;
    default: ((uint64_t *)(void *)row)[i] = v; break;
    }
}

#endif
