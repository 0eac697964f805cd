/* test_sort_cpu.c -- the sort family's host side (label cpu): the CPU
 * sort against the qsort reference for every key type x direction x keys/
 * pairs x distribution, stability, bit ranges, argsort, is_sorted, unique;
 * and every argument error of the GPU entry points, all decided before any
 * CUDA call (fake, never-dereferenced pointers). */
#include "support/harness.h"
#include "sort_reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t kSizes[] = {0, 1, 2, 31, 33, 6143, 6144, 6145, 4095, 4097, 70001};

static void check_sorted_case(libscan_dtype_t key, ref_dist_t dist, int desc, size_t vb, size_t n, unsigned begin,
                              unsigned end, uint64_t idx) {
    const size_t ks = libscan_dtype_size(key);
    rng_t r;
    rng_init(&r, "cpu-sort", idx);
    unsigned char *keys = malloc(n * ks + 8), *out = malloc(n * ks + 8);
    unsigned char *vals = malloc(n * 8 + 8), *vout = malloc(n * 8 + 8);
    assert_non_null(keys);
    ref_fill(&r, key, dist, keys, n);
    if (vb) ref_iota(vals, n, vb);
    memcpy(out, keys, n * ks);
    if (vb) memcpy(vout, vals, n * vb);
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    o.descending = desc;
    o.begin_bit = begin;
    o.end_bit = end;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_sort(out, vb ? vout : NULL, n, key, vb, &o));
    size_t *perm = ref_order(key, keys, n, desc, begin, end);
    size_t bad = ref_first_mismatch(perm, n, ks, keys, out, vb, vals, vout);
    if (bad != n)
        TFAIL("cpu sort %s %s %s values=%zu n=%zu bits [%u,%u): first mismatch at %zu", libscan_dtype_name(key),
              ref_dist_name(dist), desc ? "desc" : "asc", vb, n, begin, end, bad);
    size_t first_bad = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_is_sorted(out, n, key, &o, &first_bad));
    assert_int_equal(first_bad, n);
    free(perm);
    free(keys);
    free(out);
    free(vals);
    free(vout);
}

static void test_every_type_direction_distribution(void **state) {
    (void)state;
    uint64_t idx = 0;
    for (int k = 0; k < 8; ++k)
        for (int d = 0; d < DIST_COUNT; ++d)
            for (int desc = 0; desc < 2; ++desc)
                for (size_t s = 0; s < sizeof kSizes / sizeof kSizes[0]; ++s) {
                    const size_t vbs[3] = {0, 4, 8};
                    check_sorted_case(ref_all_keys[k], (ref_dist_t)d, desc, vbs[idx % 3], kSizes[s], 0, 0, idx);
                    ++idx;
                }
}

static void test_stability_pairs_equal_keys(void **state) {
    (void)state;
    for (int k = 0; k < 8; ++k)
        for (int desc = 0; desc < 2; ++desc) {
            check_sorted_case(ref_all_keys[k], DIST_TWO_DISTINCT, desc, 4, 10007, 0, 0, 900 + k * 2 + desc);
            check_sorted_case(ref_all_keys[k], DIST_ALL_EQUAL, desc, 8, 5003, 0, 0, 950 + k * 2 + desc);
        }
}

static void test_bit_ranges(void **state) {
    (void)state;
    const unsigned ranges[][2] = {{4, 20}, {0, 1}, {31, 32}, {8, 8}, {0, 13}, {5, 32}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; ++i)
        for (int desc = 0; desc < 2; ++desc) {
            check_sorted_case(LIBSCAN_U32, DIST_UNIFORM, desc, 4, 20011, ranges[i][0], ranges[i][1], 1000 + i);
            check_sorted_case(LIBSCAN_I32, DIST_UNIFORM, desc, 0, 20011, ranges[i][0], ranges[i][1], 1100 + i);
        }
    check_sorted_case(LIBSCAN_U64, DIST_UNIFORM, 0, 8, 30011, 3, 61, 1200);
    check_sorted_case(LIBSCAN_I64, DIST_UNIFORM, 1, 4, 30011, 40, 64, 1201);
}

static void test_argsort(void **state) {
    (void)state;
    for (int k = 0; k < 8; ++k)
        for (size_t ib = 4; ib <= 8; ib += 4) {
            const size_t n = 12345, ks = libscan_dtype_size(ref_all_keys[k]);
            rng_t r;
            rng_init(&r, "cpu-argsort", (uint64_t)k * 2 + ib);
            unsigned char *keys = malloc(n * ks), *out = malloc(n * ks), *idx = malloc(n * 8);
            ref_fill(&r, ref_all_keys[k], DIST_SIXTEEN_DISTINCT, keys, n);
            memcpy(out, keys, n * ks);
            LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_argsort(out, idx, n, ref_all_keys[k], ib, NULL));
            size_t *perm = ref_order(ref_all_keys[k], keys, n, 0, 0, 0);
            for (size_t i = 0; i < n; ++i) {
                const uint64_t got = ib == 4 ? ((uint32_t *)idx)[i] : ((uint64_t *)idx)[i];
                if (got != perm[i]) TFAIL("argsort %s index bytes %zu: [%zu] = %llu, expected %zu",
                                          libscan_dtype_name(ref_all_keys[k]), ib, i, (unsigned long long)got, perm[i]);
            }
            free(perm);
            free(keys);
            free(out);
            free(idx);
        }
}

static void test_is_sorted_and_unique(void **state) {
    (void)state;
    uint32_t k[] = {1, 2, 2, 3, 3, 3, 7};
    uint32_t v[] = {10, 20, 21, 30, 31, 32, 70};
    size_t bad = 0, kept = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_is_sorted(k, 7, LIBSCAN_U32, NULL, &bad));
    assert_int_equal(bad, 7);
    libscan_sort_opts_t desc = LIBSCAN_SORT_OPTS_INIT;
    desc.descending = 1;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_is_sorted(k, 7, LIBSCAN_U32, &desc, &bad));
    assert_int_equal(bad, 1);
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_sort_unique(k, v, 7, LIBSCAN_U32, 4, NULL, &kept));
    assert_int_equal(kept, 4);
    const uint32_t ek[] = {1, 2, 3, 7}, ev[] = {10, 20, 30, 70};
    assert_memory_equal(k, ek, sizeof ek);
    assert_memory_equal(v, ev, sizeof ev);
    /* -0.0 and +0.0 are distinct keys; equal NaN bits are one key. */
    float f[] = {-0.0f, 0.0f, 0.0f, __builtin_nanf(""), __builtin_nanf("")};
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_is_sorted(f, 5, LIBSCAN_F32, NULL, &bad));
    assert_int_equal(bad, 5);
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_sort_unique(f, NULL, 5, LIBSCAN_F32, 0, NULL, &kept));
    assert_int_equal(kept, 3);
    float g[] = {1.0f, -0.0f};
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_is_sorted(g, 2, LIBSCAN_F32, NULL, &bad));
    assert_int_equal(bad, 1);
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_is_sorted(k, 7, LIBSCAN_U32, NULL, NULL));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_sort_unique(k, NULL, 7, (libscan_dtype_t)99, 0, NULL, &kept));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_sort_unique(k, v, 7, LIBSCAN_U32, 0, NULL, &kept));
}

static void test_cpu_errors(void **state) {
    (void)state;
    uint32_t k[4] = {0}, v[4] = {0};
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_sort(k, NULL, 4, (libscan_dtype_t)8, 0, NULL));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_sort(k, v, 4, LIBSCAN_U32, 2, NULL));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_sort(k, v, 4, LIBSCAN_U32, 0, NULL));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_sort(NULL, NULL, 4, LIBSCAN_U32, 0, NULL));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_sort(k, NULL, 4, LIBSCAN_U32, 4, NULL));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_sort(NULL, NULL, 0, LIBSCAN_U32, 0, NULL));
    o.end_bit = 33;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_sort(k, NULL, 4, LIBSCAN_U32, 0, &o));
    o.begin_bit = 9;
    o.end_bit = 8;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_sort(k, NULL, 4, LIBSCAN_U32, 0, &o));
    LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE,
              libscan_cpu_sort(k, NULL, LIBSCAN_MAX_COUNT + 1, LIBSCAN_U32, 0, NULL));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_argsort(k, v, 4, LIBSCAN_U32, 0, NULL));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT,
              libscan_cpu_argsort(k, v, ((size_t)1 << 32) + 1, LIBSCAN_U32, 4, NULL));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_argsort(k, NULL, 4, LIBSCAN_U32, 4, NULL));
}

static void test_helpers_and_temp_bytes(void **state) {
    (void)state;
    assert_int_equal(libscan_dtype_size(LIBSCAN_U8), 1);
    assert_int_equal(libscan_dtype_size(LIBSCAN_U16), 2);
    assert_int_equal(libscan_dtype_size(LIBSCAN_F32), 4);
    assert_int_equal(libscan_dtype_size(LIBSCAN_I64), 8);
    assert_int_equal(libscan_dtype_size((libscan_dtype_t)8), 0);
    assert_string_equal(libscan_dtype_name(LIBSCAN_F64), "f64");
    assert_string_equal(libscan_dtype_name((libscan_dtype_t)-1), "unknown");
    assert_int_equal(libscan_sort_num_passes(LIBSCAN_U32, 0, 0), 4);
    assert_int_equal(libscan_sort_num_passes(LIBSCAN_U64, 0, 0), 8);
    assert_int_equal(libscan_sort_num_passes(LIBSCAN_U8, 0, 0), 1);
    assert_int_equal(libscan_sort_num_passes(LIBSCAN_U32, 4, 20), 2);
    assert_int_equal(libscan_sort_num_passes(LIBSCAN_U32, 8, 8), 0);
    assert_int_equal(libscan_sort_num_passes(LIBSCAN_U32, 0, 33), -1);
    assert_int_equal(libscan_sort_num_passes((libscan_dtype_t)9, 0, 0), -1);

    size_t b = 1;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(0, LIBSCAN_U32, 0, LIBSCAN_SORT_OUT_OF_PLACE, &b));
    assert_int_equal(b, 0);
    size_t db = 0, oop = 0, arg = 0, big = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(1000000, LIBSCAN_U32, 4, LIBSCAN_SORT_DOUBLE_BUFFER, &db));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(1000000, LIBSCAN_U32, 4, LIBSCAN_SORT_OUT_OF_PLACE, &oop));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(1000000, LIBSCAN_U32, 4, LIBSCAN_SORT_ARGSORT, &arg));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes((size_t)1 << 31, LIBSCAN_U32, 0, LIBSCAN_SORT_OUT_OF_PLACE, &big));
    assert_true(db > 0 && db < 1000000);      /* no key/value buffers */
    assert_true(oop >= db + 8000000);         /* + alternate keys and values */
    assert_true(arg >= db + 12000000);        /* + two key buffers and indices */
    assert_true(big > ((size_t)1 << 33));
    /* Byte and 16-bit keys: the alternate keys cost 1 and 2 bytes a key (each
     * rounded up to the temp alignment). */
    size_t u8 = 0, u16 = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(1000000, LIBSCAN_U8, 0, LIBSCAN_SORT_OUT_OF_PLACE, &u8));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(1000000, LIBSCAN_U16, 0, LIBSCAN_SORT_OUT_OF_PLACE, &u16));
    assert_true(u8 >= 1000000 && u16 + LIBSCAN_TEMP_ALIGNMENT >= u8 + 1000000);
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sort_temp_bytes(1, LIBSCAN_U32, 0, LIBSCAN_SORT_DOUBLE_BUFFER, NULL));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_sort_temp_bytes(1, (libscan_dtype_t)8, 0, LIBSCAN_SORT_DOUBLE_BUFFER, &b));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sort_temp_bytes(1, LIBSCAN_U32, 0, (libscan_sort_mode_t)3, &b));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sort_temp_bytes(1, LIBSCAN_U32, 3, LIBSCAN_SORT_DOUBLE_BUFFER, &b));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sort_temp_bytes(1, LIBSCAN_U32, 0, LIBSCAN_SORT_ARGSORT, &b));
    LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE,
              libscan_sort_temp_bytes(LIBSCAN_MAX_COUNT + 1, LIBSCAN_U32, 0, LIBSCAN_SORT_DOUBLE_BUFFER, &b));
}

/* Fake device pointers: never dereferenced, every error below is decided
 * before the first CUDA call. */
#define FAKE(a) ((void *)(uintptr_t)(a))

static void test_gpu_api_argument_errors(void **state) {
    (void)state;
    const size_t n = 1000;
    void *ki = FAKE(0x10000000), *ko = FAKE(0x20000000), *vi = FAKE(0x30000000), *vo = FAKE(0x40000000);
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    /* libscan_sort */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_sort(ki, ko, NULL, NULL, n, (libscan_dtype_t)8, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sort(ki, ko, vi, vo, n, LIBSCAN_U32, 2, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sort(ki, ko, vi, vo, n, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sort(NULL, ko, NULL, NULL, n, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sort(ki, NULL, NULL, NULL, n, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sort(ki, ko, vi, NULL, n, LIBSCAN_U32, 4, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE,
              libscan_sort(ki, ko, NULL, NULL, LIBSCAN_MAX_COUNT + 1, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_sort(ki, ki, NULL, NULL, n, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP,
              libscan_sort(ki, (char *)ki + 400, NULL, NULL, n, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_sort(ki, ko, ko, vo, n, LIBSCAN_U32, 4, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER,
              libscan_sort((char *)ki + 2, ko, NULL, NULL, n, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_sort(ki, ko, vi, (char *)vo + 4, n, LIBSCAN_U32, 8, NULL, 0));
    o.end_bit = 40;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sort(ki, ko, NULL, NULL, n, LIBSCAN_U32, 0, &o, 0));
    o.end_bit = 0;
    o.begin_bit = 33;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sort(ki, ko, NULL, NULL, n, LIBSCAN_U32, 0, &o, 0));
    o.begin_bit = 0;
    o.temp_bytes = 10;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sort(ki, ko, NULL, NULL, n, LIBSCAN_U32, 0, &o, 0));
    size_t need = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(n, LIBSCAN_U32, 0, LIBSCAN_SORT_OUT_OF_PLACE, &need));
    o.d_temp = FAKE(0x50000000);
    o.temp_bytes = need - 1;
    LS_EXPECT(LIBSCAN_ERROR_TEMP_TOO_SMALL, libscan_sort(ki, ko, NULL, NULL, n, LIBSCAN_U32, 0, &o, 0));
    o.d_temp = (char *)ko + 64;
    o.temp_bytes = need;
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_sort(ki, ko, NULL, NULL, n, LIBSCAN_U32, 0, &o, 0));
    /* One key needs no temp, but caller temp is still checked for its size
     * and its overlaps. */
    size_t need1 = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(1, LIBSCAN_U32, 0, LIBSCAN_SORT_OUT_OF_PLACE, &need1));
    assert_true(need1 > 0);
    o.d_temp = FAKE(0x50000000);
    o.temp_bytes = need1 - 1;
    LS_EXPECT(LIBSCAN_ERROR_TEMP_TOO_SMALL, libscan_sort(ki, ko, NULL, NULL, 1, LIBSCAN_U32, 0, &o, 0));
    o.d_temp = ki;
    o.temp_bytes = need1;
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_sort(ki, ko, NULL, NULL, 1, LIBSCAN_U32, 0, &o, 0));
    o.d_temp = NULL;
    o.temp_bytes = 0;
    /* A byte key may sit at any address, but 4-byte values may not; 16-bit
     * keys need 2-byte alignment. */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER,
              libscan_sort((char *)ki + 1, ko, vi, (char *)vo + 2, n, LIBSCAN_U8, 4, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER,
              libscan_sort(ki, (char *)ko + 1, NULL, NULL, n, LIBSCAN_U16, 0, NULL, 0));
    /* Every value past the last key type is rejected, even with a known size. */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_sort(ki, ko, NULL, NULL, n, (libscan_dtype_t)8, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_sort(ki, ko, NULL, NULL, n, (libscan_dtype_t)-1, 0, NULL, 0));
    /* count 0: nothing to do, NULL pointers fine, no CUDA call. */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort(NULL, NULL, NULL, NULL, 0, LIBSCAN_U32, 0, NULL, 0));

    /* libscan_sort_double_buffer */
    libscan_double_buffer_t db = {{ki, ko}, {NULL, NULL}, 0};
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sort_double_buffer(NULL, n, LIBSCAN_U32, 0, NULL, 0));
    db.selector = 2;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sort_double_buffer(&db, n, LIBSCAN_U32, 0, NULL, 0));
    db.selector = 0;
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sort_double_buffer(&db, n, LIBSCAN_U32, 4, NULL, 0));
    db.d_values[0] = vi;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sort_double_buffer(&db, n, LIBSCAN_U32, 0, NULL, 0));
    db.d_values[1] = vi;
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_sort_double_buffer(&db, n, LIBSCAN_U32, 4, NULL, 0));
    db.d_values[1] = vo;
    db.d_keys[1] = NULL;
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sort_double_buffer(&db, n, LIBSCAN_U32, 4, NULL, 0));
    db.d_keys[1] = (char *)ko + 1;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_sort_double_buffer(&db, n, LIBSCAN_U32, 4, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_sort_double_buffer(&db, n, (libscan_dtype_t)-1, 4, NULL, 0));
    assert_int_equal(db.selector, 0); /* untouched on error */

    /* libscan_argsort */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_argsort(ki, ko, vi, n, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_argsort(ki, ko, vi, n, LIBSCAN_U32, 2, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT,
              libscan_argsort(ki, ko, vi, ((size_t)1 << 32) + 1, LIBSCAN_U32, 4, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_argsort(ki, ko, NULL, n, LIBSCAN_U32, 4, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_argsort(NULL, ko, vi, n, LIBSCAN_U32, 4, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_argsort(ki, ko, ki, n, LIBSCAN_U32, 4, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_argsort(ki, ko, (char *)vi + 4, n, LIBSCAN_U32, 8, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_argsort(ki, ko, vi, n, (libscan_dtype_t)8, 4, NULL, 0));
}

int main(void) {
    test_begin("test_sort_cpu");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_type_direction_distribution),
        cmocka_unit_test(test_stability_pairs_equal_keys),
        cmocka_unit_test(test_bit_ranges),
        cmocka_unit_test(test_argsort),
        cmocka_unit_test(test_is_sorted_and_unique),
        cmocka_unit_test(test_cpu_errors),
        cmocka_unit_test(test_helpers_and_temp_bytes),
        cmocka_unit_test(test_gpu_api_argument_errors),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return test_exit_code(failed);
}
