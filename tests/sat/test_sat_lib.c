/* test_sat_lib.c -- the SAT family (<libscan/sat.h>) against an
 * independent CPU reference written here: tables from a different
 * recurrence in 64-bit/double, box sums and filtered pixels from plain loops
 * over the box. Tests named cpu_* need no GPU (ctest: test_sat_lib_cpu);
 * gpu_* compare the GPU with the reference and with the CPU path
 * (ctest: test_sat_lib). The CPU path's threads are forced to 1, 2, 3 and 7
 * (LIBSCAN_CPU_THREADS): the same bytes, and the reference's values.
 * sat_shim.cu gives the build's tile shapes (sizes on
 * tile edges) and build_sat with a load transform (device layer). */
#include "support/harness.h"
#include <libscan/sat.h>
#include "sat_shim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ----------------------------------------------------------------- */

typedef struct pair {
    libscan_dtype_t in, table;
} pair_t;
static const pair_t kPairs[] = {{LIBSCAN_U8, LIBSCAN_U32}, {LIBSCAN_U16, LIBSCAN_U32}, {LIBSCAN_U16, LIBSCAN_U64},
                                {LIBSCAN_F32, LIBSCAN_F32}, {LIBSCAN_F32, LIBSCAN_F64}, {LIBSCAN_U32, LIBSCAN_U64},
                                {LIBSCAN_U64, LIBSCAN_U64}};
#define NPAIRS (sizeof kPairs / sizeof kPairs[0])

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) TFAIL("out of host memory (%zu bytes)", n);
    return p;
}

/* A host image with `pad` extra bytes per row (a multiple of the element size). */
static libscan_sat_image_t host_image(libscan_dtype_t t, int ch, size_t w, size_t h, size_t pad) {
    libscan_sat_image_t im = {NULL, t, ch, w, h, w * (size_t)ch * libscan_dtype_size(t) + pad};
    im.data = xmalloc(im.pitch * h);
    memset(im.data, 0xA5, im.pitch * h); /* poison */
    return im;
}

/* Sample (x, y, c) as a double, whatever the type. */
static double get(const libscan_sat_image_t *im, size_t x, size_t y, int c) {
    const unsigned char *row = (const unsigned char *)im->data + y * im->pitch;
    const size_t i = x * (size_t)im->channels + (size_t)c;
    switch (im->dtype) {
    case LIBSCAN_U8: return ((const uint8_t *)row)[i];
    case LIBSCAN_U16: return ((const uint16_t *)(const void *)row)[i];
    case LIBSCAN_U32: return ((const uint32_t *)(const void *)row)[i];
    case LIBSCAN_U64: return (double)((const uint64_t *)(const void *)row)[i];
    case LIBSCAN_F32: return ((const float *)(const void *)row)[i];
    case LIBSCAN_F64: return ((const double *)(const void *)row)[i];
    case LIBSCAN_I32:
    case LIBSCAN_I64: break; /* no SAT image has them */
    }
    return NAN;
}
static uint64_t get_u64(const libscan_sat_image_t *im, size_t x, size_t y, int c) {
    const unsigned char *row = (const unsigned char *)im->data + y * im->pitch;
    const size_t i = x * (size_t)im->channels + (size_t)c;
    if (im->dtype == LIBSCAN_U32) return ((const uint32_t *)(const void *)row)[i];
    if (im->dtype == LIBSCAN_U64) return ((const uint64_t *)(const void *)row)[i];
    return (uint64_t)get(im, x, y, c);
}

/* Fill with random samples: integers in [0, maxv], floats in [0, 1). */
static void fill_random(libscan_sat_image_t *im, rng_t *r, uint64_t maxv) {
    for (size_t y = 0; y < im->height; ++y) {
        unsigned char *row = (unsigned char *)im->data + y * im->pitch;
        for (size_t i = 0; i < im->width * (size_t)im->channels; ++i) {
            switch (im->dtype) {
            case LIBSCAN_U8: row[i] = (uint8_t)rng_below(r, maxv + 1); break;
            case LIBSCAN_U16: ((uint16_t *)(void *)row)[i] = (uint16_t)rng_below(r, maxv + 1); break;
            case LIBSCAN_U32: ((uint32_t *)(void *)row)[i] = (uint32_t)rng_below(r, maxv + 1); break;
            case LIBSCAN_U64: ((uint64_t *)(void *)row)[i] = rng_below(r, maxv + 1); break;
            case LIBSCAN_F32: ((float *)(void *)row)[i] = (float)rng_unit(r); break;
            default: TFAIL("fill_random: type %d", (int)im->dtype);
            }
        }
    }
}

/* The largest random input of a type in the build and box-sum tests: the
 * type's own maximum, or 2^40 - 1 for uint64 (the filter's limit; the
 * reference's doubles and uint64 sums stay exact). Floats: unused. */
static uint64_t input_max(libscan_dtype_t t) {
    switch (t) {
    case LIBSCAN_U8: return 255u;
    case LIBSCAN_U16: return 65535u;
    case LIBSCAN_U32: return 0xffffffffu;
    default: return (1ull << 40) - 1;
    }
}

/* The weight sat_test_build_weighted's transform gives the pixel (x, y)
 * (sat_shim.h): written here again, so the reference does not come from the
 * code under test. */
static unsigned position_weight(size_t x, size_t y) { return 1u + (unsigned)((7 * y + 3 * x) % 5); }

/* Reference table by inclusion-exclusion, S = in + S(x-1) + S(y-1) - S(x-1, y-1),
 * in uint64 (exact for our sizes) or double, one channel at a time; with
 * `weighted`, of the image whose pixel (x, y) is multiplied by
 * position_weight(x, y). */
typedef struct ref {
    size_t w, h;
    int ch;
    uint64_t *u; /* integer inputs */
    double *d;   /* float inputs */
} ref_t;
static ref_t ref_table_of(const libscan_sat_image_t *in, int weighted) {
    ref_t r = {in->width, in->height, in->channels, NULL, NULL};
    const size_t n = r.w * r.h * (size_t)r.ch;
    const int is_float = in->dtype == LIBSCAN_F32;
    if (is_float) r.d = xmalloc(n * sizeof(double));
    else r.u = xmalloc(n * sizeof(uint64_t));
    for (size_t y = 0; y < r.h; ++y)
        for (size_t x = 0; x < r.w; ++x)
            for (int c = 0; c < r.ch; ++c) {
                const size_t i = (y * r.w + x) * (size_t)r.ch + (size_t)c;
                const size_t left = i - (size_t)r.ch, up = i - r.w * (size_t)r.ch, diag = up - (size_t)r.ch;
                const unsigned w = weighted ? position_weight(x, y) : 1u;
                if (is_float) {
                    double s = get(in, x, y, c) * w;
                    if (x) s += r.d[left];
                    if (y) s += r.d[up];
                    if (x && y) s -= r.d[diag];
                    r.d[i] = s;
                } else {
                    uint64_t s = (uint64_t)get(in, x, y, c) * w;
                    if (x) s += r.u[left];
                    if (y) s += r.u[up];
                    if (x && y) s -= r.u[diag];
                    r.u[i] = s;
                }
            }
    return r;
}
static ref_t ref_table(const libscan_sat_image_t *in) { return ref_table_of(in, 0); }
static void ref_free(ref_t *r) {
    free(r->u);
    free(r->d);
}

/* Compares a table with the reference: integers exactly (modulo 2^32 for
 * LIBSCAN_U32), floats within tol * (x + 1) * (y + 1) * vmax (the corner
 * sum's size, for samples below vmax). */
static void expect_table_scaled(const libscan_sat_image_t *t, const ref_t *r, double vmax, const char *what) {
    /* worst-case rounding of a sum built in x + y + 2 steps from values < 1 */
    const double eps = t->dtype == LIBSCAN_F32 ? 1.2e-7 : 2.3e-16;
    for (size_t y = 0; y < r->h; ++y)
        for (size_t x = 0; x < r->w; ++x)
            for (int c = 0; c < r->ch; ++c) {
                const size_t i = (y * r->w + x) * (size_t)r->ch + (size_t)c;
                if (r->u) {
                    uint64_t want = r->u[i];
                    if (t->dtype == LIBSCAN_U32) want &= 0xffffffffu;
                    const uint64_t got = get_u64(t, x, y, c);
                    if (got != want)
                        TFAIL("%s: S(%zu,%zu) channel %d = %llu, expected %llu", what, x, y, c,
                              (unsigned long long)got, (unsigned long long)want);
                } else {
                    const double got = get(t, x, y, c), want = r->d[i];
                    const double tol = eps * (double)(x + y + 2) * (double)((x + 1) * (y + 1)) * vmax;
                    if (!(fabs(got - want) <= tol))
                        TFAIL("%s: S(%zu,%zu) channel %d = %.17g, expected %.17g", what, x, y, c, got, want);
                }
            }
}
static void expect_table(const libscan_sat_image_t *t, const ref_t *r, const char *what) {
    expect_table_scaled(t, r, 1.0, what);
}

typedef struct shape {
    size_t w, h, pad;
} shape_t;
static const shape_t kShapes[] = {{1, 1, 0}, {37, 1, 0}, {1, 53, 8}, {67, 45, 16}, {129, 9, 0}, {3, 131, 24}};
#define NSHAPES (sizeof kShapes / sizeof kShapes[0])

/* ---- CPU: tables, box sums, the wrap bound --------------------------------------- */

static void cpu_build_matches_reference(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, "cpu_build", 0);
    for (size_t p = 0; p < NPAIRS; ++p)
        for (int ch = 1; ch <= 4; ++ch)
            for (size_t s = 0; s < NSHAPES; ++s) {
                const shape_t sh = kShapes[s];
                libscan_sat_image_t in = host_image(kPairs[p].in, ch, sh.w, sh.h, sh.pad * libscan_dtype_size(kPairs[p].in));
                fill_random(&in, &r, input_max(kPairs[p].in));
                libscan_sat_image_t t = host_image(kPairs[p].table, ch, sh.w, sh.h, sh.pad * 8);
                assert_int_equal(libscan_cpu_sat_build(&in, &t), LIBSCAN_SUCCESS);
                ref_t ref = ref_table(&in);
                char what[96];
                snprintf(what, sizeof what, "cpu pair %zu, %d ch, %zux%zu", p, ch, sh.w, sh.h);
                expect_table(&t, &ref, what);
                ref_free(&ref);
                free(in.data);
                free(t.data);
            }
}

/* Direct sum of a box (plain loops). */
static double direct_box(const libscan_sat_image_t *in, libscan_box_t b, int c) {
    double s = 0;
    for (int32_t y = b.y0; y <= b.y1; ++y)
        for (int32_t x = b.x0; x <= b.x1; ++x) s += get(in, (size_t)x, (size_t)y, c);
    return s;
}

static libscan_box_t random_box(rng_t *r, size_t w, size_t h) {
    libscan_box_t b;
    b.x0 = (int32_t)rng_below(r, w);
    b.x1 = (int32_t)rng_range(r, b.x0, (int64_t)w - 1);
    b.y0 = (int32_t)rng_below(r, h);
    b.y1 = (int32_t)rng_range(r, b.y0, (int64_t)h - 1);
    return b;
}

static void cpu_box_sums_match_direct_sums(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, "cpu_box_sums", 0);
    for (size_t p = 0; p < NPAIRS; ++p)
        for (int ch = 1; ch <= 4; ++ch) {
            libscan_sat_image_t in = host_image(kPairs[p].in, ch, 61, 47, 0);
            fill_random(&in, &r, input_max(kPairs[p].in));
            libscan_sat_image_t t = host_image(kPairs[p].table, ch, 61, 47, 0);
            assert_int_equal(libscan_cpu_sat_build(&in, &t), LIBSCAN_SUCCESS);
            enum { N = 200 };
            libscan_box_t boxes[N];
            for (int i = 0; i < N; ++i) boxes[i] = random_box(&r, 61, 47);
            boxes[0] = (libscan_box_t){0, 0, 60, 46};
            boxes[1] = (libscan_box_t){5, 5, 4, 9};   /* x0 > x1: zero */
            boxes[2] = (libscan_box_t){-1, 0, 3, 3};  /* outside: zero */
            boxes[3] = (libscan_box_t){0, 0, 61, 46}; /* outside: zero */
            const size_t es = libscan_dtype_size(t.dtype);
            unsigned char *sums = xmalloc(N * (size_t)ch * es);
            assert_int_equal(libscan_cpu_sat_box_sums(&t, boxes, N, sums), LIBSCAN_SUCCESS);
            libscan_sat_image_t sv = {sums, t.dtype, ch, N, 1, N * (size_t)ch * es};
            for (int i = 0; i < N; ++i)
                for (int c = 0; c < ch; ++c) {
                    const int bad = i >= 1 && i <= 3;
                    const double want = bad ? 0 : direct_box(&in, boxes[i], c);
                    const double got = get(&sv, (size_t)i, 0, c);
                    const double tol = t.dtype == LIBSCAN_F32 ? 1.2e-7 * (61 + 47) * 61 * 47 * 4 : (t.dtype == LIBSCAN_F64 ? 1e-9 : 0);
                    if (!(fabs(got - want) <= tol))
                        TFAIL("pair %zu ch %d box %d channel %d: %.17g, expected %.17g", p, ch, i, c, got, want);
                }
            free(sums);
            free(in.data);
            free(t.data);
        }
}

/* 8-bit white image whose corner sums wrap around 2^32: the largest exact
 * box (area 16,843,009 = 4104^2 + 193) still sums exactly; one pixel more
 * than the bound allows and it does not. */
static void cpu_wrap_bound_u8(void **state) {
    (void)state;
    assert_int_equal(libscan_sat_u32_max_exact_area(255), 16843009u);
    assert_int_equal(libscan_sat_u32_max_exact_area(16380), 262208u);
    assert_true(libscan_sat_u32_max_exact_area(0) == UINT64_MAX);
    const size_t W = 4500, H = 4400; /* 255 * W * H = 5.05e9 > 2^32 */
    libscan_sat_image_t in = host_image(LIBSCAN_U8, 1, W, H, 0);
    memset(in.data, 255, W * H);
    libscan_sat_image_t t = host_image(LIBSCAN_U32, 1, W, H, 0);
    assert_int_equal(libscan_cpu_sat_build(&in, &t), LIBSCAN_SUCCESS);
    const uint64_t corner_true = 255ull * W * H;
    assert_true(corner_true > UINT32_MAX);
    assert_true(get_u64(&t, W - 1, H - 1, 0) == (corner_true & 0xffffffffu)); /* it wrapped */
    const libscan_box_t boxes[3] = {{(int32_t)(W - 4104), (int32_t)(H - 4104), (int32_t)W - 1, (int32_t)H - 1},
                                {100, 200, 100 + 4103, 200 + 4103},
                                {0, 0, 4104, 4103}}; /* 4105 x 4104: above the bound */
    uint32_t sums[3];
    assert_int_equal(libscan_cpu_sat_box_sums(&t, boxes, 3, sums), LIBSCAN_SUCCESS);
    assert_true(4104ull * 4104 * 255 <= UINT32_MAX);
    assert_int_equal(sums[0], 4104u * 4104u * 255u);
    assert_int_equal(sums[1], 4104u * 4104u * 255u);
    assert_true(4105ull * 4104 * 255 > UINT32_MAX);
    assert_true(sums[2] == (uint32_t)(4105ull * 4104 * 255)); /* wrapped: the bound is real */
    free(in.data);
    free(t.data);
}

/* The blur's bound: 16-bit samples up to 16380 (4 x 4095), boxes up to 511 x 511. */
static void cpu_wrap_bound_blur(void **state) {
    (void)state;
    const size_t W = 700, H = 600;
    libscan_sat_image_t in = host_image(LIBSCAN_U16, 1, W, H, 0);
    for (size_t i = 0; i < W * H; ++i) ((uint16_t *)in.data)[i] = 16380;
    libscan_sat_image_t t = host_image(LIBSCAN_U32, 1, W, H, 0);
    assert_int_equal(libscan_cpu_sat_build(&in, &t), LIBSCAN_SUCCESS);
    assert_true(511ull * 511 * 16380 <= UINT32_MAX);
    assert_true(511ull * 511 <= libscan_sat_u32_max_exact_area(16380));
    const libscan_box_t b = {(int32_t)W - 511, (int32_t)H - 511, (int32_t)W - 1, (int32_t)H - 1};
    uint32_t s;
    assert_int_equal(libscan_cpu_sat_box_sums(&t, &b, 1, &s), LIBSCAN_SUCCESS);
    assert_int_equal(s, 511u * 511u * 16380u);
    free(in.data);
    free(t.data);
}

/* A uint64 table wraps modulo 2^64 like a uint32 one modulo 2^32: values of
 * 2^62, whose corner sums pass 2^64, still give exact sums for boxes of up
 * to libscan_sat_u64_max_exact_area(2^62) = 3 pixels; 4 pixels wrap to 0. */
static void cpu_wrap_bound_u64(void **state) {
    (void)state;
    assert_true(libscan_sat_u64_max_exact_area(1ull << 62) == 3);
    assert_true(libscan_sat_u64_max_exact_area(0) == UINT64_MAX);
    assert_true(libscan_sat_u64_max_exact_area(1) == UINT64_MAX);
    assert_true(libscan_sat_u64_max_exact_area(1ull << 39) == (1ull << 25) - 1);
    assert_true(libscan_sat_u64_max_exact_area(UINT64_MAX) == 1);
    const size_t W = 4, H = 4;
    libscan_sat_image_t in = host_image(LIBSCAN_U64, 1, W, H, 0);
    for (size_t i = 0; i < W * H; ++i) ((uint64_t *)in.data)[i] = 1ull << 62;
    libscan_sat_image_t t = host_image(LIBSCAN_U64, 1, W, H, 0);
    assert_int_equal(libscan_cpu_sat_build(&in, &t), LIBSCAN_SUCCESS);
    assert_true(get_u64(&t, W - 1, H - 1, 0) == 0); /* 16 * 2^62 = 2^66 wrapped */
    const libscan_box_t boxes[4] = {{1, 1, 3, 1}, {2, 1, 2, 3}, {3, 3, 3, 3}, {2, 2, 3, 3}};
    uint64_t sums[4];
    assert_int_equal(libscan_cpu_sat_box_sums(&t, boxes, 4, sums), LIBSCAN_SUCCESS);
    for (int b = 0; b < 2; ++b) assert_true(sums[b] == 3ull << 62);
    assert_true(sums[2] == 1ull << 62);
    assert_true(sums[3] == 0); /* 4 * 2^62: above the bound, wrapped */
    /* u32 -> u64: 32-bit values a uint32 table could not sum */
    libscan_sat_image_t in32 = host_image(LIBSCAN_U32, 2, 300, 200, 0);
    for (size_t i = 0; i < 300 * 200 * 2; ++i) ((uint32_t *)in32.data)[i] = 0xffffffffu;
    libscan_sat_image_t t64 = host_image(LIBSCAN_U64, 2, 300, 200, 0);
    assert_int_equal(libscan_cpu_sat_build(&in32, &t64), LIBSCAN_SUCCESS);
    const libscan_box_t all = {0, 0, 299, 199};
    uint64_t s2[2];
    assert_int_equal(libscan_cpu_sat_box_sums(&t64, &all, 1, s2), LIBSCAN_SUCCESS);
    for (int c = 0; c < 2; ++c) assert_true(s2[c] == 60000ull * 0xffffffffu);
    free(in.data);
    free(t.data);
    free(in32.data);
    free(t64.data);
}

/* The wide filter's bound: values up to 2^40 - 1 behind a uint64 table, the
 * largest radius (255.996: boxes of 511 and 513 pixels a side) -- box sums
 * near 2^58, means at 2^40 - 1, the blend just below 2^64 -- give back the
 * value exactly, weighted or not; u32 and u16 outputs clamp. And the blur's
 * own worst case (blur.h): weights 1..4 times 37-bit samples. */
static void cpu_wrap_bound_blur_wide(void **state) {
    (void)state;
    const size_t W = 600, H = 560;
    const uint64_t top = (1ull << 40) - 1, one37 = (1ull << 37) - 1;
    assert_true(263169ull <= libscan_sat_u64_max_exact_area(top));
    assert_true(511ull * 511 <= libscan_sat_u64_max_exact_area(4 * one37));
    libscan_sat_image_t in = host_image(LIBSCAN_U64, 1, W, H, 0), t = host_image(LIBSCAN_U64, 1, W, H, 0);
    libscan_sat_image_t w8 = host_image(LIBSCAN_U8, 1, W, H, 0), wt = host_image(LIBSCAN_U32, 1, W, H, 0);
    libscan_sat_image_t out = host_image(LIBSCAN_U64, 1, W, H, 0);
    for (int weighted = 0; weighted <= 1; ++weighted) {
        for (size_t i = 0; i < W * H; ++i) {
            const unsigned w = 1 + (unsigned)(i % 4);
            ((uint8_t *)w8.data)[i] = (uint8_t)w;
            ((uint64_t *)in.data)[i] = weighted ? w * one37 : top;
        }
        assert_int_equal(libscan_cpu_sat_build(&in, &t), LIBSCAN_SUCCESS);
        assert_int_equal(libscan_cpu_sat_build(&w8, &wt), LIBSCAN_SUCCESS);
        assert_int_equal(libscan_cpu_sat_box_filter(&t, weighted ? &wt : NULL, NULL, 0, 0xffff, &out), LIBSCAN_SUCCESS);
        const uint64_t want = weighted ? one37 : top;
        for (size_t i = 0; i < W * H; ++i)
            if (((uint64_t *)out.data)[i] != want)
                TFAIL("wide filter at the bound (weighted %d): pixel %zu = %llu, want %llu", weighted, i,
                      (unsigned long long)((uint64_t *)out.data)[i], (unsigned long long)want);
    }
    libscan_sat_image_t o32 = host_image(LIBSCAN_U32, 1, W, H, 0), o16 = host_image(LIBSCAN_U16, 1, W, H, 0);
    assert_int_equal(libscan_cpu_sat_box_filter(&t, &wt, NULL, 0, 3 * 256, &o32), LIBSCAN_SUCCESS);
    assert_int_equal(libscan_cpu_sat_box_filter(&t, &wt, NULL, 0, 3 * 256, &o16), LIBSCAN_SUCCESS);
    for (size_t i = 0; i < W * H; ++i) {
        assert_int_equal(((uint32_t *)o32.data)[i], 0xffffffffu);
        assert_int_equal(((uint16_t *)o16.data)[i], 0xffffu);
    }
    free(in.data);
    free(t.data);
    free(w8.data);
    free(wt.data);
    free(out.data);
    free(o32.data);
    free(o16.data);
}

/* ---- the filter: reference by plain loops -------------------------------------------- */

/* Exact (double) blended mean of pixel (x, y), channel c, for radius q8. */
static double ref_filter(const libscan_sat_image_t *in, const libscan_sat_image_t *w, size_t x, size_t y, int c, unsigned q8) {
    double m[2] = {0, 0};
    const unsigned f = q8 & 255;
    for (int k = 0; k < (f ? 2 : 1); ++k) {
        const long R = (long)(q8 >> 8) + k;
        const long x0 = (long)x - R < 0 ? 0 : (long)x - R, y0 = (long)y - R < 0 ? 0 : (long)y - R;
        const long x1 = (long)x + R > (long)in->width - 1 ? (long)in->width - 1 : (long)x + R;
        const long y1 = (long)y + R > (long)in->height - 1 ? (long)in->height - 1 : (long)y + R;
        double s = 0, ws = 0;
        for (long yy = y0; yy <= y1; ++yy)
            for (long xx = x0; xx <= x1; ++xx) {
                s += get(in, (size_t)xx, (size_t)yy, c);
                ws += w ? get(w, (size_t)xx, (size_t)yy, 0) : 1.0;
            }
        m[k] = s / ws;
    }
    return ((256.0 - f) * m[0] + f * m[1]) / 256.0;
}

/* The documented accuracy: out = floor(exact + 0.5), except that it may be
 * one lower when exact lies within 2^-16 above a half-integer. */
static void expect_filtered(double exact, double got, double maxv, const char *what, size_t x, size_t y, int c) {
    double want = floor(exact + 0.5);
    if (want > maxv) want = maxv;
    const double frac = exact - floor(exact);
    const int near_half = frac >= 0.5 - 1e-9 && frac < 0.5 + 1.0 / 65536 + 1e-9;
    if (got == want || (near_half && got == want - 1)) return;
    TFAIL("%s: pixel (%zu,%zu) channel %d = %.0f, exact mean %.9f", what, x, y, c, got, exact);
}

/* Weighted input: img * weight per pixel (weights 1..4), as the blur does. */
static void cpu_filter_matches_reference(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, "cpu_filter", 0);
    const size_t W = 41, H = 29;
    for (int ch = 1; ch <= 4; ++ch)
        for (int weighted = 0; weighted <= 1; ++weighted)
            for (int mode = 0; mode < 3; ++mode) { /* 0 u8 in, u8 out; 1 u16 in, u16 out; 2 u16 in, u8 out */
                const libscan_dtype_t it = mode == 0 ? LIBSCAN_U8 : LIBSCAN_U16;
                const libscan_dtype_t ot = mode == 1 ? LIBSCAN_U16 : LIBSCAN_U8;
                const uint32_t maxv = mode == 0 ? 255u : (mode == 1 ? 16000u : 255u);
                libscan_sat_image_t img = host_image(it, ch, W, H, 0);
                fill_random(&img, &r, maxv);
                libscan_sat_image_t wimg = host_image(LIBSCAN_U8, 1, W, H, 0);
                fill_random(&wimg, &r, 3);
                for (size_t i = 0; i < W * H; ++i) ((uint8_t *)wimg.data)[i] += 1; /* 1..4 */
                /* what the table holds: weight * value */
                libscan_sat_image_t win = host_image(LIBSCAN_U16, ch, W, H, 0);
                for (size_t y = 0; y < H; ++y)
                    for (size_t x = 0; x < W; ++x)
                        for (int c = 0; c < ch; ++c)
                            ((uint16_t *)win.data)[(y * W + x) * (size_t)ch + (size_t)c] =
                                (uint16_t)(get(&img, x, y, c) * (weighted ? get(&wimg, x, y, 0) : 1));
                libscan_sat_image_t t = host_image(LIBSCAN_U32, ch, W, H, 0), wt = host_image(LIBSCAN_U32, 1, W, H, 0);
                assert_int_equal(libscan_cpu_sat_build(&win, &t), LIBSCAN_SUCCESS);
                assert_int_equal(libscan_cpu_sat_build(&wimg, &wt), LIBSCAN_SUCCESS);
                uint16_t *radius = xmalloc(W * H * 2);
                for (size_t i = 0; i < W * H; ++i)
                    radius[i] = (uint16_t)(i % 7 == 0 ? rng_below(&r, 256 * 30) /* beyond the image too */
                                                      : rng_below(&r, 256 * 6));
                radius[0] = 0;
                libscan_sat_image_t out = host_image(ot, ch, W, H, 4 * libscan_dtype_size(ot));
                const int uniform = mode == 2;
                assert_int_equal(libscan_cpu_sat_box_filter(&t, weighted ? &wt : NULL, uniform ? NULL : radius, W * 2,
                                                    (uint16_t)(3 * 256 + 77), &out),
                                 LIBSCAN_SUCCESS);
                for (size_t y = 0; y < H; ++y)
                    for (size_t x = 0; x < W; ++x)
                        for (int c = 0; c < ch; ++c) {
                            /* reference on the weighted input, divided by the weights */
                            const unsigned q8 = uniform ? 3 * 256 + 77 : radius[y * W + x];
                            const double e = ref_filter(&win, weighted ? &wimg : NULL, x, y, c, q8);
                            expect_filtered(e, get(&out, x, y, c), ot == LIBSCAN_U8 ? 255 : 65535, "cpu filter", x, y, c);
                        }
                free(radius);
                free(img.data);
                free(wimg.data);
                free(win.data);
                free(t.data);
                free(wt.data);
                free(out.data);
            }
}

/* The filtered value of pixel (x, y), channel c, exactly: the blend of the
 * two boxes' weighted means as num / den (unsigned __int128, no rounding). */
typedef unsigned __int128 u128;
static void ref_filter_exact(const libscan_sat_image_t *in, const libscan_sat_image_t *w, size_t x, size_t y, int c,
                             unsigned q8, u128 *num, u128 *den) {
    u128 s[2] = {0, 0}, ws[2] = {1, 1};
    const unsigned f = q8 & 255;
    for (int k = 0; k < (f ? 2 : 1); ++k) {
        const long R = (long)(q8 >> 8) + k;
        const long x0 = (long)x - R < 0 ? 0 : (long)x - R, y0 = (long)y - R < 0 ? 0 : (long)y - R;
        const long x1 = (long)x + R > (long)in->width - 1 ? (long)in->width - 1 : (long)x + R;
        const long y1 = (long)y + R > (long)in->height - 1 ? (long)in->height - 1 : (long)y + R;
        s[k] = 0;
        ws[k] = 0;
        for (long yy = y0; yy <= y1; ++yy)
            for (long xx = x0; xx <= x1; ++xx) {
                s[k] += get_u64(in, (size_t)xx, (size_t)yy, c);
                ws[k] += w ? get_u64(w, (size_t)xx, (size_t)yy, 0) : 1u;
            }
    }
    /* ((256 - f) * s0 / ws0 + f * s1 / ws1) / 256 */
    *num = (u128)(256 - f) * s[0] * ws[1] + (u128)f * s[1] * ws[0];
    *den = (u128)256 * ws[0] * ws[1];
}

/* The documented accuracy on an exact num / den: floor(value + 1/2), or one
 * lower when the value lies within 2^-16 above a half-integer; clamped. */
static void expect_filtered_exact(u128 num, u128 den, uint64_t got, uint64_t maxv, const char *what, size_t x, size_t y,
                                  int c) {
    const u128 fl = num / den, rem = num % den;
    u128 want = fl + (2 * rem >= den ? 1 : 0);
    const int near_half = 2 * rem >= den && rem * 131072 < den * (65536 + 2); /* frac in [1/2, 1/2 + 2^-16) */
    if (want > maxv) want = maxv;
    if ((u128)got == want || (near_half && want <= maxv && (u128)got + 1 == want)) return;
    TFAIL("%s: pixel (%zu,%zu) channel %d = %llu, exact %llu + %.9f", what, x, y, c, (unsigned long long)got,
          (unsigned long long)fl, (double)rem / (double)den);
}

/* Wide tables (u32 or u64 input -> u64 table) against the exact reference:
 * 37-bit samples times weights 1..4 (the blur's widest), and 32-bit ones
 * unweighted; u64, u32 and u16 outputs (the last two clamp). */
static void cpu_filter_wide_matches_exact_reference(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, "cpu_filter_wide", 0);
    const size_t W = 37, H = 31;
    const uint64_t one37 = (1ull << 37) - 1;
    for (int ch = 1; ch <= 4; ++ch)
        for (int mode = 0; mode < 4; ++mode) { /* 0 u64 weighted, 1 u64 plain, 2 u32 plain, 3 u64 weighted -> u16 */
            const int weighted = mode == 0 || mode == 3;
            const libscan_dtype_t it = mode == 2 ? LIBSCAN_U32 : LIBSCAN_U64;
            const libscan_dtype_t ot = mode == 3 ? LIBSCAN_U16 : (mode == 2 ? LIBSCAN_U32 : LIBSCAN_U64);
            libscan_sat_image_t wimg = host_image(LIBSCAN_U8, 1, W, H, 0);
            fill_random(&wimg, &r, 3);
            for (size_t i = 0; i < W * H; ++i) ((uint8_t *)wimg.data)[i] += 1; /* 1..4 */
            libscan_sat_image_t img = host_image(it, ch, W, H, 0);
            fill_random(&img, &r, mode == 2 ? 0xffffffffu : (mode == 3 ? 70000u : one37));
            if (weighted)
                for (size_t i = 0; i < W * H * (size_t)ch; ++i)
                    ((uint64_t *)img.data)[i] *= ((uint8_t *)wimg.data)[i / (size_t)ch];
            libscan_sat_image_t t = host_image(LIBSCAN_U64, ch, W, H, 0), wt = host_image(LIBSCAN_U32, 1, W, H, 0);
            assert_int_equal(libscan_cpu_sat_build(&img, &t), LIBSCAN_SUCCESS);
            assert_int_equal(libscan_cpu_sat_build(&wimg, &wt), LIBSCAN_SUCCESS);
            uint16_t *radius = xmalloc(W * H * 2);
            for (size_t i = 0; i < W * H; ++i) radius[i] = (uint16_t)rng_below(&r, 256 * (i % 5 == 0 ? 40 : 6));
            libscan_sat_image_t out = host_image(ot, ch, W, H, 2 * libscan_dtype_size(ot));
            assert_int_equal(libscan_cpu_sat_box_filter(&t, weighted ? &wt : NULL, radius, W * 2, 0, &out), LIBSCAN_SUCCESS);
            const uint64_t maxv = ot == LIBSCAN_U16 ? 0xffffu : (ot == LIBSCAN_U32 ? 0xffffffffu : UINT64_MAX);
            char what[64];
            snprintf(what, sizeof what, "wide filter mode %d, %d ch", mode, ch);
            for (size_t y = 0; y < H; ++y)
                for (size_t x = 0; x < W; ++x)
                    for (int c = 0; c < ch; ++c) {
                        u128 num, den;
                        ref_filter_exact(&img, weighted ? &wimg : NULL, x, y, c, radius[y * W + x], &num, &den);
                        expect_filtered_exact(num, den, get_u64(&out, x, y, c), maxv, what, x, y, c);
                    }
            free(radius);
            free(img.data);
            free(wimg.data);
            free(t.data);
            free(wt.data);
            free(out.data);
        }
}

/* ---- CPU: argument checks ---------------------------------------------------------------- */

static void cpu_status_strings_and_types(void **state) {
    (void)state;
    for (int st = -2; st <= 12; ++st) assert_non_null(libscan_status_string((libscan_status_t)st));
    assert_string_equal(libscan_status_string(LIBSCAN_SUCCESS), "success");
    assert_int_equal(libscan_dtype_size(LIBSCAN_U8), 1);
    assert_int_equal(libscan_dtype_size(LIBSCAN_U16), 2);
    assert_int_equal(libscan_dtype_size(LIBSCAN_U32), 4);
    assert_int_equal(libscan_dtype_size(LIBSCAN_U64), 8);
    assert_int_equal(libscan_dtype_size(LIBSCAN_F32), 4);
    assert_int_equal(libscan_dtype_size(LIBSCAN_F64), 8);
    assert_int_equal(libscan_dtype_size((libscan_dtype_t)99), 0);
    /* every dtype value and a few beyond: exactly the seven documented pairs */
    int supported = 0;
    for (int a = -1; a < 10; ++a)
        for (int b = -1; b < 10; ++b) supported += libscan_sat_pair_supported((libscan_dtype_t)a, (libscan_dtype_t)b);
    assert_int_equal(supported, 7);
    assert_int_equal((int)NPAIRS, 7);
    for (size_t p = 0; p < NPAIRS; ++p) assert_true(libscan_sat_pair_supported(kPairs[p].in, kPairs[p].table));
}

/* The carries that sat.h and sat_kernels.cuh document, for tiles of tw x th
 * pixels (sat_test_tile): tiles_x rows of (h + tiles_y) pixels of row
 * carries, rounded up to 256 bytes, then tiles_y rows of w pixels of column
 * carries; plus LIBSCAN_TEMP_ALIGNMENT of slack. */
static size_t documented_temp_bytes(size_t w, size_t h, int ch, libscan_dtype_t t) {
    size_t tw = 0, th = 0;
    sat_test_tile(ch, t, &tw, &th);
    if (tw == 0 || th == 0) TFAIL("no tile for %d channels of dtype %d", ch, (int)t);
    const size_t px = (size_t)ch * libscan_dtype_size(t), tx = (w + tw - 1) / tw, ty = (h + th - 1) / th;
    return (tx * (h + ty) * px + 255) / 256 * 256 + ty * w * px + LIBSCAN_TEMP_ALIGNMENT;
}

static void expect_temp_bytes(size_t w, size_t h, int ch, libscan_dtype_t t) {
    size_t b = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sat_temp_bytes(w, h, ch, t, &b));
    if (b != documented_temp_bytes(w, h, ch, t))
        TFAIL("libscan_sat_temp_bytes(%zu, %zu, %d, %d) = %zu, documented %zu", w, h, ch, (int)t, b,
              documented_temp_bytes(w, h, ch, t));
}

static void cpu_temp_bytes(void **state) {
    (void)state;
    const libscan_dtype_t tables[] = {LIBSCAN_U32, LIBSCAN_U64, LIBSCAN_F32, LIBSCAN_F64};
    for (size_t i = 0; i < 4; ++i)
        for (int ch = 1; ch <= 4; ++ch) {
            expect_temp_bytes(1, 1, ch, tables[i]);
            expect_temp_bytes(10, 3, ch, tables[i]);
            expect_temp_bytes(3840, 2160, ch, tables[i]);
            expect_temp_bytes(1, 100000, ch, tables[i]);
            expect_temp_bytes(100000, 1, ch, tables[i]);
        }
    /* issue #22's case: the carries of a 4K RGBA8 table are a few percent of it */
    size_t b4k = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sat_temp_bytes(3840, 2160, 4, LIBSCAN_U32, &b4k));
    if (b4k > (size_t)3840 * 2160 * 16 / 20) TFAIL("temp of a 4K RGBA8 table: %zu bytes, over 5%% of the table", b4k);
    /* the largest sizes still have a figure */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sat_temp_bytes(LIBSCAN_SAT_MAX_DIM, LIBSCAN_SAT_MAX_DIM, 4, LIBSCAN_F64, &b4k));
    size_t b = 12345;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sat_temp_bytes(0, 3, 4, LIBSCAN_U32, &b));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sat_temp_bytes(3, 0, 4, LIBSCAN_U32, &b));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sat_temp_bytes(3, 3, 0, LIBSCAN_U32, &b));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sat_temp_bytes(3, 3, 5, LIBSCAN_U32, &b));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT,
              libscan_sat_temp_bytes((size_t)LIBSCAN_SAT_MAX_DIM + 1, 3, 1, LIBSCAN_U32, &b));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_sat_temp_bytes(3, 3, 1, LIBSCAN_U8, &b));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_sat_temp_bytes(3, 3, 1, LIBSCAN_U16, &b));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_sat_temp_bytes(3, 3, 1, (libscan_dtype_t)99, &b));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sat_temp_bytes(3, 3, 1, LIBSCAN_U32, NULL));
    assert_int_equal(b, 12345); /* failed queries write nothing */
}

/* A refused call leaves its output as it was (0xA5 poison from host_image). */
static void expect_untouched(const void *p, size_t bytes, const char *what) {
    const unsigned char *c = (const unsigned char *)p;
    for (size_t i = 0; i < bytes; ++i)
        if (c[i] != 0xA5) TFAIL("%s: byte %zu changed by a refused call", what, i);
}

static void cpu_build_argument_errors(void **state) {
    (void)state;
    static uint32_t buf_a[4096], buf_b[4096];
    libscan_sat_image_t in = {buf_a, LIBSCAN_U8, 3, 10, 10, 30};
    libscan_sat_image_t out = {buf_b, LIBSCAN_U32, 3, 10, 10, 120};
    memset(buf_b, 0xA5, sizeof buf_b);
    libscan_sat_image_t x;
#define EXPECT_BUILD(status, field, value)                                                                       \
    do {                                                                                                         \
        x = in;                                                                                                  \
        x.field = value;                                                                                         \
        LS_EXPECT(status, libscan_cpu_sat_build(&x, &out));                                                      \
    } while (0)
    EXPECT_BUILD(LIBSCAN_ERROR_NULL_POINTER, data, NULL);
    EXPECT_BUILD(LIBSCAN_ERROR_INVALID_ARGUMENT, channels, 0);
    EXPECT_BUILD(LIBSCAN_ERROR_INVALID_ARGUMENT, channels, 5);
    EXPECT_BUILD(LIBSCAN_ERROR_INVALID_ARGUMENT, width, 0);
    EXPECT_BUILD(LIBSCAN_ERROR_INVALID_ARGUMENT, height, 0);
    EXPECT_BUILD(LIBSCAN_ERROR_INVALID_ARGUMENT, width, (size_t)LIBSCAN_SAT_MAX_DIM + 1);
    EXPECT_BUILD(LIBSCAN_ERROR_INVALID_ARGUMENT, pitch, 29); /* below the row */
    EXPECT_BUILD(LIBSCAN_ERROR_INVALID_ARGUMENT, width, 9);  /* fits its pitch, but not out's shape */
    EXPECT_BUILD(LIBSCAN_ERROR_INVALID_DTYPE, dtype, (libscan_dtype_t)17);
    EXPECT_BUILD(LIBSCAN_ERROR_INVALID_DTYPE, dtype, (libscan_dtype_t)-1);
    x = in;
    x.dtype = LIBSCAN_U32; /* u32 -> u32 is no pair */
    x.pitch = 120;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_sat_build(&x, &out));
    x = in;
    x.dtype = LIBSCAN_U16;
    x.pitch = 60;
    x.data = (unsigned char *)buf_a + 1; /* a u16 image off its element alignment */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_cpu_sat_build(&x, &out));
    x.data = buf_a; /* the same image aligned: u16 -> u32 is a pair */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_sat_build(&x, &out));
    memset(buf_b, 0xA5, sizeof buf_b);
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_sat_build(NULL, &out));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_sat_build(&in, NULL));
    libscan_sat_image_t o = out;
    o.data = NULL;
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_sat_build(&in, &o));
    o = out;
    o.dtype = LIBSCAN_F64; /* u8 -> f64 is no pair */
    o.pitch = 240;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_sat_build(&in, &o));
    o = out;
    o.pitch = 122; /* not a multiple of 4 */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_sat_build(&in, &o));
    o = out;
    o.pitch = SIZE_MAX / 4 * 4; /* the span does not fit a size_t */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_sat_build(&in, &o));
    o = out;
    o.data = (unsigned char *)buf_b + 2; /* misaligned */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_cpu_sat_build(&in, &o));
    expect_untouched(buf_b, sizeof buf_b, "refused builds");

    /* in covers bytes [0, 9 * 30 + 30) = [0, 300) of buf_a */
    o = out;
    o.data = buf_a; /* in place: never */
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_cpu_sat_build(&in, &o));
    o.data = (unsigned char *)buf_a + 296; /* shares in's last 4 bytes */
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_cpu_sat_build(&in, &o));
    x = in;
    x.data = (unsigned char *)buf_a + 1000; /* input inside the table's span */
    o.data = buf_a;
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_cpu_sat_build(&x, &o));
    o = out;
    o.data = (unsigned char *)buf_a + 300; /* right after in: no shared byte */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_sat_build(&in, &o));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_sat_build(&in, &out));
#undef EXPECT_BUILD
}

static void cpu_filter_and_sums_argument_errors(void **state) {
    (void)state;
    static uint32_t buf_a[4096], buf_b[4096], wbuf[64];
    static uint16_t rbuf[64 + 8];
    memset(buf_a, 0, sizeof buf_a); /* a zero table: every weighted mean has weight... */
    for (size_t i = 0; i < 64; ++i) wbuf[i] = (uint32_t)(i + 1); /* ... from a non-zero weight table */
    libscan_sat_image_t t = {buf_a, LIBSCAN_U32, 2, 8, 8, 64};
    libscan_sat_image_t f = {buf_b, LIBSCAN_U8, 2, 8, 8, 16};
    libscan_sat_image_t w = {wbuf, LIBSCAN_U32, 1, 8, 8, 32};
    memset(buf_b, 0xA5, sizeof buf_b);
    libscan_sat_image_t bad;

    /* filter */
    bad = t;
    bad.dtype = LIBSCAN_F64; /* tables are U32 or U64 */
    bad.pitch = 128;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_sat_box_filter(&bad, NULL, NULL, 0, 0, &f));
    bad.dtype = LIBSCAN_I64;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_sat_box_filter(&bad, NULL, NULL, 0, 0, &f));
    bad = f;
    bad.dtype = LIBSCAN_I32; /* outputs are U8, U16, U32 or U64 */
    bad.pitch = 64;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_sat_box_filter(&t, NULL, NULL, 0, 0, &bad));
    bad.dtype = LIBSCAN_F32;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_sat_box_filter(&t, NULL, NULL, 0, 0, &bad));
    bad = w;
    bad.dtype = LIBSCAN_F32;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_sat_box_filter(&t, &bad, NULL, 0, 0, &f));
    bad.dtype = LIBSCAN_U64; /* the weight table stays U32 */
    bad.pitch = 64;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_sat_box_filter(&t, &bad, NULL, 0, 0, &f));
    bad = w;
    bad.channels = 2;
    bad.pitch = 64;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_sat_box_filter(&t, &bad, NULL, 0, 0, &f));
    bad = w;
    bad.data = NULL;
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_sat_box_filter(&t, &bad, NULL, 0, 0, &f));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_sat_box_filter(&t, NULL, rbuf, 14, 0, &f)); /* < row */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_sat_box_filter(&t, NULL, rbuf, 17, 0, &f)); /* odd */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER,
              libscan_cpu_sat_box_filter(&t, NULL, (const uint16_t *)(const void *)((const char *)rbuf + 1), 16, 0, &f));
    bad = f;
    bad.width = 7;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_sat_box_filter(&t, NULL, NULL, 0, 0, &bad));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_sat_box_filter(NULL, NULL, NULL, 0, 0, &f));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_sat_box_filter(&t, NULL, NULL, 0, 0, NULL));
    expect_untouched(buf_b, sizeof buf_b, "refused filters");
    bad = f;
    bad.data = buf_a; /* output over the table */
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_cpu_sat_box_filter(&t, NULL, NULL, 0, 0, &bad));
    bad.data = (unsigned char *)wbuf + 100; /* over the weight table */
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_cpu_sat_box_filter(&t, &w, NULL, 0, 0, &bad));
    bad.data = (unsigned char *)rbuf + 8; /* over the radii (8 rows of 16 bytes) */
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_cpu_sat_box_filter(&t, NULL, rbuf, 16, 0, &bad));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_sat_box_filter(&t, NULL, rbuf, 16, 0, &f));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_sat_box_filter(&t, &w, rbuf, 16, 0, &f));
    for (size_t i = 0; i < 8 * 16; ++i)
        if (((unsigned char *)buf_b)[i] != 0) TFAIL("filter of a zero table: byte %zu is not 0", i);

    /* sums */
    memset(buf_b, 0xA5, sizeof buf_b);
    libscan_box_t boxes[2] = {{0, 0, 1, 1}, {0, 0, 1, 1}};
    uint32_t *s = buf_b; /* two channels of 4 bytes per box */
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_sat_box_sums(&t, NULL, 1, s));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_sat_box_sums(&t, boxes, 1, NULL));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_sat_box_sums(NULL, boxes, 1, s));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_sat_box_sums(&t, NULL, 0, NULL));
    bad = t;
    bad.dtype = LIBSCAN_U8; /* an image, not a table type */
    bad.pitch = 16;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_sat_box_sums(&bad, boxes, 1, s));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER,
              libscan_cpu_sat_box_sums(&t, boxes, 1, (unsigned char *)buf_b + 2)); /* sums misaligned */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER,
              libscan_cpu_sat_box_sums(&t, (const libscan_box_t *)(const void *)((const char *)boxes + 2), 1, s));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_sat_box_sums(&t, boxes, SIZE_MAX / 16, s)); /* too many */
    expect_untouched(buf_b, sizeof buf_b, "refused box sums");
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_cpu_sat_box_sums(&t, boxes, 1, buf_a + 100)); /* sums in the table */
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_cpu_sat_box_sums(&t, boxes, 2, &boxes[1])); /* sums over box 1 */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_sat_box_sums(&t, boxes, 2, s));
    for (int i = 0; i < 4; ++i) assert_int_equal(s[i], 0); /* boxes of a zero table */
}

/* ---- GPU ---------------------------------------------------------------------------------------- */

/* A device copy of a host image (same pitch). */
static libscan_sat_image_t to_device(const libscan_sat_image_t *h) {
    libscan_sat_image_t d = *h;
    CUDA_CHECK(cudaMalloc(&d.data, h->pitch * h->height));
    CUDA_CHECK(cudaMemcpy(d.data, h->data, h->pitch * h->height, cudaMemcpyHostToDevice));
    return d;
}
static libscan_sat_image_t device_like(const libscan_sat_image_t *h) {
    libscan_sat_image_t d = *h;
    CUDA_CHECK(cudaMalloc(&d.data, h->pitch * h->height));
    CUDA_CHECK(cudaMemset(d.data, 0x5A, h->pitch * h->height)); /* poison */
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    return d;
}
static void to_host(libscan_sat_image_t *h, const libscan_sat_image_t *d) {
    CUDA_CHECK(cudaMemcpy(h->data, d->data, h->pitch * h->height, cudaMemcpyDeviceToHost));
}

/* A build's options: the caller's temp, or NULL (the temp cache). */
static libscan_sat_opts_t temp_opts(void *temp, size_t bytes) {
    libscan_sat_opts_t o = LIBSCAN_SAT_OPTS_INIT;
    o.d_temp = temp;
    o.temp_bytes = bytes;
    return o;
}

/* A device image like the host image h (same pitch), its data `shift` bytes
 * past a cudaMalloc'd base (*base: what to free), a copy of h or (h NULL)
 * 0x5A bytes. */
static libscan_sat_image_t device_at(const libscan_sat_image_t *shape, const libscan_sat_image_t *h, size_t shift,
                                     void **base) {
    libscan_sat_image_t d = *shape;
    const size_t bytes = shape->pitch * shape->height;
    CUDA_CHECK(cudaMalloc(base, bytes + shift));
    d.data = (unsigned char *)*base + shift;
    if (h) {
        CUDA_CHECK(cudaMemcpy(d.data, h->data, bytes, cudaMemcpyHostToDevice));
    } else {
        CUDA_CHECK(cudaMemset(*base, 0x5A, bytes + shift)); /* poison */
        CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    }
    return d;
}

/* One GPU build against the reference (and, for integers, bitwise against
 * the CPU path): pitches of in_pad / out_pad elements more than a row; with
 * `misalign` both data pointers one element past a 256-byte boundary (so
 * neither is 16-byte aligned: scalar loads and stores); caller temp or the
 * temp cache. The table's row padding must stay as it was. */
static void gpu_build_case(rng_t *r, pair_t p, int ch, size_t w, size_t h, size_t in_pad, size_t out_pad,
                           int misalign, int caller_temp) {
    const size_t ies = libscan_dtype_size(p.in), tes = libscan_dtype_size(p.table);
    libscan_sat_image_t in = host_image(p.in, ch, w, h, in_pad * ies);
    fill_random(&in, r, input_max(p.in));
    libscan_sat_image_t t = host_image(p.table, ch, w, h, out_pad * tes);
    void *in_base = NULL, *out_base = NULL;
    const libscan_sat_image_t din = device_at(&in, &in, misalign ? ies : 0, &in_base);
    const libscan_sat_image_t dt = device_at(&t, NULL, misalign ? tes : 0, &out_base);
    size_t tb = 0;
    assert_int_equal(libscan_sat_temp_bytes(w, h, ch, p.table, &tb), LIBSCAN_SUCCESS);
    void *temp = NULL;
    if (caller_temp) {
        CUDA_CHECK(cudaMalloc(&temp, tb));
        CUDA_CHECK(cudaMemset(temp, 0xFF, tb)); /* whatever temp holds must not matter */
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    const libscan_sat_opts_t o = temp_opts(temp, tb);
    assert_int_equal(libscan_sat_build(&din, &dt, caller_temp ? &o : NULL, 0), LIBSCAN_SUCCESS);
    CUDA_SYNC();
    to_host(&t, &dt);
    ref_t ref = ref_table(&in);
    char what[128];
    snprintf(what, sizeof what, "gpu %d->%d, %d ch, %zux%zu, pads %zu/%zu, misaligned %d", (int)p.in, (int)p.table, ch,
             w, h, in_pad, out_pad, misalign);
    expect_table(&t, &ref, what);
    const size_t row = w * (size_t)ch * tes;
    for (size_t y = 0; y + 1 < h; ++y) /* the padding of every row but the last (not part of the image) */
        for (size_t b = row; b < t.pitch; ++b)
            if (((unsigned char *)t.data)[y * t.pitch + b] != 0x5A) TFAIL("%s: padding of row %zu written", what, y);
    if (p.table != LIBSCAN_F32 && p.table != LIBSCAN_F64) { /* integers: bitwise equal to the CPU path */
        libscan_sat_image_t c = host_image(p.table, ch, w, h, out_pad * tes);
        assert_int_equal(libscan_cpu_sat_build(&in, &c), LIBSCAN_SUCCESS);
        for (size_t y = 0; y < h; ++y)
            if (memcmp((char *)c.data + y * c.pitch, (char *)t.data + y * t.pitch, row))
                TFAIL("%s: row %zu differs from the CPU path", what, y);
        free(c.data);
    }
    ref_free(&ref);
    CUDA_CHECK(cudaFree(temp));
    CUDA_CHECK(cudaFree(in_base));
    CUDA_CHECK(cudaFree(out_base));
    free(in.data);
    free(t.data);
}

static void gpu_build_one(rng_t *r, pair_t p, int ch, size_t w, size_t h, size_t pad, int caller_temp) {
    gpu_build_case(r, p, ch, w, h, pad, pad * 8 / libscan_dtype_size(p.table), 0, caller_temp);
}

static void gpu_build_matches_reference(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "gpu_build", 0);
    for (size_t p = 0; p < NPAIRS; ++p)
        for (int ch = 1; ch <= 4; ++ch)
            for (size_t s = 0; s < NSHAPES; ++s)
                gpu_build_one(&r, kPairs[p], ch, kShapes[s].w, kShapes[s].h, kShapes[s].pad, (int)(s & 1));
}

/* Every pair and channel count on the edges of its tile (sat_test_tile): 1,
 * tile - 1, tile, tile + 1 and a few tiles plus change, each way, and prime
 * sizes; each size once with packed aligned images, once with pitches of a
 * few elements more (rows no longer 16-byte aligned for 1- and 2-byte
 * input) and once with both pointers off 16-byte alignment (scalar loads
 * and stores). */
static void gpu_build_tile_edges(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "gpu_build_tile_edges", 0);
    for (size_t p = 0; p < NPAIRS; ++p)
        for (int ch = 1; ch <= 4; ++ch) {
            size_t tw = 0, th = 0;
            sat_test_tile(ch, kPairs[p].table, &tw, &th);
            assert_true(tw >= 2 && th >= 2);
            const size_t sizes[][2] = {{1, 1},          {tw - 1, th - 1},     {tw, th},         {tw + 1, th + 1},
                                       {1, th + 1},     {tw + 1, 1},          {tw, 1},          {1, th},
                                       {2 * tw + 1, 2 * th - 1}, {3 * tw - 1, th}, {tw - 1, 3 * th + 1}, {97, 61},
                                       {251, 127},      {2 * tw, 2 * th}};
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
                const size_t w = sizes[i][0], h = sizes[i][1];
                gpu_build_case(&r, kPairs[p], ch, w, h, 0, 0, 0, 1);
                gpu_build_case(&r, kPairs[p], ch, w, h, 3, 1, 0, (int)(i & 1));
                gpu_build_case(&r, kPairs[p], ch, w, h, 0, 0, 1, 1);
            }
            /* more than 128 tiles across or down: the carry scans take their
             * rows in several rounds (SatCarryTuning: 8 x 16 rows a round) */
            gpu_build_case(&r, kPairs[p], ch, 130 * tw + 5, 3, 0, 0, 0, 1);
            gpu_build_case(&r, kPairs[p], ch, 3, 130 * th - 1, 1, 0, 0, 0);
        }
}

static void gpu_build_4096(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "gpu_build_4096", 0);
    /* side x side, smaller under LIBSCAN_TEST_MAX_N (pixels x channels) */
    size_t side = test_capped_side(4096, 4);
    gpu_build_one(&r, kPairs[0], 4, side, side, 0, 1);  /* u8 RGBA -> u32 */
    side = test_capped_side(4096, 3);
    gpu_build_one(&r, kPairs[1], 3, side, side, 0, 0);  /* u16 RGB -> u32 */
    side = test_capped_side(4096, 1);
    gpu_build_one(&r, kPairs[2], 1, side, side, 0, 1);  /* u16 -> u64 */
    side = test_capped_side(4096, 2);
    gpu_build_one(&r, kPairs[4], 2, side, side, 0, 1);  /* f32 -> f64 */
    side = test_capped_side(4096, 1);
    gpu_build_one(&r, kPairs[3], 1, side, side, 0, 1);  /* f32 -> f32 (within its tolerance) */
}

static void gpu_box_sums_match_direct_sums(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "gpu_box_sums", 0);
    for (size_t p = 0; p < NPAIRS; ++p)
        for (int ch = 1; ch <= 4; ++ch) {
            libscan_sat_image_t in = host_image(kPairs[p].in, ch, 150, 70, 0);
            fill_random(&in, &r, input_max(kPairs[p].in));
            libscan_sat_image_t t = host_image(kPairs[p].table, ch, 150, 70, 0);
            libscan_sat_image_t din = to_device(&in), dt = device_like(&t);
            assert_int_equal(libscan_sat_build(&din, &dt, NULL, 0), LIBSCAN_SUCCESS);
            enum { N = 300 };
            libscan_box_t boxes[N];
            for (int i = 0; i < N; ++i) boxes[i] = random_box(&r, 150, 70);
            boxes[1] = (libscan_box_t){5, 5, 4, 9};
            boxes[2] = (libscan_box_t){0, -1, 3, 3};
            boxes[3] = (libscan_box_t){0, 0, 3, 70};
            const size_t es = libscan_dtype_size(t.dtype);
            libscan_box_t *dboxes;
            void *dsums;
            CUDA_CHECK(cudaMalloc((void **)&dboxes, sizeof boxes));
            CUDA_CHECK(cudaMemcpy(dboxes, boxes, sizeof boxes, cudaMemcpyHostToDevice));
            CUDA_CHECK(cudaMalloc(&dsums, N * (size_t)ch * es));
            assert_int_equal(libscan_sat_box_sums(&dt, dboxes, N, dsums, 0), LIBSCAN_SUCCESS);
            unsigned char *sums = xmalloc(N * (size_t)ch * es);
            CUDA_CHECK(cudaMemcpy(sums, dsums, N * (size_t)ch * es, cudaMemcpyDeviceToHost));
            libscan_sat_image_t sv = {sums, t.dtype, ch, N, 1, N * (size_t)ch * es};
            for (int i = 0; i < N; ++i)
                for (int c = 0; c < ch; ++c) {
                    const int bad = i >= 1 && i <= 3;
                    const double want = bad ? 0 : direct_box(&in, boxes[i], c);
                    const double got = get(&sv, (size_t)i, 0, c);
                    const double tol = t.dtype == LIBSCAN_F32 ? 1.2e-7 * (150 + 70) * 150 * 70 * 4 : (t.dtype == LIBSCAN_F64 ? 1e-9 : 0);
                    if (!(fabs(got - want) <= tol))
                        TFAIL("gpu pair %zu ch %d box %d channel %d: %.17g, expected %.17g", p, ch, i, c, got, want);
                }
            assert_int_equal(libscan_sat_box_sums(&dt, NULL, 0, NULL, 0), LIBSCAN_SUCCESS);
            free(sums);
            CUDA_CHECK(cudaFree(dboxes));
            CUDA_CHECK(cudaFree(dsums));
            CUDA_CHECK(cudaFree(din.data));
            CUDA_CHECK(cudaFree(dt.data));
            free(in.data);
            free(t.data);
        }
}

/* The bound test: a white 16384 x 16384 RGBA8 image, whose corner
 * sums wrap many times, still gives exact sums for the largest boxes. */
static void gpu_wrap_bound_16384(void **state) {
    (void)state;
    test_require_gpu();
    const size_t W = 16384, H = 16384;
    test_skip_above_cap(W * H * 4, "the 16384 x 16384 RGBA8 wrap-bound image");
    libscan_sat_image_t din = {NULL, LIBSCAN_U8, 4, W, H, W * 4};
    libscan_sat_image_t dt = {NULL, LIBSCAN_U32, 4, W, H, W * 16};
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (free_b < (size_t)10 << 30) test_skip("needs 10 GiB of free GPU memory, %zu MiB free", free_b >> 20);
    CUDA_CHECK(cudaMalloc(&din.data, W * H * 4));
    CUDA_CHECK(cudaMemset(din.data, 255, W * H * 4));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    CUDA_CHECK(cudaMalloc(&dt.data, W * H * 16));
    assert_int_equal(libscan_sat_build(&din, &dt, NULL, 0), LIBSCAN_SUCCESS);
    const int32_t s = 4104, e = (int32_t)W - 1;
    const libscan_box_t boxes[4] = {{e - s + 1, e - s + 1, e, e}, {0, 0, s - 1, s - 1}, {5000, 7000, 5000 + s - 1, 7000 + s - 1},
                                {e - s, e - s + 1, e, e}}; /* the last is 4105 x 4104: above the bound */
    libscan_box_t *db;
    uint32_t *ds, sums[16];
    CUDA_CHECK(cudaMalloc((void **)&db, sizeof boxes));
    CUDA_CHECK(cudaMalloc((void **)&ds, sizeof sums));
    CUDA_CHECK(cudaMemcpy(db, boxes, sizeof boxes, cudaMemcpyHostToDevice));
    assert_int_equal(libscan_sat_box_sums(&dt, db, 4, ds, 0), LIBSCAN_SUCCESS);
    CUDA_CHECK(cudaMemcpy(sums, ds, sizeof sums, cudaMemcpyDeviceToHost));
    uint32_t corner[4];
    CUDA_CHECK(cudaMemcpy(corner, (char *)dt.data + (H - 1) * dt.pitch + (W - 1) * 16, 16, cudaMemcpyDeviceToHost));
    for (int c = 0; c < 4; ++c) {
        assert_true(corner[c] == (uint32_t)(255ull * W * H)); /* wrapped (2^28 * 255 mod 2^32) */
        for (int b = 0; b < 3; ++b) assert_int_equal(sums[b * 4 + c], 4104u * 4104u * 255u);
        assert_true(sums[12 + c] == (uint32_t)(4105ull * 4104 * 255));
    }
    CUDA_CHECK(cudaFree(db));
    CUDA_CHECK(cudaFree(ds));
    CUDA_CHECK(cudaFree(din.data));
    CUDA_CHECK(cudaFree(dt.data));
}

static void gpu_filter_matches_cpu(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "gpu_filter", 0);
    const size_t sizes[][2] = {{1, 1}, {1, 37}, {45, 1}, {131, 77}, {640, 360}};
    /* table u32 from u16 values up to 16380 (the blur's 12-bit samples
     * times 4); wide: u64 from u64 values up to 2^39 (its 37-bit ones) */
    const libscan_dtype_t outs[2][2] = {{LIBSCAN_U8, LIBSCAN_U16}, {LIBSCAN_U32, LIBSCAN_U64}};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
        for (int ch = 1; ch <= 4; ++ch)
            for (int wide = 0; wide <= 1; ++wide)
            for (int weighted = 0; weighted <= 1; ++weighted) {
                const size_t W = sizes[si][0], H = sizes[si][1];
                if (!test_size_allowed(W * H * (size_t)ch)) continue;
                libscan_sat_image_t img = host_image(wide ? LIBSCAN_U64 : LIBSCAN_U16, ch, W, H, 0);
                fill_random(&img, &r, wide ? 1ull << 39 : 16380);
                libscan_sat_image_t wimg = host_image(LIBSCAN_U8, 1, W, H, 0);
                fill_random(&wimg, &r, 3);
                for (size_t i = 0; i < W * H; ++i) ((uint8_t *)wimg.data)[i] += 1;
                libscan_sat_image_t t = host_image(wide ? LIBSCAN_U64 : LIBSCAN_U32, ch, W, H, 0),
                                    wt = host_image(LIBSCAN_U32, 1, W, H, 0);
                assert_int_equal(libscan_cpu_sat_build(&img, &t), LIBSCAN_SUCCESS);
                assert_int_equal(libscan_cpu_sat_build(&wimg, &wt), LIBSCAN_SUCCESS);
                uint16_t *radius = xmalloc(W * H * 2);
                for (size_t i = 0; i < W * H; ++i) radius[i] = (uint16_t)rng_below(&r, 256 * 40);
                for (int ot = 0; ot < 2; ++ot) {
                    libscan_sat_image_t hc = host_image(outs[wide][ot], ch, W, H, 0);
                    libscan_sat_image_t hg = host_image(outs[wide][ot], ch, W, H, 0);
                    assert_int_equal(libscan_cpu_sat_box_filter(&t, weighted ? &wt : NULL, radius, W * 2, 0, &hc), LIBSCAN_SUCCESS);
                    libscan_sat_image_t dt = to_device(&t), dwt = to_device(&wt), dout = device_like(&hg);
                    uint16_t *dr;
                    CUDA_CHECK(cudaMalloc((void **)&dr, W * H * 2));
                    CUDA_CHECK(cudaMemcpy(dr, radius, W * H * 2, cudaMemcpyHostToDevice));
                    assert_int_equal(libscan_sat_box_filter(&dt, weighted ? &dwt : NULL, dr, W * 2, 0, &dout, 0), LIBSCAN_SUCCESS);
                    to_host(&hg, &dout);
                    if (memcmp(hc.data, hg.data, hc.pitch * H))
                        TFAIL("GPU filter differs from the CPU path (%zux%zu, %d ch, wide %d, weighted %d, out %d)", W, H,
                              ch, wide, weighted, ot);
                    /* uniform radius */
                    assert_int_equal(libscan_cpu_sat_box_filter(&t, NULL, NULL, 0, 5 * 256 + 128, &hc), LIBSCAN_SUCCESS);
                    assert_int_equal(libscan_sat_box_filter(&dt, NULL, NULL, 0, 5 * 256 + 128, &dout, 0), LIBSCAN_SUCCESS);
                    to_host(&hg, &dout);
                    if (memcmp(hc.data, hg.data, hc.pitch * H)) TFAIL("GPU uniform filter differs from the CPU path");
                    CUDA_CHECK(cudaFree(dr));
                    CUDA_CHECK(cudaFree(dt.data));
                    CUDA_CHECK(cudaFree(dwt.data));
                    CUDA_CHECK(cudaFree(dout.data));
                    free(hc.data);
                    free(hg.data);
                }
                free(radius);
                free(img.data);
                free(wimg.data);
                free(t.data);
                free(wt.data);
            }
}

/* Device bytes all still 0x5A (device_like's poison): refused calls wrote nothing. */
static void expect_device_untouched(const void *d, size_t bytes, const char *what) {
    unsigned char *h = xmalloc(bytes);
    CUDA_CHECK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < bytes; ++i)
        if (h[i] != 0x5A) {
            free(h);
            TFAIL("%s: byte %zu changed by a refused call", what, i);
        }
    free(h);
}

/* Every status of the GPU calls, one wrong argument at a time, then the same
 * buffers right. */
static void gpu_argument_errors(void **state) {
    (void)state;
    test_require_gpu();
    const size_t W = 300, H = 200;
    libscan_sat_image_t hin = host_image(LIBSCAN_U8, 4, W, H, 0);
    memset(hin.data, 1, W * H * 4);
    libscan_sat_image_t ht = host_image(LIBSCAN_U32, 4, W, H, 0);
    libscan_sat_image_t din = to_device(&hin), dt = device_like(&ht);
    size_t tb = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sat_temp_bytes(W, H, 4, LIBSCAN_U32, &tb));
    unsigned char *temp;
    CUDA_CHECK(cudaMalloc((void **)&temp, tb + 64));
    libscan_sat_opts_t o;
    libscan_sat_image_t x;

    /* build */
    o = temp_opts(temp, tb - 1);
    LS_EXPECT(LIBSCAN_ERROR_TEMP_TOO_SMALL, libscan_sat_build(&din, &dt, &o, 0));
    o = temp_opts(temp + 5, tb - 1); /* any alignment, but never less than the figure */
    LS_EXPECT(LIBSCAN_ERROR_TEMP_TOO_SMALL, libscan_sat_build(&din, &dt, &o, 0));
    o = temp_opts(NULL, 5);
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sat_build(&din, &dt, &o, 0));
    o = temp_opts(dt.data, tb); /* temp over the table */
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_sat_build(&din, &dt, &o, 0));
    o = temp_opts((unsigned char *)din.data + W * 4 * (H - 1), tb); /* temp from the input's last row on */
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_sat_build(&din, &dt, &o, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sat_build(NULL, &dt, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sat_build(&din, NULL, NULL, 0));
    x = din;
    x.data = NULL;
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sat_build(&x, &dt, NULL, 0));
    x = dt;
    x.data = NULL;
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sat_build(&din, &x, NULL, 0));
    x = dt;
    x.dtype = LIBSCAN_U64;
    x.pitch = W * 4 * 8; /* a valid u64 pitch, so the pair is what gets refused (nothing is touched) */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_sat_build(&din, &x, NULL, 0));
    x = din;
    x.dtype = (libscan_dtype_t)42;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_sat_build(&x, &dt, NULL, 0));
    x = dt;
    x.width = W - 1; /* shape differs from the input's */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sat_build(&din, &x, NULL, 0));
    x = dt;
    x.pitch = W * 16 - 4; /* below the row */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sat_build(&din, &x, NULL, 0));
    x = dt;
    x.data = (unsigned char *)dt.data + 2; /* off the u32 alignment */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_sat_build(&din, &x, NULL, 0));
    x = dt;
    x.data = din.data; /* in place: never */
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_sat_build(&din, &x, NULL, 0));
    x.data = (unsigned char *)din.data + W * 4 * (H - 1); /* the table starts in the input's last row */
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_sat_build(&din, &x, NULL, 0));
    CUDA_SYNC();
    expect_device_untouched(dt.data, dt.pitch * H, "refused builds");

    /* right: caller temp at an odd address (the figure's slack covers it) */
    o = temp_opts(temp + 7, tb);
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sat_build(&din, &dt, &o, 0));
    CUDA_SYNC();
    to_host(&ht, &dt);
    for (int c = 0; c < 4; ++c) assert_int_equal(get_u64(&ht, W - 1, H - 1, c), W * H); /* a ones image */

    /* box sums */
    libscan_box_t boxes[2] = {{0, 0, 9, 9}, {0, 0, (int32_t)W - 1, (int32_t)H - 1}};
    libscan_box_t *db;
    uint32_t *ds;
    CUDA_CHECK(cudaMalloc((void **)&db, sizeof boxes));
    CUDA_CHECK(cudaMemcpy(db, boxes, sizeof boxes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMalloc((void **)&ds, 2 * 4 * 4 + 16));
    CUDA_CHECK(cudaMemset(ds, 0x5A, 2 * 4 * 4 + 16));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sat_box_sums(&dt, NULL, 2, ds, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sat_box_sums(&dt, db, 2, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sat_box_sums(NULL, db, 2, ds, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_sat_box_sums(&din, db, 2, ds, 0)); /* an image, not a table */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_sat_box_sums(&dt, db, 2, (unsigned char *)ds + 2, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_sat_box_sums(&dt, db, 2, (unsigned char *)dt.data + 64, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_sat_box_sums(&dt, db, 2, db, 0));
    CUDA_SYNC();
    expect_device_untouched(ds, 2 * 4 * 4 + 16, "refused box sums");
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sat_box_sums(&dt, db, 2, ds, 0));
    uint32_t sums[8];
    CUDA_CHECK(cudaMemcpy(sums, ds, sizeof sums, cudaMemcpyDeviceToHost));
    for (int c = 0; c < 4; ++c) {
        assert_int_equal(sums[c], 100);
        assert_int_equal(sums[4 + c], W * H);
    }

    /* filter */
    libscan_sat_image_t hf = host_image(LIBSCAN_U16, 4, W, H, 0);
    libscan_sat_image_t df = device_like(&hf);
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sat_box_filter(&dt, NULL, NULL, 0, 256, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_sat_box_filter(&din, NULL, NULL, 0, 256, &df, 0));
    x = df;
    x.data = (unsigned char *)df.data + 1;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_sat_box_filter(&dt, NULL, NULL, 0, 256, &x, 0));
    x = df;
    x.data = dt.data; /* output over the table */
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_sat_box_filter(&dt, NULL, NULL, 0, 256, &x, 0));
    CUDA_SYNC();
    expect_device_untouched(df.data, df.pitch * H, "refused filters");
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sat_box_filter(&dt, NULL, NULL, 0, 256, &df, 0));
    CUDA_SYNC();
    to_host(&hf, &df);
    for (size_t i = 0; i < W * H * 4; ++i)
        if (((uint16_t *)hf.data)[i] != 1) TFAIL("box filter of a ones image: sample %zu is not 1", i);

    CUDA_CHECK(cudaFree(db));
    CUDA_CHECK(cudaFree(ds));
    CUDA_CHECK(cudaFree(df.data));
    CUDA_CHECK(cudaFree(temp));
    CUDA_CHECK(cudaFree(din.data));
    CUDA_CHECK(cudaFree(dt.data));
    free(hin.data);
    free(ht.data);
    free(hf.data);
}

/* Plain host memory as an image, a table, temp or boxes: INVALID_POINTER
 * (unless this device reads pageable host memory). */
static void gpu_host_pointer_rejected(void **state) {
    (void)state;
    test_require_gpu();
    int pageable = 0, dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, dev));
    if (pageable) test_skip("this device can read pageable host memory");
    const size_t W = 64, H = 16;
    libscan_sat_image_t hin = host_image(LIBSCAN_U8, 1, W, H, 0), ht = host_image(LIBSCAN_U32, 1, W, H, 0);
    libscan_sat_image_t din = to_device(&hin), dt = device_like(&ht);
    size_t tb = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sat_temp_bytes(W, H, 1, LIBSCAN_U32, &tb));
    void *htemp = xmalloc(tb);
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_sat_build(&hin, &dt, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_sat_build(&din, &ht, NULL, 0));
    const libscan_sat_opts_t o = temp_opts(htemp, tb);
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_sat_build(&din, &dt, &o, 0));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sat_build(&din, &dt, NULL, 0));
    libscan_box_t box = {0, 0, 1, 1};
    uint32_t *ds;
    CUDA_CHECK(cudaMalloc((void **)&ds, 4));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_sat_box_sums(&dt, &box, 1, ds, 0));
    CUDA_SYNC();
    CUDA_CHECK(cudaFree(ds));
    CUDA_CHECK(cudaFree(din.data));
    CUDA_CHECK(cudaFree(dt.data));
    free(htemp);
    free(hin.data);
    free(ht.data);
}

/* A device table as host bytes, rows only (no padding). */
static void download_rows(const libscan_sat_image_t *d, unsigned char *h) {
    const size_t row = d->width * (size_t)d->channels * libscan_dtype_size(d->dtype);
    CUDA_CHECK(cudaMemcpy2D(h, row, d->data, d->pitch, row, d->height, cudaMemcpyDeviceToHost));
}

/* opts = NULL (the temp cache, built anew after a release, then reused),
 * zeroed options, caller temp at an odd address and opts = NULL under graph
 * capture give bitwise the same table, floats included. */
static void gpu_opts_null_matches_caller_temp(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "gpu_opts_null", 0);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const size_t shapes[][2] = {{1, 1}, {129, 9}, {300, 200}, {1000, 3}, {3, 1000}};
    for (size_t p = 0; p < NPAIRS; ++p)
        for (int ch = 1; ch <= 4; ch += 3)
            for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; ++si) {
                const size_t w = shapes[si][0], h = shapes[si][1];
                libscan_sat_image_t in = host_image(kPairs[p].in, ch, w, h, 0);
                fill_random(&in, &r, input_max(kPairs[p].in));
                libscan_sat_image_t t = host_image(kPairs[p].table, ch, w, h, 8 * 3);
                libscan_sat_image_t din = to_device(&in), dt[4];
                for (int k = 0; k < 4; ++k) dt[k] = device_like(&t);
                size_t tb = 0;
                LS_EXPECT(LIBSCAN_SUCCESS, libscan_sat_temp_bytes(w, h, ch, kPairs[p].table, &tb));
                unsigned char *temp;
                CUDA_CHECK(cudaMalloc((void **)&temp, tb + 13));
                if (si == 0) LS_EXPECT(LIBSCAN_SUCCESS, libscan_temp_cache_release()); /* first call: new cache */
                LS_EXPECT(LIBSCAN_SUCCESS, libscan_sat_build(&din, &dt[0], NULL, s));
                const libscan_sat_opts_t zero = LIBSCAN_SAT_OPTS_INIT, caller = temp_opts(temp + 13, tb);
                LS_EXPECT(LIBSCAN_SUCCESS, libscan_sat_build(&din, &dt[1], &zero, s));
                LS_EXPECT(LIBSCAN_SUCCESS, libscan_sat_build(&din, &dt[2], &caller, s));
                cudaGraph_t graph = NULL;
                cudaGraphExec_t exec = NULL;
                CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
                const libscan_status_t captured = libscan_sat_build(&din, &dt[3], NULL, s);
                const cudaError_t end = cudaStreamEndCapture(s, &graph); /* always end the capture */
                LS_EXPECT(LIBSCAN_SUCCESS, captured);
                CUDA_CHECK(end);
                CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
                CUDA_CHECK(cudaGraphLaunch(exec, s));
                CUDA_CHECK(cudaStreamSynchronize(s));
                const size_t bytes = w * h * (size_t)ch * libscan_dtype_size(kPairs[p].table);
                unsigned char *got[4];
                for (int k = 0; k < 4; ++k) {
                    got[k] = xmalloc(bytes);
                    download_rows(&dt[k], got[k]);
                }
                static const char *const kWays[3] = {"zeroed opts", "caller temp", "opts = NULL under capture"};
                for (int k = 1; k < 4; ++k)
                    if (memcmp(got[0], got[k], bytes))
                        TFAIL("pair %zu, %d ch, %zux%zu: %s differs from opts = NULL", p, ch, w, h, kWays[k - 1]);
                /* and the table is right (not four times the same wrong one) */
                ref_t ref = ref_table(&in);
                to_host(&t, &dt[0]);
                char what[96];
                snprintf(what, sizeof what, "opts = NULL, pair %zu, %d ch, %zux%zu", p, ch, w, h);
                expect_table(&t, &ref, what);
                ref_free(&ref);
                for (int k = 0; k < 4; ++k) {
                    free(got[k]);
                    CUDA_CHECK(cudaFree(dt[k].data));
                }
                CUDA_CHECK(cudaGraphExecDestroy(exec));
                CUDA_CHECK(cudaGraphDestroy(graph));
                CUDA_CHECK(cudaFree(temp));
                CUDA_CHECK(cudaFree(din.data));
                free(in.data);
                free(t.data);
            }
    CUDA_CHECK(cudaStreamDestroy(s));
}

/* ---- CPU: the threaded path (LIBSCAN_CPU_THREADS forced) -------------------------- */

/* Forces the CPU path's thread count (0: back to automatic). */
static void set_threads(unsigned t) {
    if (t == 0) {
        unsetenv("LIBSCAN_CPU_THREADS");
        return;
    }
    char v[16];
    snprintf(v, sizeof v, "%u", t);
    setenv("LIBSCAN_CPU_THREADS", v, 1);
}

static const unsigned kThreads[] = {1, 2, 3, 7};
#define NTHREADS (sizeof kThreads / sizeof kThreads[0])

/* Odd shapes: single rows and columns, primes, fewer rows or column lines
 * than threads, a row pad that moves every row off the cache lines. */
static const shape_t kThreadShapes[] = {{1, 1, 0}, {1, 97, 0}, {97, 1, 0}, {2, 3, 8}, {131, 67, 0}, {257, 13, 24}, {61, 263, 8}};
#define NTHREADSHAPES (sizeof kThreadShapes / sizeof kThreadShapes[0])

/* Every supported pair and channel count: the table with 1, 2, 3 and 7
 * threads, each against the reference (integers exactly, floats within the
 * rounding bound) and byte for byte against the one-thread table, padding
 * included (the poison there must survive every split). */
static void cpu_build_threads_bitwise_equal(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, "cpu_build_threads", 0);
    for (size_t p = 0; p < NPAIRS; ++p)
        for (int ch = 1; ch <= 4; ++ch)
            for (size_t s = 0; s < NTHREADSHAPES; ++s) {
                const shape_t sh = kThreadShapes[s];
                libscan_sat_image_t in = host_image(kPairs[p].in, ch, sh.w, sh.h, sh.pad * libscan_dtype_size(kPairs[p].in));
                fill_random(&in, &r, input_max(kPairs[p].in));
                ref_t ref = ref_table(&in);
                libscan_sat_image_t one = host_image(kPairs[p].table, ch, sh.w, sh.h, sh.pad * 8);
                for (size_t k = 0; k < NTHREADS; ++k) {
                    libscan_sat_image_t t = host_image(kPairs[p].table, ch, sh.w, sh.h, sh.pad * 8);
                    set_threads(kThreads[k]);
                    assert_int_equal(libscan_cpu_sat_build(&in, &t), LIBSCAN_SUCCESS);
                    char what[128];
                    snprintf(what, sizeof what, "cpu pair %zu, %d ch, %zux%zu, %u threads", p, ch, sh.w, sh.h, kThreads[k]);
                    expect_table(&t, &ref, what);
                    if (k == 0) memcpy(one.data, t.data, t.pitch * t.height);
                    else if (memcmp(one.data, t.data, t.pitch * t.height) != 0) TFAIL("%s: differs from 1 thread", what);
                    free(t.data);
                }
                set_threads(0);
                ref_free(&ref);
                free(in.data);
                free(one.data);
            }
}

/* The filter on 1, 2, 3 and 7 threads: u32 and u64 (wide) tables, plain and
 * weighted, a radius map and a uniform radius, 8- and 16-bit outputs, every
 * channel count; each output byte for byte equal to the one-thread output
 * (padding included), and the one-thread output against the plain-loop
 * reference. */
static void cpu_filter_threads_bitwise_equal(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, "cpu_filter_threads", 0);
    static const shape_t shapes[] = {{1, 1, 0}, {1, 37, 0}, {41, 1, 0}, {43, 29, 4}, {5, 71, 2}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (int ch = 1; ch <= 4; ++ch)
            for (int mode = 0; mode < 4; ++mode) { /* bit 0: weighted; bit 1: u64 table */
                const size_t W = shapes[s].w, H = shapes[s].h;
                const int weighted = mode & 1;
                const libscan_dtype_t tdt = (mode & 2) ? LIBSCAN_U64 : LIBSCAN_U32;
                const libscan_dtype_t ot = ch % 2 ? LIBSCAN_U8 : LIBSCAN_U16;
                const uint64_t maxv = ot == LIBSCAN_U8 ? 255u : 16000u;
                libscan_sat_image_t wimg = host_image(LIBSCAN_U8, 1, W, H, 0);
                fill_random(&wimg, &r, 3);
                for (size_t i = 0; i < W * H; ++i) ((uint8_t *)wimg.data)[i] += 1; /* 1..4 */
                libscan_sat_image_t win = host_image(LIBSCAN_U16, ch, W, H, 0);
                fill_random(&win, &r, maxv);
                for (size_t y = 0; y < H; ++y)
                    for (size_t x = 0; x < W; ++x)
                        for (int c = 0; c < ch; ++c)
                            ((uint16_t *)win.data)[(y * W + x) * (size_t)ch + (size_t)c] *=
                                (uint16_t)(weighted ? get(&wimg, x, y, 0) : 1);
                libscan_sat_image_t t = host_image(tdt, ch, W, H, 0), wt = host_image(LIBSCAN_U32, 1, W, H, 0);
                set_threads(3); /* the tables' own threading is proven above */
                assert_int_equal(libscan_cpu_sat_build(&win, &t), LIBSCAN_SUCCESS);
                assert_int_equal(libscan_cpu_sat_build(&wimg, &wt), LIBSCAN_SUCCESS);
                uint16_t *radius = xmalloc(W * H * 2);
                for (size_t i = 0; i < W * H; ++i) radius[i] = (uint16_t)rng_below(&r, 256 * 9);
                const int uniform = ch == 3;
                const size_t pad = 3 * libscan_dtype_size(ot);
                libscan_sat_image_t one = host_image(ot, ch, W, H, pad);
                for (size_t k = 0; k < NTHREADS; ++k) {
                    libscan_sat_image_t out = host_image(ot, ch, W, H, pad);
                    set_threads(kThreads[k]);
                    assert_int_equal(libscan_cpu_sat_box_filter(&t, weighted ? &wt : NULL, uniform ? NULL : radius,
                                                                W * 2, (uint16_t)(5 * 256 + 19), &out),
                                     LIBSCAN_SUCCESS);
                    char what[128];
                    snprintf(what, sizeof what, "cpu filter %zux%zu, %d ch, mode %d, %u threads", W, H, ch, mode,
                             kThreads[k]);
                    if (k == 0) memcpy(one.data, out.data, out.pitch * H);
                    else if (memcmp(one.data, out.data, out.pitch * H) != 0) TFAIL("%s: differs from 1 thread", what);
                    free(out.data);
                }
                set_threads(0);
                for (size_t y = 0; y < H; ++y)
                    for (size_t x = 0; x < W; ++x)
                        for (int c = 0; c < ch; ++c) {
                            const unsigned q8 = uniform ? 5 * 256 + 19 : radius[y * W + x];
                            const double e = ref_filter(&win, weighted ? &wimg : NULL, x, y, c, q8);
                            expect_filtered(e, get(&one, x, y, c), ot == LIBSCAN_U8 ? 255 : 65535,
                                            "cpu filter, 1 thread", x, y, c);
                        }
                free(radius);
                free(one.data);
                free(wimg.data);
                free(win.data);
                free(t.data);
                free(wt.data);
            }
}

/* ---- the build's tiles: 4K, float repeatability, the load transform --------------- */

/* Issue #22's image size, 3840 x 2160, for every pair with 4 channels (RGBA8
 * -> u32 is the benchmarked case) and one channel: against the reference and
 * (integers) bitwise against the CPU path. */
static void gpu_build_4k(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "gpu_build_4k", 0);
    const size_t W = 3840, H = 2160;
    test_skip_above_cap(W * H * 4, "3840 x 2160 x 4 channels");
    for (size_t p = 0; p < NPAIRS; ++p) {
        gpu_build_case(&r, kPairs[p], 4, W, H, 0, 0, 0, (int)(p & 1));
        gpu_build_case(&r, kPairs[p], 1, W, H, 0, 0, 0, (int)(~p & 1));
    }
}

/* Float tables are bitwise the same on every run whatever temp holds and
 * wherever it is: caller temp full of 0xFF bytes, caller temp full of zeros
 * at an odd offset, and the temp cache; several tiles each way and partial
 * edge tiles, every channel count. */
static void gpu_float_tables_repeat(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "gpu_float_repeat", 0);
    const int small = !test_size_allowed((size_t)1000 * 700 * 4); /* LIBSCAN_TEST_MAX_N: still several tiles */
    const size_t W = small ? 300 : 1000, H = small ? 200 : 700;
    for (size_t p = 3; p < NPAIRS; ++p) /* the float pairs */
        for (int ch = 1; ch <= 4; ++ch) {
            libscan_sat_image_t in = host_image(kPairs[p].in, ch, W, H, 0);
            fill_random(&in, &r, 0);
            libscan_sat_image_t t = host_image(kPairs[p].table, ch, W, H, 0);
            libscan_sat_image_t din = to_device(&in), dt = device_like(&t);
            size_t tb = 0;
            LS_EXPECT(LIBSCAN_SUCCESS, libscan_sat_temp_bytes(W, H, ch, kPairs[p].table, &tb));
            unsigned char *temp;
            CUDA_CHECK(cudaMalloc((void **)&temp, tb + 7));
            const size_t bytes = W * H * (size_t)ch * libscan_dtype_size(kPairs[p].table);
            unsigned char *got[3];
            for (int k = 0; k < 3; ++k) {
                CUDA_CHECK(cudaMemset(temp, k == 0 ? 0xFF : 0x00, tb + 7));
                CUDA_CHECK(cudaDeviceSynchronize());
                const libscan_sat_opts_t o = temp_opts(temp + (k == 1 ? 7 : 0), tb);
                LS_EXPECT(LIBSCAN_SUCCESS, libscan_sat_build(&din, &dt, k == 2 ? NULL : &o, 0));
                CUDA_SYNC();
                got[k] = xmalloc(bytes);
                download_rows(&dt, got[k]);
            }
            for (int k = 1; k < 3; ++k)
                if (memcmp(got[0], got[k], bytes))
                    TFAIL("pair %zu, %d ch, %zux%zu: run %d differs from run 0", p, ch, W, H, k);
            to_host(&t, &dt);
            ref_t ref = ref_table(&in);
            char what[96];
            snprintf(what, sizeof what, "float repeat, pair %zu, %d ch", p, ch);
            expect_table(&t, &ref, what);
            ref_free(&ref);
            for (int k = 0; k < 3; ++k) free(got[k]);
            CUDA_CHECK(cudaFree(temp));
            CUDA_CHECK(cudaFree(din.data));
            CUDA_CHECK(cudaFree(dt.data));
            free(in.data);
            free(t.data);
        }
}

/* build_sat's load transform (what sat_blur's weighted tables use), through
 * sat_shim.cu: every pixel times a weight of its row and column, applied in
 * both tile passes; against the reference of the weighted image, on tile
 * edges, padded pitches and misaligned pointers. */
static void gpu_build_transform(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "gpu_build_transform", 0);
    int cases = 0;
    for (size_t p = 0; p < NPAIRS; ++p)
        for (int ch = 1; ch <= 4; ++ch) {
            if (!sat_test_weighted_supported(kPairs[p].in, kPairs[p].table, ch)) continue;
            size_t tw = 0, th = 0;
            sat_test_tile(ch, kPairs[p].table, &tw, &th);
            const size_t sizes[][2] = {{1, 1}, {tw - 1, th + 1}, {tw + 1, th - 1}, {2 * tw + 1, 1}, {1, 2 * th + 1},
                                       {131, 97}};
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i)
                for (int variant = 0; variant < 2; ++variant) { /* packed and aligned; padded and misaligned */
                    const size_t w = sizes[i][0], h = sizes[i][1];
                    const size_t ies = libscan_dtype_size(kPairs[p].in), tes = libscan_dtype_size(kPairs[p].table);
                    libscan_sat_image_t in = host_image(kPairs[p].in, ch, w, h, variant ? 3 * ies : 0);
                    fill_random(&in, &r, kPairs[p].in == LIBSCAN_U8 ? 255u : 65535u);
                    libscan_sat_image_t t = host_image(kPairs[p].table, ch, w, h, variant ? tes : 0);
                    void *in_base = NULL, *out_base = NULL;
                    const libscan_sat_image_t din = device_at(&in, &in, variant ? ies : 0, &in_base);
                    const libscan_sat_image_t dt = device_at(&t, NULL, variant ? tes : 0, &out_base);
                    const int e = sat_test_build_weighted(&din, &dt);
                    if (e != 0) TFAIL("sat_test_build_weighted: %d", e);
                    to_host(&t, &dt);
                    ref_t ref = ref_table_of(&in, 1);
                    char what[128];
                    snprintf(what, sizeof what, "weighted %d->%d, %d ch, %zux%zu, variant %d", (int)kPairs[p].in,
                             (int)kPairs[p].table, ch, w, h, variant);
                    expect_table_scaled(&t, &ref, 5.0, what); /* weights up to 5 */
                    ref_free(&ref);
                    CUDA_CHECK(cudaFree(in_base));
                    CUDA_CHECK(cudaFree(out_base));
                    free(in.data);
                    free(t.data);
                    ++cases;
                }
        }
    assert_true(cases >= 8 * 12); /* every supported pair and channel count ran */
}

/* ---- CPU: the three-stage decomposition the build uses ----------------------------- */

/* The build's algorithm (sat_kernels.cuh) in plain C, one channel, for tiles
 * of tw x th: stage 1 row totals, Lb and tile totals per tile; stage 2 the
 * exclusive scans Q (over tile columns, of row totals), T (of tile totals)
 * and Top (over tile rows, of Lb + T); stage 3 each tile's rows from Q, its
 * columns from Top. In uint64 (exact, so it must match the reference
 * exactly) or in double (within the float tolerance). This checks the
 * decomposition, not the kernels. */
static void three_stage(const libscan_sat_image_t *in, int c, size_t tw, size_t th, uint64_t *u, double *d) {
    const size_t W = in->width, H = in->height, tx = (W + tw - 1) / tw, ty = (H + th - 1) / th;
    /* row carries rc[bx][y] (y < H) and tile totals rc[bx][H + by]; column carries cc[by][x] */
    uint64_t *rcu = calloc(tx * (H + ty), sizeof *rcu), *ccu = calloc(ty * W, sizeof *ccu);
    double *rcd = calloc(tx * (H + ty), sizeof *rcd), *ccd = calloc(ty * W, sizeof *ccd);
    if (!rcu || !ccu || !rcd || !ccd) TFAIL("out of host memory");
    for (size_t by = 0; by < ty; ++by) /* stage 1 */
        for (size_t bx = 0; bx < tx; ++bx) {
            uint64_t lbu[1024] = {0};
            double lbd[1024] = {0};
            assert_true(tw <= 1024);
            for (size_t y = by * th; y < (by + 1) * th && y < H; ++y) {
                uint64_t su = 0;
                double sd = 0;
                for (size_t i = 0; i < tw; ++i) { /* pixels past the image count 0 */
                    const size_t x = bx * tw + i;
                    const double v = x < W ? get(in, x, y, c) : 0;
                    su += (uint64_t)v;
                    sd += v;
                    lbu[i] += su;
                    lbd[i] += sd;
                }
                rcu[bx * (H + ty) + y] = su;
                rcd[bx * (H + ty) + y] = sd;
            }
            for (size_t i = 0; i < tw && bx * tw + i < W; ++i) {
                ccu[by * W + bx * tw + i] = lbu[i];
                ccd[by * W + bx * tw + i] = lbd[i];
            }
            rcu[bx * (H + ty) + H + by] = lbu[tw - 1];
            rcd[bx * (H + ty) + H + by] = lbd[tw - 1];
        }
    for (size_t l = 0; l < H + ty; ++l) { /* stage 2a: exclusive over bx */
        uint64_t au = 0;
        double ad = 0;
        for (size_t bx = 0; bx < tx; ++bx) {
            const uint64_t vu = rcu[bx * (H + ty) + l];
            const double vd = rcd[bx * (H + ty) + l];
            rcu[bx * (H + ty) + l] = au;
            rcd[bx * (H + ty) + l] = ad;
            au += vu;
            ad += vd;
        }
    }
    for (size_t x = 0; x < W; ++x) { /* stage 2b: exclusive over by, of Lb + T */
        uint64_t au = 0;
        double ad = 0;
        const size_t bx = x / tw;
        for (size_t by = 0; by < ty; ++by) {
            const uint64_t vu = ccu[by * W + x] + rcu[bx * (H + ty) + H + by];
            const double vd = ccd[by * W + x] + rcd[bx * (H + ty) + H + by];
            ccu[by * W + x] = au;
            ccd[by * W + x] = ad;
            au += vu;
            ad += vd;
        }
    }
    for (size_t by = 0; by < ty; ++by) /* stage 3: rows from Q, columns from Top */
        for (size_t bx = 0; bx < tx; ++bx) {
            uint64_t colu[1024] = {0};
            double cold[1024] = {0};
            for (size_t y = by * th; y < (by + 1) * th && y < H; ++y) {
                uint64_t rowu = rcu[bx * (H + ty) + y];
                double rowd = rcd[bx * (H + ty) + y];
                for (size_t i = 0; i < tw && bx * tw + i < W; ++i) {
                    const size_t x = bx * tw + i;
                    rowu += (uint64_t)get(in, x, y, c);
                    rowd += get(in, x, y, c);
                    colu[i] += rowu;
                    cold[i] += rowd;
                    u[y * W + x] = ccu[by * W + x] + colu[i];
                    d[y * W + x] = ccd[by * W + x] + cold[i];
                }
            }
        }
    free(rcu);
    free(ccu);
    free(rcd);
    free(ccd);
}

static void cpu_three_stage_decomposition(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, "cpu_three_stage", 0);
    /* the build's own tiles and a few others, down to 1 x 1 */
    size_t tiles[6][2] = {{0, 0}, {0, 0}, {0, 0}, {1, 1}, {3, 2}, {5, 7}};
    sat_test_tile(4, LIBSCAN_U32, &tiles[0][0], &tiles[0][1]);
    sat_test_tile(1, LIBSCAN_U32, &tiles[1][0], &tiles[1][1]);
    sat_test_tile(4, LIBSCAN_U64, &tiles[2][0], &tiles[2][1]);
    for (size_t k = 0; k < 6; ++k) {
        const size_t tw = tiles[k][0], th = tiles[k][1];
        assert_true(tw >= 1 && th >= 1);
        const size_t sizes[][2] = {{1, 1},         {tw, th},       {tw + 1, th > 1 ? th - 1 : 1},
                                   {3 * tw - 1, 2 * th + 1}, {1, 3 * th + 2}, {2 * tw + 3, 1}, {37, 23}};
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
            const size_t w = sizes[i][0], h = sizes[i][1];
            for (int is_float = 0; is_float <= 1; ++is_float) {
                libscan_sat_image_t in = host_image(is_float ? LIBSCAN_F32 : LIBSCAN_U16, 2, w, h, 0);
                fill_random(&in, &r, 65535u);
                ref_t ref = ref_table(&in);
                uint64_t *u = xmalloc(w * h * sizeof *u);
                double *d = xmalloc(w * h * sizeof *d);
                for (int c = 0; c < 2; ++c) {
                    three_stage(&in, c, tw, th, u, d);
                    for (size_t j = 0; j < w * h; ++j) {
                        const size_t x = j % w, y = j / w, ri = j * 2 + (size_t)c;
                        if (!is_float && u[j] != ref.u[ri])
                            TFAIL("tiles %zux%zu, %zux%zu: S(%zu,%zu) = %llu, expected %llu", tw, th, w, h, x, y,
                                  (unsigned long long)u[j], (unsigned long long)ref.u[ri]);
                        const double tol = 2.3e-16 * (double)(x + y + 2) * (double)((x + 1) * (y + 1));
                        if (is_float && !(fabs(d[j] - ref.d[ri]) <= tol))
                            TFAIL("tiles %zux%zu, %zux%zu (double): S(%zu,%zu) = %.17g, expected %.17g", tw, th, w, h,
                                  x, y, d[j], ref.d[ri]);
                    }
                }
                free(u);
                free(d);
                ref_free(&ref);
                free(in.data);
            }
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_status_strings_and_types),
        cmocka_unit_test(cpu_temp_bytes),
        cmocka_unit_test(cpu_build_argument_errors),
        cmocka_unit_test(cpu_filter_and_sums_argument_errors),
        cmocka_unit_test(cpu_build_matches_reference),
        cmocka_unit_test(cpu_box_sums_match_direct_sums),
        cmocka_unit_test(cpu_wrap_bound_u8),
        cmocka_unit_test(cpu_wrap_bound_blur),
        cmocka_unit_test(cpu_wrap_bound_u64),
        cmocka_unit_test(cpu_wrap_bound_blur_wide),
        cmocka_unit_test(cpu_filter_matches_reference),
        cmocka_unit_test(cpu_filter_wide_matches_exact_reference),
        cmocka_unit_test(cpu_build_threads_bitwise_equal),
        cmocka_unit_test(cpu_filter_threads_bitwise_equal),
        cmocka_unit_test(cpu_three_stage_decomposition),
        cmocka_unit_test(gpu_build_matches_reference),
        cmocka_unit_test(gpu_build_tile_edges),
        cmocka_unit_test(gpu_build_4096),
        cmocka_unit_test(gpu_build_4k),
        cmocka_unit_test(gpu_float_tables_repeat),
        cmocka_unit_test(gpu_build_transform),
        cmocka_unit_test(gpu_box_sums_match_direct_sums),
        cmocka_unit_test(gpu_wrap_bound_16384),
        cmocka_unit_test(gpu_filter_matches_cpu),
        cmocka_unit_test(gpu_argument_errors),
        cmocka_unit_test(gpu_host_pointer_rejected),
        cmocka_unit_test(gpu_opts_null_matches_caller_temp),
    };
    test_begin("test_sat_lib");
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
