/* test_blur.c -- the depth-of-field blur (apps/sat_blur/blur.h): the
 * circle-of-confusion formula and radius maps against hand-computed values,
 * fixed-point conversions, weights, the CPU blur against plain loops over
 * each box, and the GPU blur against the CPU blur bit for bit.
 * cpu_* tests need no GPU (ctest: test_blur_cpu); gpu_* do (test_blur). */
#include "support/harness.h"
#include "blur.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) TFAIL("out of host memory (%zu bytes)", n);
    return p;
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

static void cpu_radius_maps(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, "cpu_radius_maps", 0);
    const size_t W = 13, H = 11;
    float depth[13 * 11];
    uint16_t map[13 * 11];
    for (size_t i = 0; i < W * H; ++i) depth[i] = (float)rng_unit(&r);
    for (int invert = 0; invert <= 1; ++invert) {
        blur_radius_map_depth(depth, W, H, invert, 0.4, 16, 24, map);
        for (size_t i = 0; i < W * H; ++i) {
            double d = invert ? 1.0 - depth[i] : depth[i];
            if (d < 1.0 / 64) d = 1.0 / 64;
            double rr = 16 * fabs(d - 0.4) / d;
            if (rr > 24) rr = 24;
            assert_int_equal(map[i], (uint16_t)floor(rr * 256 + 0.5));
        }
    }
    /* tilt-shift: centre 0.5, sharp within 0.1 of the height, max at 0.35 */
    uint16_t tilt[10 * 100];
    blur_radius_map_tilt(10, 100, 0.5, 20, tilt);
    for (size_t y = 0; y < 100; ++y) {
        const double dist = fabs((y + 0.5) / 100 - 0.5);
        double t = (dist - 0.1) / 0.25;
        t = t < 0 ? 0 : (t > 1 ? 1 : t);
        for (size_t x = 0; x < 10; ++x) assert_int_equal(tilt[y * 10 + x], (uint16_t)floor(t * 20 * 256 + 0.5));
    }
    assert_int_equal(tilt[50 * 10], 0);
    assert_int_equal(tilt[0], 20 * 256);
}

static void cpu_fixed_and_weights(void **state) {
    (void)state;
    float f[4100];
    uint16_t q[4100];
    for (int k = 0; k <= 4095; ++k) f[k] = (float)k / 4095.0f;
    f[4096] = NAN;
    f[4097] = -1;
    f[4098] = 2;
    f[4099] = 0.5f / 4095.0f; /* exactly half a step: rounds up */
    blur_to_fixed(f, 4100, q);
    for (int k = 0; k <= 4095; ++k) assert_int_equal(q[k], k);
    assert_int_equal(q[4096], 0);
    assert_int_equal(q[4097], 0);
    assert_int_equal(q[4098], 4095);
    float back[4096];
    blur_from_fixed(q, 4096, back);
    for (int k = 0; k <= 4095; ++k) assert_true(fabs(back[k] - k / 4095.0) < 1e-7);
    assert_int_equal(blur_weight(0), 1);
    assert_int_equal(blur_weight(255), 1);
    assert_int_equal(blur_weight(256), 2);
    assert_int_equal(blur_weight(767), 3);
    assert_int_equal(blur_weight(768), 4);
    assert_int_equal(blur_weight(65535), 4);
    const uint16_t in[6] = {4095, 1, 2, 3, 100, 7}, rad[3] = {0, 300, 2000};
    uint16_t out[6];
    uint8_t wm[3];
    blur_apply_weights(in, rad, 3, 2, out, wm);
    const uint16_t want[6] = {4095, 1, 4, 6, 400, 28};
    for (int i = 0; i < 6; ++i) assert_int_equal(out[i], want[i]);
    assert_int_equal(wm[0], 1);
    assert_int_equal(wm[1], 2);
    assert_int_equal(wm[2], 4);
    /* the bound the header states: 511^2 * 4 * 4095 < 2^32 */
    assert_true(511ull * 511 * BLUR_MAX_WEIGHT * BLUR_FIXED_ONE <= 0xffffffffull);
}

/* ---- the CPU blur against plain loops ----------------------------------------------------- */

/* One pass by plain loops: weighted box means of both radii, blended; exact (double). */
static double ref_pixel(const uint16_t *img, const uint16_t *radius, uint16_t uniform, int weighted, size_t W,
                        size_t H, int C, size_t x, size_t y, int c) {
    const unsigned q8 = radius ? radius[y * W + x] : uniform;
    const unsigned f = q8 & 255;
    double m[2] = {0, 0};
    for (int k = 0; k < (f ? 2 : 1); ++k) {
        const long R = (long)(q8 >> 8) + k;
        double s = 0, ws = 0;
        for (long yy = (long)y - R; yy <= (long)y + R; ++yy)
            for (long xx = (long)x - R; xx <= (long)x + R; ++xx) {
                if (xx < 0 || yy < 0 || xx >= (long)W || yy >= (long)H) continue;
                const size_t p = (size_t)yy * W + (size_t)xx;
                const double w = weighted ? (double)blur_weight(radius[p]) : 1.0;
                s += w * img[p * (size_t)C + (size_t)c];
                ws += w;
            }
        m[k] = s / ws;
    }
    return ((256.0 - f) * m[0] + f * m[1]) / 256.0;
}

static void check_against_reference(const uint16_t *before, const uint16_t *after, const uint16_t *radius,
                                    uint16_t uniform, int weighted, size_t W, size_t H, int C) {
    for (size_t y = 0; y < H; ++y)
        for (size_t x = 0; x < W; ++x)
            for (int c = 0; c < C; ++c) {
                const double e = ref_pixel(before, radius, uniform, weighted, W, H, C, x, y, c);
                const double want = floor(e + 0.5), got = after[(y * W + x) * (size_t)C + (size_t)c];
                const double frac = e - floor(e);
                const int near_half = frac >= 0.5 - 1e-9 && frac < 0.5 + 1.0 / 65536 + 1e-9;
                if (!(got == want || (near_half && got == want - 1)))
                    TFAIL("pixel (%zu,%zu) ch %d: %.0f, exact %.9f (weighted %d)", x, y, c, got, e, weighted);
            }
}

static void random_image(rng_t *r, uint16_t *img, size_t n) {
    for (size_t i = 0; i < n; ++i) img[i] = (uint16_t)rng_below(r, BLUR_FIXED_ONE + 1);
}

static void cpu_blur_matches_reference(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, "cpu_blur", 0);
    const size_t W = 37, H = 23;
    for (int C = 1; C <= 4; ++C)
        for (int mode = 0; mode < 3; ++mode) { /* uniform; radius map; radius map + weights */
            uint16_t *img = xmalloc(W * H * (size_t)C * 2), *before = xmalloc(W * H * (size_t)C * 2);
            uint16_t *radius = xmalloc(W * H * 2);
            random_image(&r, img, W * H * (size_t)C);
            memcpy(before, img, W * H * (size_t)C * 2);
            for (size_t i = 0; i < W * H; ++i) radius[i] = (uint16_t)rng_below(&r, 256 * 9);
            blur_job_t job = {W, H, C, img, mode ? radius : NULL, (uint16_t)(2 * 256 + 128), mode == 2, 1};
            char err[256] = "";
            blur_times_t t;
            assert_int_equal(blur_run_cpu(&job, &t, err, sizeof err), 0);
            assert_true(t.sat >= 0 && t.blur >= 0 && t.upload == 0 && t.download == 0);
            check_against_reference(before, img, mode ? radius : NULL, 2 * 256 + 128, mode == 2, W, H, C);
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
    uint16_t *a = xmalloc(n * 2), *b = xmalloc(n * 2), *radius = xmalloc(W * H * 2);
    random_image(&r, a, n);
    memcpy(b, a, n * 2);
    for (size_t i = 0; i < W * H; ++i) radius[i] = (uint16_t)rng_below(&r, 256 * 6);
    char err[256];
    blur_job_t j3 = {W, H, (int)C, a, radius, 0, 1, 3};
    assert_int_equal(blur_run_cpu(&j3, NULL, err, sizeof err), 0);
    blur_job_t j1 = {W, H, (int)C, b, radius, 0, 1, 1};
    for (int p = 0; p < 3; ++p) assert_int_equal(blur_run_cpu(&j1, NULL, err, sizeof err), 0);
    assert_memory_equal(a, b, n * 2);
    free(a);
    free(b);
    free(radius);
}

/* A sharp pixel next to blurred ones counts less with weights: the bleeding
 * reduction does what blur.h says. */
static void cpu_weights_reduce_bleeding(void **state) {
    (void)state;
    const size_t W = 21, H = 21;
    uint16_t img[21 * 21], img_w[21 * 21], radius[21 * 21];
    for (size_t y = 0; y < H; ++y)
        for (size_t x = 0; x < W; ++x) {
            const int sharp = x < 10;                   /* left half in focus, bright */
            img[y * W + x] = sharp ? BLUR_FIXED_ONE : 0; /* right half blurred, dark */
            radius[y * W + x] = sharp ? 0 : 4 * 256;
        }
    memcpy(img_w, img, sizeof img);
    char err[128];
    blur_job_t plain = {W, H, 1, img, radius, 0, 0, 1}, weighted = {W, H, 1, img_w, radius, 0, 1, 1};
    assert_int_equal(blur_run_cpu(&plain, NULL, err, sizeof err), 0);
    assert_int_equal(blur_run_cpu(&weighted, NULL, err, sizeof err), 0);
    const size_t p = 10 * W + 11; /* blurred pixel next to the edge: box x 7..15, 3 sharp of 9 columns */
    assert_int_equal(img[p], (uint16_t)floor(BLUR_FIXED_ONE * 3.0 / 9.0 + 0.5));
    assert_int_equal(img_w[p], (uint16_t)floor(BLUR_FIXED_ONE * 3.0 / (3.0 + 6 * 4) + 0.5));
    assert_int_equal(img_w[10 * W + 3], BLUR_FIXED_ONE); /* sharp pixels stay */
}

static void cpu_invalid_jobs(void **state) {
    (void)state;
    char err[128] = "";
    uint16_t px[4] = {0};
    blur_job_t bad = {2, 2, 1, px, NULL, 0, 1, 1}; /* weighted without radii */
    assert_int_equal(blur_run_gpu(&bad, NULL, err, sizeof err), -1);
    assert_true(strlen(err) > 0);
    blur_job_t bad2 = {2, 2, 5, px, NULL, 0, 0, 1};
    assert_int_equal(blur_run_gpu(&bad2, NULL, err, sizeof err), -1);
    blur_job_t bad3 = {2, 2, 1, px, NULL, 0, 0, 0};
    assert_int_equal(blur_run_gpu(&bad3, NULL, err, sizeof err), -1);
}

/* ---- GPU against CPU --------------------------------------------------------------------------- */

static void gpu_blur_matches_cpu(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "gpu_blur", 0);
    const size_t sizes[][2] = {{1, 1}, {1, 19}, {33, 1}, {131, 97}, {1920, 1080}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
        for (int C = 1; C <= 4; ++C)
            for (int mode = 0; mode < 3; ++mode) {
                if (s == 4 && C != 4 && C != 3) continue; /* the big size: the program's layouts only */
                if (!test_size_allowed(sizes[s][0] * sizes[s][1] * (size_t)C)) continue;
                const size_t W = sizes[s][0], H = sizes[s][1], n = W * H * (size_t)C;
                uint16_t *a = xmalloc(n * 2), *b = xmalloc(n * 2), *radius = xmalloc(W * H * 2);
                random_image(&r, a, n);
                memcpy(b, a, n * 2);
                for (size_t i = 0; i < W * H; ++i) radius[i] = (uint16_t)rng_below(&r, 256 * 48);
                const int passes = 1 + (int)(s % 3);
                blur_job_t jc = {W, H, C, a, mode ? radius : NULL, 7 * 256 + 3, mode == 2, passes};
                blur_job_t jg = jc;
                jg.pixels = b;
                char err[256] = "";
                blur_times_t t;
                assert_int_equal(blur_run_cpu(&jc, NULL, err, sizeof err), 0);
                if (blur_run_gpu(&jg, &t, err, sizeof err) != 0) TFAIL("blur_run_gpu: %s", err);
                if (memcmp(a, b, n * 2))
                    TFAIL("GPU blur differs from the CPU blur (%zux%zu, %d ch, mode %d, %d passes)", W, H, C, mode, passes);
                assert_true(t.upload > 0 && t.sat > 0 && t.blur > 0 && t.download > 0);
                free(a);
                free(b);
                free(radius);
            }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_coc_formula),
        cmocka_unit_test(cpu_radius_q8),
        cmocka_unit_test(cpu_radius_maps),
        cmocka_unit_test(cpu_fixed_and_weights),
        cmocka_unit_test(cpu_blur_matches_reference),
        cmocka_unit_test(cpu_blur_passes),
        cmocka_unit_test(cpu_weights_reduce_bleeding),
        cmocka_unit_test(cpu_invalid_jobs),
        cmocka_unit_test(gpu_blur_matches_cpu),
    };
    test_begin("test_blur");
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
