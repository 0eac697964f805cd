/* blur.h -- the depth-of-field blur of sat_blur, on top of the SAT library:
 * per-pixel radii (thin-lens circle of confusion from a depth map, a
 * tilt-shift focus band, or one uniform radius), bleeding weights, and the
 * blur itself on the GPU or the CPU with bitwise the same result.
 *
 * The image being blurred is 12-bit fixed point: every sample is
 * round(value * 4095) of the linear-light (or, for --no-linear, sRGB-encoded)
 * premultiplied sample in [0, 1]. 12 bits resolve every step of 8-bit sRGB in
 * linear light (the smallest, from code 0 to 1, is 1/3295 > 1/4095), and
 * keep the table exact: a weighted sample is at most 4 * 4095 = 16380, a box
 * at most 511 x 511 (radius <= BLUR_MAX_RADIUS), and 511^2 * 16380 < 2^32,
 * so the 32-bit table of 16-bit input gives exact box sums (sat.h).
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

#ifdef __cplusplus
extern "C" {
#endif

#define BLUR_FIXED_ONE 4095      /* fixed-point 1.0 */
#define BLUR_MAX_RADIUS 255.0    /* largest radius in pixels (box of 511 x 511) */
#define BLUR_MAX_WEIGHT 4        /* largest bleeding weight */
#define BLUR_TILT_HALF_BAND 0.1  /* tilt-shift: sharp within this fraction of the height of the centre */
#define BLUR_TILT_RAMP 0.25      /* ... reaching max_radius this much further out */
#define BLUR_MIN_DEPTH (1.0 / 64.0) /* depths (distances) below this count as this (finite blur) */

/* Thin-lens circle of confusion radius in pixels for a point at depth d,
 * focus depth `focus` (both in [0, 1], 1 = far plane):
 *   r = aperture * |d' - f'| / d',  d' = max(d, BLUR_MIN_DEPTH), f' likewise,
 * clamped to [0, max_radius]; 0 when d or f is NaN. (A thin lens focused at f' blurs a point at d'
 * into a disc whose diameter is proportional to |d' - f'| / d'; the
 * constant -- aperture, focal length, sensor scale -- is `aperture`, the
 * radius of a point at infinity when focused very near.) */
double blur_coc_radius(double depth, double focus, double aperture, double max_radius);

/* Radius in pixels -> 8.8 fixed point (rounded, clamped to [0, 255*256]). */
uint16_t blur_radius_q8(double radius);

/* Per-pixel radii (8.8 fixed point) from a depth map of width x height
 * values in [0, 1] (1 = far unless invert: then 1 = near). */
void blur_radius_map_depth(const float *depth, size_t width, size_t height, int invert, double focus,
                           double aperture, double max_radius, uint16_t *radius_q8);

/* Per-pixel radii of a tilt-shift focus band: 0 within BLUR_TILT_HALF_BAND of
 * the height around row centre * height, growing linearly to max_radius over
 * the next BLUR_TILT_RAMP of the height (row centres at (y + 0.5) / height). */
void blur_radius_map_tilt(size_t width, size_t height, double centre, double max_radius, uint16_t *radius_q8);

#ifdef __CUDACC__
#define BLUR_HD __host__ __device__
#else
#define BLUR_HD
#endif

/* The bleeding weight of a pixel with radius r_q8: 1 + min(3, r_q8 >> 8)
 * (host and device: the CPU and GPU paths share it). */
static inline BLUR_HD uint16_t blur_weight(uint16_t r_q8) {
    const unsigned whole = (unsigned)r_q8 >> 8;
    return (uint16_t)(1u + (whole < 3u ? whole : 3u));
}

/* Floats in [0, 1] -> 12-bit fixed point (rounded, clamped, NaN -> 0), and back. */
void blur_to_fixed(const float *in, size_t count, uint16_t *out);
void blur_from_fixed(const uint16_t *in, size_t count, float *out);

/* One blur. */
typedef struct blur_job {
    size_t width, height;
    int channels;               /* 1..4 */
    uint16_t *pixels;           /* host, width * height * channels 12-bit samples; in and out */
    const uint16_t *radius_q8;  /* host, width * height radii; NULL = uniform_q8 everywhere */
    uint16_t uniform_q8;
    int weighted;               /* 1 = bleeding weights from the radii (needs radius_q8) */
    int passes;                 /* >= 1: the box filter repeated, table rebuilt each time */
} blur_job_t;

/* Where the time went, in seconds (GPU phases measured with CUDA events). */
typedef struct blur_times {
    double upload, sat, blur, download;
} blur_times_t;

/* Runs the job on the CPU (SAT library's CPU path). Returns 0, or -1 with a
 * one-line reason in err (out of memory). times may be NULL. */
int blur_run_cpu(const blur_job_t *job, blur_times_t *times, char *err, size_t errlen);

/* Runs the job on the current CUDA device: upload, per pass (weights, table,
 * weight table on the first pass, filter), download. Synchronous. The
 * result equals blur_run_cpu's bit for bit. Returns 0, -1 (bad job, with
 * reason), or -2 for a CUDA failure or GPU out of memory (reason in err). */
int blur_run_gpu(const blur_job_t *job, blur_times_t *times, char *err, size_t errlen);

/* Weighted copy: out = in * weight(radius) sample by sample, and the weight
 * map wmap (uint8) when not NULL. Shared by the CPU path and the tests. */
void blur_apply_weights(const uint16_t *in, const uint16_t *radius_q8, size_t pixels, int channels, uint16_t *out,
                        uint8_t *wmap);

#ifdef __cplusplus
}
#endif
#endif
