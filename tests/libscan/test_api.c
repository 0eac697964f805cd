/* test_api.c -- the host-only parts of libscan's C API (label cpu): status
 * strings, dtype/op names, the version, libscan_scan_temp_bytes, every
 * bad-argument status that libscan decides before any CUDA call, and the
 * helpers for libraries built on libscan (libscan_ranges_overlap,
 * libscan_check_device_pointer, LIBSCAN_TEMP_ALIGNMENT).
 *
 *   test_api [cpu]   the host-only tests (label cpu)
 *   test_api gpu     libscan_check_device_pointer on real allocations (label
 *                    gpu; each test calls test_require_gpu() first)
 *
 * The scans here get fake, never-dereferenced device pointers: the manual
 * says every argument is checked before anything is launched, so a wrong
 * argument must be reported without CUDA being touched. On a machine
 * without a GPU a check that ran after a CUDA call would surface as
 * LIBSCAN_ERROR_CUDA, on a GPU machine as LIBSCAN_ERROR_INVALID_POINTER
 * (fake pointers are not device memory) -- either way the test fails. */
#include "support/harness.h"
#include "support/reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TEST_PROJECT_VERSION
#error "TEST_PROJECT_VERSION (the CMake project version) must be defined by the build"
#endif

typedef libscan_status_t (*scan_fn)(const void *, void *, size_t, libscan_dtype_t, libscan_op_t,
                                    const libscan_scan_opts_t *, cudaStream_t);
static const scan_fn scans[2] = {libscan_inclusive_scan, libscan_exclusive_scan};
static const char *const scan_names[2] = {"libscan_inclusive_scan", "libscan_exclusive_scan"};

/* Fake device addresses, 4 KiB apart regions, 256-byte aligned. Never
 * dereferenced by anyone. */
#define FAKE(addr) ((void *)(uintptr_t)(addr))
static void *const fake_in = FAKE(0x7e0000000000ull);
static void *const fake_out = FAKE(0x7e0000100000ull);
static void *const fake_init = FAKE(0x7e0000200000ull);
static void *const fake_total = FAKE(0x7e0000300000ull);
static void *const fake_temp = FAKE(0x7e0000400000ull);

static const libscan_status_t all_statuses[] = {
    LIBSCAN_SUCCESS,          LIBSCAN_ERROR_NULL_POINTER,   LIBSCAN_ERROR_INVALID_DTYPE,
    LIBSCAN_ERROR_INVALID_OP, LIBSCAN_ERROR_INVALID_ARGUMENT, LIBSCAN_ERROR_TEMP_TOO_SMALL,
    LIBSCAN_ERROR_OVERLAP,    LIBSCAN_ERROR_INVALID_POINTER, LIBSCAN_ERROR_TOO_LARGE,
    LIBSCAN_ERROR_OUT_OF_MEMORY, LIBSCAN_ERROR_CUDA};
#define NUM_STATUSES (sizeof all_statuses / sizeof all_statuses[0])

/* ---- helpers ------------------------------------------------------------- */

static void test_status_values_are_the_documented_ones(void **state) {
    (void)state;
    /* The enum values are ABI: explicit and only ever appended. */
    assert_int_equal(LIBSCAN_SUCCESS, 0);
    assert_int_equal(LIBSCAN_ERROR_NULL_POINTER, 1);
    assert_int_equal(LIBSCAN_ERROR_INVALID_DTYPE, 2);
    assert_int_equal(LIBSCAN_ERROR_INVALID_OP, 3);
    assert_int_equal(LIBSCAN_ERROR_INVALID_ARGUMENT, 4);
    assert_int_equal(LIBSCAN_ERROR_TEMP_TOO_SMALL, 5);
    assert_int_equal(LIBSCAN_ERROR_OVERLAP, 6);
    assert_int_equal(LIBSCAN_ERROR_INVALID_POINTER, 7);
    assert_int_equal(LIBSCAN_ERROR_TOO_LARGE, 8);
    assert_int_equal(LIBSCAN_ERROR_OUT_OF_MEMORY, 9);
    assert_int_equal(LIBSCAN_ERROR_CUDA, 10);
    assert_int_equal(LIBSCAN_U32, 0);
    assert_int_equal(LIBSCAN_I32, 1);
    assert_int_equal(LIBSCAN_U64, 2);
    assert_int_equal(LIBSCAN_I64, 3);
    assert_int_equal(LIBSCAN_F32, 4);
    assert_int_equal(LIBSCAN_F64, 5);
    assert_int_equal(LIBSCAN_OP_SUM, 0);
    assert_int_equal(LIBSCAN_OP_MIN, 1);
    assert_int_equal(LIBSCAN_OP_MAX, 2);
    assert_true(LIBSCAN_MAX_COUNT == ((size_t)1 << 40));
}

static void test_status_strings(void **state) {
    (void)state;
    const libscan_status_t unknown[] = {(libscan_status_t)11, (libscan_status_t)99, (libscan_status_t)-1,
                                        (libscan_status_t)0x7fffffff};
    const char *seen[NUM_STATUSES];
    for (size_t i = 0; i < NUM_STATUSES; ++i) {
        const char *s = libscan_status_string(all_statuses[i]);
        if (!s) TFAIL("libscan_status_string(%d) returned NULL", (int)all_statuses[i]);
        if (!*s) TFAIL("libscan_status_string(%d) returned an empty string", (int)all_statuses[i]);
        for (size_t j = 0; j < i; ++j)
            if (strcmp(seen[j], s) == 0)
                TFAIL("statuses %d and %d share the string \"%s\"", (int)all_statuses[j], (int)all_statuses[i], s);
        seen[i] = s;
    }
    for (size_t u = 0; u < sizeof unknown / sizeof unknown[0]; ++u) {
        const char *s = libscan_status_string(unknown[u]);
        if (!s) TFAIL("libscan_status_string(%d) (unknown) returned NULL", (int)unknown[u]);
        if (!*s) TFAIL("libscan_status_string(%d) (unknown) returned an empty string", (int)unknown[u]);
        for (size_t j = 0; j < NUM_STATUSES; ++j)
            if (strcmp(seen[j], s) == 0)
                TFAIL("unknown status %d gets the string of status %d: \"%s\"", (int)unknown[u], (int)all_statuses[j], s);
    }
}

static void test_dtype_size_and_name(void **state) {
    (void)state;
    /* From the manual: u32/i32/f32 are 4 bytes, u64/i64/f64 8. */
    static const struct {
        libscan_dtype_t dt;
        size_t size;
        const char *name;
    } want[] = {{LIBSCAN_U32, 4, "u32"}, {LIBSCAN_I32, 4, "i32"}, {LIBSCAN_U64, 8, "u64"},
                {LIBSCAN_I64, 8, "i64"}, {LIBSCAN_F32, 4, "f32"}, {LIBSCAN_F64, 8, "f64"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
        assert_int_equal(libscan_dtype_size(want[i].dt), want[i].size);
        const char *name = libscan_dtype_name(want[i].dt);
        assert_non_null(name);
        assert_string_equal(name, want[i].name);
    }
    const libscan_dtype_t bad[] = {(libscan_dtype_t)6, (libscan_dtype_t)99, (libscan_dtype_t)-1};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        assert_int_equal(libscan_dtype_size(bad[i]), 0);
        const char *name = libscan_dtype_name(bad[i]);
        assert_non_null(name);
        assert_string_equal(name, "unknown");
    }
}

static void test_op_name(void **state) {
    (void)state;
    assert_string_equal(libscan_op_name(LIBSCAN_OP_SUM), "sum");
    assert_string_equal(libscan_op_name(LIBSCAN_OP_MIN), "min");
    assert_string_equal(libscan_op_name(LIBSCAN_OP_MAX), "max");
    const libscan_op_t bad[] = {(libscan_op_t)3, (libscan_op_t)99, (libscan_op_t)-1};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        const char *name = libscan_op_name(bad[i]);
        assert_non_null(name);
        assert_string_equal(name, "unknown");
    }
}

static void test_version(void **state) {
    (void)state;
    char want[64];
    assert_int_equal(libscan_version(), LIBSCAN_VERSION);
    assert_int_equal(LIBSCAN_VERSION,
                     LIBSCAN_VERSION_MAJOR * 10000 + LIBSCAN_VERSION_MINOR * 100 + LIBSCAN_VERSION_PATCH);
    snprintf(want, sizeof want, "%d.%d.%d", LIBSCAN_VERSION_MAJOR, LIBSCAN_VERSION_MINOR, LIBSCAN_VERSION_PATCH);
    const char *got = libscan_version_string();
    assert_non_null(got);
    assert_string_equal(got, want);
    /* And both agree with the version CMake's project() declares. */
    assert_string_equal(got, TEST_PROJECT_VERSION);
    assert_string_equal(LIBSCAN_VERSION_STRING, TEST_PROJECT_VERSION);
}

/* ---- libscan_scan_temp_bytes -------------------------------------------- */

static void test_temp_bytes_errors(void **state) {
    (void)state;
    size_t out = 12345;
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_scan_temp_bytes(100, LIBSCAN_U32, NULL));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_scan_temp_bytes(100, (libscan_dtype_t)99, &out));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_scan_temp_bytes(100, (libscan_dtype_t)-1, &out));
    assert_int_equal(out, 12345); /* untouched on error */
    for (int d = 0; d < REF_NUM_DTYPES; ++d) {
        LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE, libscan_scan_temp_bytes(LIBSCAN_MAX_COUNT + 1, ref_dtypes[d], &out));
        LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE, libscan_scan_temp_bytes(SIZE_MAX, ref_dtypes[d], &out));
        assert_int_equal(out, 12345);
    }
}

static void test_temp_bytes_values(void **state) {
    (void)state;
    /* Counts in increasing order: small, around 2^k and tile boundaries, and
     * up to the maximum. */
    size_t counts[256];
    size_t nc = 0;
    counts[nc++] = 0;
    for (int k = 0; k <= 40; ++k) {
        size_t p = (size_t)1 << k;
        if (p > 1) counts[nc++] = p - 1;
        counts[nc++] = p;
        if (p < LIBSCAN_MAX_COUNT) counts[nc++] = p + 1;
    }
    for (int d = 0; d < REF_NUM_DTYPES; ++d) {
        const libscan_dtype_t dt = ref_dtypes[d];
        size_t prev = 0, prev_count = 0;
        for (size_t i = 0; i < nc; ++i) {
            if (i > 0 && counts[i] <= prev_count) continue; /* duplicates of 2^k +- 1 */
            size_t t = (size_t)-1;
            LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(counts[i], dt, &t));
            if (counts[i] == 0 && t != 0)
                TFAIL("%s: temp bytes for count 0 is %zu, expected 0", ref_dtype_name(dt), t);
            if (t < prev)
                TFAIL("%s: temp bytes not monotone: count %zu needs %zu, count %zu needed %zu", ref_dtype_name(dt),
                      counts[i], t, prev_count, prev);
            /* The manual: "about 8 bytes per 4096 elements". Allow generous
             * slack (64 bytes per 2048 elements + 64 KiB) but catch anything
             * proportional to the data itself. */
            size_t bound = 65536 + 64 * (counts[i] / 2048 + 1);
            if (t > bound)
                TFAIL("%s: temp bytes for count %zu is %zu, more than %zu", ref_dtype_name(dt), counts[i], t, bound);
            prev = t;
            prev_count = counts[i];
        }
        /* A big scan does need scratch (for the look-back). */
        size_t big = 0;
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes((size_t)1 << 24, dt, &big));
        if (big == 0) TFAIL("%s: temp bytes for 2^24 elements is 0", ref_dtype_name(dt));
        /* Every count up to 3 tiles, densely, is monotone too. */
        prev = 0;
        for (size_t c = 0; c <= 3 * 4096 + 3; ++c) {
            size_t t = 0;
            LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(c, dt, &t));
            if (t < prev) TFAIL("%s: temp bytes shrink from %zu to %zu at count %zu", ref_dtype_name(dt), prev, t, c);
            prev = t;
        }
    }
}

/* ---- bad arguments of the scans ------------------------------------------ */

/* Every call gets a status check; each case names itself on failure. */
#define EXPECT_BOTH(expect, in, out, count, dt, op, opts)                                                  \
    do {                                                                                                   \
        for (int k_ = 0; k_ < 2; ++k_) {                                                                   \
            libscan_status_t got_ = scans[k_]((in), (out), (count), (dt), (op), (opts), 0);                \
            if (got_ != (expect))                                                                          \
                TFAIL("%s(in=%p, out=%p, count=%zu, dtype=%d, op=%d): got %d (%s), expected %d (%s)",       \
                      scan_names[k_], (const void *)(in), (void *)(out), (size_t)(count), (int)(dt),         \
                      (int)(op), (int)got_, libscan_status_string(got_), (int)(expect),                    \
                      libscan_status_string(expect));                                                      \
        }                                                                                                  \
    } while (0)

static void test_count_zero_null_pointers_succeeds(void **state) {
    (void)state;
    /* Nothing to do and nothing to write: success without any CUDA call
     * (on a machine without a GPU any CUDA call would fail). */
    libscan_scan_opts_t zero = LIBSCAN_SCAN_OPTS_INIT;
    for (int d = 0; d < REF_NUM_DTYPES; ++d)
        for (int o = 0; o < REF_NUM_OPS; ++o) {
            EXPECT_BOTH(LIBSCAN_SUCCESS, NULL, NULL, 0, ref_dtypes[d], ref_ops[o], NULL);
            EXPECT_BOTH(LIBSCAN_SUCCESS, NULL, NULL, 0, ref_dtypes[d], ref_ops[o], &zero);
            /* pointers are ignored for count 0 */
            EXPECT_BOTH(LIBSCAN_SUCCESS, fake_in, fake_out, 0, ref_dtypes[d], ref_ops[o], NULL);
        }
}

static void test_null_data_pointers(void **state) {
    (void)state;
    for (int d = 0; d < REF_NUM_DTYPES; ++d) {
        const libscan_dtype_t dt = ref_dtypes[d];
        EXPECT_BOTH(LIBSCAN_ERROR_NULL_POINTER, NULL, fake_out, 1, dt, LIBSCAN_OP_SUM, NULL);
        EXPECT_BOTH(LIBSCAN_ERROR_NULL_POINTER, fake_in, NULL, 1, dt, LIBSCAN_OP_SUM, NULL);
        EXPECT_BOTH(LIBSCAN_ERROR_NULL_POINTER, NULL, NULL, 1000, dt, LIBSCAN_OP_MAX, NULL);
        EXPECT_BOTH(LIBSCAN_ERROR_NULL_POINTER, NULL, fake_out, LIBSCAN_MAX_COUNT, dt, LIBSCAN_OP_MIN, NULL);
    }
}

static void test_invalid_dtype_and_op(void **state) {
    (void)state;
    const libscan_dtype_t bad_dt[] = {(libscan_dtype_t)6, (libscan_dtype_t)99, (libscan_dtype_t)-1};
    const libscan_op_t bad_op[] = {(libscan_op_t)3, (libscan_op_t)99, (libscan_op_t)-1};
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_BOTH(LIBSCAN_ERROR_INVALID_DTYPE, fake_in, fake_out, 100, bad_dt[i], LIBSCAN_OP_SUM, NULL);
        EXPECT_BOTH(LIBSCAN_ERROR_INVALID_DTYPE, NULL, NULL, 0, bad_dt[i], LIBSCAN_OP_SUM, NULL);
        for (int d = 0; d < REF_NUM_DTYPES; ++d) {
            EXPECT_BOTH(LIBSCAN_ERROR_INVALID_OP, fake_in, fake_out, 100, ref_dtypes[d], bad_op[i], NULL);
            EXPECT_BOTH(LIBSCAN_ERROR_INVALID_OP, NULL, NULL, 0, ref_dtypes[d], bad_op[i], NULL);
        }
    }
}

static void test_too_large(void **state) {
    (void)state;
    for (int d = 0; d < REF_NUM_DTYPES; ++d) {
        EXPECT_BOTH(LIBSCAN_ERROR_TOO_LARGE, fake_in, fake_out, LIBSCAN_MAX_COUNT + 1, ref_dtypes[d],
                    LIBSCAN_OP_SUM, NULL);
        EXPECT_BOTH(LIBSCAN_ERROR_TOO_LARGE, fake_in, fake_out, SIZE_MAX, ref_dtypes[d], LIBSCAN_OP_MAX, NULL);
    }
}

static void test_init_and_d_init_both_set(void **state) {
    (void)state;
    uint64_t host_init = 7;
    libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
    o.init = &host_init;
    o.d_init = fake_init;
    for (int d = 0; d < REF_NUM_DTYPES; ++d) {
        EXPECT_BOTH(LIBSCAN_ERROR_INVALID_ARGUMENT, fake_in, fake_out, 100, ref_dtypes[d], LIBSCAN_OP_SUM, &o);
        EXPECT_BOTH(LIBSCAN_ERROR_INVALID_ARGUMENT, NULL, NULL, 0, ref_dtypes[d], LIBSCAN_OP_MIN, &o);
    }
}

static void test_temp_bytes_without_temp(void **state) {
    (void)state;
    libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
    o.d_temp = NULL;
    o.temp_bytes = 4096;
    for (int d = 0; d < REF_NUM_DTYPES; ++d)
        EXPECT_BOTH(LIBSCAN_ERROR_INVALID_ARGUMENT, fake_in, fake_out, 100, ref_dtypes[d], LIBSCAN_OP_SUM, &o);
}

static void test_temp_too_small(void **state) {
    (void)state;
    const size_t counts[] = {1, 4095, 4096, 4097, 1000000, (size_t)1 << 31};
    for (int d = 0; d < REF_NUM_DTYPES; ++d) {
        const libscan_dtype_t dt = ref_dtypes[d];
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
            size_t need = 0;
            LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(counts[c], dt, &need));
            if (need == 0) {
                if (counts[c] >= 1000000)
                    TFAIL("%s: libscan_scan_temp_bytes(%zu) is 0", ref_dtype_name(dt), counts[c]);
                continue; /* the manual allows 0: nothing can be too small */
            }
            /* in/out far apart so nothing overlaps the fake temp region */
            void *in = FAKE(0x100000000000ull), *out = FAKE(0x200000000000ull);
            libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
            o.d_temp = fake_temp;
            o.temp_bytes = need - 1;
            EXPECT_BOTH(LIBSCAN_ERROR_TEMP_TOO_SMALL, in, out, counts[c], dt, LIBSCAN_OP_SUM, &o);
            o.temp_bytes = 0;
            EXPECT_BOTH(LIBSCAN_ERROR_TEMP_TOO_SMALL, in, out, counts[c], dt, LIBSCAN_OP_MAX, &o);
        }
    }
}

static void test_overlap(void **state) {
    (void)state;
    for (int d = 0; d < REF_NUM_DTYPES; ++d) {
        const libscan_dtype_t dt = ref_dtypes[d];
        const size_t es = ref_dtype_size(dt), n = 1000;
        char *in = (char *)fake_in;
        /* out starts inside in, one element later, and vice versa */
        EXPECT_BOTH(LIBSCAN_ERROR_OVERLAP, in, in + es, n, dt, LIBSCAN_OP_SUM, NULL);
        EXPECT_BOTH(LIBSCAN_ERROR_OVERLAP, in + es, in, n, dt, LIBSCAN_OP_SUM, NULL);
        /* only the last element of in and the first of out */
        EXPECT_BOTH(LIBSCAN_ERROR_OVERLAP, in, in + (n - 1) * es, n, dt, LIBSCAN_OP_MIN, NULL);
        EXPECT_BOTH(LIBSCAN_ERROR_OVERLAP, in + (n - 1) * es, in, n, dt, LIBSCAN_OP_MAX, NULL);
        /* d_total inside the output: first, middle and last element */
        const size_t where[] = {0, n / 2, n - 1};
        for (size_t w = 0; w < 3; ++w) {
            libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
            o.d_total = (char *)fake_out + where[w] * es;
            EXPECT_BOTH(LIBSCAN_ERROR_OVERLAP, fake_in, fake_out, n, dt, LIBSCAN_OP_SUM, &o);
            /* in place: the output is the input */
            EXPECT_BOTH(LIBSCAN_ERROR_OVERLAP, fake_out, fake_out, n, dt, LIBSCAN_OP_SUM, &o);
        }
        /* caller temp overlapping the input, the output, d_total */
        size_t need = 0;
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(n, dt, &need));
        if (need) {
            libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
            o.temp_bytes = need;
            o.d_temp = (char *)fake_in + es; /* starts inside the input */
            EXPECT_BOTH(LIBSCAN_ERROR_OVERLAP, fake_in, fake_out, n, dt, LIBSCAN_OP_SUM, &o);
            o.d_temp = (char *)fake_out - need + 1; /* ends inside the output's first byte */
            EXPECT_BOTH(LIBSCAN_ERROR_OVERLAP, fake_in, fake_out, n, dt, LIBSCAN_OP_SUM, &o);
            o.d_temp = fake_temp;
            o.d_total = (char *)fake_temp + 256; /* d_total inside temp */
            EXPECT_BOTH(LIBSCAN_ERROR_OVERLAP, fake_in, fake_out, n, dt, LIBSCAN_OP_SUM, &o);
        }
    }
}

static void test_misaligned_pointers(void **state) {
    (void)state;
    /* Element pointers must be aligned to the element size. */
    for (int d = 0; d < REF_NUM_DTYPES; ++d) {
        const libscan_dtype_t dt = ref_dtypes[d];
        const size_t es = ref_dtype_size(dt);
        for (size_t off = 1; off < es; ++off) {
            char *in = (char *)fake_in + off, *out = (char *)fake_out + off;
            EXPECT_BOTH(LIBSCAN_ERROR_INVALID_POINTER, in, fake_out, 100, dt, LIBSCAN_OP_SUM, NULL);
            EXPECT_BOTH(LIBSCAN_ERROR_INVALID_POINTER, fake_in, out, 100, dt, LIBSCAN_OP_SUM, NULL);
            EXPECT_BOTH(LIBSCAN_ERROR_INVALID_POINTER, in, in, 100, dt, LIBSCAN_OP_MIN, NULL);
            libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
            o.d_init = (char *)fake_init + off;
            EXPECT_BOTH(LIBSCAN_ERROR_INVALID_POINTER, fake_in, fake_out, 100, dt, LIBSCAN_OP_SUM, &o);
            o.d_init = NULL;
            o.d_total = (char *)fake_total + off;
            EXPECT_BOTH(LIBSCAN_ERROR_INVALID_POINTER, fake_in, fake_out, 100, dt, LIBSCAN_OP_MAX, &o);
        }
    }
}

static void test_everything_wrong_is_an_error(void **state) {
    (void)state;
    /* When several things are wrong at once, some argument error comes back
     * (never SUCCESS, never CUDA: no CUDA call may happen first). */
    uint32_t host_init = 1;
    libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
    o.init = &host_init;
    o.d_init = fake_init;
    o.d_temp = NULL;
    o.temp_bytes = 8;
    for (int k = 0; k < 2; ++k) {
        libscan_status_t s = scans[k](NULL, NULL, LIBSCAN_MAX_COUNT + 1, (libscan_dtype_t)77, (libscan_op_t)77, &o, 0);
        if (s == LIBSCAN_SUCCESS || s == LIBSCAN_ERROR_CUDA)
            TFAIL("%s with everything wrong returned %d (%s)", scan_names[k], (int)s, libscan_status_string(s));
    }
}

/* ---- helpers for libraries built on libscan ------------------------------ */

/* Reference: the ranges [oa, oa+na) and [ob, ob+nb), given as offsets from
 * one base, share a byte -- by looking at every byte of the first. */
static int ref_overlap(size_t oa, size_t na, size_t ob, size_t nb) {
    for (size_t k = oa; k < oa + na; ++k)
        if (k >= ob && k < ob + nb) return 1;
    return 0;
}

#define EXPECT_OVERLAP(want, a, na, b, nb)                                                                  \
    do {                                                                                                    \
        const int got_ = libscan_ranges_overlap((a), (na), (b), (nb)) != 0;                                 \
        if (got_ != (want))                                                                                 \
            TFAIL("libscan_ranges_overlap(%p, %zu, %p, %zu) = %d, expected %d", (const void *)(a),          \
                  (size_t)(na), (const void *)(b), (size_t)(nb), got_, (int)(want));                        \
    } while (0)

static void test_ranges_overlap_edges(void **state) {
    (void)state;
    char *a = (char *)fake_in;
    /* adjacent, in both orders: no shared byte */
    EXPECT_OVERLAP(0, a, 16, a + 16, 16);
    EXPECT_OVERLAP(0, a + 16, 16, a, 16);
    EXPECT_OVERLAP(0, a, 1, a + 1, 1);
    /* one shared byte at either end */
    EXPECT_OVERLAP(1, a, 16, a + 15, 16);
    EXPECT_OVERLAP(1, a + 15, 16, a, 16);
    EXPECT_OVERLAP(1, a, 1, a, 1);
    /* the same range; one inside the other (in both orders, and flush with
     * either end) */
    EXPECT_OVERLAP(1, a, 4096, a, 4096);
    EXPECT_OVERLAP(1, a, 4096, a + 100, 8);
    EXPECT_OVERLAP(1, a + 100, 8, a, 4096);
    EXPECT_OVERLAP(1, a, 4096, a, 1);
    EXPECT_OVERLAP(1, a, 4096, a + 4095, 1);
    EXPECT_OVERLAP(1, a + 4095, 1, a, 4096);
    /* zero sizes never overlap, not even at the same address or inside */
    EXPECT_OVERLAP(0, a, 0, a, 16);
    EXPECT_OVERLAP(0, a, 16, a, 0);
    EXPECT_OVERLAP(0, a, 0, a, 0);
    EXPECT_OVERLAP(0, a + 8, 0, a, 16);
    EXPECT_OVERLAP(0, a, 16, a + 8, 0);
    /* NULL is no buffer */
    EXPECT_OVERLAP(0, NULL, 16, NULL, 16);
    EXPECT_OVERLAP(0, NULL, SIZE_MAX, a, 16);
    EXPECT_OVERLAP(0, a, 16, NULL, SIZE_MAX);
    /* far apart; huge sizes */
    EXPECT_OVERLAP(0, a, 4096, fake_out, 4096);
    EXPECT_OVERLAP(1, a, (size_t)((char *)fake_out - a) + 1, fake_out, 1);
    EXPECT_OVERLAP(0, a, (size_t)((char *)fake_out - a), fake_out, SIZE_MAX / 2);
    /* a range that ends exactly at the top of the address space */
    char *top = (char *)(uintptr_t)(UINTPTR_MAX - 15);
    EXPECT_OVERLAP(1, top, 16, top + 15, 1);
    EXPECT_OVERLAP(1, top + 15, 1, top, 16);
    EXPECT_OVERLAP(0, top, 16, a, 16);
    EXPECT_OVERLAP(0, a, 16, top, 16);
    EXPECT_OVERLAP(0, top - 16, 16, top, 16);
}

static void test_ranges_overlap_random(void **state) {
    (void)state;
    /* Random small ranges inside a 64-byte window, low in memory and flush
     * with the top of the address space, against the byte-by-byte reference. */
    const uintptr_t bases[2] = {(uintptr_t)fake_in, UINTPTR_MAX - 63};
    rng_t r;
    rng_init(&r, "ranges_overlap", 0);
    for (int b = 0; b < 2; ++b) {
        char *base = (char *)bases[b];
        for (int i = 0; i < 20000; ++i) {
            const size_t oa = (size_t)rng_below(&r, 49), na = (size_t)rng_below(&r, 17);
            const size_t ob = (size_t)rng_below(&r, 49), nb = (size_t)rng_below(&r, 17);
            EXPECT_OVERLAP(ref_overlap(oa, na, ob, nb), base + oa, na, base + ob, nb);
        }
    }
}

static void test_temp_alignment(void **state) {
    (void)state;
    /* The documented value, a power of two (apps align with a mask). */
    assert_int_equal(LIBSCAN_TEMP_ALIGNMENT, 256);
    assert_int_equal(LIBSCAN_TEMP_ALIGNMENT & (LIBSCAN_TEMP_ALIGNMENT - 1), 0);
}

static void test_check_device_pointer_null(void **state) {
    (void)state;
    /* Decided before any CUDA call, with or without a GPU. */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_check_device_pointer(NULL));
}

/* Caller temp: aligned up, the slack taken off, nothing allocated, no CUDA
 * call (so this runs without a GPU; the pointer is never dereferenced). */
static void test_temp_acquire_caller_buffer(void **state) {
    (void)state;
    for (uintptr_t off = 0; off < 2 * LIBSCAN_TEMP_ALIGNMENT; off += 37) {
        const uintptr_t addr = 0x10000 + off, a = LIBSCAN_TEMP_ALIGNMENT;
        const uintptr_t want = (addr + a - 1) / a * a;
        libscan_temp_t t;
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_temp_acquire((void *)addr, 1000, 700, NULL, &t));
        assert_true((uintptr_t)t.ptr == want);
        assert_int_equal(t.bytes, 1000 - (want - addr));
        assert_null(t.owned);
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_temp_release(&t, NULL)); /* frees nothing */
    }
    /* Slack larger than the buffer: nothing usable, not a wrapped size. */
    libscan_temp_t t;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_temp_acquire((void *)(uintptr_t)0x10001, 10, 0, NULL, &t));
    assert_int_equal(t.bytes, 0);
    /* Neither caller temp nor need: no temp at all. */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_temp_acquire(NULL, 0, 0, NULL, &t));
    assert_null(t.ptr);
    assert_null(t.owned);
}

/* What a plain host pointer must give: INVALID_POINTER, or SUCCESS where the
 * device can access pageable memory (asked here, not assumed). */
static libscan_status_t expected_for_host_memory(void) {
    int device = 0, pageable = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device));
    return pageable ? LIBSCAN_SUCCESS : LIBSCAN_ERROR_INVALID_POINTER;
}

static void test_check_device_pointer_host_stack(void **state) {
    (void)state;
    int on_stack[4] = {0, 1, 2, 3};
    const libscan_status_t got = libscan_check_device_pointer(on_stack);
    if (!test_gpu_present()) {
        /* No device to ask: the query itself fails, and says so. */
        if (got != LIBSCAN_ERROR_CUDA)
            TFAIL("host pointer without a GPU: got %d (%s), expected LIBSCAN_ERROR_CUDA", (int)got,
                  libscan_status_string(got));
        return;
    }
    const libscan_status_t want = expected_for_host_memory();
    if (got != want)
        TFAIL("host stack pointer: got %d (%s), expected %d (%s)", (int)got, libscan_status_string(got), (int)want,
              libscan_status_string(want));
    CUDA_CHECK(cudaGetLastError()); /* nothing left pending */
}

/* ---- libscan_check_device_pointer on the GPU (test_api gpu) -------------- */

static void test_check_device_pointer_device_memory(void **state) {
    (void)state;
    test_require_gpu();
    char *d = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d, 4096));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_check_device_pointer(d));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_check_device_pointer(d + 1));    /* inside, misaligned */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_check_device_pointer(d + 4095)); /* last byte */
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaFree(d));
}

static void test_check_device_pointer_managed_and_pinned(void **state) {
    (void)state;
    test_require_gpu();
    void *m = NULL, *h = NULL;
    CUDA_CHECK(cudaMallocManaged(&m, 4096, cudaMemAttachGlobal));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_check_device_pointer(m));
    CUDA_CHECK(cudaFree(m));
    CUDA_CHECK(cudaHostAlloc(&h, 4096, cudaHostAllocMapped));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_check_device_pointer(h));
    CUDA_CHECK(cudaFreeHost(h));
    CUDA_CHECK(cudaGetLastError());
}

static void test_check_device_pointer_host_heap(void **state) {
    (void)state;
    test_require_gpu();
    const libscan_status_t want = expected_for_host_memory();
    int on_stack = 7;
    char *heap = (char *)malloc(4096);
    assert_non_null(heap);
    LS_EXPECT(want, libscan_check_device_pointer(&on_stack));
    LS_EXPECT(want, libscan_check_device_pointer(heap));
    LS_EXPECT(want, libscan_check_device_pointer(heap + 4095));
    free(heap);
    CUDA_CHECK(cudaGetLastError());
}

/* No caller temp: a stream-ordered allocation of `need` bytes, released on the stream. */
static void test_temp_acquire_allocates(void **state) {
    (void)state;
    test_require_gpu();
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    libscan_temp_t t;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_temp_acquire(NULL, 0, 5000, s, &t));
    assert_non_null(t.owned);
    assert_true(t.ptr == t.owned);
    assert_true((uintptr_t)t.ptr % LIBSCAN_TEMP_ALIGNMENT == 0);
    assert_true(t.bytes >= 5000 - LIBSCAN_TEMP_ALIGNMENT);
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_check_device_pointer(t.ptr));
    CUDA_CHECK(cudaMemsetAsync(t.ptr, 0, t.bytes, s)); /* usable on the stream */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_temp_release(&t, s));
    assert_null(t.owned);
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaGetLastError());
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_values_are_the_documented_ones),
        cmocka_unit_test(test_status_strings),
        cmocka_unit_test(test_dtype_size_and_name),
        cmocka_unit_test(test_op_name),
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_temp_bytes_errors),
        cmocka_unit_test(test_temp_bytes_values),
        cmocka_unit_test(test_count_zero_null_pointers_succeeds),
        cmocka_unit_test(test_null_data_pointers),
        cmocka_unit_test(test_invalid_dtype_and_op),
        cmocka_unit_test(test_too_large),
        cmocka_unit_test(test_init_and_d_init_both_set),
        cmocka_unit_test(test_temp_bytes_without_temp),
        cmocka_unit_test(test_temp_too_small),
        cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_misaligned_pointers),
        cmocka_unit_test(test_everything_wrong_is_an_error),
        cmocka_unit_test(test_ranges_overlap_edges),
        cmocka_unit_test(test_ranges_overlap_random),
        cmocka_unit_test(test_temp_alignment),
        cmocka_unit_test(test_check_device_pointer_null),
        cmocka_unit_test(test_check_device_pointer_host_stack),
        cmocka_unit_test(test_temp_acquire_caller_buffer),
    };
    const struct CMUnitTest gpu_tests[] = {
        cmocka_unit_test(test_check_device_pointer_device_memory),
        cmocka_unit_test(test_check_device_pointer_managed_and_pinned),
        cmocka_unit_test(test_check_device_pointer_host_heap),
        cmocka_unit_test(test_temp_acquire_allocates),
    };
    const int gpu = argc == 2 && strcmp(argv[1], "gpu") == 0;
    if (argc > 2 || (argc == 2 && !gpu && strcmp(argv[1], "cpu") != 0)) {
        fprintf(stderr, "usage: %s [cpu|gpu]\n", argv[0]);
        return 2;
    }
    test_begin(gpu ? "test_api gpu" : "test_api");
    if (gpu) return test_exit_code(cmocka_run_group_tests_name("test_api_gpu", gpu_tests, NULL, NULL));
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
