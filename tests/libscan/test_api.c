/* test_api.c -- libscan's C API conventions, through the public calls only.
 *
 *   test_api [cpu]   the host-only tests (label cpu): status strings, dtype/op
 *                    names, the version, libscan_scan_temp_bytes, and every
 *                    bad-argument status that libscan decides before any CUDA
 *                    call (overlaps to the byte, caller temp too small, dtypes
 *                    the scans do not take)
 *   test_api gpu     the same conventions on real memory (device, managed,
 *                    mapped, host; adjacent buffers; misaligned caller temp)
 *                    and the temp cache (label gpu; each test calls
 *                    test_require_gpu() first)
 *
 * The cpu half gives the scans fake, never-dereferenced device pointers: the
 * manual says every argument is checked before anything is launched, so a
 * wrong argument must be reported without CUDA being touched. On a machine
 * without a GPU a check that ran after a CUDA call would surface as
 * LIBSCAN_ERROR_CUDA, on a GPU machine as LIBSCAN_ERROR_INVALID_POINTER
 * (fake pointers are not device memory) -- either way the test fails. The
 * one CPU-decided check that comes after the overlap checks is the caller
 * temp's size, so "these buffers do not overlap" is shown with fake pointers
 * as "the call got as far as TEMP_TOO_SMALL".
 *
 * Every expected value comes from the CPU reference (support/reference.h) or
 * from the manual, never from the library. */
#include "support/data.h"
#include "support/harness.h"
#include "support/reference.h"

#include <pthread.h>
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
    LIBSCAN_ERROR_OUT_OF_MEMORY, LIBSCAN_ERROR_CUDA, LIBSCAN_ERROR_NCCL, LIBSCAN_ERROR_CAPACITY};
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
    assert_int_equal(LIBSCAN_ERROR_NCCL, 11);
    assert_int_equal(LIBSCAN_ERROR_CAPACITY, 12);
    assert_int_equal(LIBSCAN_U32, 0);
    assert_int_equal(LIBSCAN_I32, 1);
    assert_int_equal(LIBSCAN_U64, 2);
    assert_int_equal(LIBSCAN_I64, 3);
    assert_int_equal(LIBSCAN_F32, 4);
    assert_int_equal(LIBSCAN_F64, 5);
    assert_int_equal(LIBSCAN_U8, 6);
    assert_int_equal(LIBSCAN_U16, 7);
    assert_int_equal(LIBSCAN_OP_SUM, 0);
    assert_int_equal(LIBSCAN_OP_MIN, 1);
    assert_int_equal(LIBSCAN_OP_MAX, 2);
    assert_true(LIBSCAN_MAX_COUNT == ((size_t)1 << 40));
}

static void test_status_strings(void **state) {
    (void)state;
    const libscan_status_t unknown[] = {(libscan_status_t)13, (libscan_status_t)99, (libscan_status_t)-1,
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
    /* From the manual: u32/i32/f32 are 4 bytes, u64/i64/f64 8, u8 1, u16 2. */
    static const struct {
        libscan_dtype_t dt;
        size_t size;
        const char *name;
    } want[] = {{LIBSCAN_U32, 4, "u32"}, {LIBSCAN_I32, 4, "i32"}, {LIBSCAN_U64, 8, "u64"},
                {LIBSCAN_I64, 8, "i64"}, {LIBSCAN_F32, 4, "f32"}, {LIBSCAN_F64, 8, "f64"},
                {LIBSCAN_U8, 1, "u8"},   {LIBSCAN_U16, 2, "u16"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
        assert_int_equal(libscan_dtype_size(want[i].dt), want[i].size);
        const char *name = libscan_dtype_name(want[i].dt);
        assert_non_null(name);
        assert_string_equal(name, want[i].name);
    }
    const libscan_dtype_t bad[] = {(libscan_dtype_t)8, (libscan_dtype_t)99, (libscan_dtype_t)-1};
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
    const libscan_dtype_t bad_dt[] = {(libscan_dtype_t)8, (libscan_dtype_t)99, (libscan_dtype_t)-1};
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

/* ---- U8 and U16: sort keys and SAT images only ----------------------------- */

static void test_scans_reject_u8_u16(void **state) {
    (void)state;
    /* The manual: scans and segmented scans take U32, I32, U64, I64, F32 and
     * F64 only. The dtype is checked first, before any pointer or CUDA call. */
    const libscan_dtype_t small[] = {LIBSCAN_U8, LIBSCAN_U16};
    static const uint64_t offsets[2] = {0, 100};
    size_t out = 777;
    for (size_t i = 0; i < 2; ++i) {
        const libscan_dtype_t dt = small[i];
        for (int o = 0; o < REF_NUM_OPS; ++o) {
            EXPECT_BOTH(LIBSCAN_ERROR_INVALID_DTYPE, fake_in, fake_out, 100, dt, ref_ops[o], NULL);
            EXPECT_BOTH(LIBSCAN_ERROR_INVALID_DTYPE, fake_in, fake_in, 100, dt, ref_ops[o], NULL);
            EXPECT_BOTH(LIBSCAN_ERROR_INVALID_DTYPE, NULL, NULL, 0, dt, ref_ops[o], NULL);
        }
        LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_scan_temp_bytes(100, dt, &out));
        for (int m = LIBSCAN_SEGMENTS_FLAGS; m <= LIBSCAN_SEGMENTS_ROWS; ++m)
            LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_segmented_temp_bytes(100, dt, (libscan_segments_t)m, &out));
        assert_int_equal(out, 777); /* untouched on error */
        LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE,
                  libscan_segmented_inclusive_scan(fake_in, fake_out, 100, (const unsigned char *)fake_temp, dt,
                                                   LIBSCAN_OP_SUM, NULL, 0));
        LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE,
                  libscan_segmented_exclusive_scan(fake_in, fake_out, 100, (const unsigned char *)fake_temp, dt,
                                                   LIBSCAN_OP_MAX, NULL, 0));
        LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_segmented_inclusive_scan_offsets(
                                                   fake_in, fake_out, 100, offsets, 1, dt, LIBSCAN_OP_SUM, NULL, 0));
        LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_segmented_exclusive_scan_offsets(
                                                   fake_in, fake_out, 100, offsets, 1, dt, LIBSCAN_OP_MIN, NULL, 0));
        LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE,
                  libscan_inclusive_scan_rows(fake_in, fake_out, 4, 25, 25, dt, LIBSCAN_OP_SUM, NULL, 0));
        LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE,
                  libscan_exclusive_scan_rows(fake_in, fake_out, 4, 25, 25, dt, LIBSCAN_OP_SUM, NULL, 0));
    }
}

static void test_temp_too_small_string(void **state) {
    (void)state;
    /* TEMP_TOO_SMALL is the status of every family (scan, segmented, sort,
     * compaction, SAT), so its sentence must name the family-neutral
     * *_temp_bytes() query, not one family's. */
    const char *s = libscan_status_string(LIBSCAN_ERROR_TEMP_TOO_SMALL);
    assert_non_null(s);
    if (!strstr(s, "temp")) TFAIL("TEMP_TOO_SMALL's string does not mention temp storage: \"%s\"", s);
    if (!strstr(s, "_temp_bytes()")) TFAIL("TEMP_TOO_SMALL's string does not name the *_temp_bytes() query: \"%s\"", s);
    if (strstr(s, "scan_temp_bytes") || strstr(s, "sort_temp_bytes") || strstr(s, "compact_temp_bytes") ||
        strstr(s, "sat_temp_bytes"))
        TFAIL("TEMP_TOO_SMALL's string names one family's query: \"%s\"", s);
}

/* ---- overlaps to the byte, through the scans -------------------------------- */

/* Far from every other fake buffer: a caller temp that is one byte too small
 * stops a call at TEMP_TOO_SMALL, the check after the overlap checks, so that
 * status says "these buffers passed the overlap checks" without any CUDA call. */
static void *const far_temp = FAKE(0x600000000000ull);

/* Calls both scans on the layout (o's d_init and d_total as given) with
 * far_temp one byte short and expects OVERLAP or, when the buffers are
 * fine, TEMP_TOO_SMALL. */
static void expect_layout(int overlap, const void *in, void *out, size_t n, libscan_dtype_t dt,
                          libscan_scan_opts_t o, const char *what) {
    size_t need = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(n, dt, &need));
    if (need == 0) TFAIL("%s: a scan of %zu %s needs no temp; this check relies on the temp size check", what, n,
                         ref_dtype_name(dt));
    o.d_temp = far_temp;
    o.temp_bytes = need - 1;
    const libscan_status_t want = overlap ? LIBSCAN_ERROR_OVERLAP : LIBSCAN_ERROR_TEMP_TOO_SMALL;
    for (int k = 0; k < 2; ++k) {
        const libscan_status_t got = scans[k](in, out, n, dt, LIBSCAN_OP_SUM, &o, 0);
        if (got != want)
            TFAIL("%s: %s(in=%p, out=%p, n=%zu, %s, d_init=%p, d_total=%p): got %d (%s), expected %d (%s)", what,
                  scan_names[k], in, out, n, ref_dtype_name(dt), o.d_init, o.d_total, (int)got,
                  libscan_status_string(got), (int)want, libscan_status_string(want));
    }
}

static void test_overlap_edges(void **state) {
    (void)state;
    static const libscan_scan_opts_t none = LIBSCAN_SCAN_OPTS_INIT;
    for (int d = 0; d < REF_NUM_DTYPES; ++d) {
        const libscan_dtype_t dt = ref_dtypes[d];
        const size_t es = ref_dtype_size(dt), n = 1000, bytes = n * es;
        char *a = (char *)FAKE(0x100000000000ull), *far = (char *)FAKE(0x200000000000ull);
        libscan_scan_opts_t o = none;

        /* in and out: adjacent in either order is fine, one shared element is not */
        expect_layout(0, a, a + bytes, n, dt, none, "out just above in");
        expect_layout(0, a + bytes, a, n, dt, none, "out just below in");
        expect_layout(1, a, a + bytes - es, n, dt, none, "out's first element is in's last");
        expect_layout(1, a + bytes - es, a, n, dt, none, "out's last element is in's first");
        expect_layout(0, a, a, n, dt, none, "in place");

        /* d_total: just outside in and out is fine, their first or last element is not */
        o.d_total = far - es;
        expect_layout(0, a, far, n, dt, o, "d_total just below out");
        o.d_total = far + bytes;
        expect_layout(0, a, far, n, dt, o, "d_total just above out");
        o.d_total = far + bytes - es;
        expect_layout(1, a, far, n, dt, o, "d_total on out's last element");
        o.d_total = far;
        expect_layout(1, a, far, n, dt, o, "d_total on out's first element");
        o.d_total = a + bytes;
        expect_layout(0, a, far, n, dt, o, "d_total just above in");
        o.d_total = a + bytes - es;
        expect_layout(1, a, far, n, dt, o, "d_total on in's last element");
        o.d_total = a - es;
        expect_layout(0, a, far, n, dt, o, "d_total just below in");

        /* d_init: read only, so it may share bytes with in (two readers), not
         * with out; d_total == d_init carries in place. */
        o = none;
        o.d_init = a + 5 * es;
        expect_layout(0, a, far, n, dt, o, "d_init inside in");
        o.d_init = far + bytes - es;
        expect_layout(1, a, far, n, dt, o, "d_init on out's last element");
        o.d_init = far + bytes;
        expect_layout(0, a, far, n, dt, o, "d_init just above out");
        o.d_init = o.d_total = far + bytes;
        expect_layout(0, a, far, n, dt, o, "d_total == d_init");
        o.d_init = far + bytes;
        o.d_total = far + bytes + es;
        expect_layout(0, a, far, n, dt, o, "d_total just above d_init");

        /* The top of the address space: differences, never sums that wrap. */
        char *top_in = (char *)(uintptr_t)(UINTPTR_MAX - bytes + 1); /* ends at the last byte */
        expect_layout(0, top_in, top_in - bytes, n, dt, none, "in ends at the top, out just below");
        expect_layout(1, top_in, top_in - bytes + es, n, dt, none, "in ends at the top, one shared element");
        expect_layout(1, top_in - bytes + es, top_in, n, dt, none, "out ends at the top, one shared element");
        o = none;
        o.d_total = (char *)(uintptr_t)(UINTPTR_MAX - es + 1);
        expect_layout(1, a, top_in, n, dt, o, "d_total on the last element of out at the top");
        expect_layout(0, a, far, n, dt, o, "d_total at the top, away from in and out");

        /* Caller temp of the right size: one shared byte with any buffer is OVERLAP. */
        size_t need = 0;
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(n, dt, &need));
        assert_true(need > 0);
        o = none;
        o.temp_bytes = need;
        o.d_total = far + 2 * bytes;
        char *const temp_at[] = {a + bytes - 1, a - need + 1, far + bytes - 1, far - need + 1, far + 2 * bytes - need + 1,
                                 far + 2 * bytes + es - 1};
        const char *const temp_what[] = {"temp starts on in's last byte",  "temp ends on in's first byte",
                                         "temp starts on out's last byte", "temp ends on out's first byte",
                                         "temp ends on d_total's first byte", "temp starts on d_total's last byte"};
        for (size_t t = 0; t < sizeof temp_at / sizeof temp_at[0]; ++t) {
            o.d_temp = temp_at[t];
            for (int k = 0; k < 2; ++k) {
                const libscan_status_t got = scans[k](a, far, n, dt, LIBSCAN_OP_SUM, &o, 0);
                if (got != LIBSCAN_ERROR_OVERLAP)
                    TFAIL("%s, %s: %s gave %d (%s), expected OVERLAP", temp_what[t], ref_dtype_name(dt),
                          scan_names[k], (int)got, libscan_status_string(got));
            }
        }
    }
}

/* Reference: the ranges [oa, oa+na) and [ob, ob+nb), given as offsets from
 * one base, share a byte -- by looking at every byte of the first. */
static int ref_overlap(size_t oa, size_t na, size_t ob, size_t nb) {
    for (size_t k = oa; k < oa + na; ++k)
        if (k >= ob && k < ob + nb) return 1;
    return 0;
}

static void test_overlap_random(void **state) {
    (void)state;
    /* Random small in, out and d_total inside a window, low in memory and
     * flush with the top of the address space, against the byte-by-byte
     * reference and the manual's rules (in == out is in place; d_total may
     * overlap neither). */
    rng_t r;
    rng_init(&r, "overlap_random", 0);
    for (int d = 0; d < REF_NUM_DTYPES; ++d) {
        const libscan_dtype_t dt = ref_dtypes[d];
        const size_t es = ref_dtype_size(dt), window = 64 * es;
        const uintptr_t bases[2] = {(uintptr_t)0x100000000000ull, UINTPTR_MAX - window + 1};
        for (int b = 0; b < 2; ++b) {
            char *base = (char *)bases[b];
            for (int i = 0; i < 2000; ++i) {
                const size_t n = 1 + (size_t)rng_below(&r, 16), bytes = n * es;
                const size_t oi = es * (size_t)rng_below(&r, 64 - n + 1), oo = es * (size_t)rng_below(&r, 64 - n + 1);
                libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
                int overlap = oi != oo && ref_overlap(oi, bytes, oo, bytes);
                if (rng_below(&r, 2)) {
                    const size_t ot = es * (size_t)rng_below(&r, 64);
                    o.d_total = base + ot;
                    overlap |= ref_overlap(ot, es, oi, bytes) || ref_overlap(ot, es, oo, bytes);
                }
                char what[96];
                snprintf(what, sizeof what, "random layout %d/%d", b, i);
                expect_layout(overlap, base + oi, base + oo, n, dt, o, what);
            }
        }
    }
}

static void test_temp_alignment(void **state) {
    (void)state;
    /* The documented value, a power of two (apps align with a mask). */
    assert_int_equal(LIBSCAN_TEMP_ALIGNMENT, 256);
    assert_int_equal(LIBSCAN_TEMP_ALIGNMENT & (LIBSCAN_TEMP_ALIGNMENT - 1), 0);
}

/* ---- host memory ------------------------------------------------------------ */

/* What a plain host pointer must give: INVALID_POINTER, or SUCCESS where the
 * device can access pageable memory (asked here, not assumed). */
static libscan_status_t expected_for_host_memory(void) {
    int device = 0, pageable = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device));
    return pageable ? LIBSCAN_SUCCESS : LIBSCAN_ERROR_INVALID_POINTER;
}

static void expect_bytes(const unsigned char *p, size_t bytes, unsigned char value, const char *what) {
    for (size_t i = 0; i < bytes; ++i)
        if (p[i] != value) TFAIL("%s: byte %zu is 0x%02x, expected 0x%02x (untouched)", what, i, p[i], value);
}

static void test_host_stack_pointers(void **state) {
    (void)state;
    /* The device-pointer check is the one check that asks CUDA: without a
     * GPU it fails as CUDA, with one a stack array is INVALID_POINTER (unless
     * the device reads pageable memory). Never written either way. */
    uint32_t in[64], out[64];
    for (int i = 0; i < 64; ++i) in[i] = (uint32_t)(i * 7 + 1);
    for (int k = 0; k < 2; ++k) {
        memset(out, 0xAB, sizeof out);
        const libscan_status_t got = scans[k](in, out, 64, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, 0);
        if (!test_gpu_present()) {
            if (got != LIBSCAN_ERROR_CUDA)
                TFAIL("%s on host memory without a GPU: got %d (%s), expected LIBSCAN_ERROR_CUDA", scan_names[k],
                      (int)got, libscan_status_string(got));
            expect_bytes((const unsigned char *)out, sizeof out, 0xAB, "host output without a GPU");
            continue;
        }
        const libscan_status_t want = expected_for_host_memory();
        if (got != want)
            TFAIL("%s on a host stack array: got %d (%s), expected %d (%s)", scan_names[k], (int)got,
                  libscan_status_string(got), (int)want, libscan_status_string(want));
        if (want == LIBSCAN_ERROR_INVALID_POINTER) {
            expect_bytes((const unsigned char *)out, sizeof out, 0xAB, "rejected host output");
        } else {
            CUDA_SYNC();
            ref_case_t c = {LIBSCAN_U32, LIBSCAN_OP_SUM, k, in, 64, NULL, 0};
            char msg[512];
            if (ref_check(&c, out, NULL, msg, sizeof msg)) TFAIL("%s on pageable memory: %s", scan_names[k], msg);
        }
        CUDA_CHECK(cudaGetLastError()); /* nothing left pending */
    }
}

/* ===== GPU half (test_api gpu) ================================================ */

/* n random elements for op into h (host) and d (device). */
static void fill_upload(rng_t *r, libscan_dtype_t dt, libscan_op_t op, void *h, void *d, size_t n) {
    data_fill(r, dt, op, DATA_DEFAULT, h, n);
    CUDA_CHECK(cudaMemcpy(d, h, n * ref_dtype_size(dt), cudaMemcpyHostToDevice));
}

/* Copies d_out back into h_out and checks it (and d_total, when given,
 * against the carry-out) against the CPU reference. */
static void check_against_reference(libscan_dtype_t dt, libscan_op_t op, int excl, const void *h_in, size_t n,
                                    const void *h_init, const void *d_out, void *h_out, const void *d_total,
                                    const char *what) {
    unsigned char total[8];
    CUDA_CHECK(cudaMemcpy(h_out, d_out, n * ref_dtype_size(dt), cudaMemcpyDeviceToHost));
    if (d_total) CUDA_CHECK(cudaMemcpy(total, d_total, ref_dtype_size(dt), cudaMemcpyDeviceToHost));
    ref_case_t c = {dt, op, excl, h_in, n, h_init, 0};
    char msg[512];
    if (ref_check(&c, h_out, d_total ? total : NULL, msg, sizeof msg))
        TFAIL("%s (%s %s %s, n=%zu): %s", what, excl ? "exclusive" : "inclusive", ref_dtype_name(dt), ref_op_name(op),
              n, msg);
}

static void expect_device_bytes(const void *d, size_t bytes, unsigned char value, const char *what) {
    unsigned char *h = (unsigned char *)malloc(bytes);
    assert_non_null(h);
    CUDA_CHECK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
    expect_bytes(h, bytes, value, what);
    free(h);
}

static void test_gpu_device_memory_inside_allocation(void **state) {
    (void)state;
    test_require_gpu();
    /* Pointers into the middle of allocations (element-aligned, not
     * 256-aligned) are device memory too. */
    rng_t r;
    rng_init(&r, "inside_allocation", 0);
    const size_t n = 100003;
    for (int d = 0; d < REF_NUM_DTYPES; ++d) {
        const libscan_dtype_t dt = ref_dtypes[d];
        const size_t es = ref_dtype_size(dt);
        char *din = NULL, *dout = NULL;
        CUDA_CHECK(cudaMalloc((void **)&din, (n + 3) * es));
        CUDA_CHECK(cudaMalloc((void **)&dout, (n + 3) * es));
        void *h_in = malloc(n * es), *h_out = malloc(n * es);
        assert_non_null(h_in);
        assert_non_null(h_out);
        data_fill(&r, dt, LIBSCAN_OP_SUM, DATA_DEFAULT, h_in, n);
        CUDA_CHECK(cudaMemcpy(din + es, h_in, n * es, cudaMemcpyHostToDevice));
        for (int k = 0; k < 2; ++k) {
            LS_EXPECT(LIBSCAN_SUCCESS, scans[k](din + es, dout + 3 * es, n, dt, LIBSCAN_OP_SUM, NULL, 0));
            check_against_reference(dt, LIBSCAN_OP_SUM, k, h_in, n, NULL, dout + 3 * es, h_out, NULL,
                                    "pointers inside allocations");
        }
        free(h_in);
        free(h_out);
        CUDA_CHECK(cudaFree(din));
        CUDA_CHECK(cudaFree(dout));
    }
    CUDA_CHECK(cudaGetLastError());
}

static void test_gpu_managed_and_mapped_pinned(void **state) {
    (void)state;
    test_require_gpu();
    /* Managed and mapped pinned memory are device-accessible: accepted, and
     * scanned right (the count takes the look-back, so temp is used too). */
    const size_t n = (1u << 20) + 5;
    rng_t r;
    rng_init(&r, "managed_pinned", 0);
    uint64_t *ref_in = (uint64_t *)malloc(n * 8), *h_out = (uint64_t *)malloc(n * 8);
    assert_non_null(ref_in);
    assert_non_null(h_out);
    data_fill(&r, LIBSCAN_U64, LIBSCAN_OP_SUM, DATA_DEFAULT, ref_in, n);
    for (int kind = 0; kind < 2; ++kind) {
        void *in = NULL, *out = NULL;
        if (kind == 0) {
            CUDA_CHECK(cudaMallocManaged(&in, n * 8, cudaMemAttachGlobal));
            CUDA_CHECK(cudaMallocManaged(&out, n * 8, cudaMemAttachGlobal));
        } else {
            CUDA_CHECK(cudaHostAlloc(&in, n * 8, cudaHostAllocMapped));
            CUDA_CHECK(cudaHostAlloc(&out, n * 8, cudaHostAllocMapped));
        }
        memcpy(in, ref_in, n * 8);
        for (int k = 0; k < 2; ++k) {
            LS_EXPECT(LIBSCAN_SUCCESS, scans[k](in, out, n, LIBSCAN_U64, LIBSCAN_OP_SUM, NULL, 0));
            CUDA_SYNC();
            memcpy(h_out, out, n * 8);
            ref_case_t c = {LIBSCAN_U64, LIBSCAN_OP_SUM, k, ref_in, n, NULL, 0};
            char msg[512];
            if (ref_check(&c, h_out, NULL, msg, sizeof msg))
                TFAIL("%s on %s memory: %s", scan_names[k], kind ? "mapped pinned" : "managed", msg);
        }
        if (kind == 0) {
            CUDA_CHECK(cudaFree(in));
            CUDA_CHECK(cudaFree(out));
        } else {
            CUDA_CHECK(cudaFreeHost(in));
            CUDA_CHECK(cudaFreeHost(out));
        }
    }
    free(ref_in);
    free(h_out);
    CUDA_CHECK(cudaGetLastError());
}

static void test_gpu_host_pointers_rejected(void **state) {
    (void)state;
    test_require_gpu();
    /* Plain host memory as any argument: INVALID_POINTER and nothing written
     * (or, where the device reads pageable memory, a right result). The count
     * takes the look-back, so a host d_temp is one the call would use. */
    const libscan_status_t want = expected_for_host_memory();
    const size_t n = 1u << 20, bytes = n * 4;
    size_t need = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(n, LIBSCAN_U32, &need));
    rng_t r;
    rng_init(&r, "host_pointers", 0);
    uint32_t *h_in = (uint32_t *)malloc(bytes), *h_out = (uint32_t *)malloc(bytes);
    unsigned char *h_temp = (unsigned char *)malloc(need);
    uint32_t *h_init = (uint32_t *)malloc(4), *h_total = (uint32_t *)malloc(4);
    assert_non_null(h_in);
    assert_non_null(h_out);
    assert_non_null(h_temp);
    assert_non_null(h_init);
    assert_non_null(h_total);
    void *d_in = NULL, *d_out = NULL;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    fill_upload(&r, LIBSCAN_U32, LIBSCAN_OP_SUM, h_in, d_in, n);
    *h_init = 12345u;

    for (int k = 0; k < 2; ++k) {
        char what[128];
        /* host input */
        CUDA_CHECK(cudaMemset(d_out, 0xAB, bytes));
        CUDA_CHECK(cudaDeviceSynchronize()); /* the legacy stream's memset, settled before non-blocking streams run */
        snprintf(what, sizeof what, "%s with a host d_in", scan_names[k]);
        LS_EXPECT(want, scans[k](h_in, d_out, n, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, 0));
        CUDA_SYNC();
        if (want != LIBSCAN_SUCCESS) expect_device_bytes(d_out, bytes, 0xAB, what);
        else check_against_reference(LIBSCAN_U32, LIBSCAN_OP_SUM, k, h_in, n, NULL, d_out, h_out, NULL, what);

        /* host output */
        memset(h_out, 0xAB, bytes);
        snprintf(what, sizeof what, "%s with a host d_out", scan_names[k]);
        LS_EXPECT(want, scans[k](d_in, h_out, n, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, 0));
        CUDA_SYNC();
        if (want != LIBSCAN_SUCCESS) {
            expect_bytes((const unsigned char *)h_out, bytes, 0xAB, what);
        } else {
            ref_case_t c = {LIBSCAN_U32, LIBSCAN_OP_SUM, k, h_in, n, NULL, 0};
            char msg[512];
            if (ref_check(&c, h_out, NULL, msg, sizeof msg)) TFAIL("%s: %s", what, msg);
        }

        /* host d_init, d_total, d_temp */
        for (int which = 0; which < 3; ++which) {
            libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
            const char *name = which == 0 ? "d_init" : which == 1 ? "d_total" : "d_temp";
            if (which == 0) o.d_init = h_init;
            if (which == 1) o.d_total = h_total;
            if (which == 2) {
                o.d_temp = h_temp;
                o.temp_bytes = need;
            }
            *h_total = 0xCDCDCDCDu;
            CUDA_CHECK(cudaMemset(d_out, 0xAB, bytes));
            CUDA_CHECK(cudaDeviceSynchronize()); /* the legacy stream's memset, settled before non-blocking streams run */
            snprintf(what, sizeof what, "%s with a host %s", scan_names[k], name);
            LS_EXPECT(want, scans[k](d_in, d_out, n, LIBSCAN_U32, LIBSCAN_OP_SUM, &o, 0));
            CUDA_SYNC();
            if (want != LIBSCAN_SUCCESS) {
                expect_device_bytes(d_out, bytes, 0xAB, what);
                if (*h_total != 0xCDCDCDCDu) TFAIL("%s: the host d_total was written", what);
            } else {
                check_against_reference(LIBSCAN_U32, LIBSCAN_OP_SUM, k, h_in, n, which == 0 ? h_init : NULL, d_out,
                                        h_out, NULL, what);
            }
        }
    }
    CUDA_CHECK(cudaGetLastError()); /* nothing left pending */
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(h_in);
    free(h_out);
    free(h_temp);
    free(h_init);
    free(h_total);
}

static void test_gpu_adjacent_buffers(void **state) {
    (void)state;
    test_require_gpu();
    /* in, out, d_init, d_total and caller temp packed back to back in one
     * allocation, no byte shared: accepted, and right. Two orders. */
    rng_t r;
    rng_init(&r, "adjacent", 0);
    const size_t n = (1u << 20) + 3;
    const libscan_dtype_t dts[2] = {LIBSCAN_U32, LIBSCAN_I64};
    for (int d = 0; d < 2; ++d) {
        const libscan_dtype_t dt = dts[d];
        const size_t es = ref_dtype_size(dt), bytes = n * es;
        size_t need = 0;
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(n, dt, &need));
        char *block = NULL;
        const size_t temp_room = (need + es - 1) / es * es; /* keeps what follows the temp aligned */
        CUDA_CHECK(cudaMalloc((void **)&block, 2 * bytes + 2 * es + temp_room));
        void *h_in = malloc(bytes), *h_out = malloc(bytes);
        assert_non_null(h_in);
        assert_non_null(h_out);
        unsigned char init[8];
        for (int layout = 0; layout < 2; ++layout) {
            char *in, *out, *d_init, *d_total, *temp;
            if (layout == 0) { /* [in][out][init][total][temp] */
                in = block;
                out = in + bytes;
                d_init = out + bytes;
                d_total = d_init + es;
                temp = d_total + es;
            } else { /* [temp][total][init][out][in]; temp's size rounded up to the element size */
                temp = block;
                d_total = temp + temp_room;
                d_init = d_total + es;
                out = d_init + es;
                in = out + bytes;
            }
            for (int k = 0; k < 2; ++k) {
                char what[96];
                snprintf(what, sizeof what, "adjacent buffers, layout %d, %s", layout, scan_names[k]);
                fill_upload(&r, dt, LIBSCAN_OP_SUM, h_in, in, n);
                data_pick_init(&r, dt, LIBSCAN_OP_SUM, DATA_DEFAULT, h_in, n, init);
                CUDA_CHECK(cudaMemcpy(d_init, init, es, cudaMemcpyHostToDevice));
                libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
                o.d_init = d_init;
                o.d_total = d_total;
                o.d_temp = temp;
                o.temp_bytes = layout == 0 ? need : temp_room;
                LS_EXPECT(LIBSCAN_SUCCESS, scans[k](in, out, n, dt, LIBSCAN_OP_SUM, &o, 0));
                CUDA_SYNC();
                check_against_reference(dt, LIBSCAN_OP_SUM, k, h_in, n, init, out, h_out, d_total, what);
            }
        }
        free(h_in);
        free(h_out);
        CUDA_CHECK(cudaFree(block));
    }
    CUDA_CHECK(cudaGetLastError());
}

static void test_gpu_caller_temp_misaligned(void **state) {
    (void)state;
    test_require_gpu();
    /* *_temp_bytes() includes LIBSCAN_TEMP_ALIGNMENT bytes of slack, so a
     * d_temp at any address works with exactly that many bytes, and the call
     * touches nothing outside [d_temp, d_temp + temp_bytes). */
    enum { GUARD = 4096 };
    rng_t r;
    rng_init(&r, "temp_misaligned", 0);
    const size_t n = (1u << 20) + 17;
    const size_t offsets[] = {0, 1, 3, 17, 128, 255, 256, 257};
    const libscan_dtype_t dts[2] = {LIBSCAN_U32, LIBSCAN_F64};
    for (int d = 0; d < 2; ++d) {
        const libscan_dtype_t dt = dts[d];
        const size_t es = ref_dtype_size(dt);
        size_t need = 0;
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(n, dt, &need));
        assert_true(need > LIBSCAN_TEMP_ALIGNMENT);
        const size_t region = GUARD + 512 + need + GUARD;
        unsigned char *d_region = NULL, *h_region = (unsigned char *)malloc(region);
        void *d_in = NULL, *d_out = NULL, *h_in = malloc(n * es), *h_out = malloc(n * es);
        assert_non_null(h_region);
        assert_non_null(h_in);
        assert_non_null(h_out);
        CUDA_CHECK(cudaMalloc((void **)&d_region, region));
        CUDA_CHECK(cudaMalloc(&d_in, n * es));
        CUDA_CHECK(cudaMalloc(&d_out, n * es));
        fill_upload(&r, dt, LIBSCAN_OP_SUM, h_in, d_in, n);
        for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; ++i) {
            const size_t off = GUARD + offsets[i];
            for (int k = 0; k < 2; ++k) {
                char what[96];
                snprintf(what, sizeof what, "d_temp at 256 * m + %zu, %s", offsets[i], scan_names[k]);
                CUDA_CHECK(cudaMemset(d_region, 0x5A, region));
                CUDA_CHECK(cudaDeviceSynchronize()); /* the legacy stream's memset, settled before non-blocking streams run */
                libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
                o.d_temp = d_region + off;
                o.temp_bytes = need;
                LS_EXPECT(LIBSCAN_SUCCESS, scans[k](d_in, d_out, n, dt, LIBSCAN_OP_SUM, &o, 0));
                CUDA_SYNC();
                check_against_reference(dt, LIBSCAN_OP_SUM, k, h_in, n, NULL, d_out, h_out, NULL, what);
                CUDA_CHECK(cudaMemcpy(h_region, d_region, region, cudaMemcpyDeviceToHost));
                expect_bytes(h_region, off, 0x5A, "bytes before d_temp");
                expect_bytes(h_region + off + need, region - off - need, 0x5A, "bytes after d_temp + temp_bytes");
            }
        }
        CUDA_CHECK(cudaFree(d_region));
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_out));
        free(h_region);
        free(h_in);
        free(h_out);
    }
    CUDA_CHECK(cudaGetLastError());
}

static void test_gpu_temp_too_small(void **state) {
    (void)state;
    test_require_gpu();
    /* Real device temp one byte short (and none at all): TEMP_TOO_SMALL,
     * nothing written. */
    const size_t n = (1u << 22) + 1, bytes = n * 4;
    size_t need = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(n, LIBSCAN_U32, &need));
    void *d_in = NULL, *d_out = NULL, *d_temp = NULL, *d_total = NULL;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    CUDA_CHECK(cudaMalloc(&d_temp, need));
    CUDA_CHECK(cudaMalloc(&d_total, 4));
    CUDA_CHECK(cudaMemset(d_in, 1, bytes));
    CUDA_CHECK(cudaDeviceSynchronize()); /* the legacy stream's memset, settled before non-blocking streams run */
    const size_t sizes[2] = {need - 1, 0};
    for (int i = 0; i < 2; ++i)
        for (int k = 0; k < 2; ++k) {
            CUDA_CHECK(cudaMemset(d_out, 0xAB, bytes));
            CUDA_CHECK(cudaDeviceSynchronize()); /* the legacy stream's memset, settled before non-blocking streams run */
            CUDA_CHECK(cudaMemset(d_total, 0xAB, 4));
            CUDA_CHECK(cudaDeviceSynchronize()); /* the legacy stream's memset, settled before non-blocking streams run */
            libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
            o.d_temp = d_temp;
            o.temp_bytes = sizes[i];
            o.d_total = d_total;
            LS_EXPECT(LIBSCAN_ERROR_TEMP_TOO_SMALL, scans[k](d_in, d_out, n, LIBSCAN_U32, LIBSCAN_OP_SUM, &o, 0));
            CUDA_SYNC();
            expect_device_bytes(d_out, bytes, 0xAB, "output after TEMP_TOO_SMALL");
            expect_device_bytes(d_total, 4, 0xAB, "d_total after TEMP_TOO_SMALL");
        }
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_temp));
    CUDA_CHECK(cudaFree(d_total));
    CUDA_CHECK(cudaGetLastError());
}

/* ---- the temp cache ------------------------------------------------------------ */

/* The pool reserves memory from the driver in granules: 32 MiB for small
 * blocks on an H100 with CUDA 13 (a 1.5 KiB block reserved 32 MiB, measured
 * at e37a99b), so the pool may hold up to one granule more than the cached
 * blocks; the bound checked is cached + 32 MiB. */
#define POOL_SLACK ((size_t)32 << 20)

static void cache_info(size_t *cached, size_t *pool, size_t *limit) {
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_temp_cache_info(cached, pool, limit));
}

/* Every cache test starts from an empty cache. */
static void cache_reset(void) {
    CUDA_SYNC();
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_temp_cache_release());
    size_t cached = 1, pool = 1;
    cache_info(&cached, &pool, NULL);
    if (cached != 0 || pool != 0) TFAIL("after libscan_temp_cache_release: cached %zu, pool %zu bytes", cached, pool);
}

static size_t scan_need(size_t n, libscan_dtype_t dt) {
    size_t need = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(n, dt, &need));
    return need;
}

static void test_gpu_cache_holds_the_largest_temp(void **state) {
    (void)state;
    test_require_gpu();
    cache_reset();
    /* opts = NULL scans of 2^10 .. 2^24 elements, u32 and u64, in random
     * order on one stream: the cache then holds the largest temp any of them
     * asked for (the largest counts take the look-back, which uses temp), and
     * the pool no more than that plus a granule. */
    rng_t r;
    rng_init(&r, "cache_largest", 0);
    enum { LO = 10, HI = 24, CALLS = 2 * (HI - LO + 1) };
    struct {
        size_t n;
        libscan_dtype_t dt;
    } calls[CALLS];
    int nc = 0;
    for (int k = LO; k <= HI; ++k) {
        calls[nc].n = (size_t)1 << k;
        calls[nc++].dt = LIBSCAN_U32;
        calls[nc].n = (size_t)1 << k;
        calls[nc++].dt = LIBSCAN_U64;
    }
    for (int i = nc - 1; i > 0; --i) { /* Fisher-Yates */
        const int j = (int)rng_below(&r, (uint64_t)i + 1);
        const size_t n = calls[i].n;
        const libscan_dtype_t dt = calls[i].dt;
        calls[i] = calls[j];
        calls[j].n = n;
        calls[j].dt = dt;
    }
    void *d_in = NULL, *d_out = NULL;
    CUDA_CHECK(cudaMalloc(&d_in, ((size_t)1 << HI) * 8));
    CUDA_CHECK(cudaMalloc(&d_out, ((size_t)1 << HI) * 8));
    CUDA_CHECK(cudaMemset(d_in, 0, ((size_t)1 << HI) * 8));
    CUDA_CHECK(cudaDeviceSynchronize()); /* the legacy stream's memset, settled before non-blocking streams run */
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    size_t largest = 0;
    for (int i = 0; i < nc; ++i) {
        const size_t need = scan_need(calls[i].n, calls[i].dt);
        if (need > largest) largest = need;
        libscan_status_t st = scans[i % 2](d_in, d_out, calls[i].n, calls[i].dt, LIBSCAN_OP_SUM, NULL, s);
        if (st != LIBSCAN_SUCCESS)
            TFAIL("call %d (n=%zu, %s) returned %s", i, calls[i].n, ref_dtype_name(calls[i].dt),
                  libscan_status_string(st));
    }
    CUDA_CHECK(cudaStreamSynchronize(s));
    size_t cached = 0, pool = 0;
    cache_info(&cached, &pool, NULL);
    if (cached != largest) TFAIL("cache holds %zu bytes, expected the largest temp of the calls, %zu", cached, largest);
    if (pool < cached || pool > cached + POOL_SLACK)
        TFAIL("pool holds %zu bytes after a sync, expected %zu .. %zu (cached + one granule)", pool, cached,
              cached + POOL_SLACK);
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
}

static void test_gpu_cache_does_not_grow_with_calls(void **state) {
    (void)state;
    test_require_gpu();
    cache_reset();
    /* 1000 calls of one size, then 200 smaller ones: the block is reused,
     * the cache and the pool stay where the first call put them. */
    const size_t n = (size_t)1 << 22;
    const size_t need = scan_need(n, LIBSCAN_U32);
    void *d_in = NULL, *d_out = NULL;
    CUDA_CHECK(cudaMalloc(&d_in, n * 4));
    CUDA_CHECK(cudaMalloc(&d_out, n * 4));
    CUDA_CHECK(cudaMemset(d_in, 0, n * 4));
    CUDA_CHECK(cudaDeviceSynchronize()); /* the legacy stream's memset, settled before non-blocking streams run */
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_inclusive_scan(d_in, d_out, n, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    size_t cached1 = 0, pool1 = 0;
    cache_info(&cached1, &pool1, NULL);
    if (cached1 != need) TFAIL("after one call the cache holds %zu bytes, expected that call's temp, %zu", cached1, need);
    for (int i = 1; i < 1000; ++i) {
        LS_EXPECT(LIBSCAN_SUCCESS, scans[i % 2](d_in, d_out, n, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, s));
        if (i % 100 == 0) {
            size_t cached = 0;
            cache_info(&cached, NULL, NULL);
            if (cached != cached1) TFAIL("after %d calls the cache holds %zu bytes, after one %zu", i + 1, cached, cached1);
        }
    }
    for (int i = 0; i < 200; ++i) { /* smaller temps fit the block */
        const libscan_dtype_t dt = i % 3 ? LIBSCAN_U32 : LIBSCAN_U64;
        /* u64 tile states are twice as wide: half the count keeps the temp smaller */
        const size_t m = (n >> (i % 6 + (dt == LIBSCAN_U64 ? 3 : 2))) + (size_t)i;
        if (scan_need(m, dt) > need) TFAIL("test setup: %zu %s need more temp than %zu u32", m, ref_dtype_name(dt), n);
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_exclusive_scan(d_in, d_out, m, dt, LIBSCAN_OP_MAX, NULL, s));
    }
    CUDA_CHECK(cudaStreamSynchronize(s));
    size_t cached2 = 0, pool2 = 0;
    cache_info(&cached2, &pool2, NULL);
    if (cached2 != cached1) TFAIL("after 1200 calls the cache holds %zu bytes, after one %zu", cached2, cached1);
    if (pool2 > pool1) TFAIL("after 1200 calls the pool holds %zu bytes, after one %zu", pool2, pool1);
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
}

static void test_gpu_cache_release(void **state) {
    (void)state;
    test_require_gpu();
    cache_reset();
    /* Blocks on two streams and the legacy stream; release empties the cache
     * and the pool; calls afterwards are right and build the cache again. */
    rng_t r;
    rng_init(&r, "cache_release", 0);
    const size_t n = (1u << 20) + 5;
    uint64_t *h_in = (uint64_t *)malloc(n * 8), *h_out = (uint64_t *)malloc(n * 8);
    assert_non_null(h_in);
    assert_non_null(h_out);
    void *d_in = NULL, *d_out = NULL;
    CUDA_CHECK(cudaMalloc(&d_in, n * 8));
    CUDA_CHECK(cudaMalloc(&d_out, n * 8));
    fill_upload(&r, LIBSCAN_U64, LIBSCAN_OP_SUM, h_in, d_in, n);
    cudaStream_t s[3] = {NULL, NULL, 0};
    CUDA_CHECK(cudaStreamCreateWithFlags(&s[0], cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreate(&s[1]));
    for (int i = 0; i < 3; ++i) {
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_inclusive_scan(d_in, d_out, n, LIBSCAN_U64, LIBSCAN_OP_SUM, NULL, s[i]));
        CUDA_CHECK(cudaStreamSynchronize(s[i])); /* one output buffer: one stream at a time */
    }
    size_t cached = 0, pool = 0;
    cache_info(&cached, &pool, NULL);
    const size_t need = scan_need(n, LIBSCAN_U64);
    if (cached != 3 * need) TFAIL("three streams: cache holds %zu bytes, expected 3 x %zu", cached, need);
    if (pool < cached) TFAIL("pool holds %zu bytes, less than the cache's %zu", pool, cached);

    LS_EXPECT(LIBSCAN_SUCCESS, libscan_temp_cache_release());
    cache_info(&cached, &pool, NULL);
    if (cached != 0 || pool != 0) TFAIL("after release: cached %zu, pool %zu bytes, expected 0 and 0", cached, pool);

    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 2; ++k) {
            CUDA_CHECK(cudaMemset(d_out, 0xFF, n * 8));
            CUDA_CHECK(cudaDeviceSynchronize()); /* the legacy stream's memset, settled before non-blocking streams run */
            LS_EXPECT(LIBSCAN_SUCCESS, scans[k](d_in, d_out, n, LIBSCAN_U64, LIBSCAN_OP_SUM, NULL, s[i]));
            CUDA_CHECK(cudaStreamSynchronize(s[i]));
            check_against_reference(LIBSCAN_U64, LIBSCAN_OP_SUM, k, h_in, n, NULL, d_out, h_out, NULL,
                                    "after libscan_temp_cache_release");
        }
    cache_info(&cached, NULL, NULL);
    if (cached != 3 * need) TFAIL("cache after release and new calls: %zu bytes, expected 3 x %zu", cached, need);
    CUDA_CHECK(cudaStreamDestroy(s[0]));
    CUDA_CHECK(cudaStreamDestroy(s[1]));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(h_in);
    free(h_out);
}

/* The limit as found, put back by the teardown even when a test fails. */
static size_t saved_limit;
static int limit_saved;

static int restore_limit(void **state) {
    (void)state;
    if (limit_saved && libscan_temp_cache_set_limit(saved_limit) != LIBSCAN_SUCCESS) return -1;
    limit_saved = 0;
    return 0;
}

static void test_gpu_cache_limit_zero(void **state) {
    (void)state;
    test_require_gpu();
    cache_reset();
    /* Limit 0 turns the cache off: every call without temp still works (a
     * block of the pool for that call alone), nothing is cached, and the pool
     * gives its memory back at the next synchronisation. */
    size_t limit = 0;
    cache_info(NULL, NULL, &limit);
    if (limit == 0) TFAIL("the default limit is 0; the manual says a quarter of the device's memory");
    saved_limit = limit;
    limit_saved = 1;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_temp_cache_set_limit(0));
    cache_info(NULL, NULL, &limit);
    assert_int_equal(limit, 0);

    rng_t r;
    rng_init(&r, "cache_limit_zero", 0);
    const size_t sizes[] = {(size_t)1 << 17, ((size_t)1 << 20) + 7, ((size_t)1 << 22) + 1};
    const libscan_dtype_t dts[2] = {LIBSCAN_U32, LIBSCAN_F64};
    const size_t cap = ((size_t)1 << 22) + 1;
    void *h_in = malloc(cap * 8), *h_out = malloc(cap * 8), *d_in = NULL, *d_out = NULL;
    assert_non_null(h_in);
    assert_non_null(h_out);
    CUDA_CHECK(cudaMalloc(&d_in, cap * 8));
    CUDA_CHECK(cudaMalloc(&d_out, cap * 8));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i)
        for (int d = 0; d < 2; ++d)
            for (int k = 0; k < 2; ++k) {
                const libscan_op_t op = ref_ops[(i + (size_t)k) % REF_NUM_OPS];
                fill_upload(&r, dts[d], op, h_in, d_in, sizes[i]);
                LS_EXPECT(LIBSCAN_SUCCESS, scans[k](d_in, d_out, sizes[i], dts[d], op, NULL, s));
                size_t cached = 1;
                cache_info(&cached, NULL, NULL);
                if (cached != 0) TFAIL("limit 0: the cache holds %zu bytes", cached);
                CUDA_CHECK(cudaStreamSynchronize(s));
                check_against_reference(dts[d], op, k, h_in, sizes[i], NULL, d_out, h_out, NULL, "limit 0");
            }
    size_t cached = 1, pool = 1;
    cache_info(&cached, &pool, NULL);
    if (cached != 0 || pool != 0) TFAIL("limit 0, after a sync: cached %zu, pool %zu bytes, expected 0 and 0", cached, pool);
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_temp_cache_set_limit(saved_limit));
    limit_saved = 0;
    cache_info(NULL, NULL, &limit);
    assert_int_equal(limit, saved_limit);
    /* and the cache works again */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_inclusive_scan(d_in, d_out, cap, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, s));
    cache_info(&cached, NULL, NULL);
    if (cached != scan_need(cap, LIBSCAN_U32)) TFAIL("limit restored: cache holds %zu bytes", cached);
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(h_in);
    free(h_out);
}

/* ---- several host threads, one stream each ------------------------------------- */

#define THREADS 4
#define JOBS 6
#define ROUNDS 3

typedef struct worker {
    int id, device;
    rng_t rng;
    pthread_barrier_t *start;
    size_t largest_need; /* over its calls */
    int failed;
    char msg[640];
} worker_t;

static const size_t job_sizes[JOBS] = {1000, 65537, (size_t)1 << 18, (size_t)1 << 20, ((size_t)1 << 20) + 12345,
                                       (size_t)1 << 22};

#define WFAIL(w, ...)                                                                                     \
    do {                                                                                                  \
        if (!(w)->failed) snprintf((w)->msg, sizeof (w)->msg, __VA_ARGS__);                               \
        (w)->failed = 1;                                                                                  \
        goto out;                                                                                         \
    } while (0)

/* No cmocka calls here (they are not thread-safe): the first failure is
 * written into w->msg and the main thread reports it. */
static void *worker_main(void *arg) {
    worker_t *w = (worker_t *)arg;
    cudaStream_t s = NULL;
    void *h_in[JOBS] = {0}, *h_out[JOBS] = {0}, *d_in[JOBS] = {0}, *d_out[JOBS] = {0};
    cudaError_t e = cudaSetDevice(w->device);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    for (int j = 0; j < JOBS && e == cudaSuccess; ++j) {
        h_in[j] = malloc(job_sizes[j] * 8);
        h_out[j] = malloc(job_sizes[j] * 8);
        if (!h_in[j] || !h_out[j]) e = cudaErrorMemoryAllocation;
        if (e == cudaSuccess) e = cudaMalloc(&d_in[j], job_sizes[j] * 8);
        if (e == cudaSuccess) e = cudaMalloc(&d_out[j], job_sizes[j] * 8);
    }
    pthread_barrier_wait(w->start); /* every thread waits here, whatever happened */
    if (e != cudaSuccess) WFAIL(w, "thread %d: setup: %s", w->id, cudaGetErrorString(e));
    for (int round = 0; round < ROUNDS; ++round) {
        libscan_dtype_t dt[JOBS];
        libscan_op_t op[JOBS];
        for (int j = 0; j < JOBS; ++j) {
            dt[j] = ref_dtypes[(j + w->id + round) % REF_NUM_DTYPES];
            op[j] = ref_ops[(j + round) % REF_NUM_OPS];
            data_fill(&w->rng, dt[j], op[j], DATA_DEFAULT, h_in[j], job_sizes[j]);
            e = cudaMemcpyAsync(d_in[j], h_in[j], job_sizes[j] * ref_dtype_size(dt[j]), cudaMemcpyHostToDevice, s);
            if (e != cudaSuccess) WFAIL(w, "thread %d: upload: %s", w->id, cudaGetErrorString(e));
        }
        /* All jobs enqueued back to back, while the other threads do the same. */
        for (int j = 0; j < JOBS; ++j) {
            size_t need = 0;
            if (libscan_scan_temp_bytes(job_sizes[j], dt[j], &need) != LIBSCAN_SUCCESS)
                WFAIL(w, "thread %d: libscan_scan_temp_bytes failed", w->id);
            if (need > w->largest_need) w->largest_need = need;
            const libscan_status_t st = scans[(j + round) % 2](d_in[j], d_out[j], job_sizes[j], dt[j], op[j], NULL, s);
            if (st != LIBSCAN_SUCCESS)
                WFAIL(w, "thread %d round %d job %d: %s", w->id, round, j, libscan_status_string(st));
        }
        e = cudaStreamSynchronize(s);
        if (e != cudaSuccess) WFAIL(w, "thread %d: sync: %s", w->id, cudaGetErrorString(e));
        for (int j = 0; j < JOBS; ++j) {
            e = cudaMemcpy(h_out[j], d_out[j], job_sizes[j] * ref_dtype_size(dt[j]), cudaMemcpyDeviceToHost);
            if (e != cudaSuccess) WFAIL(w, "thread %d: download: %s", w->id, cudaGetErrorString(e));
            ref_case_t c = {dt[j], op[j], (j + round) % 2, h_in[j], job_sizes[j], NULL, 0};
            char msg[512];
            if (ref_check(&c, h_out[j], NULL, msg, sizeof msg))
                WFAIL(w, "thread %d round %d: %s %s %s scan of %zu: %s", w->id, round, (j + round) % 2 ? "exclusive" : "inclusive",
                      ref_dtype_name(dt[j]), ref_op_name(op[j]), job_sizes[j], msg);
        }
    }
out:
    for (int j = 0; j < JOBS; ++j) {
        free(h_in[j]);
        free(h_out[j]);
        if (d_in[j]) (void)cudaFree(d_in[j]);
        if (d_out[j]) (void)cudaFree(d_out[j]);
    }
    if (s) (void)cudaStreamDestroy(s);
    return NULL;
}

static void test_gpu_cache_threads(void **state) {
    (void)state;
    test_require_gpu();
    cache_reset();
    /* THREADS host threads, each with its own stream, run opts = NULL scans
     * at once: every output is right, and each stream keeps one block, the
     * largest temp of its own calls. */
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    pthread_barrier_t start;
    assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
    worker_t w[THREADS];
    pthread_t t[THREADS];
    memset(w, 0, sizeof w);
    for (int i = 0; i < THREADS; ++i) {
        w[i].id = i;
        w[i].device = device;
        w[i].start = &start;
        rng_init(&w[i].rng, "cache_threads", (uint64_t)i); /* here: test_seed() is not thread-safe */
    }
    for (int i = 0; i < THREADS; ++i) assert_int_equal(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
    for (int i = 0; i < THREADS; ++i) assert_int_equal(pthread_join(t[i], NULL), 0);
    pthread_barrier_destroy(&start);
    size_t expect = 0;
    for (int i = 0; i < THREADS; ++i) {
        if (w[i].failed) TFAIL("%s", w[i].msg);
        expect += w[i].largest_need;
    }
    /* The streams are destroyed, their blocks stay (until release). */
    size_t cached = 0;
    cache_info(&cached, NULL, NULL);
    if (cached != expect)
        TFAIL("%d streams: the cache holds %zu bytes, expected the sum of each stream's largest temp, %zu", THREADS,
              cached, expect);
}

/* ---- stream capture -------------------------------------------------------------- */

static void test_gpu_capture_without_temp(void **state) {
    (void)state;
    test_require_gpu();
    cache_reset();
    /* A scan captured without d_temp owns its temp (an allocation node of the
     * graph): the cache does not change, and the graph replays right on new
     * inputs, also after the cache has been released. */
    rng_t r;
    rng_init(&r, "capture", 0);
    const size_t n = (size_t)1 << 20;
    uint32_t *h_in = (uint32_t *)malloc(n * 4), *h_out = (uint32_t *)malloc(n * 4);
    assert_non_null(h_in);
    assert_non_null(h_out);
    void *d_in = NULL, *d_out = NULL, *d_total = NULL;
    CUDA_CHECK(cudaMalloc(&d_in, n * 4));
    CUDA_CHECK(cudaMalloc(&d_out, n * 4));
    CUDA_CHECK(cudaMalloc(&d_total, 4));
    cudaStream_t s, other;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    /* Something in the cache first (another stream, a smaller size), so a
     * capture that wrongly took a cache block shows as growth. */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_inclusive_scan(d_in, d_out, n / 4, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, other));
    CUDA_CHECK(cudaStreamSynchronize(other));
    size_t before = 0;
    cache_info(&before, NULL, NULL);
    if (before == 0) TFAIL("an uncaptured 2^18-element scan left nothing in the cache");

    for (int k = 0; k < 2; ++k) {
        libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
        o.d_total = d_total;
        cudaGraph_t graph = NULL;
        cudaGraphExec_t exec = NULL;
        CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        const libscan_status_t st = scans[k](d_in, d_out, n, LIBSCAN_U32, LIBSCAN_OP_SUM, &o, s);
        const cudaError_t end = cudaStreamEndCapture(s, &graph);
        if (st != LIBSCAN_SUCCESS) TFAIL("%s under capture: %s", scan_names[k], libscan_status_string(st));
        CUDA_CHECK(end);
        size_t during = 0;
        cache_info(&during, NULL, NULL);
        if (during != before) TFAIL("the capture changed the cache: %zu bytes before, %zu after", before, during);
        CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
        for (int replay = 0; replay < 3; ++replay) {
            if (replay == 2) LS_EXPECT(LIBSCAN_SUCCESS, libscan_temp_cache_release()); /* the graph does not care */
            fill_upload(&r, LIBSCAN_U32, LIBSCAN_OP_SUM, h_in, d_in, n);
            CUDA_CHECK(cudaMemset(d_out, 0xFF, n * 4));
            CUDA_CHECK(cudaDeviceSynchronize()); /* the legacy stream's memset, settled before non-blocking streams run */
            CUDA_CHECK(cudaGraphLaunch(exec, s));
            CUDA_CHECK(cudaStreamSynchronize(s));
            char what[96];
            snprintf(what, sizeof what, "graph of %s, replay %d", scan_names[k], replay);
            check_against_reference(LIBSCAN_U32, LIBSCAN_OP_SUM, k, h_in, n, NULL, d_out, h_out, d_total, what);
        }
        size_t after = 0;
        cache_info(&after, NULL, NULL);
        if (after != 0) TFAIL("replays after a release put %zu bytes into the cache", after);
        CUDA_CHECK(cudaGraphExecDestroy(exec));
        CUDA_CHECK(cudaGraphDestroy(graph));
        /* the next capture starts from the same cache state */
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_inclusive_scan(d_in, d_out, n / 4, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, other));
        CUDA_CHECK(cudaStreamSynchronize(other));
        cache_info(&before, NULL, NULL);
    }
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaStreamDestroy(other));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_total));
    free(h_in);
    free(h_out);
}

/* ---- the temp does not change the bits ------------------------------------------- */

static void test_gpu_cache_and_caller_temp_same_bits(void **state) {
    (void)state;
    test_require_gpu();
    /* The manual: the association depends on the element size and the count
     * alone, not on the temp given. f32 sums (where the association shows in
     * the bits) with opts = NULL, with caller temp, and with caller temp at
     * an odd address: bitwise equal, and right within the reference's
     * rounding bound. */
    rng_t r;
    rng_init(&r, "same_bits", 0);
    const size_t sizes[] = {1000, (size_t)1 << 16, 65537, (size_t)1 << 20, ((size_t)1 << 20) + 12345, (size_t)1 << 24};
    const size_t cap = (size_t)1 << 24;
    size_t need_cap = scan_need(cap, LIBSCAN_F32);
    float *h_in = (float *)malloc(cap * 4), *h_a = (float *)malloc(cap * 4), *h_b = (float *)malloc(cap * 4);
    assert_non_null(h_in);
    assert_non_null(h_a);
    assert_non_null(h_b);
    void *d_in = NULL, *d_a = NULL, *d_b = NULL;
    unsigned char *d_temp = NULL;
    CUDA_CHECK(cudaMalloc(&d_in, cap * 4));
    CUDA_CHECK(cudaMalloc(&d_a, cap * 4));
    CUDA_CHECK(cudaMalloc(&d_b, cap * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_temp, need_cap + 64));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        const size_t n = sizes[i];
        fill_upload(&r, LIBSCAN_F32, LIBSCAN_OP_SUM, h_in, d_in, n);
        for (int k = 0; k < 2; ++k) {
            char what[128];
            snprintf(what, sizeof what, "f32 %s of %zu, opts = NULL", scan_names[k], n);
            CUDA_CHECK(cudaMemset(d_a, 0xFF, n * 4));
            CUDA_CHECK(cudaDeviceSynchronize()); /* the legacy stream's memset, settled before non-blocking streams run */
            LS_EXPECT(LIBSCAN_SUCCESS, scans[k](d_in, d_a, n, LIBSCAN_F32, LIBSCAN_OP_SUM, NULL, s));
            CUDA_CHECK(cudaStreamSynchronize(s));
            check_against_reference(LIBSCAN_F32, LIBSCAN_OP_SUM, k, h_in, n, NULL, d_a, h_a, NULL, what);
            for (int odd = 0; odd < 2; ++odd) {
                libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
                o.d_temp = d_temp + (odd ? 36 : 0);
                o.temp_bytes = scan_need(n, LIBSCAN_F32);
                CUDA_CHECK(cudaMemset(d_b, 0xFF, n * 4));
                CUDA_CHECK(cudaDeviceSynchronize()); /* the legacy stream's memset, settled before non-blocking streams run */
                LS_EXPECT(LIBSCAN_SUCCESS, scans[k](d_in, d_b, n, LIBSCAN_F32, LIBSCAN_OP_SUM, &o, s));
                CUDA_CHECK(cudaStreamSynchronize(s));
                CUDA_CHECK(cudaMemcpy(h_b, d_b, n * 4, cudaMemcpyDeviceToHost));
                if (memcmp(h_a, h_b, n * 4) != 0) {
                    size_t j = 0;
                    while (memcmp(&h_a[j], &h_b[j], 4) == 0) ++j;
                    TFAIL("%s: caller temp%s gives other bits: element %zu is %a, with opts = NULL %a", what,
                          odd ? " at an odd address" : "", j, (double)h_b[j], (double)h_a[j]);
                }
            }
        }
    }
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_temp));
    free(h_in);
    free(h_a);
    free(h_b);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_values_are_the_documented_ones),
        cmocka_unit_test(test_status_strings),
        cmocka_unit_test(test_temp_too_small_string),
        cmocka_unit_test(test_dtype_size_and_name),
        cmocka_unit_test(test_op_name),
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_temp_bytes_errors),
        cmocka_unit_test(test_temp_bytes_values),
        cmocka_unit_test(test_count_zero_null_pointers_succeeds),
        cmocka_unit_test(test_null_data_pointers),
        cmocka_unit_test(test_invalid_dtype_and_op),
        cmocka_unit_test(test_scans_reject_u8_u16),
        cmocka_unit_test(test_too_large),
        cmocka_unit_test(test_init_and_d_init_both_set),
        cmocka_unit_test(test_temp_bytes_without_temp),
        cmocka_unit_test(test_temp_too_small),
        cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_overlap_edges),
        cmocka_unit_test(test_overlap_random),
        cmocka_unit_test(test_misaligned_pointers),
        cmocka_unit_test(test_everything_wrong_is_an_error),
        cmocka_unit_test(test_temp_alignment),
        cmocka_unit_test(test_host_stack_pointers),
    };
    const struct CMUnitTest gpu_tests[] = {
        cmocka_unit_test(test_gpu_device_memory_inside_allocation),
        cmocka_unit_test(test_gpu_managed_and_mapped_pinned),
        cmocka_unit_test(test_gpu_host_pointers_rejected),
        cmocka_unit_test(test_gpu_adjacent_buffers),
        cmocka_unit_test(test_gpu_caller_temp_misaligned),
        cmocka_unit_test(test_gpu_temp_too_small),
        cmocka_unit_test(test_gpu_cache_holds_the_largest_temp),
        cmocka_unit_test(test_gpu_cache_does_not_grow_with_calls),
        cmocka_unit_test(test_gpu_cache_release),
        cmocka_unit_test_teardown(test_gpu_cache_limit_zero, restore_limit),
        cmocka_unit_test(test_gpu_cache_threads),
        cmocka_unit_test(test_gpu_capture_without_temp),
        cmocka_unit_test(test_gpu_cache_and_caller_temp_same_bits),
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
