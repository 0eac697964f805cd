/* test_segmented_args.c -- argument checks of the segmented scans that are
 * decided before any CUDA call (label cpu, no GPU needed): NULL pointers,
 * unknown dtype/op, pitch < row_len, num_segments 0 with count > 0,
 * TOO_LARGE, misalignment, overlap, temp too small, the 31-bit limits that
 * per-segment initial values impose, and libscan_segmented_temp_bytes().
 * Pointers are fake (never dereferenced): the pointer-accessibility check
 * calls CUDA, so every case here must return before it. */
#include "support/harness.h"
#include "seg_reference.h"

#include <stdio.h>
#include <string.h>

#define FAKE(addr) ((void *)(uintptr_t)(addr))
static void *const IN = FAKE(0x10000000);
static void *const OUT = FAKE(0x20000000);
static const unsigned char *const FLAGS = (const unsigned char *)FAKE(0x30000000);
static const uint64_t *const OFFS = (const uint64_t *)FAKE(0x40000000);
static void *const SEGINIT = FAKE(0x50000000);
static void *const TEMP = FAKE(0x60000000);

static const libscan_dtype_t dtypes[6] = {LIBSCAN_U32, LIBSCAN_I32, LIBSCAN_U64, LIBSCAN_I64, LIBSCAN_F32, LIBSCAN_F64};

/* Every entry point with one signature: mode 0 flags, 1 offsets, 2 rows
 * (rows = count, row_len = 1, pitch = 1 unless given). */
static libscan_status_t call(int mode, int excl, const void *in, void *out, size_t count, libscan_dtype_t dt,
                             libscan_op_t op, const libscan_segscan_opts_t *o) {
    switch (mode) {
    case 0:
        return excl ? libscan_segmented_exclusive_scan(in, out, count, FLAGS, dt, op, o, 0)
                    : libscan_segmented_inclusive_scan(in, out, count, FLAGS, dt, op, o, 0);
    case 1:
        return excl ? libscan_segmented_exclusive_scan_offsets(in, out, count, OFFS, 4, dt, op, o, 0)
                    : libscan_segmented_inclusive_scan_offsets(in, out, count, OFFS, 4, dt, op, o, 0);
    default:
        return excl ? libscan_exclusive_scan_rows(in, out, count, 1, 1, dt, op, o, 0)
                    : libscan_inclusive_scan_rows(in, out, count, 1, 1, dt, op, o, 0);
    }
}

static void test_null_pointers(void **state) {
    (void)state;
    for (int mode = 0; mode < 3; ++mode)
        for (int excl = 0; excl < 2; ++excl) {
            LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, call(mode, excl, NULL, OUT, 100, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL));
            LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, call(mode, excl, IN, NULL, 100, LIBSCAN_F64, LIBSCAN_OP_MAX, NULL));
        }
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER,
              libscan_segmented_inclusive_scan(IN, OUT, 100, NULL, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER,
              libscan_segmented_exclusive_scan(IN, OUT, 100, NULL, LIBSCAN_I64, LIBSCAN_OP_MIN, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER,
              libscan_segmented_inclusive_scan_offsets(IN, OUT, 100, NULL, 4, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER,
              libscan_segmented_exclusive_scan_offsets(IN, OUT, 100, NULL, 4, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_segmented_temp_bytes(10, LIBSCAN_U32, LIBSCAN_SEGMENTS_FLAGS, NULL));
}

/* count 0 (and rows 0 / row_len 0) with every data pointer NULL: nothing to
 * check against the device, nothing launched. */
static void test_empty_calls_need_no_pointers(void **state) {
    (void)state;
    for (int excl = 0; excl < 2; ++excl) {
        LS_EXPECT(LIBSCAN_SUCCESS, excl ? libscan_segmented_exclusive_scan(NULL, NULL, 0, NULL, LIBSCAN_U32,
                                                                           LIBSCAN_OP_SUM, NULL, 0)
                                        : libscan_segmented_inclusive_scan(NULL, NULL, 0, NULL, LIBSCAN_F32,
                                                                           LIBSCAN_OP_MIN, NULL, 0));
        LS_EXPECT(LIBSCAN_SUCCESS, excl ? libscan_exclusive_scan_rows(NULL, NULL, 0, 5, 5, LIBSCAN_U64,
                                                                      LIBSCAN_OP_MAX, NULL, 0)
                                        : libscan_inclusive_scan_rows(NULL, NULL, 7, 0, 3, LIBSCAN_I32,
                                                                      LIBSCAN_OP_SUM, NULL, 0));
    }
}

static void test_bad_enums(void **state) {
    (void)state;
    for (int mode = 0; mode < 3; ++mode)
        for (int excl = 0; excl < 2; ++excl) {
            LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, call(mode, excl, IN, OUT, 100, (libscan_dtype_t)6, LIBSCAN_OP_SUM, NULL));
            LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, call(mode, excl, IN, OUT, 100, (libscan_dtype_t)-1, LIBSCAN_OP_SUM, NULL));
            LS_EXPECT(LIBSCAN_ERROR_INVALID_OP, call(mode, excl, IN, OUT, 100, LIBSCAN_U32, (libscan_op_t)3, NULL));
            LS_EXPECT(LIBSCAN_ERROR_INVALID_OP, call(mode, excl, IN, OUT, 100, LIBSCAN_F64, (libscan_op_t)-7, NULL));
        }
    size_t t;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_segmented_temp_bytes(10, (libscan_dtype_t)9, LIBSCAN_SEGMENTS_ROWS, &t));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_segmented_temp_bytes(10, LIBSCAN_U32, (libscan_segments_t)3, &t));
}

static void test_rows_shape(void **state) {
    (void)state;
    for (int excl = 0; excl < 2; ++excl) {
        LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT,
                  excl ? libscan_exclusive_scan_rows(IN, OUT, 4, 65, 64, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, 0)
                       : libscan_inclusive_scan_rows(IN, OUT, 4, 65, 64, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, 0));
        LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT,
                  excl ? libscan_exclusive_scan_rows(IN, OUT, 1, 2, 1, LIBSCAN_F64, LIBSCAN_OP_MIN, NULL, 0)
                       : libscan_inclusive_scan_rows(IN, OUT, 1, 2, 1, LIBSCAN_F64, LIBSCAN_OP_MIN, NULL, 0));
        /* rows * pitch beyond 2^40, also when the product wraps around */
        LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE,
                  excl ? libscan_exclusive_scan_rows(IN, OUT, (size_t)1 << 21, 1, (size_t)1 << 20, LIBSCAN_U32,
                                                     LIBSCAN_OP_SUM, NULL, 0)
                       : libscan_inclusive_scan_rows(IN, OUT, (size_t)1 << 21, 1, (size_t)1 << 20, LIBSCAN_U32,
                                                     LIBSCAN_OP_SUM, NULL, 0));
        LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE,
                  libscan_inclusive_scan_rows(IN, OUT, (size_t)1 << 33, 1, (size_t)1 << 31, LIBSCAN_U32,
                                              LIBSCAN_OP_SUM, NULL, 0));
    }
}

static void test_offsets_counts(void **state) {
    (void)state;
    for (int excl = 0; excl < 2; ++excl) {
        LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT,
                  excl ? libscan_segmented_exclusive_scan_offsets(IN, OUT, 10, OFFS, 0, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, 0)
                       : libscan_segmented_inclusive_scan_offsets(IN, OUT, 10, OFFS, 0, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, 0));
        LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE,
                  libscan_segmented_inclusive_scan_offsets(IN, OUT, 10, OFFS, LIBSCAN_MAX_COUNT, LIBSCAN_U32,
                                                           LIBSCAN_OP_SUM, NULL, 0));
    }
}

static void test_too_large(void **state) {
    (void)state;
    const size_t big = LIBSCAN_MAX_COUNT + 1;
    for (int mode = 0; mode < 2; ++mode)
        for (int excl = 0; excl < 2; ++excl)
            LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE, call(mode, excl, IN, OUT, big, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL));
    size_t t = 12345;
    LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE, libscan_segmented_temp_bytes(big, LIBSCAN_U32, LIBSCAN_SEGMENTS_FLAGS, &t));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_temp_bytes(LIBSCAN_MAX_COUNT, LIBSCAN_U64, LIBSCAN_SEGMENTS_OFFSETS, &t));
}

static void test_misaligned(void **state) {
    (void)state;
    for (int d = 0; d < 6; ++d) {
        const libscan_dtype_t dt = dtypes[d];
        const size_t es = seg_esize(dt);
        for (int mode = 0; mode < 3; ++mode) {
            LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, call(mode, 0, (char *)IN + es / 2, OUT, 100, dt, LIBSCAN_OP_SUM, NULL));
            LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, call(mode, 1, IN, (char *)OUT + es - 1, 100, dt, LIBSCAN_OP_MIN, NULL));
            libscan_segscan_opts_t o = LIBSCAN_SEGSCAN_OPTS_INIT;
            o.d_seg_init = (char *)SEGINIT + 2;
            LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, call(mode, 0, IN, OUT, 100, dt, LIBSCAN_OP_MAX, &o));
        }
        LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER,
                  libscan_segmented_inclusive_scan_offsets(IN, OUT, 100, (const uint64_t *)((const char *)OFFS + 4), 4, dt,
                                                           LIBSCAN_OP_SUM, NULL, 0));
    }
}

static void test_overlap(void **state) {
    (void)state;
    const size_t n = 1000;
    for (int mode = 0; mode < 3; ++mode)
        for (int excl = 0; excl < 2; ++excl) {
            /* in and out partly overlap */
            LS_EXPECT(LIBSCAN_ERROR_OVERLAP, call(mode, excl, IN, (char *)IN + 4 * 10, n, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL));
            LS_EXPECT(LIBSCAN_ERROR_OVERLAP, call(mode, excl, (char *)OUT + 8 * (n - 1), OUT, n, LIBSCAN_F64, LIBSCAN_OP_SUM, NULL));
            /* per-segment initial values inside the output */
            libscan_segscan_opts_t o = LIBSCAN_SEGSCAN_OPTS_INIT;
            o.d_seg_init = (char *)OUT + 4 * 8;
            LS_EXPECT(LIBSCAN_ERROR_OVERLAP, call(mode, excl, IN, OUT, n, LIBSCAN_U32, LIBSCAN_OP_SUM, &o));
        }
    /* flags / offsets inside the output */
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_segmented_inclusive_scan(IN, OUT, n, (const unsigned char *)OUT + 100,
                                                                      LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_segmented_exclusive_scan(IN, IN, n, (const unsigned char *)IN + 3996,
                                                                      LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP,
              libscan_segmented_inclusive_scan_offsets(IN, OUT, n, (const uint64_t *)OUT + 5, 4, LIBSCAN_U64,
                                                       LIBSCAN_OP_SUM, NULL, 0));
    /* caller temp overlapping the input, the output, the flags, the offsets */
    size_t need = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_temp_bytes(n, LIBSCAN_U32, LIBSCAN_SEGMENTS_OFFSETS, &need));
    libscan_segscan_opts_t o = LIBSCAN_SEGSCAN_OPTS_INIT;
    o.temp_bytes = need;
    void *const clash[4] = {(char *)IN + 16, (char *)OUT + 16, (void *)(uintptr_t)(FLAGS + 16), (void *)(uintptr_t)(OFFS + 1)};
    for (int k = 0; k < 4; ++k) {
        o.d_temp = clash[k];
        if (k == 2)
            LS_EXPECT(LIBSCAN_ERROR_OVERLAP,
                      libscan_segmented_inclusive_scan(IN, OUT, n, FLAGS, LIBSCAN_U32, LIBSCAN_OP_SUM, &o, 0));
        else
            LS_EXPECT(LIBSCAN_ERROR_OVERLAP,
                      libscan_segmented_inclusive_scan_offsets(IN, OUT, n, OFFS, 4, LIBSCAN_U32, LIBSCAN_OP_SUM, &o, 0));
    }
}

static void test_temp(void **state) {
    (void)state;
    for (int d = 0; d < 6; ++d)
        for (int mode = 0; mode < 3; ++mode) {
            const size_t n = (size_t)1 << 20;
            size_t need = 0;
            LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_temp_bytes(n, dtypes[d], (libscan_segments_t)mode, &need));
            if (need == 0) TFAIL("%s mode %d: no temp for 2^20 elements", seg_dtype_name(dtypes[d]), mode);
            libscan_segscan_opts_t o = LIBSCAN_SEGSCAN_OPTS_INIT;
            o.d_temp = TEMP;
            o.temp_bytes = need - 1;
            LS_EXPECT(LIBSCAN_ERROR_TEMP_TOO_SMALL, call(mode, 0, IN, OUT, mode == 1 ? 1000 + n : n, dtypes[d], LIBSCAN_OP_SUM, &o));
            o.temp_bytes = 1;
            LS_EXPECT(LIBSCAN_ERROR_TEMP_TOO_SMALL, call(mode, 1, IN, OUT, n, dtypes[d], LIBSCAN_OP_MIN, &o));
            /* temp_bytes without d_temp */
            o.d_temp = NULL;
            o.temp_bytes = need;
            LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, call(mode, 0, IN, OUT, n, dtypes[d], LIBSCAN_OP_SUM, &o));
        }
    /* temp grows with the count; offsets need more than flags (a tag array) */
    for (int d = 0; d < 6; ++d) {
        size_t a = 0, b = 0, f = 0, off = 0;
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_temp_bytes((size_t)1 << 16, dtypes[d], LIBSCAN_SEGMENTS_FLAGS, &a));
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_temp_bytes((size_t)1 << 24, dtypes[d], LIBSCAN_SEGMENTS_FLAGS, &b));
        if (b < a) TFAIL("%s: temp shrinks with the count (%zu -> %zu)", seg_dtype_name(dtypes[d]), a, b);
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_temp_bytes((size_t)1 << 24, dtypes[d], LIBSCAN_SEGMENTS_FLAGS, &f));
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_temp_bytes((size_t)1 << 24, dtypes[d], LIBSCAN_SEGMENTS_OFFSETS, &off));
        if (off < f) TFAIL("%s: offsets temp %zu < flags temp %zu", seg_dtype_name(dtypes[d]), off, f);
    }
}

/* Segment numbers travel in 31 bits: with d_seg_init, flags need count <
 * 2^31, offsets and rows fewer than 2^31 segments. */
static void test_seg_init_limits(void **state) {
    (void)state;
    const size_t lim = (size_t)1 << 31;
    libscan_segscan_opts_t o = LIBSCAN_SEGSCAN_OPTS_INIT;
    o.d_seg_init = SEGINIT;
    for (int excl = 0; excl < 2; ++excl) {
        LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT,
                  excl ? libscan_segmented_exclusive_scan(IN, OUT, lim, FLAGS, LIBSCAN_U32, LIBSCAN_OP_SUM, &o, 0)
                       : libscan_segmented_inclusive_scan(IN, OUT, lim, FLAGS, LIBSCAN_U32, LIBSCAN_OP_SUM, &o, 0));
        LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT,
                  excl ? libscan_segmented_exclusive_scan_offsets(IN, OUT, lim, OFFS, lim, LIBSCAN_U32, LIBSCAN_OP_SUM, &o, 0)
                       : libscan_segmented_inclusive_scan_offsets(IN, OUT, lim, OFFS, lim, LIBSCAN_U32, LIBSCAN_OP_SUM, &o, 0));
        LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT,
                  excl ? libscan_exclusive_scan_rows(IN, OUT, lim, 1, 1, LIBSCAN_U32, LIBSCAN_OP_SUM, &o, 0)
                       : libscan_inclusive_scan_rows(IN, OUT, lim, 2, 3, LIBSCAN_U32, LIBSCAN_OP_SUM, &o, 0));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_pointers),
        cmocka_unit_test(test_empty_calls_need_no_pointers),
        cmocka_unit_test(test_bad_enums),
        cmocka_unit_test(test_rows_shape),
        cmocka_unit_test(test_offsets_counts),
        cmocka_unit_test(test_too_large),
        cmocka_unit_test(test_misaligned),
        cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_temp),
        cmocka_unit_test(test_seg_init_limits),
    };
    test_begin("test_segmented_args");
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
