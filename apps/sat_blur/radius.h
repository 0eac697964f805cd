/* radius.h -- per-pixel blur radii of sat_blur (8.8 fixed point): the
 * thin-lens circle of confusion from a depth map, a tilt-shift focus band,
 * or one uniform radius. The formulas run on the host, once per possible
 * input value, into small lookup tables; a radius map is then one table
 * look-up per pixel, on every core (here) or on the GPU (convert_gpu.cu),
 * with the same result.
 * C99-clean. */
#ifndef LIBSCAN_SAT_BLUR_RADIUS_H
#define LIBSCAN_SAT_BLUR_RADIUS_H

#include <stddef.h>
#include <stdint.h>

#include "pixels.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* ---- depth maps ------------------------------------------------------------------ */

/* The depth of a pixel of a depth map is the mean of its colour samples
 * (gray, or R, G and B; alpha ignored) over the largest sample: index /
 * (colours * max) with index the sum of the colour samples, so a pixel's
 * radius depends on that sum alone and a table of blur_depth_lut_len()
 * entries holds every radius a map of that layout can give. */
static inline BLUR_HD uint32_t blur_depth_index(const uint32_t px[4], int channels) {
    return channels >= 3 ? px[0] + px[1] + px[2] : px[0];
}

/* Entries of the table of a depth map of `bits` bits and `channels`
 * channels: colours * (2^bits - 1) + 1. */
size_t blur_depth_lut_len(int bits, int channels);

/* The depth (in [0, 1]) of pixel (x, y) of a depth map, as above. */
double blur_depth_at(const blur_pixels_t *depth, size_t x, size_t y);

/* The table: lut[i] = blur_radius_q8(blur_coc_radius(d, focus, aperture,
 * max_radius)) with d = i / (colours * max), or 1 - that when invert (white
 * = near). focus is a depth after inversion. */
void blur_depth_lut(int bits, int channels, int invert, double focus, double aperture, double max_radius,
                    uint16_t *lut);

/* The radius map of a depth map through its table, in row bands on
 * `threads` threads (0: every core, parallel.h):
 * radius_q8[y * width + x] = lut[blur_depth_index(pixel (x, y))]. */
void blur_radius_from_depth(const blur_pixels_t *depth, const uint16_t *lut, uint16_t *radius_q8, int threads);

/* ---- tilt-shift -------------------------------------------------------------------- */

/* One radius per row of a tilt-shift focus band: 0 within BLUR_TILT_HALF_BAND
 * of the height around row centre * height, growing linearly to max_radius
 * over the next BLUR_TILT_RAMP of the height (row centres at (y + 0.5) / height). */
void blur_tilt_rows(size_t height, double centre, double max_radius, uint16_t *rows);

/* The radius map of per-row radii, on `threads` threads (0: every core):
 * radius_q8[y * width + x] = rows[y]. */
void blur_radius_from_rows(const uint16_t *rows, size_t width, size_t height, uint16_t *radius_q8, int threads);

#ifdef __cplusplus
}
#endif
#endif
