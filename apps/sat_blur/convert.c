/* convert.c -- the conversion tables and the whole-image conversions on
 * every core (convert.h). */
#include "convert.h"
#include "parallel.h"
#include "common/image_io.h" /* img_srgb_to_linear: the one sRGB curve of the programs */

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- which precision ------------------------------------------------------------ */

typedef struct alpha_ctx {
    const blur_pixels_t *img;
    atomic_int partial; /* set by the first band that finds 0 < alpha < max */
} alpha_ctx_t;

static void scan_alpha(void *p, size_t y0, size_t y1) {
    alpha_ctx_t *c = (alpha_ctx_t *)p;
    const blur_pixels_t *img = c->img;
    const size_t C = (size_t)img->channels, W = img->width;
    const uint64_t max = img->bits == 16 ? 65535u : 255u;
    const int bytes = img->bits / 8;
    for (size_t y = y0; y < y1; ++y) {
        if (atomic_load_explicit(&c->partial, memory_order_relaxed)) return;
        for (size_t i = y * W; i < (y + 1) * W; ++i) {
            const uint64_t a = blur_load(img->data, i * C + C - 1, bytes);
            if (a != 0 && a != max) {
                atomic_store_explicit(&c->partial, 1, memory_order_relaxed);
                return;
            }
        }
    }
}

blur_precision_t blur_precision_for(const blur_pixels_t *img, int threads) {
    int partial = 0;
    if (blur_has_alpha(img->channels)) {
        alpha_ctx_t c = {img, 0};
        blur_parallel_rows(threads, img->height, scan_alpha, &c);
        partial = atomic_load(&c.partial);
    }
    if (img->bits == 16) return partial ? BLUR_P37 : BLUR_P30;
    return partial ? BLUR_P30 : BLUR_P12;
}

/* ---- the tables ------------------------------------------------------------------ */

static double transfer(double v, int linear) { return linear ? img_srgb_to_linear(v) : v; }

int blur_luts_init(blur_luts_t *l, int bits, blur_precision_t precision, int linear, char *err, size_t errlen) {
    memset(l, 0, sizeof *l);
    if ((bits != 8 && bits != 16) || (unsigned)precision > BLUR_P37) {
        snprintf(err, errlen, "pixel conversion: %d-bit samples or precision %d not supported", bits, (int)precision);
        return -1;
    }
    const uint32_t max = bits == 16 ? 65535u : 255u;
    l->bits = bits;
    l->precision = precision;
    l->decode = malloc(((size_t)max + 1) * sizeof *l->decode);
    l->split = malloc((size_t)max * sizeof *l->split);
    l->index = malloc(BLUR_INDEX_LEN * sizeof *l->index);
    if (!l->decode || !l->split || !l->index) {
        blur_luts_free(l);
        snprintf(err, errlen, "out of memory for the pixel conversion tables");
        return -1;
    }
    const double one = (double)blur_format(precision).one, scale = (double)(1u << BLUR_SPLIT_BITS);
    for (uint32_t c = 0; c <= max; ++c) l->decode[c] = (uint64_t)floor(transfer((double)c / max, linear) * one + 0.5);
    for (uint32_t k = 0; k < max; ++k) l->split[k] = (uint32_t)ceil(transfer((k + 0.5) / max, linear) * scale);
    /* index[b]: the splits at or below b * 2^11, by one walk (split is
     * non-decreasing, as the transfer is) */
    uint32_t k = 0;
    for (size_t b = 0; b < BLUR_INDEX_LEN; ++b) {
        const uint64_t at = (uint64_t)b << BLUR_INDEX_SHIFT;
        while (k < max && l->split[k] <= at) ++k;
        l->index[b] = (uint16_t)k;
    }
    if (bits == 8 && precision == BLUR_P12) {
        const uint64_t one12 = blur_format(BLUR_P12).one;
        if (!(l->code8 = malloc(one12 + 1))) {
            blur_luts_free(l);
            snprintf(err, errlen, "out of memory for the pixel conversion tables");
            return -1;
        }
        for (uint64_t q = 0; q <= one12; ++q)
            l->code8[q] = (uint8_t)blur_encode(l->split, l->index, q, one12, 1.0 / (double)one12);
    }
    return 0;
}

void blur_luts_free(blur_luts_t *l) {
    free(l->decode);
    free(l->split);
    free(l->index);
    free(l->code8);
    memset(l, 0, sizeof *l);
}

/* ---- whole images ------------------------------------------------------------------ */

typedef struct image_ctx {
    const blur_luts_t *l;
    const blur_pixels_t *px; /* the file side */
    void *fixed;
} image_ctx_t;

/* 8-bit samples without alpha in BLUR_P12 (every opaque 8-bit photograph;
 * code8 exists for 8-bit BLUR_P12 tables only): blur_pixel_to_fixed is
 * decode[] of each sample, and blur_pixel_from_fixed code8[] of each (q
 * clamped to one, as blur_encode does), so the rows are one lookup a sample
 * instead of a pixel's generic loads and stores. */
static bool opaque8(const image_ctx_t *c) { return c->l->code8 && !blur_has_alpha(c->px->channels); }

static void to_fixed_rows(void *p, size_t y0, size_t y1) {
    const image_ctx_t *c = (const image_ctx_t *)p;
    const int C = c->px->channels, bits = c->l->bits, in_bytes = bits / 8;
    const blur_format_t f = blur_format(c->l->precision);
    const size_t W = c->px->width;
    if (opaque8(c)) {
        const size_t first = y0 * W * (size_t)C, n = (y1 - y0) * W * (size_t)C;
        const uint8_t *in = (const uint8_t *)c->px->data + first;
        uint16_t *out = (uint16_t *)c->fixed + first;
        const uint64_t *decode = c->l->decode;
        for (size_t i = 0; i < n; ++i) out[i] = (uint16_t)decode[in[i]];
        return;
    }
    for (size_t i = y0 * W; i < y1 * W; ++i) {
        uint32_t in[4];
        uint64_t out[4];
        for (int k = 0; k < C; ++k) in[k] = (uint32_t)blur_load(c->px->data, i * (size_t)C + (size_t)k, in_bytes);
        blur_pixel_to_fixed(c->l->decode, bits, f.one, C, in, out);
        for (int k = 0; k < C; ++k) blur_store(c->fixed, i * (size_t)C + (size_t)k, f.sample_bytes, out[k]);
    }
}

static void from_fixed_rows(void *p, size_t y0, size_t y1) {
    const image_ctx_t *c = (const image_ctx_t *)p;
    const int C = c->px->channels, bits = c->l->bits, out_bytes = bits / 8;
    const blur_format_t f = blur_format(c->l->precision);
    const size_t W = c->px->width;
    if (opaque8(c)) {
        const size_t first = y0 * W * (size_t)C, n = (y1 - y0) * W * (size_t)C;
        const uint16_t *in = (const uint16_t *)c->fixed + first;
        uint8_t *out = (uint8_t *)c->px->data + first;
        const uint8_t *code8 = c->l->code8;
        const uint16_t one = (uint16_t)f.one;
        for (size_t i = 0; i < n; ++i) out[i] = code8[in[i] < one ? in[i] : one];
        return;
    }
    for (size_t i = y0 * W; i < y1 * W; ++i) {
        uint64_t in[4];
        uint32_t out[4];
        for (int k = 0; k < C; ++k) in[k] = blur_load(c->fixed, i * (size_t)C + (size_t)k, f.sample_bytes);
        blur_pixel_from_fixed(c->l->split, c->l->index, bits, f.one, C, in, out);
        for (int k = 0; k < C; ++k) blur_store(c->px->data, i * (size_t)C + (size_t)k, out_bytes, out[k]);
    }
}

void blur_image_to_fixed(const blur_luts_t *l, const blur_pixels_t *in, void *fixed, int threads) {
    image_ctx_t c = {l, in, fixed};
    blur_parallel_rows(threads, in->height, to_fixed_rows, &c);
}

void blur_image_from_fixed(const blur_luts_t *l, const void *fixed, const blur_pixels_t *out, int threads) {
    image_ctx_t c = {l, out, (void *)(uintptr_t)fixed};
    blur_parallel_rows(threads, out->height, from_fixed_rows, &c);
}
