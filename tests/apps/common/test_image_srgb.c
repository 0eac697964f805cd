/* test_image_srgb.c -- sRGB <-> linear per sample and whole images as
 * floats (plain and linear, premultiplied alpha), against the transfer
 * function written out here. */
#include "support/harness.h"

#include "common/image_io.h"
#include "image_tests.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The IEC 61966-2-1 curves, the test's own copy. */
static double ref_to_linear(double e)
{
    return e <= 0.04045 ? e / 12.92 : pow((e + 0.055) / 1.055, 2.4);
}

static double ref_to_srgb(double l)
{
    return l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1.0 / 2.4) - 0.055;
}

void test_srgb_known_points(void **state)
{
    (void)state;
    assert_true(img_srgb_to_linear(0.0) == 0.0);
    assert_true(img_srgb_to_linear(1.0) == 1.0);
    assert_true(fabs(img_srgb_to_linear(0.5) - 0.214041) < 1e-5);
    assert_true(fabs(img_linear_to_srgb(0.214041140) - 0.5) < 1e-6);
    assert_true(img_linear_to_srgb(0.0) == 0.0);
    assert_true(img_linear_to_srgb(1.0) == 1.0);
    assert_true(fabs(img_linear_to_srgb(0.18) - 0.461356) < 1e-5); /* mid gray */
    /* The linear toe and the join of the two pieces. */
    assert_true(fabs(img_srgb_to_linear(0.02) - 0.02 / 12.92) < 1e-12);
    assert_true(fabs(img_srgb_to_linear(0.04045) - 0.0031308) < 1e-6);
    assert_true(fabs(img_linear_to_srgb(0.0031308) - 0.04045) < 1e-6);
    for (int i = 0; i <= 1000; ++i) {
        double x = i / 1000.0;
        assert_true(fabs(img_srgb_to_linear(x) - ref_to_linear(x)) < 1e-12);
        assert_true(fabs(img_linear_to_srgb(x) - ref_to_srgb(x)) < 1e-12);
        assert_true(fabs(img_linear_to_srgb(img_srgb_to_linear(x)) - x) < 1e-12);
    }
    assert_true(fabs(img_srgb8_to_linear(128) - 0.2158605) < 1e-6);
    assert_int_equal(img_linear_to_srgb8(0.5f), 188);
}

void test_srgb8_table_and_roundtrip(void **state)
{
    (void)state;
    const float *t = img_srgb8_table();
    assert_non_null(t);
    assert_true(t[0] == 0.0f);
    assert_true(t[255] == 1.0f);
    for (int v = 0; v < 256; ++v) {
        if (t[v] != (float)ref_to_linear(v / 255.0))
            TFAIL("table[%d] = %.9g, expected %.9g", v, t[v], (float)ref_to_linear(v / 255.0));
        if (img_srgb8_to_linear((uint8_t)v) != t[v])
            TFAIL("img_srgb8_to_linear(%d) is not table[%d]", v, v);
        if (v > 0 && !(t[v] > t[v - 1]))
            TFAIL("table not strictly increasing at %d", v);
        if (img_linear_to_srgb8(t[v]) != v)
            TFAIL("linear -> sRGB8 of table[%d] gives %d", v, img_linear_to_srgb8(t[v]));
    }
    /* Encoding is the rounded curve, and monotonic, on a fine grid (values
     * within float precision of a rounding boundary may go either way). */
    int prev = 0;
    for (int i = 0; i <= 200000; ++i) {
        float l = (float)(i / 200000.0);
        int got = img_linear_to_srgb8(l);
        double exact = ref_to_srgb((double)l) * 255.0;
        if (fabs(exact - floor(exact) - 0.5) > 1e-4 && got != (int)floor(exact + 0.5))
            TFAIL("linear %.9g -> %d, expected %d", (double)l, got, (int)floor(exact + 0.5));
        if (got < prev)
            TFAIL("linear -> sRGB8 not monotonic at %.9g", (double)l);
        prev = got;
    }
}

void test_srgb16_roundtrip(void **state)
{
    (void)state;
    float prev = -1.0f;
    for (int v = 0; v < 65536; ++v) {
        float l = img_srgb16_to_linear((uint16_t)v);
        if (fabs((double)l - ref_to_linear(v / 65535.0)) > 1e-7)
            TFAIL("img_srgb16_to_linear(%d) = %.9g", v, (double)l);
        if (!(l > prev) && v > 0)
            TFAIL("16-bit decode not increasing at %d", v);
        prev = l;
        if (img_linear_to_srgb16(l) != v)
            TFAIL("16-bit round trip of %d gives %d", v, img_linear_to_srgb16(l));
    }
}

void test_srgb_clamping(void **state)
{
    (void)state;
    assert_true(img_srgb_to_linear(-0.5) == 0.0);
    assert_true(img_srgb_to_linear(1.5) == 1.0);
    assert_true(img_srgb_to_linear(NAN) == 0.0);
    assert_true(img_linear_to_srgb(-1.0) == 0.0);
    assert_true(img_linear_to_srgb(7.0) == 1.0);
    assert_true(img_linear_to_srgb(NAN) == 0.0);
    assert_int_equal(img_linear_to_srgb8(-0.1f), 0);
    assert_int_equal(img_linear_to_srgb8(1.5f), 255);
    assert_int_equal(img_linear_to_srgb8(NAN), 0);
    assert_int_equal(img_linear_to_srgb8(INFINITY), 255);
    assert_int_equal(img_linear_to_srgb16(-0.1f), 0);
    assert_int_equal(img_linear_to_srgb16(2.0f), 65535);
    assert_int_equal(img_linear_to_srgb16(NAN), 0);
}

static void random_img(img_t *img, rng_t *r, int w, int h, int ch, int bits)
{
    char err[256];
    if (img_alloc(img, w, h, ch, bits, err, sizeof err) != 0)
        TFAIL("%s", err);
    for (size_t i = 0; i < img_pixel_count(img) * (size_t)ch; ++i) {
        if (bits == 8)
            ((uint8_t *)img->pixels)[i] = (uint8_t)rng_below(r, 256);
        else
            ((uint16_t *)img->pixels)[i] = (uint16_t)rng_below(r, 65536);
    }
}

static double sample(const img_t *img, size_t i)
{
    return img->bits == 8 ? ((const uint8_t *)img->pixels)[i] : ((const uint16_t *)img->pixels)[i];
}

/* The float values, checked against the formula here, for every layout,
 * plain and linear, premultiplied or not. */
void test_f32_plain_and_linear(void **state)
{
    (void)state;
    rng_t r;
    rng_init(&r, "f32_values", 0);
    char err[256];
    for (int bits = 8; bits <= 16; bits += 8)
        for (int ch = 1; ch <= 4; ++ch) {
            img_t img;
            random_img(&img, &r, 13, 7, ch, bits);
            const size_t n = img_pixel_count(&img) * (size_t)ch;
            float *f = (float *)malloc(n * sizeof(float));
            const double full = bits == 8 ? 255.0 : 65535.0;
            const int alpha = ch == 2 || ch == 4;
            for (int linear = 0; linear <= 1; ++linear)
                for (int premul = 0; premul <= 1; ++premul) {
                    for (size_t i = 0; i < n; ++i)
                        f[i] = NAN; /* poisoned */
                    assert_int_equal(img_to_linear_f32(&img, f, linear, premul, err, sizeof err), 0);
                    for (size_t i = 0; i < n; ++i) {
                        const size_t px = i / (size_t)ch, c = i % (size_t)ch;
                        const int is_alpha = alpha && c == (size_t)ch - 1;
                        double want = sample(&img, i) / full;
                        if (!is_alpha) {
                            if (linear)
                                want = ref_to_linear(want);
                            if (premul && alpha)
                                want *= sample(&img, px * (size_t)ch + (size_t)ch - 1) / full;
                        }
                        if (!(fabs((double)f[i] - want) <= 2e-7))
                            TFAIL("bits %d ch %d linear %d premul %d: value %zu = %.9g, expected %.9g", bits, ch,
                                  linear, premul, i, (double)f[i], want);
                    }
                }
            free(f);
            img_free(&img);
        }
}

/* 8-bit: every layout and flag combination comes back exactly (colour under
 * alpha 0 comes back as 0 when premultiplied). */
void test_f32_premultiply_roundtrip(void **state)
{
    (void)state;
    rng_t r;
    rng_init(&r, "f32_premul", 0);
    char err[256];
    for (int ch = 1; ch <= 4; ++ch) {
        img_t a, b;
        random_img(&a, &r, 31, 17, ch, 8);
        const int alpha = ch == 2 || ch == 4;
        if (alpha) /* make sure the extremes occur */
            for (int k = 0; k < 3; ++k)
                ((uint8_t *)a.pixels)[(size_t)k * (size_t)ch + (size_t)ch - 1] = (uint8_t)(k == 0 ? 0 : k == 1 ? 1 : 255);
        const size_t n = img_pixel_count(&a) * (size_t)ch;
        float *f = (float *)malloc(n * sizeof(float));
        for (int linear = 0; linear <= 1; ++linear)
            for (int premul = 0; premul <= 1; ++premul) {
                assert_int_equal(img_to_linear_f32(&a, f, linear, premul, err, sizeof err), 0);
                assert_int_equal(img_alloc(&b, a.width, a.height, ch, 8, err, sizeof err), 0);
                memset(b.pixels, 0xa5, n); /* poisoned */
                assert_int_equal(img_from_linear_f32(f, &b, linear, premul, err, sizeof err), 0);
                for (size_t i = 0; i < n; ++i) {
                    const size_t px = i / (size_t)ch, c = i % (size_t)ch;
                    uint8_t want = ((uint8_t *)a.pixels)[i];
                    if (alpha && premul && c != (size_t)ch - 1 &&
                        ((uint8_t *)a.pixels)[px * (size_t)ch + (size_t)ch - 1] == 0)
                        want = 0;
                    if (((uint8_t *)b.pixels)[i] != want)
                        TFAIL("ch %d linear %d premul %d: sample %zu is %u, expected %u", ch, linear, premul, i,
                              ((uint8_t *)b.pixels)[i], want);
                }
                img_free(&b);
            }
        free(f);
        img_free(&a);
    }
}

void test_f32_16bit_roundtrip(void **state)
{
    (void)state;
    rng_t r;
    rng_init(&r, "f32_16", 0);
    char err[256];
    for (int ch = 1; ch <= 4; ++ch) {
        img_t a, b;
        random_img(&a, &r, 64, 64, ch, 16);
        const size_t n = img_pixel_count(&a) * (size_t)ch;
        float *f = (float *)malloc(n * sizeof(float));
        for (int linear = 0; linear <= 1; ++linear) {
            assert_int_equal(img_to_linear_f32(&a, f, linear, 0, err, sizeof err), 0);
            assert_int_equal(img_alloc(&b, a.width, a.height, ch, 16, err, sizeof err), 0);
            assert_int_equal(img_from_linear_f32(f, &b, linear, 0, err, sizeof err), 0);
            assert_memory_equal(a.pixels, b.pixels, n * 2);
            img_free(&b);
        }
        free(f);
        img_free(&a);
    }
    /* Out-of-range and NaN floats are clamped. */
    img_t c;
    assert_int_equal(img_alloc(&c, 4, 1, 2, 16, err, sizeof err), 0);
    const float in[8] = {-1.0f, 0.5f, 2.0f, 1.0f, NAN, NAN, 0.25f, 7.0f};
    assert_int_equal(img_from_linear_f32(in, &c, 1, 0, err, sizeof err), 0);
    const uint16_t *p = (const uint16_t *)c.pixels;
    assert_int_equal(p[0], 0);
    assert_int_equal(p[1], 32768); /* alpha is linear: round(0.5 * 65535) */
    assert_int_equal(p[2], 65535);
    assert_int_equal(p[3], 65535);
    assert_int_equal(p[4], 0);
    assert_int_equal(p[5], 0);
    assert_int_equal(p[6], (uint16_t)floor(ref_to_srgb(0.25) * 65535.0 + 0.5));
    assert_int_equal(p[7], 65535);
    img_free(&c);
}

void test_f32_bad_arguments(void **state)
{
    (void)state;
    img_t img, empty;
    char err[256];
    img_init(&empty);
    float f[16];
    assert_int_equal(img_alloc(&img, 2, 2, 3, 8, err, sizeof err), 0);
    assert_int_equal(img_to_linear_f32(NULL, f, 1, 0, err, sizeof err), -1);
    assert_int_equal(img_to_linear_f32(&empty, f, 1, 0, err, sizeof err), -1);
    assert_true(strstr(err, "img_to_linear_f32") != NULL);
    assert_int_equal(img_to_linear_f32(&img, NULL, 1, 0, err, sizeof err), -1);
    assert_int_equal(img_from_linear_f32(NULL, &img, 1, 0, err, sizeof err), -1);
    assert_int_equal(img_from_linear_f32(f, &empty, 1, 0, err, sizeof err), -1);
    assert_true(strstr(err, "img_from_linear_f32") != NULL);
    img.bits = 32;
    assert_int_equal(img_to_linear_f32(&img, f, 1, 0, err, sizeof err), -1);
    assert_int_equal(img_from_linear_f32(f, &img, 1, 0, NULL, 0), -1);
    img.bits = 8;
    img_free(&img);
}
