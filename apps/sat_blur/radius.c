/* radius.c -- radius formulas, their lookup tables and the radius maps on
 * every core (radius.h). */
#include "radius.h"
#include "blur.h"
#include "parallel.h"

#include <math.h>

double blur_coc_radius(double depth, double focus, double aperture, double max_radius) {
    if (depth != depth || focus != focus) return 0; /* NaN: no blur rather than the most */
    const double d = depth > BLUR_MIN_DEPTH ? depth : BLUR_MIN_DEPTH;
    const double f = focus > BLUR_MIN_DEPTH ? focus : BLUR_MIN_DEPTH;
    double r = aperture * fabs(d - f) / d;
    if (!(r > 0)) r = 0; /* also NaN */
    return r < max_radius ? r : max_radius;
}

uint16_t blur_radius_q8(double radius) {
    if (!(radius > 0)) return 0;
    const double q = floor(radius * 256.0 + 0.5);
    return (uint16_t)(q > BLUR_MAX_RADIUS * 256.0 ? BLUR_MAX_RADIUS * 256.0 : q);
}

static unsigned colours_of(int channels) { return channels >= 3 ? 3u : 1u; }

static uint32_t max_of(int bits) { return bits == 16 ? 65535u : 255u; }

size_t blur_depth_lut_len(int bits, int channels) { return (size_t)colours_of(channels) * max_of(bits) + 1; }

/* The colour samples of pixel i of an image. */
static void pixel_at(const blur_pixels_t *img, size_t i, uint32_t px[4]) {
    const int bytes = img->bits / 8, C = img->channels;
    for (int c = 0; c < C; ++c) px[c] = (uint32_t)blur_load(img->data, i * (size_t)C + (size_t)c, bytes);
}

double blur_depth_at(const blur_pixels_t *depth, size_t x, size_t y) {
    uint32_t px[4];
    pixel_at(depth, y * depth->width + x, px);
    return (double)blur_depth_index(px, depth->channels) / ((double)colours_of(depth->channels) * max_of(depth->bits));
}

void blur_depth_lut(int bits, int channels, int invert, double focus, double aperture, double max_radius,
                    uint16_t *lut) {
    const size_t n = blur_depth_lut_len(bits, channels);
    const double den = (double)(n - 1);
    for (size_t i = 0; i < n; ++i) {
        const double d = (double)i / den;
        lut[i] = blur_radius_q8(blur_coc_radius(invert ? 1.0 - d : d, focus, aperture, max_radius));
    }
}

typedef struct depth_ctx {
    const blur_pixels_t *depth;
    const uint16_t *lut;
    uint16_t *radius_q8;
} depth_ctx_t;

static void depth_rows(void *p, size_t y0, size_t y1) {
    const depth_ctx_t *c = (const depth_ctx_t *)p;
    const size_t W = c->depth->width;
    for (size_t i = y0 * W; i < y1 * W; ++i) {
        uint32_t px[4];
        pixel_at(c->depth, i, px);
        c->radius_q8[i] = c->lut[blur_depth_index(px, c->depth->channels)];
    }
}

void blur_radius_from_depth(const blur_pixels_t *depth, const uint16_t *lut, uint16_t *radius_q8, int threads) {
    depth_ctx_t c = {depth, lut, radius_q8};
    blur_parallel_rows(threads, depth->height, depth_rows, &c);
}

void blur_tilt_rows(size_t height, double centre, double max_radius, uint16_t *rows) {
    for (size_t y = 0; y < height; ++y) {
        const double dist = fabs(((double)y + 0.5) / (double)height - centre);
        double t = (dist - BLUR_TILT_HALF_BAND) / BLUR_TILT_RAMP;
        t = t < 0 ? 0 : (t > 1 ? 1 : t);
        rows[y] = blur_radius_q8(t * max_radius);
    }
}

typedef struct rows_ctx {
    const uint16_t *rows;
    size_t width;
    uint16_t *radius_q8;
} rows_ctx_t;

static void fill_rows(void *p, size_t y0, size_t y1) {
    const rows_ctx_t *c = (const rows_ctx_t *)p;
    for (size_t y = y0; y < y1; ++y)
        for (size_t x = 0; x < c->width; ++x) c->radius_q8[y * c->width + x] = c->rows[y];
}

void blur_radius_from_rows(const uint16_t *rows, size_t width, size_t height, uint16_t *radius_q8, int threads) {
    rows_ctx_t c = {rows, width, radius_q8};
    blur_parallel_rows(threads, height, fill_rows, &c);
}
