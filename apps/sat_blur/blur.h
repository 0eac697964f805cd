/* blur.h -- the depth-of-field blur of sat_blur, on top of the SAT library:
 * bleeding weights, and the blur itself on the GPU or the CPU with bitwise
 * the same result. The samples are already fixed point here; convert.h
 * turns the file's pixels into them and back, radius.h makes the radii, and
 * pipeline.h runs the whole job from file pixels to file pixels.
 *
 * Fixed point. Every sample is round(v * one) of the linear-light (or, for
 * --no-linear, sRGB-encoded) premultiplied value v in [0, 1], in one of three
 * precisions; convert.h picks the narrowest that gives the file's pixels
 * back exactly (and says why each is enough):
 *
 *   precision  sample    one (1.0)    table   used for
 *   BLUR_P12   uint16_t  2^12 - 1     uint32  8-bit, no alpha strictly between 0 and 255
 *   BLUR_P30   uint32_t  2^30 - 1     uint64  8-bit with such alpha; 16-bit with none
 *   BLUR_P37   uint64_t  2^37 - 1     uint64  16-bit with alpha strictly between 0 and 65535
 *
 * Exactness bound. A weighted sample is at most BLUR_MAX_WEIGHT * one, a box
 * at most 511 x 511 pixels (radius <= BLUR_MAX_RADIUS), and the table keeps
 * every box sum exact when area * max sample < 2^32 (uint32) or 2^64
 * (uint64) -- sat.h, "Wrap bound":
 *   P12: 511^2 * 4 * 4095        = 4,277,161,980 < 2^32
 *        (libscan_sat_u32_max_exact_area(16380) = 262,208 >= 511^2 = 261,121)
 *   P30: 511^2 * 4 * (2^30 - 1)  < 2^50 < 2^64
 *   P37: 511^2 * 4 * (2^37 - 1)  < 2^57 < 2^64
 * and the filter on a uint64 table wants every value below 2^40 (its 16.16
 * blend must fit 64 bits): 4 * (2^37 - 1) < 2^39. So every box sum and mean
 * is an exact integer, on either device. With a radius of 0 every box is the
 * pixel itself and the filter gives each sample back unchanged.
 *
 * Bleeding: with a radius map, every pixel gets a weight from its own radius,
 * w = 1 + min(3, floor(r)) (1 for sharp pixels, 4 from a radius of 3 px
 * on). The filter averages w * value over the box and divides by the sum of
 * w (a second, one-channel table), so in-focus pixels count a quarter as
 * much as blurred ones in a blurred neighbour's average.
 *
 * C99-clean; the GPU half is in blur_gpu.cu. */
#ifndef LIBSCAN_SAT_BLUR_H
#define LIBSCAN_SAT_BLUR_H

#include <stddef.h>
#include <stdint.h>

#include "pixels.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BLUR_MAX_RADIUS 255.0    /* largest radius in pixels (box of 511 x 511) */
#define BLUR_MAX_WEIGHT 4        /* largest bleeding weight */

/* The fixed-point precisions (see the top of this file). */
typedef enum blur_precision { BLUR_P12 = 0, BLUR_P30 = 1, BLUR_P37 = 2 } blur_precision_t;

typedef struct blur_format {
    int sample_bytes; /* 2, 4 or 8: the samples' unsigned type */
    int table_bytes;  /* 4 or 8: the summed-area tables' */
    uint64_t one;     /* fixed-point 1.0 */
} blur_format_t;

/* The format of a precision (host and device). */
static inline BLUR_HD blur_format_t blur_format(blur_precision_t p) {
    blur_format_t f;
    switch (p) {
    case BLUR_P30: f.sample_bytes = 4, f.table_bytes = 8, f.one = (1ull << 30) - 1; break;
    case BLUR_P37: f.sample_bytes = 8, f.table_bytes = 8, f.one = (1ull << 37) - 1; break;
    default: f.sample_bytes = 2, f.table_bytes = 4, f.one = (1ull << 12) - 1; break;
    }
    return f;
}

/* The bleeding weight of a pixel with radius r_q8: 1 + min(3, r_q8 >> 8)
 * (host and device: the CPU and GPU paths share it). */
static inline BLUR_HD uint16_t blur_weight(uint16_t r_q8) {
    const unsigned whole = (unsigned)r_q8 >> 8;
    return (uint16_t)(1u + (whole < 3u ? whole : 3u));
}

/* One blur of fixed-point samples. */
typedef struct blur_job {
    size_t width, height;
    int channels;               /* 1..4 */
    void *pixels;               /* host, width * height * channels samples of the precision's type; in and out */
    const uint16_t *radius_q8;  /* host, width * height radii (8.8 fixed point); NULL = uniform_q8 everywhere */
    uint16_t uniform_q8;
    int weighted;               /* 1 = bleeding weights from the radii (needs radius_q8) */
    int passes;                 /* >= 1: the box filter repeated, table rebuilt each time */
    blur_precision_t precision; /* the samples' format (BLUR_P12, the zero value: uint16_t, 1.0 = 4095) */
} blur_job_t;

/* Where the time went, in seconds (GPU phases measured with CUDA events;
 * convert: the pixel conversions and radius maps, pipeline.h). */
typedef struct blur_times {
    double upload, sat, blur, download, convert;
} blur_times_t;

/* Runs the job on the CPU (SAT library's CPU path). Returns 0, or -1 with a
 * one-line reason in err (bad job, out of memory). times may be NULL. */
int blur_run_cpu(const blur_job_t *job, blur_times_t *times, char *err, size_t errlen);

/* Runs the job on the current CUDA device: upload, per pass (weights, table,
 * weight table on the first pass, filter), download. Synchronous. The
 * result equals blur_run_cpu's bit for bit. Returns 0, -1 (bad job, with
 * reason), or -2 for a CUDA failure or GPU out of memory (reason in err). */
int blur_run_gpu(const blur_job_t *job, blur_times_t *times, char *err, size_t errlen);

/* Weighted copy: out = in * weight(radius) sample by sample, in the
 * precision's sample type (the product fits: see the bound above), and the
 * weight map wmap (uint8) when not NULL. Shared by the CPU path and the
 * tests. */
void blur_apply_weights(const void *in, const uint16_t *radius_q8, size_t pixels, int channels,
                        blur_precision_t precision, void *out, uint8_t *wmap);

#ifdef __cplusplus
}
#endif
#endif
