/* test_blur.c -- the depth-of-field blur of sat_blur (apps/sat_blur): the
 * circle-of-confusion formula, radius tables and maps against hand-computed
 * values; the fixed-point precisions and their exactness bounds (blur.h);
 * the conversion tables against an sRGB formula written here; every 8-bit
 * colour at every alpha and a dense sweep of 16-bit colours at several
 * alphas through the whole job at radius 0 (exact, resp. within 2/65535);
 * the CPU blur against exact 128-bit box means; the whole job against a
 * floating-point reference; row bands; and the GPU against the CPU bit for
 * bit. cpu_* tests need no GPU (ctest: test_blur_cpu); gpu_* do (test_blur). */
#include "support/harness.h"
#include "blur.h"
#include "convert.h"
#include "parallel.h"
#include "pipeline.h"
#include "radius.h"
#include <libscan/sat.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) TFAIL("out of host memory (%zu bytes)", n);
    return p;
}

typedef unsigned __int128 u128;
typedef int (*image_runner_t)(const blur_image_job_t *, blur_times_t *, char *, size_t);

/* ---- independent formulas ---------------------------------------------------------- */

/* IEC 61966-2-1, written here rather than taken from apps/common. */
static double ref_decode(double e) {
    if (e <= 0) return 0;
    if (e >= 1) return 1;
    return e <= 0.04045 ? e / 12.92 : pow((e + 0.055) / 1.055, 2.4);
}
static double ref_encode(double l) {
    if (!(l > 0)) return 0;
    if (l >= 1) return 1;
    return l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1 / 2.4) - 0.055;
}

/* r = aperture * |d - f| / d, d and f at least 1/64, clamped; in 8.8 fixed point. */
static uint16_t ref_radius_q8(double d, double f, double aperture, double max_radius) {
    if (d < 1.0 / 64) d = 1.0 / 64;
    if (f < 1.0 / 64) f = 1.0 / 64;
    double r = aperture * fabs(d - f) / d;
    if (r > max_radius) r = max_radius;
    return (uint16_t)floor(r * 256 + 0.5);
}

/* ---- formulas ------------------------------------------------------------------ */

static void cpu_coc_formula(void **state) {
    (void)state;
    /* r = aperture * |d - f| / d, d and f at least 1/64, clamped to max */
    assert_true(fabs(blur_coc_radius(1.0, 0.5, 20, 100) - 10.0) < 1e-12);
    assert_true(fabs(blur_coc_radius(0.25, 0.5, 20, 100) - 20.0) < 1e-12);
    assert_true(fabs(blur_coc_radius(0.0, 0.5, 20, 1000) - 20.0 * (0.5 - 1.0 / 64) * 64) < 1e-9);
    assert_true(blur_coc_radius(0.0, 0.5, 20, 32) == 32.0);
    assert_true(blur_coc_radius(0.5, 0.5, 20, 32) == 0.0);
    assert_true(blur_coc_radius(0.01, 0.0, 20, 32) == 0.0); /* both below 1/64: same plane */
    assert_true(blur_coc_radius(NAN, 0.5, 20, 32) == 0.0);
    assert_true(blur_coc_radius(0.7, 0.3, 0, 32) == 0.0);
}

static void cpu_radius_q8(void **state) {
    (void)state;
    assert_int_equal(blur_radius_q8(0), 0);
    assert_int_equal(blur_radius_q8(-3), 0);
    assert_int_equal(blur_radius_q8(NAN), 0);
    assert_int_equal(blur_radius_q8(1.0), 256);
    assert_int_equal(blur_radius_q8(1.5), 384);
    assert_int_equal(blur_radius_q8(0.001), 0);
    assert_int_equal(blur_radius_q8(0.002), 1); /* 0.512 rounds up */
    assert_int_equal(blur_radius_q8(255.0), 65280);
    assert_int_equal(blur_radius_q8(300.0), 65280);
}

/* A w x h image of `bits`-bit samples with random values. */
static blur_pixels_t random_pixels(rng_t *r, int bits, int channels, size_t w, size_t h) {
    blur_pixels_t p = {xmalloc(w * h * (size_t)channels * (size_t)(bits / 8)), bits, channels, w, h};
    const uint64_t max = bits == 16 ? 65535u : 255u;
    for (size_t i = 0; i < w * h * (size_t)channels; ++i) blur_store(p.data, i, bits / 8, rng_below(r, max + 1));
    return p;
}

static void cpu_radius_maps(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, "cpu_radius_maps", 0);
    assert_int_equal(blur_depth_lut_len(8, 1), 256);
    assert_int_equal(blur_depth_lut_len(8, 2), 256);
    assert_int_equal(blur_depth_lut_len(8, 3), 766);
    assert_int_equal(blur_depth_lut_len(16, 1), 65536);
    assert_int_equal(blur_depth_lut_len(16, 4), 196606);
    const int layouts[][2] = {{8, 1}, {8, 2}, {8, 3}, {8, 4}, {16, 1}, {16, 3}};
    const size_t W = 13, H = 11;
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; ++l)
        for (int invert = 0; invert <= 1; ++invert) {
            const int bits = layouts[l][0], C = layouts[l][1], colours = C >= 3 ? 3 : 1;
            const double max = bits == 16 ? 65535 : 255;
            blur_pixels_t depth = random_pixels(&r, bits, C, W, H);
            uint16_t *lut = xmalloc(blur_depth_lut_len(bits, C) * 2), map[13 * 11];
            blur_depth_lut(bits, C, invert, 0.4, 16, 24, lut);
            blur_radius_from_depth(&depth, lut, map, (int)l % 3); /* every core, 1 and 2 threads */
            for (size_t i = 0; i < W * H; ++i) {
                double sum = 0;
                for (int c = 0; c < colours; ++c) sum += (double)blur_load(depth.data, i * (size_t)C + (size_t)c, bits / 8);
                double d = sum / (colours * max);
                if (fabs(blur_depth_at(&depth, i % W, i / W) - d) > 1e-15) TFAIL("blur_depth_at, pixel %zu", i);
                if (invert) d = 1.0 - d;
                assert_int_equal(map[i], ref_radius_q8(d, 0.4, 16, 24));
            }
            free(lut);
            free(depth.data);
        }
    /* tilt-shift: centre 0.5, sharp within 0.1 of the height, max at 0.35 */
    uint16_t rows[100], tilt[10 * 100];
    blur_tilt_rows(100, 0.5, 20, rows);
    blur_radius_from_rows(rows, 10, 100, tilt, 0);
    for (size_t y = 0; y < 100; ++y) {
        const double dist = fabs((y + 0.5) / 100 - 0.5);
        double t = (dist - 0.1) / 0.25;
        t = t < 0 ? 0 : (t > 1 ? 1 : t);
        for (size_t x = 0; x < 10; ++x) assert_int_equal(tilt[y * 10 + x], (uint16_t)floor(t * 20 * 256 + 0.5));
    }
    assert_int_equal(tilt[50 * 10], 0);
    assert_int_equal(tilt[0], 20 * 256);
}

/* ---- precisions, their bounds, weights ----------------------------------------------------- */

static void cpu_precisions_and_bounds(void **state) {
    (void)state;
    const uint64_t ones[3] = {4095, (1ull << 30) - 1, (1ull << 37) - 1};
    const int sbytes[3] = {2, 4, 8}, tbytes[3] = {4, 8, 8};
    for (int p = BLUR_P12; p <= BLUR_P37; ++p) {
        const blur_format_t f = blur_format((blur_precision_t)p);
        assert_true(f.one == ones[p]);
        assert_int_equal(f.sample_bytes, sbytes[p]);
        assert_int_equal(f.table_bytes, tbytes[p]);
        /* blur.h's bound: the largest weighted sample fits the sample type ... */
        const uint64_t top = BLUR_MAX_WEIGHT * f.one;
        assert_true(f.sample_bytes == 8 || top < (1ull << (8 * f.sample_bytes)));
        /* ... and every 511 x 511 box of such samples sums exactly in the table */
        const uint64_t area = 511ull * 511ull;
        if (f.table_bytes == 4) {
            assert_true(area <= libscan_sat_u32_max_exact_area((uint32_t)top));
            assert_true(area * top <= 0xffffffffull);
        } else {
            assert_true(area <= libscan_sat_u64_max_exact_area(top));
            assert_true(top < (1ull << 40)); /* the wide filter's limit (sat.h) */
        }
    }
    /* the bound is tight for P12: a 4095 * 5 sample would break it */
    assert_true(511ull * 511 * 5 * 4095 > 0xffffffffull);
    assert_int_equal(blur_weight(0), 1);
    assert_int_equal(blur_weight(255), 1);
    assert_int_equal(blur_weight(256), 2);
    assert_int_equal(blur_weight(767), 3);
    assert_int_equal(blur_weight(768), 4);
    assert_int_equal(blur_weight(65535), 4);
    for (int p = BLUR_P12; p <= BLUR_P37; ++p) {
        const blur_format_t f = blur_format((blur_precision_t)p);
        const uint64_t one = f.one;
        const uint64_t in[6] = {one, 1, 2, 3, one - 1, 7}, want[6] = {one, 1, 4, 6, 4 * (one - 1), 28};
        const uint16_t rad[3] = {0, 300, 2000};
        unsigned char inb[48], outb[48];
        uint8_t wm[3];
        for (int i = 0; i < 6; ++i) blur_store(inb, (size_t)i, f.sample_bytes, in[i]);
        blur_apply_weights(inb, rad, 3, 2, (blur_precision_t)p, outb, wm);
        for (int i = 0; i < 6; ++i) assert_true(blur_load(outb, (size_t)i, f.sample_bytes) == want[i]);
        assert_int_equal(wm[0], 1);
        assert_int_equal(wm[1], 2);
        assert_int_equal(wm[2], 4);
    }
}

/* Each row of [0, rows) visited exactly once, whatever the thread count
 * (0: every core). */
typedef struct visit_ctx {
    int *seen;
} visit_ctx_t;
static void visit_rows(void *p, size_t a, size_t b) {
    visit_ctx_t *c = (visit_ctx_t *)p;
    for (size_t y = a; y < b; ++y) c->seen[y] += 1; /* bands are disjoint: no race */
}
static void cpu_parallel_rows(void **state) {
    (void)state;
    assert_true(blur_online_cpus() >= 1 && blur_online_cpus() <= BLUR_MAX_THREADS);
    const size_t rows[] = {0, 1, 2, 5, 1000, 4099};
    const int threads[] = {-1, 0, 1, 2, 3, 7, 64, 1000};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i)
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; ++t) {
            int *seen = calloc(rows[i] + 1, sizeof *seen);
            visit_ctx_t c = {seen};
            blur_parallel_rows(threads[t], rows[i], visit_rows, &c);
            for (size_t y = 0; y < rows[i]; ++y)
                if (seen[y] != 1) TFAIL("%zu rows on %d threads: row %zu run %d times", rows[i], threads[t], y, seen[y]);
            free(seen);
        }
}

/* ---- which precision, and the conversion tables --------------------------------------------- */

static void cpu_precision_choice(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, "precision", 0);
    const size_t W = 31, H = 997; /* many rows: several bands */
    for (int bits = 8; bits <= 16; bits += 8)
        for (int C = 1; C <= 4; ++C) {
            const uint64_t max = bits == 16 ? 65535u : 255u;
            blur_pixels_t p = random_pixels(&r, bits, C, W, H);
            const int alpha = C == 2 || C == 4;
            if (alpha) /* every alpha 0 or max: the file needs no more than its colours do */
                for (size_t i = 0; i < W * H; ++i) blur_store(p.data, i * (size_t)C + (size_t)C - 1, bits / 8, (i % 3) ? max : 0);
            const blur_precision_t plain = bits == 16 ? BLUR_P30 : BLUR_P12;
            assert_int_equal(blur_precision_for(&p, 0), plain);
            assert_int_equal(blur_precision_for(&p, 1), plain);
            if (alpha) { /* one partial alpha, anywhere */
                const size_t where[3] = {0, W * H / 2 + 3, W * H - 1};
                for (int k = 0; k < 3; ++k) {
                    const size_t i = where[k] * (size_t)C + (size_t)C - 1;
                    const uint64_t old = blur_load(p.data, i, bits / 8);
                    blur_store(p.data, i, bits / 8, k == 1 ? 1 : max - 1);
                    assert_int_equal(blur_precision_for(&p, k + 1), bits == 16 ? BLUR_P37 : BLUR_P30);
                    blur_store(p.data, i, bits / 8, old);
                }
            }
            free(p.data);
        }
}

static void cpu_conversion_tables(void **state) {
    (void)state;
    char err[128];
    for (int bits = 8; bits <= 16; bits += 8)
        for (int p = BLUR_P12; p <= BLUR_P37; ++p)
            for (int linear = 0; linear <= 1; ++linear) {
                blur_luts_t l;
                assert_int_equal(blur_luts_init(&l, bits, (blur_precision_t)p, linear, err, sizeof err), 0);
                const uint32_t max = bits == 16 ? 65535u : 255u;
                const double one = (double)blur_format((blur_precision_t)p).one;
                for (uint32_t c = 0; c <= max; ++c) {
                    const double v = linear ? ref_decode((double)c / max) : (double)c / max;
                    if (fabs((double)l.decode[c] - v * one) > 0.5 + 1e-6 * (1 + v * one * 1e-9))
                        TFAIL("decode[%u] = %llu, want %.3f (bits %d, precision %d, linear %d)", c,
                              (unsigned long long)l.decode[c], v * one, bits, p, linear);
                    if (c && l.decode[c] < l.decode[c - 1]) TFAIL("decode not monotonic at %u", c);
                }
                assert_true(l.decode[0] == 0 && l.decode[max] == blur_format((blur_precision_t)p).one);
                for (uint32_t k = 0; k < max; ++k) {
                    const double v = (linear ? ref_decode((k + 0.5) / max) : (k + 0.5) / max) * (1u << BLUR_SPLIT_BITS);
                    if (!((double)l.split[k] >= v - 1e-6 && (double)l.split[k] < v + 1 + 1e-6))
                        TFAIL("split[%u] = %u, want ceil(%.3f)", k, l.split[k], v);
                    if (k && l.split[k] < l.split[k - 1]) TFAIL("split not monotonic at %u", k);
                }
                /* index[b] = the splits at or below b * 2^11 (every b for 8 bits, a stride for 16) */
                for (size_t b = 0; b < BLUR_INDEX_LEN; b += bits == 8 || b < 512 ? 1 : 97) {
                    const uint64_t at = (uint64_t)b << BLUR_INDEX_SHIFT;
                    uint32_t lo = 0, hi = max; /* first k with split[k] > at */
                    while (lo < hi) {
                        const uint32_t mid = (lo + hi) / 2;
                        if (l.split[mid] > at)
                            hi = mid;
                        else
                            lo = mid + 1;
                    }
                    if (l.index[b] != lo) TFAIL("index[%zu] = %u, want %u", b, l.index[b], lo);
                }
                assert_int_equal(l.index[BLUR_INDEX_LEN - 1], max);
                /* code8: 8-bit in BLUR_P12 only; each entry the count of
                   splits at or below floor(q * 2^27 / one), by walking */
                if (bits == 8 && p == BLUR_P12) {
                    assert_non_null(l.code8);
                    const uint64_t one12 = blur_format(BLUR_P12).one;
                    for (uint64_t q = 0; q <= one12; ++q) {
                        const uint64_t u = (q << BLUR_SPLIT_BITS) / one12;
                        uint32_t want = 0;
                        while (want < max && l.split[want] <= u) ++want;
                        if (l.code8[q] != want) TFAIL("code8[%llu] = %u, want %u (linear %d)", (unsigned long long)q, l.code8[q], want, linear);
                    }
                } else {
                    assert_null(l.code8);
                }
                blur_luts_free(&l);
            }
    blur_luts_t l;
    assert_int_equal(blur_luts_init(&l, 12, BLUR_P12, 1, err, sizeof err), -1);
    assert_true(strlen(err) > 0 && l.decode == NULL && l.split == NULL);
    assert_int_equal(blur_luts_init(&l, 8, (blur_precision_t)3, 1, err, sizeof err), -1);
    /* encode at the edges: alpha 0 gives colour 0; colour above alpha is clamped */
    assert_true(blur_luts_init(&l, 8, BLUR_P30, 1, err, sizeof err) == 0);
    assert_int_equal(blur_encode(l.split, l.index, 12345, 0, 0.0), 0);
    assert_int_equal(blur_encode(l.split, l.index, 1000, 999, 1.0 / 999), 255);
    assert_int_equal(blur_encode(l.split, l.index, 0, 999, 1.0 / 999), 0);
    blur_luts_free(&l);
}

/* The whole-image conversions (convert.c, with its one-lookup rows for
 * opaque 8-bit images) against the per-pixel functions, for every channel
 * count and precision that 8-bit images get, colours above one included. */
static void cpu_image_conversions(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, "image_conversions", 0);
    char err[128];
    const size_t W = 37, H = 11;
    for (int C = 1; C <= 4; ++C)
        for (int p = BLUR_P12; p <= BLUR_P30; ++p) {
            blur_luts_t l;
            assert_int_equal(blur_luts_init(&l, 8, (blur_precision_t)p, 1, err, sizeof err), 0);
            const blur_format_t f = blur_format((blur_precision_t)p);
            blur_pixels_t in = random_pixels(&r, 8, C, W, H), out = random_pixels(&r, 8, C, W, H);
            if (p == BLUR_P12 && blur_has_alpha(C)) /* P12 images have alpha 0 or 255 only */
                for (size_t i = 0; i < W * H; ++i) ((uint8_t *)in.data)[i * (size_t)C + (size_t)C - 1] = rng_below(&r, 2) ? 255 : 0;
            const size_t n = W * H * (size_t)C;
            void *fixed = xmalloc(n * (size_t)f.sample_bytes);
            blur_image_to_fixed(&l, &in, fixed, 3);
            for (size_t i = 0; i < W * H; ++i) {
                uint32_t px[4];
                uint64_t want[4];
                for (int k = 0; k < C; ++k) px[k] = ((const uint8_t *)in.data)[i * (size_t)C + (size_t)k];
                blur_pixel_to_fixed(l.decode, 8, f.one, C, px, want);
                for (int k = 0; k < C; ++k)
                    if (blur_load(fixed, i * (size_t)C + (size_t)k, f.sample_bytes) != want[k])
                        TFAIL("to fixed: pixel %zu sample %d (C %d, precision %d)", i, k, C, p);
            }
            /* Blurred samples may exceed what any file sample maps to: up
               to one and beyond it (clamped), alpha anywhere. */
            for (size_t i = 0; i < n; ++i) blur_store(fixed, i, f.sample_bytes, rng_below(&r, f.one + 3));
            blur_image_from_fixed(&l, fixed, &out, 3);
            for (size_t i = 0; i < W * H; ++i) {
                uint64_t q[4];
                uint32_t want[4];
                for (int k = 0; k < C; ++k) q[k] = blur_load(fixed, i * (size_t)C + (size_t)k, f.sample_bytes);
                blur_pixel_from_fixed(l.split, l.index, 8, f.one, C, q, want);
                for (int k = 0; k < C; ++k)
                    if (((const uint8_t *)out.data)[i * (size_t)C + (size_t)k] != want[k])
                        TFAIL("from fixed: pixel %zu sample %d (C %d, precision %d)", i, k, C, p);
            }
            free(fixed);
            free(in.data);
            free(out.data);
            blur_luts_free(&l);
        }
}

/* blur_div_floor against exact division, at the edges of its contract and
 * where the conversions call it; blur_encode against a count of splits. */
static void cpu_division_and_encode(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, "division", 0);
    const uint64_t one37 = (1ull << 37) - 1, top = 1ull << BLUR_SPLIT_BITS;
    for (int i = 0; i < 2000000; ++i) {
        const uint64_t d = 1 + rng_below(&r, (i & 1) ? one37 : 1ull << (1 + i % 37));
        const uint64_t q = (i % 7 == 0) ? d - (d > 1 ? rng_below(&r, 2) : 0) : rng_below(&r, d + 1); /* q <= d */
        const uint64_t a = q << BLUR_SPLIT_BITS;
        const double inv = 1.0 / (double)d;
        const uint64_t got = blur_div_floor(a, d, inv), want = a / d;
        if (got != want || got > top)
            TFAIL("blur_div_floor(%llu, %llu) = %llu, want %llu", (unsigned long long)a, (unsigned long long)d,
                  (unsigned long long)got, (unsigned long long)want);
        const uint64_t k = want * d; /* an exact multiple and its neighbours */
        if (blur_div_floor(k, d, inv) != want || (k && blur_div_floor(k - 1, d, inv) != (k - 1) / d))
            TFAIL("blur_div_floor near a multiple of %llu", (unsigned long long)d);
        const uint64_t am = (d % 65536) * 65535 + one37 / 2; /* the alpha's rounding */
        if (blur_div_floor(am, one37, 1.0 / (double)one37) != am / one37)
            TFAIL("blur_div_floor(%llu, 2^37 - 1)", (unsigned long long)am);
    }
    const double inv37 = 1.0 / (double)one37;
    assert_true(blur_div_floor(one37 << BLUR_SPLIT_BITS, one37, inv37) == top); /* the largest call: q = d = one */
    assert_true(blur_div_floor((one37 << BLUR_SPLIT_BITS) - 1, one37, inv37) == top - 1);
    char err[128];
    for (int bits = 8; bits <= 16; bits += 8) {
        blur_luts_t l;
        assert_int_equal(blur_luts_init(&l, bits, BLUR_P37, 1, err, sizeof err), 0);
        const uint32_t max = bits == 16 ? 65535u : 255u;
        const int tries = bits == 8 ? 200000 : 20000; /* the 16-bit walk is long */
        for (int i = 0; i < tries; ++i) {
            const uint64_t d = 1 + rng_below(&r, one37);
            const uint64_t q = rng_below(&r, d + 1), u = (q << BLUR_SPLIT_BITS) / d;
            uint32_t want = 0;
            while (want < max && l.split[want] <= u) ++want; /* the count, by walking */
            if (blur_encode(l.split, l.index, q, d, 1.0 / (double)d) != want) TFAIL("blur_encode(%llu, %llu) != %u", (unsigned long long)q,
                                                                   (unsigned long long)d, want);
        }
        blur_luts_free(&l);
    }
}

/* ---- round trips: --radius 0 gives the file back ------------------------------------------------ */

/* One whole job at radius 0 (a uniform radius, or a depth map / tilt band
 * whose radii are all 0, which adds the bleeding weights): out = in. */
static void run_identity(image_runner_t run, const blur_pixels_t *in, blur_pixels_t *out, int linear, int mode) {
    /* the thread count changes nothing: every core, one, three */
    blur_image_job_t job = {.in = *in, .out = *out, .linear = linear, .passes = 1, .mode = BLUR_MODE_UNIFORM,
                            .threads = (mode + linear) % 3 == 2 ? 3 : (mode + linear) % 3};
    blur_pixels_t depth = {NULL, 8, 1, in->width, in->height};
    if (mode == BLUR_MODE_DEPTH) { /* every depth 0.5, in focus */
        depth.data = xmalloc(in->width * in->height);
        memset(depth.data, 128, in->width * in->height);
        job.mode = BLUR_MODE_DEPTH;
        job.depth = depth;
        job.focus = 128.0 / 255.0;
        job.aperture = 30;
        job.max_radius = 40;
    } else if (mode == BLUR_MODE_TILT) {
        job.mode = BLUR_MODE_TILT;
        job.focus = 0.5;
        job.max_radius = 0;
    }
    char err[256] = "";
    blur_times_t t;
    if (run(&job, &t, err, sizeof err) != 0) TFAIL("identity job: %s", err);
    free(depth.data);
}

/* Compares out with in: colours within tol (exact where tol is 0), alpha
 * exact; where alpha is 0 the colour must be 0 (documented). Returns the
 * largest colour error. */
static unsigned compare_roundtrip(const blur_pixels_t *in, const blur_pixels_t *out, unsigned tol, const char *what) {
    const int C = in->channels, alpha = blur_has_alpha(C), bytes = in->bits / 8;
    unsigned worst = 0;
    for (size_t p = 0; p < in->width * in->height; ++p) {
        const uint64_t a = alpha ? blur_load(in->data, p * (size_t)C + (size_t)C - 1, bytes) : 1;
        for (int c = 0; c < C; ++c) {
            const size_t i = p * (size_t)C + (size_t)c;
            const uint64_t want = (alpha && a == 0) ? 0 : blur_load(in->data, i, bytes), got = blur_load(out->data, i, bytes);
            const unsigned e = (unsigned)(got > want ? got - want : want - got);
            const int is_alpha = alpha && c == C - 1;
            if (e > (is_alpha ? 0 : tol))
                TFAIL("%s: pixel %zu channel %d = %llu, file had %llu (alpha %llu)", what, p, c, (unsigned long long)got,
                      (unsigned long long)want, (unsigned long long)a);
            if (!is_alpha && e > worst) worst = e;
        }
    }
    return worst;
}

/* Every 8-bit colour at every alpha 0..255, each layout: 256 x 256 pixels,
 * x the colour and y the alpha (the other colours vary with both). */
static blur_pixels_t every_8bit(int C) {
    const size_t W = 256, H = blur_has_alpha(C) ? 256 : 2;
    blur_pixels_t p = {xmalloc(W * H * (size_t)C), 8, C, W, H};
    uint8_t *d = (uint8_t *)p.data;
    for (size_t y = 0; y < H; ++y)
        for (size_t x = 0; x < W; ++x) {
            uint8_t *px = d + (y * W + x) * (size_t)C;
            const uint8_t v = (uint8_t)x, a = (uint8_t)y;
            px[0] = v;
            if (C >= 3) {
                px[1] = (uint8_t)(255 - v);
                px[2] = (uint8_t)(v * 37 + y * 11);
            }
            if (blur_has_alpha(C)) px[C - 1] = a;
        }
    return p;
}

static void roundtrip_8bit(image_runner_t run) {
    for (int C = 1; C <= 4; ++C)
        for (int linear = 0; linear <= 1; ++linear)
            for (int mode = 0; mode <= 2; ++mode) {
                blur_pixels_t in = every_8bit(C), out = in;
                out.data = xmalloc(in.width * in.height * (size_t)C);
                run_identity(run, &in, &out, linear, mode);
                char what[96];
                snprintf(what, sizeof what, "8-bit, %d channels, linear %d, mode %d", C, linear, mode);
                compare_roundtrip(&in, &out, 0, what);
                if (blur_has_alpha(C)) { /* alpha only 0 or 255: the 12-bit precision, still exact */
                    for (size_t i = 0; i < in.width * in.height; ++i)
                        ((uint8_t *)in.data)[i * (size_t)C + (size_t)C - 1] = (i / in.width) % 2 ? 255 : 0;
                    assert_int_equal(blur_precision_for(&in, 0), BLUR_P12);
                    run_identity(run, &in, &out, linear, mode);
                    compare_roundtrip(&in, &out, 0, what);
                }
                free(in.data);
                free(out.data);
            }
}

static void cpu_roundtrip_8bit_every_alpha(void **state) {
    (void)state;
    roundtrip_8bit(blur_image_run_cpu);
}

/* Every 16-bit colour (x) at several alphas (y), each layout: within
 * 2/65535 as required -- the precisions give them back exactly, and the
 * largest error seen is printed. */
static const uint16_t kAlphas16[] = {0, 1, 2, 3, 5, 17, 255, 256, 4097, 32768, 65534, 65535};
#define NALPHAS16 (sizeof kAlphas16 / sizeof kAlphas16[0])

static blur_pixels_t sweep_16bit(int C) {
    const size_t W = 65536, H = blur_has_alpha(C) ? NALPHAS16 : 2;
    blur_pixels_t p = {xmalloc(W * H * (size_t)C * 2), 16, C, W, H};
    uint16_t *d = (uint16_t *)p.data;
    for (size_t y = 0; y < H; ++y)
        for (size_t x = 0; x < W; ++x) {
            uint16_t *px = d + (y * W + x) * (size_t)C;
            px[0] = (uint16_t)x;
            if (C >= 3) {
                px[1] = (uint16_t)(65535 - x);
                px[2] = (uint16_t)(x * 7919 + y * 101);
            }
            if (blur_has_alpha(C)) px[C - 1] = kAlphas16[y];
        }
    return p;
}

static void roundtrip_16bit(image_runner_t run) {
    unsigned worst = 0;
    for (int C = 1; C <= 4; ++C)
        for (int linear = 0; linear <= 1; ++linear)
            for (int mode = 0; mode <= 2; mode += 2) { /* uniform, and the weighted path through a tilt band */
                blur_pixels_t in = sweep_16bit(C), out = in;
                out.data = xmalloc(in.width * in.height * (size_t)C * 2);
                run_identity(run, &in, &out, linear, mode);
                char what[96];
                snprintf(what, sizeof what, "16-bit, %d channels, linear %d, mode %d", C, linear, mode);
                const unsigned e = compare_roundtrip(&in, &out, 2, what);
                if (e > worst) worst = e;
                free(in.data);
                free(out.data);
            }
    printf("16-bit sweep (every value, alphas 0..65535 in %zu steps): largest colour error %u/65535\n", NALPHAS16, worst);
}

static void cpu_roundtrip_16bit_sweep(void **state) {
    (void)state;
    roundtrip_16bit(blur_image_run_cpu);
}

/* ---- the CPU blur against exact box means ------------------------------------------------------- */

/* One pass by plain loops: weighted box sums of both radii, as the exact
 * blend num / den. */
static void ref_pixel(const void *img, int sbytes, const uint16_t *radius, uint16_t uniform, int weighted, size_t W,
                      size_t H, int C, size_t x, size_t y, int c, u128 *num, u128 *den) {
    const unsigned q8 = radius ? radius[y * W + x] : uniform;
    const unsigned f = q8 & 255;
    u128 s[2] = {0, 0}, ws[2] = {1, 1};
    for (int k = 0; k < (f ? 2 : 1); ++k) {
        const long R = (long)(q8 >> 8) + k;
        s[k] = ws[k] = 0;
        for (long yy = (long)y - R; yy <= (long)y + R; ++yy)
            for (long xx = (long)x - R; xx <= (long)x + R; ++xx) {
                if (xx < 0 || yy < 0 || xx >= (long)W || yy >= (long)H) continue;
                const size_t p = (size_t)yy * W + (size_t)xx;
                const unsigned w = weighted ? blur_weight(radius[p]) : 1u;
                s[k] += (u128)w * blur_load(img, p * (size_t)C + (size_t)c, sbytes);
                ws[k] += w;
            }
    }
    *num = (u128)(256 - f) * s[0] * ws[1] + (u128)f * s[1] * ws[0];
    *den = (u128)256 * ws[0] * ws[1];
}

/* The filter's documented rounding (sat.h): floor(v + 1/2), or one lower
 * when v lies within 2^-16 above a half-integer. */
static void check_against_reference(const void *before, const void *after, int sbytes, const uint16_t *radius,
                                    uint16_t uniform, int weighted, size_t W, size_t H, int C) {
    for (size_t y = 0; y < H; ++y)
        for (size_t x = 0; x < W; ++x)
            for (int c = 0; c < C; ++c) {
                u128 num, den;
                ref_pixel(before, sbytes, radius, uniform, weighted, W, H, C, x, y, c, &num, &den);
                const u128 fl = num / den, rem = num % den, want = fl + (2 * rem >= den ? 1 : 0);
                const int near_half = 2 * rem >= den && rem * 131072 < den * (65536 + 2);
                const u128 got = blur_load(after, (y * W + x) * (size_t)C + (size_t)c, sbytes);
                if (!(got == want || (near_half && got + 1 == want)))
                    TFAIL("pixel (%zu,%zu) ch %d: %llu, exact %llu + %.9f (weighted %d, %d-byte samples)", x, y, c,
                          (unsigned long long)got, (unsigned long long)fl, (double)rem / (double)den, weighted, sbytes);
            }
}

static void random_samples(rng_t *r, void *img, size_t n, blur_precision_t p) {
    const blur_format_t f = blur_format(p);
    for (size_t i = 0; i < n; ++i) blur_store(img, i, f.sample_bytes, i % 11 == 0 ? f.one : rng_below(r, f.one + 1));
}

static void cpu_blur_matches_reference(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, "cpu_blur", 0);
    const size_t W = 37, H = 23;
    for (int p = BLUR_P12; p <= BLUR_P37; ++p)
        for (int C = 1; C <= 4; ++C)
            for (int mode = 0; mode < 3; ++mode) { /* uniform; radius map; radius map + weights */
                const int sb = blur_format((blur_precision_t)p).sample_bytes;
                const size_t bytes = W * H * (size_t)C * (size_t)sb;
                void *img = xmalloc(bytes), *before = xmalloc(bytes);
                uint16_t *radius = xmalloc(W * H * 2);
                random_samples(&r, img, W * H * (size_t)C, (blur_precision_t)p);
                memcpy(before, img, bytes);
                for (size_t i = 0; i < W * H; ++i) radius[i] = (uint16_t)rng_below(&r, 256 * 9);
                blur_job_t job = {W, H, C, img, mode ? radius : NULL, (uint16_t)(2 * 256 + 128), mode == 2, 1,
                                  (blur_precision_t)p};
                char err[256] = "";
                blur_times_t t;
                assert_int_equal(blur_run_cpu(&job, &t, err, sizeof err), 0);
                assert_true(t.sat >= 0 && t.blur >= 0 && t.upload == 0 && t.download == 0);
                check_against_reference(before, img, sb, mode ? radius : NULL, 2 * 256 + 128, mode == 2, W, H, C);
                free(img);
                free(before);
                free(radius);
            }
}

/* passes = 3 is the one-pass blur applied three times. */
static void cpu_blur_passes(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, "cpu_passes", 0);
    const size_t W = 50, H = 31, C = 4, n = W * H * C;
    for (int p = BLUR_P12; p <= BLUR_P37; ++p) {
        const size_t bytes = n * (size_t)blur_format((blur_precision_t)p).sample_bytes;
        void *a = xmalloc(bytes), *b = xmalloc(bytes);
        uint16_t *radius = xmalloc(W * H * 2);
        random_samples(&r, a, n, (blur_precision_t)p);
        memcpy(b, a, bytes);
        for (size_t i = 0; i < W * H; ++i) radius[i] = (uint16_t)rng_below(&r, 256 * 6);
        char err[256];
        blur_job_t j3 = {W, H, (int)C, a, radius, 0, 1, 3, (blur_precision_t)p};
        assert_int_equal(blur_run_cpu(&j3, NULL, err, sizeof err), 0);
        blur_job_t j1 = {W, H, (int)C, b, radius, 0, 1, 1, (blur_precision_t)p};
        for (int k = 0; k < 3; ++k) assert_int_equal(blur_run_cpu(&j1, NULL, err, sizeof err), 0);
        assert_memory_equal(a, b, bytes);
        free(a);
        free(b);
        free(radius);
    }
}

/* A sharp pixel next to blurred ones counts less with weights: the bleeding
 * reduction does what blur.h says. */
static void cpu_weights_reduce_bleeding(void **state) {
    (void)state;
    const size_t W = 21, H = 21;
    const uint16_t one = (uint16_t)blur_format(BLUR_P12).one;
    uint16_t img[21 * 21], img_w[21 * 21], radius[21 * 21];
    for (size_t y = 0; y < H; ++y)
        for (size_t x = 0; x < W; ++x) {
            const int sharp = x < 10;         /* left half in focus, bright */
            img[y * W + x] = sharp ? one : 0; /* right half blurred, dark */
            radius[y * W + x] = sharp ? 0 : 4 * 256;
        }
    memcpy(img_w, img, sizeof img);
    char err[128];
    blur_job_t plain = {W, H, 1, img, radius, 0, 0, 1, BLUR_P12}, weighted = {W, H, 1, img_w, radius, 0, 1, 1, BLUR_P12};
    assert_int_equal(blur_run_cpu(&plain, NULL, err, sizeof err), 0);
    assert_int_equal(blur_run_cpu(&weighted, NULL, err, sizeof err), 0);
    const size_t p = 10 * W + 11; /* blurred pixel next to the edge: box x 7..15, 3 sharp of 9 columns */
    assert_int_equal(img[p], (uint16_t)floor(one * 3.0 / 9.0 + 0.5));
    assert_int_equal(img_w[p], (uint16_t)floor(one * 3.0 / (3.0 + 6 * 4) + 0.5));
    assert_int_equal(img_w[10 * W + 3], one); /* sharp pixels stay */
}

/* ---- the whole job against floating point ------------------------------------------------------- */

/* The job by the book, in doubles: decode (sRGB), premultiply, per channel
 * the blend of the two boxes' weighted means, un-premultiply, encode,
 * round. The fixed-point job may differ from it by one code where the exact
 * value sits next to a rounding boundary. */
static void reference_job(const blur_image_job_t *job, const uint16_t *radius, uint16_t uniform, double *outv) {
    const blur_pixels_t *in = &job->in;
    const size_t W = in->width, H = in->height;
    const int C = in->channels, alpha = blur_has_alpha(C), colours = alpha ? C - 1 : C, bytes = in->bits / 8;
    const double max = in->bits == 16 ? 65535 : 255;
    double *pre = xmalloc(W * H * (size_t)C * sizeof(double));
    for (size_t p = 0; p < W * H; ++p) {
        const double a = alpha ? (double)blur_load(in->data, p * (size_t)C + (size_t)C - 1, bytes) / max : 1;
        for (int c = 0; c < colours; ++c) {
            const double e = (double)blur_load(in->data, p * (size_t)C + (size_t)c, bytes) / max;
            pre[p * (size_t)C + (size_t)c] = (job->linear ? ref_decode(e) : e) * a;
        }
        if (alpha) pre[p * (size_t)C + (size_t)C - 1] = a;
    }
    for (size_t y = 0; y < H; ++y)
        for (size_t x = 0; x < W; ++x) {
            const unsigned q8 = radius ? radius[y * W + x] : uniform, f = q8 & 255;
            double v[4] = {0, 0, 0, 0};
            for (int k = 0; k < (f ? 2 : 1); ++k) {
                const long R = (long)(q8 >> 8) + k;
                double s[4] = {0, 0, 0, 0}, ws = 0;
                for (long yy = (long)y - R; yy <= (long)y + R; ++yy)
                    for (long xx = (long)x - R; xx <= (long)x + R; ++xx) {
                        if (xx < 0 || yy < 0 || xx >= (long)W || yy >= (long)H) continue;
                        const size_t p = (size_t)yy * W + (size_t)xx;
                        const double w = radius && job->mode != BLUR_MODE_UNIFORM ? blur_weight(radius[p]) : 1.0;
                        for (int c = 0; c < C; ++c) s[c] += w * pre[p * (size_t)C + (size_t)c];
                        ws += w;
                    }
                const double share = f ? (k ? f / 256.0 : (256.0 - f) / 256.0) : 1.0;
                for (int c = 0; c < C; ++c) v[c] += share * s[c] / ws;
            }
            const double a = alpha ? v[C - 1] : 1;
            double *o = outv + (y * W + x) * (size_t)C;
            for (int c = 0; c < colours; ++c) {
                const double lin = a > 0 ? v[c] / a : 0;
                o[c] = floor((job->linear ? ref_encode(lin) : (lin > 1 ? 1 : lin)) * max + 0.5);
            }
            if (alpha) o[C - 1] = floor(a * max + 0.5);
        }
    free(pre);
}

static void image_against_reference(image_runner_t run, const char *label) {
    rng_t r;
    rng_init(&r, label, 0);
    const size_t W = 23, H = 19;
    char err[256];
    for (int bits = 8; bits <= 16; bits += 8)
        for (int C = 1; C <= 4; ++C)
            for (int mode = 0; mode <= 2; ++mode) {
                blur_pixels_t in = random_pixels(&r, bits, C, W, H), out = in;
                const uint64_t max = bits == 16 ? 65535u : 255u;
                if (blur_has_alpha(C)) /* alphas from 1/8 up: the reference's colour stays well defined */
                    for (size_t p = 0; p < W * H; ++p)
                        blur_store(in.data, p * (size_t)C + (size_t)C - 1, bits / 8, max / 8 + rng_below(&r, max - max / 8 + 1));
                out.data = xmalloc(W * H * (size_t)C * (size_t)(bits / 8));
                blur_pixels_t depth = random_pixels(&r, 8, 3, W, H);
                blur_image_job_t job = {.in = in, .out = out, .linear = (int)(rng_below(&r, 4) != 0), .passes = 1,
                                        .mode = (blur_mode_t)mode, .radius = 2.75, .depth = depth, .invert = 0,
                                        .focus = 0.5, .aperture = 6, .max_radius = 5,
                                        .threads = (int)rng_below(&r, 4)};
                uint16_t *radius = xmalloc(W * H * 2);
                for (size_t p = 0; p < W * H; ++p) {
                    double d = 0;
                    for (int c = 0; c < 3; ++c) d += ((uint8_t *)depth.data)[p * 3 + (size_t)c];
                    const double dist = fabs((double)(p / W) + 0.5 - H * 0.5) / H, t = (dist - 0.1) / 0.25;
                    radius[p] = mode == BLUR_MODE_DEPTH ? ref_radius_q8(d / 765, 0.5, 6, 5)
                                                         : (uint16_t)floor((t < 0 ? 0 : (t > 1 ? 1 : t)) * 5 * 256 + 0.5);
                }
                double *want = xmalloc(W * H * (size_t)C * sizeof(double));
                reference_job(&job, mode ? radius : NULL, (uint16_t)(2 * 256 + 192), want);
                if (run(&job, NULL, err, sizeof err) != 0) TFAIL("%s: %s", label, err);
                for (size_t i = 0; i < W * H * (size_t)C; ++i) {
                    const double got = (double)blur_load(out.data, i, bits / 8);
                    if (fabs(got - want[i]) > 1)
                        TFAIL("%s: %d-bit, %d ch, mode %d, linear %d: sample %zu = %.0f, reference %.0f", label, bits, C,
                              mode, job.linear, i, got, want[i]);
                }
                free(want);
                free(radius);
                free(depth.data);
                free(in.data);
                free(out.data);
            }
}

static void cpu_image_blur_matches_float_reference(void **state) {
    (void)state;
    image_against_reference(blur_image_run_cpu, "cpu_image_reference");
}

static void cpu_invalid_jobs(void **state) {
    (void)state;
    char err[128] = "";
    uint16_t px[4] = {0};
    blur_job_t bad = {2, 2, 1, px, NULL, 0, 1, 1, BLUR_P12}; /* weighted without radii */
    assert_int_equal(blur_run_gpu(&bad, NULL, err, sizeof err), -1);
    assert_true(strlen(err) > 0);
    assert_int_equal(blur_run_cpu(&bad, NULL, err, sizeof err), -1);
    blur_job_t bad2 = {2, 2, 5, px, NULL, 0, 0, 1, BLUR_P12};
    assert_int_equal(blur_run_gpu(&bad2, NULL, err, sizeof err), -1);
    blur_job_t bad3 = {2, 2, 1, px, NULL, 0, 0, 0, BLUR_P12};
    assert_int_equal(blur_run_gpu(&bad3, NULL, err, sizeof err), -1);
    blur_job_t bad4 = {2, 2, 1, px, NULL, 0, 0, 1, (blur_precision_t)7};
    assert_int_equal(blur_run_cpu(&bad4, NULL, err, sizeof err), -1);
    assert_int_equal(blur_run_gpu(&bad4, NULL, err, sizeof err), -1);
    /* whole jobs: shapes that differ, bad depths, a depth map of another size */
    uint8_t a[16] = {0}, b[16] = {0}, d[16] = {0};
    const blur_pixels_t pin = {a, 8, 1, 4, 4}, pout = {b, 8, 1, 4, 4};
    blur_image_job_t ok = {.in = pin, .out = pout, .linear = 1, .passes = 1, .mode = BLUR_MODE_UNIFORM, .radius = 1};
    blur_times_t t;
    assert_int_equal(blur_image_run_cpu(&ok, &t, err, sizeof err), 0);
    blur_image_job_t j = ok;
    j.out.channels = 2;
    assert_int_equal(blur_image_run_cpu(&j, &t, err, sizeof err), -1);
    assert_int_equal(blur_image_run_gpu(&j, &t, err, sizeof err), -1);
    j = ok;
    j.in.bits = 12;
    assert_int_equal(blur_image_run_cpu(&j, &t, err, sizeof err), -1);
    j = ok;
    j.passes = 0;
    assert_int_equal(blur_image_run_cpu(&j, &t, err, sizeof err), -1);
    j = ok;
    j.mode = BLUR_MODE_DEPTH;
    j.depth = (blur_pixels_t){d, 8, 1, 4, 3};
    assert_int_equal(blur_image_run_cpu(&j, &t, err, sizeof err), -1);
    j.depth.data = NULL;
    j.depth.height = 4;
    assert_int_equal(blur_image_run_cpu(&j, &t, err, sizeof err), -1);
    j = ok;
    j.mode = (blur_mode_t)9;
    assert_int_equal(blur_image_run_cpu(&j, &t, err, sizeof err), -1);
    assert_true(strlen(err) > 0);
}

/* ---- GPU against CPU --------------------------------------------------------------------------- */

static void gpu_blur_matches_cpu(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "gpu_blur", 0);
    const size_t sizes[][2] = {{1, 1}, {1, 19}, {33, 1}, {131, 97}, {1920, 1080}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
        for (int p = BLUR_P12; p <= BLUR_P37; ++p)
            for (int C = 1; C <= 4; ++C)
                for (int mode = 0; mode < 3; ++mode) {
                    if (s == 4 && C != 4 && C != 3) continue; /* the big size: the program's layouts only */
                    if (!test_size_allowed(sizes[s][0] * sizes[s][1] * (size_t)C)) continue;
                    const size_t W = sizes[s][0], H = sizes[s][1];
                    const size_t bytes = W * H * (size_t)C * (size_t)blur_format((blur_precision_t)p).sample_bytes;
                    void *a = xmalloc(bytes), *b = xmalloc(bytes);
                    uint16_t *radius = xmalloc(W * H * 2);
                    random_samples(&r, a, W * H * (size_t)C, (blur_precision_t)p);
                    memcpy(b, a, bytes);
                    for (size_t i = 0; i < W * H; ++i) radius[i] = (uint16_t)rng_below(&r, 256 * 48);
                    const int passes = 1 + (int)(s % 3);
                    blur_job_t jc = {W, H, C, a, mode ? radius : NULL, 7 * 256 + 3, mode == 2, passes, (blur_precision_t)p};
                    blur_job_t jg = jc;
                    jg.pixels = b;
                    char err[256] = "";
                    blur_times_t t;
                    assert_int_equal(blur_run_cpu(&jc, NULL, err, sizeof err), 0);
                    if (blur_run_gpu(&jg, &t, err, sizeof err) != 0) TFAIL("blur_run_gpu: %s", err);
                    if (memcmp(a, b, bytes))
                        TFAIL("GPU blur differs from the CPU blur (%zux%zu, precision %d, %d ch, mode %d, %d passes)", W,
                              H, p, C, mode, passes);
                    assert_true(t.upload > 0 && t.sat > 0 && t.blur > 0 && t.download > 0);
                    free(a);
                    free(b);
                    free(radius);
                }
}

/* Whole jobs from raw pixels: the GPU run (conversions and radius maps on
 * the GPU) writes the CPU run's bytes, for every depth, layout, precision,
 * mode and depth-map kind. */
static void gpu_image_run_matches_cpu(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "gpu_image", 0);
    const size_t sizes[][2] = {{1, 1}, {37, 1}, {1, 29}, {211, 97}, {1920, 1080}};
    char err[256];
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
        for (int bits = 8; bits <= 16; bits += 8)
            for (int C = 1; C <= 4; ++C)
                for (int partial = 0; partial <= 1; ++partial)
                    for (int mode = 0; mode <= 2; ++mode) {
                        const size_t W = sizes[s][0], H = sizes[s][1];
                        if (s == 4 && (C < 3 || mode == 1)) continue; /* the big size: fewer cases */
                        if (!blur_has_alpha(C) && partial) continue;
                        if (!test_size_allowed(W * H * (size_t)C)) continue;
                        blur_pixels_t in = random_pixels(&r, bits, C, W, H), oc = in, og = in;
                        const uint64_t max = bits == 16 ? 65535u : 255u;
                        if (blur_has_alpha(C) && !partial)
                            for (size_t p = 0; p < W * H; ++p)
                                blur_store(in.data, p * (size_t)C + (size_t)C - 1, bits / 8, rng_below(&r, 2) ? max : 0);
                        const size_t bytes = W * H * (size_t)C * (size_t)(bits / 8);
                        oc.data = xmalloc(bytes);
                        og.data = xmalloc(bytes);
                        memset(og.data, 0x5A, bytes);
                        const int dbits = (s + (size_t)C) % 2 ? 16 : 8, dch = 1 + (int)(s % 4);
                        blur_pixels_t depth = random_pixels(&r, dbits, dch, W, H);
                        blur_image_job_t job = {.in = in, .out = oc, .linear = (int)(s % 2 == 0 || mode == 1),
                                                .passes = 1 + (int)(s % 2), .mode = (blur_mode_t)mode, .radius = 6.3,
                                                .depth = depth, .invert = (int)(s % 2), .focus = 0.35, .aperture = 24,
                                                .max_radius = 40};
                        blur_times_t t;
                        if (blur_image_run_cpu(&job, &t, err, sizeof err) != 0) TFAIL("cpu: %s", err);
                        job.out = og;
                        if (blur_image_run_gpu(&job, &t, err, sizeof err) != 0) TFAIL("gpu: %s", err);
                        if (memcmp(oc.data, og.data, bytes))
                            TFAIL("GPU job differs from the CPU job (%zux%zu, %d-bit, %d ch, partial alpha %d, mode %d)", W,
                                  H, bits, C, partial, mode);
                        assert_true(t.upload > 0 && t.convert > 0 && t.sat > 0 && t.blur > 0 && t.download > 0);
                        free(depth.data);
                        free(in.data);
                        free(oc.data);
                        free(og.data);
                    }
}

static void gpu_roundtrip_8bit_every_alpha(void **state) {
    (void)state;
    test_require_gpu();
    roundtrip_8bit(blur_image_run_gpu);
}

static void gpu_roundtrip_16bit_sweep(void **state) {
    (void)state;
    test_require_gpu();
    roundtrip_16bit(blur_image_run_gpu);
}

static void gpu_image_blur_matches_float_reference(void **state) {
    (void)state;
    test_require_gpu();
    image_against_reference(blur_image_run_gpu, "gpu_image_reference");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_coc_formula),
        cmocka_unit_test(cpu_radius_q8),
        cmocka_unit_test(cpu_radius_maps),
        cmocka_unit_test(cpu_precisions_and_bounds),
        cmocka_unit_test(cpu_parallel_rows),
        cmocka_unit_test(cpu_precision_choice),
        cmocka_unit_test(cpu_conversion_tables),
        cmocka_unit_test(cpu_image_conversions),
        cmocka_unit_test(cpu_division_and_encode),
        cmocka_unit_test(cpu_roundtrip_8bit_every_alpha),
        cmocka_unit_test(cpu_roundtrip_16bit_sweep),
        cmocka_unit_test(cpu_blur_matches_reference),
        cmocka_unit_test(cpu_blur_passes),
        cmocka_unit_test(cpu_weights_reduce_bleeding),
        cmocka_unit_test(cpu_image_blur_matches_float_reference),
        cmocka_unit_test(cpu_invalid_jobs),
        cmocka_unit_test(gpu_blur_matches_cpu),
        cmocka_unit_test(gpu_image_run_matches_cpu),
        cmocka_unit_test(gpu_roundtrip_8bit_every_alpha),
        cmocka_unit_test(gpu_roundtrip_16bit_sweep),
        cmocka_unit_test(gpu_image_blur_matches_float_reference),
    };
    test_begin("test_blur");
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
