/* convert.h -- between the file's pixels (8- or 16-bit sRGB codes, straight
 * alpha) and the blur's fixed point (linear light, premultiplied; blur.h).
 * Two lookup tables built once on the host carry everything that needs
 * floating point (the sRGB curve); the rest is integer arithmetic in the
 * per-pixel functions below, which the CPU (convert.c, every core, row
 * bands) and the GPU kernels (convert_gpu.cu) share word for word, so both
 * devices write the same bytes.
 *
 * With M = 2^bits - 1, T the transfer (sRGB decode, or the identity for
 * --no-linear) and `one` the precision's 1.0:
 *   decode[c]  = round(T(c / M) * one)                          c = 0..M
 *   split[k]   = ceil(T((k + 1/2) / M) * 2^BLUR_SPLIT_BITS)      k = 0..M-1
 * To fixed point (integers, rounded half up):
 *   no alpha:  q_c = decode[c]
 *   alpha a:   q_a = round(a * one / M),  q_c = round(decode[c] * a / M)
 * Back, with d = q_a (alpha) or one (no alpha), q_c clamped to d:
 *   alpha  = round(d * M / one)
 *   colour = the number of k with split[k] <= u, u = floor(q_c * 2^27 / d):
 *            the code nearest to q_c / d in encoded space, found by a binary
 *            search between index[u >> 11] and index[(u >> 11) + 1], where
 *            index[b] = the number of k with split[k] <= b * 2^11 (a few
 *            steps at most instead of 8 or 16);
 *            0 when d is 0 (alpha 0 has no colour: transparent black).
 *
 * Why this gives the file back (at --radius 0 the blur returns every sample
 * unchanged, blur.h): q_c / d differs from T(c / M) by less than
 * (1 + T) / (2A) + 2^-27, A = a * one / M (one without alpha), and the code
 * comes back while that is less than the distance from T(c / M) to its
 * nearest split: at least half of T's smallest step, 1.52e-4 for 8-bit sRGB
 * and 5.9e-7 for 16-bit (both in the linear segment near black; the steps
 * grow faster than the error above it), 1/(2M) for --no-linear.
 *   8-bit, no alpha strictly between 0 and 255, BLUR_P12: A = 4095, error
 *     < 1.23e-4 near black. With a = 1 it would be 255 times that: colour
 *     off by up to 49 codes, hence
 *   8-bit with such alpha, BLUR_P30: A >= (2^30 - 1) / 255, error < 2.4e-7;
 *   16-bit without, BLUR_P30: A = 2^30 - 1, error < 1e-9. With 16-bit
 *     alpha 1 the error would be 65535 times that: off by up to 26 codes,
 *   16-bit with alpha strictly between 0 and 65535, BLUR_P37: A >=
 *     (2^37 - 1) / 65535, error < 4.8e-7 + 7.5e-9 < 5.9e-7.
 * Alpha comes back exactly: its error is at most M / (2 one) < 1/2 (one > M
 * in the precision of either depth).
 * The tests round-trip every 8-bit colour at every alpha and a dense sweep
 * of 16-bit colours at several alphas (tests/apps/sat_blur/test_blur.c).
 * C99-clean. */
#ifndef LIBSCAN_SAT_BLUR_CONVERT_H
#define LIBSCAN_SAT_BLUR_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "blur.h"
#include "pixels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fraction bits of the un-premultiplied colour u; q_c * 2^27 < 2^64 for every
 * q_c <= one < 2^37. */
#define BLUR_SPLIT_BITS 27
/* index[] has an entry per 2^BLUR_INDEX_SHIFT of u: 2^16 + 2 in all. */
#define BLUR_INDEX_SHIFT 11
#define BLUR_INDEX_LEN (((size_t)1 << (BLUR_SPLIT_BITS - BLUR_INDEX_SHIFT)) + 2)

/* The precision an image needs (blur.h's table): scans the alpha channel, on
 * `threads` threads (0: every core, parallel.h), for a value strictly
 * between 0 and the maximum. */
blur_precision_t blur_precision_for(const blur_pixels_t *img, int threads);

/* The lookup tables of one conversion (host memory; the GPU gets copies). */
typedef struct blur_luts {
    int bits;                   /* of the file's samples: 8 or 16 */
    blur_precision_t precision;
    uint64_t *decode;           /* 2^bits entries */
    uint32_t *split;            /* 2^bits - 1 entries */
    uint16_t *index;            /* BLUR_INDEX_LEN entries */
    /* 8-bit samples in BLUR_P12, the common photograph, only (else NULL):
     * code8[q] = blur_encode(split, index, q, one, 1 / one) for every
     * q <= one = 4095, the colour of an opaque pixel, so that the host turns
     * such an image back with one lookup a sample (convert.c). */
    uint8_t *code8;
} blur_luts_t;

/* Fills the tables for `bits`-bit samples (8 or 16) in `precision`; linear:
 * 1 = sRGB decode, 0 = the encoded values scaled. Returns 0, or -1 with a
 * reason in err (bad argument, out of memory; *l is then empty). Whatever
 * it returns, blur_luts_free may follow. */
int blur_luts_init(blur_luts_t *l, int bits, blur_precision_t precision, int linear, char *err, size_t errlen);
void blur_luts_free(blur_luts_t *l);

/* x / M rounded down, M = 2^bits - 1 (a constant divisor either way). */
static inline BLUR_HD uint64_t blur_div_max(uint64_t x, int bits) { return bits == 16 ? x / 65535u : x / 255u; }

/* floor(a / b) for b >= 1, a / b < 2^48 and ceil(a / b) * b < 2^64, given
 * inv = 1.0 / b: (double)a, inv and their product are each within 2^-53 of
 * exact, so the estimate is within 3 * 2^-53 * a / b < 1/8 of a / b; its
 * truncation is off by at most one, and one exact integer step corrects
 * it. No 64-bit division (tens of cycles on the CPU, a software loop on the
 * GPU), and the result does not depend on how either device rounds. */
static inline BLUR_HD uint64_t blur_div_floor(uint64_t a, uint64_t b, double inv) {
    uint64_t q = (uint64_t)((double)a * inv);
    const uint64_t p = q * b; /* q <= ceil(a / b): no overflow */
    if (p > a)
        q -= 1;
    else if (a - p >= b)
        q += 1;
    return q;
}

/* One pixel of `channels` file samples to fixed point (see the top). */
static inline BLUR_HD void blur_pixel_to_fixed(const uint64_t *decode, int bits, uint64_t one, int channels,
                                               const uint32_t in[4], uint64_t out[4]) {
    const int alpha = blur_has_alpha(channels), colours = alpha ? channels - 1 : channels;
    if (!alpha) {
        for (int c = 0; c < colours; ++c) out[c] = decode[in[c]];
        return;
    }
    const uint64_t a = in[colours], half = bits == 16 ? 32767u : 127u; /* M is odd: no ties */
    out[colours] = blur_div_max(a * one + half, bits);
    for (int c = 0; c < colours; ++c) out[c] = blur_div_max(decode[in[c]] * a + half, bits);
}

/* The code of colour q under alpha d (both fixed point; inv = 1.0 / d): the
 * count of splits at or below u = floor(q * 2^27 / d), 0 when d is 0.
 * (q <= d, so u <= 2^27 and ceil(u) * d < 2^64.) */
static inline BLUR_HD uint32_t blur_encode(const uint32_t *split, const uint16_t *index, uint64_t q, uint64_t d,
                                           double inv) {
    if (!d) return 0;
    if (q > d) q = d;
    const uint64_t u = blur_div_floor(q << BLUR_SPLIT_BITS, d, inv);
    const uint64_t b = u >> BLUR_INDEX_SHIFT;
    uint32_t lo = index[b], hi = index[b + 1]; /* the answer is in [lo, hi] */
    while (lo < hi) {
        const uint32_t mid = (lo + hi) >> 1;
        if (split[mid] <= u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* One pixel of fixed point back to `bits`-bit file samples (see the top). */
static inline BLUR_HD void blur_pixel_from_fixed(const uint32_t *split, const uint16_t *index, int bits,
                                                 uint64_t one, int channels, const uint64_t in[4], uint32_t out[4]) {
    const uint64_t max = bits == 16 ? 65535u : 255u;
    const int alpha = blur_has_alpha(channels), colours = alpha ? channels - 1 : channels;
    const double inv_one = 1.0 / (double)one;
    uint64_t d = one;
    double inv = inv_one;
    if (alpha) {
        d = in[colours] < one ? in[colours] : one;
        out[colours] = (uint32_t)blur_div_floor(d * max + one / 2, one, inv_one); /* one is odd: no ties */
        inv = d ? 1.0 / (double)d : 0.0;
    }
    for (int c = 0; c < colours; ++c) out[c] = blur_encode(split, index, in[c], d, inv);
}

/* Whole images on the host, in row bands on `threads` threads (0: every
 * core). fixed: width * height * channels samples of the tables' precision
 * (blur_format(l->precision).sample_bytes each); in / out: l->bits-bit
 * pixels of that shape. */
void blur_image_to_fixed(const blur_luts_t *l, const blur_pixels_t *in, void *fixed, int threads);
void blur_image_from_fixed(const blur_luts_t *l, const void *fixed, const blur_pixels_t *out, int threads);

#ifdef __cplusplus
}
#endif
#endif
