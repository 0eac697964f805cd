/* test_reference.c -- the test oracle itself (label cpu): the CPU reference
 * against hand-computed scans, proof that its checker catches the errors the
 * GPU suites rely on it to catch, and the input generators' promises. If
 * the oracle were wrong or blind, every GPU suite would pass vacuously. */
#define _POSIX_C_SOURCE 200809L /* popen, readlink */
#include "support/harness.h"
#include "support/data.h"
#include "support/monoids.h"
#include "support/reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char msg[2048];

/* Runs ref_scan and compares with hand-computed outputs (bitwise / NaN). */
static void expect_scan(libscan_dtype_t dt, libscan_op_t op, int excl, const void *in, size_t n, const void *init,
                        const void *want, const void *want_total) {
    unsigned char out[16 * 8], total[8];
    const size_t es = ref_dtype_size(dt);
    ref_case_t c = {dt, op, excl, in, n, init, 1};
    assert_true(n <= 16);
    ref_scan(&c, out, total);
    for (size_t i = 0; i < n; ++i)
        if (!ref_same(dt, (const unsigned char *)want + i * es, out + i * es)) {
            char a[96], b[96];
            ref_format(dt, (const unsigned char *)want + i * es, a, sizeof a);
            ref_format(dt, out + i * es, b, sizeof b);
            TFAIL("%s %s %s: reference[%zu] = %s, hand-computed %s", excl ? "exclusive" : "inclusive",
                  ref_dtype_name(dt), ref_op_name(op), i, b, a);
        }
    if (!ref_same(dt, want_total, total)) TFAIL("%s %s: reference total wrong", ref_dtype_name(dt), ref_op_name(op));
    /* and the checker accepts the hand-computed answer */
    if (ref_check(&c, want, want_total, msg, sizeof msg)) TFAIL("checker rejects a correct answer: %s", msg);
}

static void test_reference_integer_scans(void **state) {
    (void)state;
    {
        const uint32_t in[] = {1, 2, 3}, init = 10;
        const uint32_t incl[] = {11, 13, 16}, excl[] = {10, 11, 13}, total = 16;
        expect_scan(LIBSCAN_U32, LIBSCAN_OP_SUM, 0, in, 3, &init, incl, &total);
        expect_scan(LIBSCAN_U32, LIBSCAN_OP_SUM, 1, in, 3, &init, excl, &total);
        const uint32_t excl0[] = {0, 1, 3}, total0 = 6;
        expect_scan(LIBSCAN_U32, LIBSCAN_OP_SUM, 1, in, 3, NULL, excl0, &total0);
    }
    {
        const uint32_t in[] = {0xffffffffu, 2};
        const uint32_t incl[] = {0xffffffffu, 1}, total = 1;
        expect_scan(LIBSCAN_U32, LIBSCAN_OP_SUM, 0, in, 2, NULL, incl, &total);
    }
    {
        const int32_t in[] = {INT32_MAX, 1, -5};
        /* INT32_MAX + 1 wraps to INT32_MIN; INT32_MIN - 5 wraps to 2147483643 */
        const int32_t incl2[] = {INT32_MAX, INT32_MIN, 2147483643}, total2 = 2147483643;
        expect_scan(LIBSCAN_I32, LIBSCAN_OP_SUM, 0, in, 3, NULL, incl2, &total2);
    }
    {
        const uint64_t in[] = {5, 3, 7, 1}, init = 4;
        const uint64_t id = UINT64_MAX;
        const uint64_t incl[] = {5, 3, 3, 1}, excl[] = {UINT64_MAX, 5, 3, 3}, total = 1;
        expect_scan(LIBSCAN_U64, LIBSCAN_OP_MIN, 0, in, 4, NULL, incl, &total);
        expect_scan(LIBSCAN_U64, LIBSCAN_OP_MIN, 1, in, 4, &id, excl, &total);
        const uint64_t incl_i[] = {4, 3, 3, 1}, excl_i[] = {4, 4, 3, 3};
        expect_scan(LIBSCAN_U64, LIBSCAN_OP_MIN, 0, in, 4, &init, incl_i, &total);
        expect_scan(LIBSCAN_U64, LIBSCAN_OP_MIN, 1, in, 4, &init, excl_i, &total);
    }
    {
        const int64_t in[] = {-5, -7, -1};
        const int64_t incl[] = {-5, -5, -1}, excl[] = {INT64_MIN, -5, -5}, total = -1;
        expect_scan(LIBSCAN_I64, LIBSCAN_OP_MAX, 0, in, 3, NULL, incl, &total);
        expect_scan(LIBSCAN_I64, LIBSCAN_OP_MAX, 1, in, 3, NULL, excl, &total);
        const int32_t in32[] = {-5, -7, -1}, excl32[] = {INT32_MIN, -5, -5}, total32 = -1;
        expect_scan(LIBSCAN_I32, LIBSCAN_OP_MAX, 1, in32, 3, NULL, excl32, &total32);
        const int32_t min32[] = {INT32_MAX, -5, -7}, tmin32 = -7;
        expect_scan(LIBSCAN_I32, LIBSCAN_OP_MIN, 1, in32, 3, NULL, min32, &tmin32);
    }
}

static void test_reference_float_rules(void **state) {
    (void)state;
    {   /* -0.0 < +0.0 */
        const float in[] = {0.0f, -0.0f, 0.0f};
        const float mn[] = {0.0f, -0.0f, -0.0f}, tmn = -0.0f;
        expect_scan(LIBSCAN_F32, LIBSCAN_OP_MIN, 0, in, 3, NULL, mn, &tmn);
        const float in2[] = {-0.0f, 0.0f, -0.0f};
        const float mx[] = {-0.0f, 0.0f, 0.0f}, tmx = 0.0f;
        expect_scan(LIBSCAN_F32, LIBSCAN_OP_MAX, 0, in2, 3, NULL, mx, &tmx);
        const float mxe[] = {-INFINITY, -0.0f, 0.0f};
        expect_scan(LIBSCAN_F32, LIBSCAN_OP_MAX, 1, in2, 3, NULL, mxe, &tmx);
    }
    {   /* NaN propagates */
        const double in[] = {1.0, NAN, -5.0};
        const double mn[] = {1.0, NAN, NAN}, t = NAN;
        expect_scan(LIBSCAN_F64, LIBSCAN_OP_MIN, 0, in, 3, NULL, mn, &t);
        const double mne[] = {INFINITY, 1.0, NAN};
        expect_scan(LIBSCAN_F64, LIBSCAN_OP_MIN, 1, in, 3, NULL, mne, &t);
    }
    {   /* the sum identity is -0.0, and -0.0 survives */
        const float in[] = {1.5f}, excl[] = {-0.0f}, t = 1.5f;
        expect_scan(LIBSCAN_F32, LIBSCAN_OP_SUM, 1, in, 1, NULL, excl, &t);
        const float z[] = {-0.0f, -0.0f}, tz = -0.0f;
        expect_scan(LIBSCAN_F32, LIBSCAN_OP_SUM, 0, z, 2, NULL, z, &tz);
        const double m[] = {-0.0, 0.0}, tm = 0.0;
        expect_scan(LIBSCAN_F64, LIBSCAN_OP_SUM, 0, m, 2, NULL, m, &tm);
        const double c[] = {2.0, -2.0}, cs[] = {2.0, 0.0}, tc = 0.0;
        expect_scan(LIBSCAN_F64, LIBSCAN_OP_SUM, 0, c, 2, NULL, cs, &tc);
    }
}

/* The checker must catch: a changed element, a shift by one (inclusive vs
 * exclusive), a wrong total, a NaN in a sum, a zero of the wrong sign, a
 * signalling NaN where a quiet one is due. */
static void test_checker_catches_errors(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, "checker", 0);
    const size_t n = 20000;
    for (int d = 0; d < REF_NUM_DTYPES; ++d)
        for (int o = 0; o < REF_NUM_OPS; ++o)
            for (int excl = 0; excl < 2; ++excl) {
                const libscan_dtype_t dt = ref_dtypes[d];
                const libscan_op_t op = ref_ops[o];
                const size_t es = ref_dtype_size(dt);
                unsigned char *in = malloc(n * es), *out = malloc(n * es), *bad = malloc(n * es);
                unsigned char total[8], init[8];
                assert_non_null(in);
                assert_non_null(out);
                assert_non_null(bad);
                /* Float sums in exact mode, as the GPU suites use it for
                 * structural checks (the tolerant mode cannot see a small
                 * element late in a long sum; see test_checker_float_tolerance). */
                const int fsum = ref_is_float(dt) && op == LIBSCAN_OP_SUM;
                const data_flavor_t fl = fsum ? DATA_FLOAT_INTEGERS : DATA_DEFAULT;
                data_fill(&r, dt, op, fl, in, n);
                data_pick_init(&r, dt, op, fl, in, n, init);
                ref_case_t c = {dt, op, excl, in, n, init, fsum};
                ref_scan(&c, out, total);
                if (ref_check(&c, out, total, msg, sizeof msg)) TFAIL("rejects its own answer: %s", msg);
                /* shifted by one: the other kind of scan */
                ref_case_t other = c;
                other.exclusive = !excl;
                ref_scan(&other, bad, NULL);
                if (!ref_check(&c, bad, total, msg, sizeof msg))
                    TFAIL("%s %s: checker misses inclusive/exclusive confusion", ref_dtype_name(dt), ref_op_name(op));
                /* one element replaced by its neighbour's value, at several places */
                const size_t at[] = {0, 1, 4095, 4096, n / 2, n - 1};
                for (size_t a = 0; a < sizeof at / sizeof at[0]; ++a) {
                    size_t i = at[a], j = i ? i - 1 : i + 1;
                    memcpy(bad, out, n * es);
                    memcpy(bad + i * es, out + j * es, es);
                    if (memcmp(bad + i * es, out + i * es, es) == 0) continue; /* equal neighbours (min/max) */
                    if (!ref_check(&c, bad, total, msg, sizeof msg))
                        TFAIL("%s %s %s: checker misses a changed element at %zu", excl ? "excl" : "incl",
                              ref_dtype_name(dt), ref_op_name(op), i);
                }
                /* wrong total */
                unsigned char t2[8];
                memcpy(t2, total, 8);
                t2[es - 1] ^= 0x40;
                if (!ref_check(&c, out, t2, msg, sizeof msg))
                    TFAIL("%s %s: checker misses a wrong total", ref_dtype_name(dt), ref_op_name(op));
                /* a NaN in a float sum */
                if (ref_is_float(dt) && op == LIBSCAN_OP_SUM) {
                    memcpy(bad, out, n * es);
                    data_set(dt, bad, n / 3, NAN);
                    if (!ref_check(&c, bad, total, msg, sizeof msg)) TFAIL("%s: checker misses a NaN", ref_dtype_name(dt));
                }
                free(in);
                free(out);
                free(bad);
            }
    /* sign of zero and NaN kind in min/max */
    {
        const float in[] = {0.0f, -0.0f};
        const float wrong[] = {0.0f, 0.0f};
        ref_case_t c = {LIBSCAN_F32, LIBSCAN_OP_MIN, 0, in, 2, NULL, 0};
        if (!ref_check(&c, wrong, NULL, msg, sizeof msg)) TFAIL("checker misses min(+0, -0) = +0");
    }
    {
        const float in[] = {1.0f, NAN};
        uint32_t snan_bits = 0x7f800001u, qnan_bits = 0x7fc00000u;
        float got[2] = {1.0f, 0.0f};
        ref_case_t c = {LIBSCAN_F32, LIBSCAN_OP_MAX, 0, in, 2, NULL, 0};
        memcpy(&got[1], &snan_bits, 4);
        if (!ref_check(&c, got, NULL, msg, sizeof msg)) TFAIL("checker accepts a signalling NaN");
        memcpy(&got[1], &qnan_bits, 4);
        if (ref_check(&c, got, NULL, msg, sizeof msg)) TFAIL("checker rejects a quiet NaN: %s", msg);
        got[1] = 1.0f;
        if (!ref_check(&c, got, NULL, msg, sizeof msg)) TFAIL("checker misses a lost NaN");
    }
}

/* Float sums: rounding-level differences pass the tolerant check and fail
 * the exact one; a dropped element fails both. */
static void test_checker_float_tolerance(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, "tolerance", 0);
    const size_t n = 50000;
    for (int d = 4; d < 6; ++d) {
        const libscan_dtype_t dt = ref_dtypes[d];
        const size_t es = ref_dtype_size(dt);
        unsigned char *in = malloc(n * es), *out = malloc(n * es);
        assert_non_null(in);
        assert_non_null(out);
        data_fill(&r, dt, LIBSCAN_OP_SUM, DATA_DEFAULT, in, n);
        ref_case_t c = {dt, LIBSCAN_OP_SUM, 0, in, n, NULL, 0};
        ref_scan(&c, out, NULL);
        /* a sequential sum in the element type: a legitimate association */
        double acc_d = -0.0;
        float acc_f = -0.0f;
        for (size_t i = 0; i < n; ++i) {
            if (dt == LIBSCAN_F32) {
                acc_f += ((float *)in)[i];
                ((float *)out)[i] = acc_f;
            } else {
                acc_d += ((double *)in)[i];
                ((double *)out)[i] = acc_d;
            }
        }
        if (ref_check(&c, out, NULL, msg, sizeof msg))
            TFAIL("%s: the tolerance rejects a plain sequential sum: %s", ref_dtype_name(dt), msg);
        ref_case_t exact = c;
        exact.float_exact = 1;
        if (!ref_check(&exact, out, NULL, msg, sizeof msg))
            TFAIL("%s: exact mode accepts a rounded sum (the data should not sum exactly)", ref_dtype_name(dt));
        /* drop one element from every later prefix: the largest in
         * magnitude of elements 10..199, so that what goes missing is never
         * a value the data made (nearly) zero by chance (with seed
         * 11433860037189041990, element 10 itself was within tolerance) */
        size_t k = 10;
        for (size_t i = 11; i < 200; ++i) {
            const double a = dt == LIBSCAN_F32 ? fabs((double)((float *)in)[i]) : fabs(((double *)in)[i]);
            const double b = dt == LIBSCAN_F32 ? fabs((double)((float *)in)[k]) : fabs(((double *)in)[k]);
            if (a > b) k = i;
        }
        for (size_t i = k; i < 200; ++i) {
            if (dt == LIBSCAN_F32) ((float *)out)[i] -= ((float *)in)[k];
            else ((double *)out)[i] -= ((double *)in)[k];
        }
        if (!ref_check(&c, out, NULL, msg, sizeof msg)) TFAIL("%s: the tolerance hides a dropped element", ref_dtype_name(dt));
        free(in);
        free(out);
    }
}

static void test_generators(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, "generators", 0);
    const size_t n = 100000;
    for (int d = 0; d < REF_NUM_DTYPES; ++d)
        for (int o = 0; o < REF_NUM_OPS; ++o) {
            const libscan_dtype_t dt = ref_dtypes[d];
            const libscan_op_t op = ref_ops[o];
            const size_t es = ref_dtype_size(dt);
            unsigned char *in = malloc(n * es), *out = malloc(n * es);
            assert_non_null(in);
            assert_non_null(out);
            for (size_t small = 1; small <= 3; ++small) { /* never all zeros, even tiny */
                for (int rep = 0; rep < 50; ++rep) {
                    data_fill(&r, dt, op, DATA_FLOAT_INTEGERS, in, small);
                    int nonzero = 0;
                    static const unsigned char zero[8];
                    for (size_t i = 0; i < small; ++i) nonzero |= memcmp(in + i * es, zero, es) != 0;
                    if (!nonzero) TFAIL("%s %s: all-zero input of %zu", ref_dtype_name(dt), ref_op_name(op), small);
                }
            }
            data_fill(&r, dt, op, DATA_DEFAULT, in, n);
            ref_case_t c = {dt, op, 0, in, n, NULL, 0};
            ref_scan(&c, out, NULL);
            /* the running value changes often, all along the array */
            size_t changes_first = 0, changes_last = 0;
            for (size_t i = 1; i < n; ++i)
                if (memcmp(out + i * es, out + (i - 1) * es, es) != 0) {
                    if (i < n / 2) ++changes_first;
                    else ++changes_last;
                }
            if (changes_first < n / 20 || changes_last < n / 20)
                TFAIL("%s %s: the running value changes only %zu / %zu times in each half", ref_dtype_name(dt),
                      ref_op_name(op), changes_first, changes_last);
            free(in);
            free(out);
        }
    /* the integer-valued float data sums exactly in f32 */
    float *f = malloc(n * sizeof *f);
    assert_non_null(f);
    data_fill(&r, LIBSCAN_F32, LIBSCAN_OP_SUM, DATA_FLOAT_INTEGERS, f, n);
    for (size_t i = 0; i < n; ++i)
        if (f[i] != floorf(f[i]) || fabsf(f[i]) > 4 || f[i] == 0) TFAIL("f32 integer data: %g at %zu", (double)f[i], i);
    free(f);
    for (int i = 0; i < 1000; ++i) {
        mat2_t m = data_random_mat2(&r);
        if (!((m.m[0] * m.m[3] - m.m[1] * m.m[2]) & 1u)) TFAIL("random matrix with even determinant");
        affine_t a = data_random_affine(&r);
        if (!(a.a & 1u)) TFAIL("random affine map with even a");
    }
    /* the monoids are not commutative (else they would prove nothing) */
    mat2_t x = data_random_mat2(&r), y = data_random_mat2(&r);
    mat2_t xy = mat2_mul(x, y), yx = mat2_mul(y, x);
    if (memcmp(&xy, &yx, sizeof xy) == 0) TFAIL("two random matrices commute");
    mat2_t id = mat2_identity(), xi = mat2_mul(x, id);
    if (memcmp(&xi, &x, sizeof x) != 0) TFAIL("mat2 identity");
}

static void test_rng_streams(void **state) {
    (void)state;
    rng_t a, b, c;
    rng_init(&a, "x", 1);
    rng_init(&b, "x", 1);
    rng_init(&c, "x", 2);
    int same_c = 1;
    for (int i = 0; i < 100; ++i) {
        uint64_t va = rng_u64(&a), vb = rng_u64(&b), vc = rng_u64(&c);
        if (va != vb) TFAIL("same label and index give different streams");
        if (va != vc) same_c = 0;
    }
    if (same_c) TFAIL("different indices give the same stream");
    for (int i = 0; i < 10000; ++i) {
        uint64_t v = rng_below(&a, 7);
        int64_t w = rng_range(&a, -3, 3);
        double u = rng_unit(&a);
        if (v >= 7 || w < -3 || w > 3 || u < 0 || u >= 1) TFAIL("rng out of range");
    }
}

/* ---- the harness's size cap (LIBSCAN_TEST_MAX_N) -------------------------- */

static void expect_parse(const char *text, int want_rc, size_t want_cap) {
    size_t cap = 12345;
    char why[128] = "untouched";
    const int rc = test_parse_max_n(text, &cap, why, sizeof why);
    if (rc != want_rc || cap != want_cap)
        TFAIL("test_parse_max_n(\"%s\") gave %d, cap %zu; expected %d, cap %zu", text ? text : "(null)", rc, cap,
              want_rc, want_cap);
    if (rc < 0 && why[0] == '\0') TFAIL("test_parse_max_n(\"%s\"): no reason given", text);
    if (rc >= 0 && why[0] != '\0') TFAIL("test_parse_max_n(\"%s\"): a reason (%s) for a good value", text, why);
}

static void test_max_n_parsing(void **state) {
    (void)state;
    expect_parse(NULL, 0, 0);
    expect_parse("", 0, 0);
    expect_parse("1048576", 1, 1048576);
    expect_parse("65536", 1, 65536);
    expect_parse("0001048576", 1, 1048576);
    expect_parse("18446744073709551615", 1, (size_t)18446744073709551615ull);
    const char *const bad[] = {"abc", "0", "00", "65535", "1000", "1", "-1048576", "+1048576", " 1048576",
                               "1048576 ", "1e6", "1048576k", "0x100000", "2^20", "18446744073709551616",
                               "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) expect_parse(bad[i], -1, 0);
    /* why may be NULL */
    size_t cap = 1;
    assert_int_equal(test_parse_max_n("abc", &cap, NULL, 0), -1);
    assert_int_equal(cap, 0);
}

/* The helpers under a cap set here (test_set_max_n), against values worked
 * out by hand; the cap is put back afterwards. */
static void test_max_n_helpers(void **state) {
    (void)state;
    const size_t saved = test_max_n();

    test_set_max_n(0); /* no cap: nothing changes */
    assert_true(test_size_allowed((size_t)1 << 40));
    assert_int_equal(test_capped_n((size_t)1 << 28, 1), (size_t)1 << 28);
    assert_int_equal(test_capped_n((size_t)1 << 20, 5), (size_t)1 << 20);
    assert_int_equal(test_capped_side(16384, 4), 16384);
    assert_int_equal(test_reps(20), 20);
    size_t all[] = {0, 1, (size_t)1 << 28, 5};
    assert_int_equal(test_filter_sizes(all, 4), 4);
    assert_int_equal(all[2], (size_t)1 << 28);

    test_set_max_n(1048576);
    assert_int_equal(test_max_n(), 1048576);
    assert_true(test_size_allowed(0));
    assert_true(test_size_allowed(1048576));
    assert_false(test_size_allowed(1048577));
    /* size lists: order kept, everything above the cap left out */
    size_t sizes[] = {0, 1, 8191, 8192 * 1000 + 17, 1048573, 1048576, 1048577, (size_t)1 << 28, 33};
    const size_t want[] = {0, 1, 8191, 1048573, 1048576, 33};
    const size_t k = test_filter_sizes(sizes, sizeof sizes / sizeof sizes[0]);
    assert_int_equal(k, 6);
    for (size_t i = 0; i < k; ++i) assert_int_equal(sizes[i], want[i]);
    /* single sizes: unchanged when they fit, else the largest count under
     * the cap with the same remainder mod 64 */
    assert_int_equal(test_capped_n(100003, 1), 100003);
    assert_int_equal(test_capped_n(1048576, 1), 1048576);
    assert_int_equal(test_capped_n((size_t)1 << 28, 1), 1048576);          /* remainder 0 */
    assert_int_equal(test_capped_n(((size_t)1 << 20) + 7, 1), 1048519);    /* 1048576 - 64 + 7 */
    assert_int_equal(test_capped_n(8192 * 1000 + 17, 1), 1048529);         /* 1048576 - 64 + 17 */
    assert_int_equal(test_capped_n(1048575 + 64, 1), 1048575);             /* remainder 63 fits below */
    /* per item: 3 rows of 2^20 -> rows of at most 349525 (= 1048576 / 3),
     * remainder 0 mod 64 -> 349504 */
    assert_int_equal(test_capped_n((size_t)1 << 20, 3), 349504);
    assert_int_equal(test_capped_n(200000, 5), 200000);                    /* 10^6 fits */
    assert_int_equal(test_capped_n(300000, 4), 262144 - 64 + 300000 % 64); /* 262144 = 2^20 / 4 */
    assert_int_equal(test_capped_n(5, 0), 5);                              /* items 0 counts as 1 */
    /* squares: 512^2 * 4 = 2^20; 591^2 * 3 = 1047843 <= 2^20 < 592^2 * 3 */
    assert_int_equal(test_capped_side(4096, 4), 512);
    assert_int_equal(test_capped_side(4096, 3), 591);
    assert_int_equal(test_capped_side(4096, 1), 1024);
    assert_int_equal(test_capped_side(4096, 2), 724); /* 724^2 * 2 = 1048352, 725^2 * 2 = 1051250 */
    assert_int_equal(test_capped_side(300, 4), 300);
    assert_int_equal(test_capped_side(4096, 0), 1024);
    /* repetitions */
    assert_int_equal(test_reps(20), TEST_CAPPED_REPS);
    assert_int_equal(test_reps(2), 2);
    assert_int_equal(test_reps(3), 3);
    /* a tiny cap (only reachable through test_set_max_n) still gives >= 1 */
    test_set_max_n(100);
    assert_int_equal(test_capped_n(1000, 1), 1000 % 64); /* 40: the only count <= 100 that is 40 mod 64 */
    assert_int_equal(test_capped_n(1000, 10), 10);
    assert_int_equal(test_capped_n(1000, 1000), 1);
    assert_int_equal(test_capped_side(1000, 1000), 1);

    test_set_max_n(saved);
}

static char self_exe[4096];

/* Runs this suite again with `env` in front (only test_rng_streams, so it
 * cannot recurse); returns its exit status, output in out. */
static int run_self(const char *env, char *out, size_t out_len) {
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "env %s LIBSCAN_TEST_FILTER=test_rng_streams '%s' 2>&1", env, self_exe);
    FILE *p = popen(cmd, "r");
    if (!p) TFAIL("popen(%s) failed", cmd);
    size_t n = fread(out, 1, out_len - 1, p);
    out[n] = '\0';
    const int st = pclose(p);
    if (st == -1 || !WIFEXITED(st)) TFAIL("%s: did not exit normally (status %d)", cmd, st);
    return WEXITSTATUS(st);
}

/* The environment variable end to end: a bad value stops the suite with
 * status 1 and says why; a good one is announced; unset, none of that. */
static void test_max_n_environment(void **state) {
    (void)state;
    const ssize_t len = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
    if (len <= 0) test_skip("cannot find this executable through /proc/self/exe");
    self_exe[len] = '\0';
    static char out[65536];
    const char *const bad[] = {"abc", "0", "1000", "1e6"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char env[64], want[64];
        snprintf(env, sizeof env, "LIBSCAN_TEST_MAX_N=%s", bad[i]);
        const int rc = run_self(env, out, sizeof out);
        snprintf(want, sizeof want, "LIBSCAN_TEST_MAX_N=%s: ", bad[i]);
        if (rc != 1) TFAIL("%s: exit status %d, expected 1; output:\n%s", env, rc, out);
        if (!strstr(out, want) || !strstr(out, "unset it")) TFAIL("%s: no clear message; output:\n%s", env, out);
        if (strstr(out, "PASSED")) TFAIL("%s: tests ran despite the bad value; output:\n%s", env, out);
    }
    int rc = run_self("LIBSCAN_TEST_MAX_N=1048576", out, sizeof out);
    if (rc != 0 || !strstr(out, "LIBSCAN_TEST_MAX_N=1048576: sizes above it left out"))
        TFAIL("LIBSCAN_TEST_MAX_N=1048576: exit status %d (expected 0) or no note; output:\n%s", rc, out);
    rc = run_self("LIBSCAN_TEST_MAX_N=", out, sizeof out); /* empty: no cap */
    if (rc != 0 || strstr(out, "LIBSCAN_TEST_MAX_N")) TFAIL("LIBSCAN_TEST_MAX_N empty: status %d; output:\n%s", rc, out);
    rc = run_self("-u LIBSCAN_TEST_MAX_N", out, sizeof out);
    if (rc != 0 || strstr(out, "LIBSCAN_TEST_MAX_N")) TFAIL("LIBSCAN_TEST_MAX_N unset: status %d; output:\n%s", rc, out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_integer_scans),
        cmocka_unit_test(test_reference_float_rules),
        cmocka_unit_test(test_checker_catches_errors),
        cmocka_unit_test(test_checker_float_tolerance),
        cmocka_unit_test(test_generators),
        cmocka_unit_test(test_rng_streams),
        cmocka_unit_test(test_max_n_parsing),
        cmocka_unit_test(test_max_n_helpers),
        cmocka_unit_test(test_max_n_environment),
    };
    test_begin("test_reference");
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
