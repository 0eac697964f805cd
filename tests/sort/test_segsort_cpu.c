/* test_segsort_cpu.c -- the segmented sort's host side (label cpu):
 * libscan_cpu_segmented_sort against the per-segment qsort reference
 * (segsort_reference.h) for every key type x direction x keys/pairs x
 * segment shape (one segment, empty segments, 256-key segments, power-law
 * sizes, sizes around the GPU's size classes); 2^20 segments; a segment
 * larger than the per-thread sort's limit (the threaded path); bit ranges;
 * 1, 2, 3 and 7 threads forced; the offsets checks (nothing written on
 * error); and every argument error of the GPU entry point that is decided
 * before any CUDA call (fake, never-dereferenced pointers). */
#include "support/harness.h"
#include "segsort_reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_threads(unsigned t) {
    if (t == 0) {
        unsetenv("LIBSCAN_CPU_THREADS");
        return;
    }
    char v[16];
    snprintf(v, sizeof v, "%u", t);
    setenv("LIBSCAN_CPU_THREADS", v, 1);
}

/* One CPU segmented sort of n keys in segments of shape `shape`, checked
 * against the reference. Values are random bytes: they must move with their
 * keys, and the reference's permutation says where. */
static void cpu_case(libscan_dtype_t key, ref_dist_t dist, seg_shape_t shape, int desc, size_t vb, size_t n,
                     unsigned begin, unsigned end, uint64_t idx) {
    const size_t ks = libscan_dtype_size(key);
    rng_t r;
    rng_init(&r, "cpu-segsort", idx);
    size_t num = 0;
    uint64_t *off = seg_make_offsets(&r, shape, n, &num);
    unsigned char *keys = malloc(n * ks + 8), *out = malloc(n * ks + 8);
    unsigned char *vals = malloc(n * 8 + 8), *vout = malloc(n * 8 + 8);
    assert_true(off && keys && out && vals && vout);
    ref_fill(&r, key, dist, keys, n);
    for (size_t i = 0; i < n * vb; ++i) vals[i] = (unsigned char)rng_u32(&r);
    memcpy(out, keys, n * ks);
    memcpy(vout, vals, n * vb);
    libscan_segsort_opts_t o = LIBSCAN_SEGSORT_OPTS_INIT;
    o.descending = desc;
    o.begin_bit = begin;
    o.end_bit = end;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_segmented_sort(out, vb ? vout : NULL, n, off, num, key, vb, &o));
    size_t *perm = seg_ref_order(key, keys, off, num, desc, begin, end);
    assert_non_null(perm);
    const size_t bad = ref_first_mismatch(perm, n, ks, keys, out, vb, vals, vout);
    if (bad != n)
        TFAIL("cpu segsort %s %s %s %s values=%zu n=%zu segments=%zu bits [%u,%u) threads=%s: first mismatch at %zu",
              libscan_dtype_name(key), ref_dist_name(dist), seg_shape_name(shape), desc ? "desc" : "asc", vb, n,
              num, begin, end, getenv("LIBSCAN_CPU_THREADS") ? getenv("LIBSCAN_CPU_THREADS") : "auto", bad);
    free(perm);
    free(off);
    free(keys);
    free(out);
    free(vals);
    free(vout);
}

static void test_every_type_shape_direction(void **state) {
    (void)state;
    uint64_t idx = 0;
    for (int k = 0; k < 8; ++k)
        for (int s = 0; s < SEG_SHAPE_COUNT; ++s)
            for (int desc = 0; desc < 2; ++desc)
                for (size_t vb = 0; vb <= 8; vb += 4, ++idx) {
                    const ref_dist_t dist = (ref_dist_t)(idx % DIST_COUNT);
                    cpu_case(ref_all_keys[k], dist, (seg_shape_t)s, desc, vb, 30011, 0, 0, idx);
                }
}

/* Stability where it shows: few distinct keys, pairs. */
static void test_stability_few_distinct(void **state) {
    (void)state;
    for (int k = 0; k < 8; ++k)
        for (int s = 0; s < SEG_SHAPE_COUNT; ++s) {
            cpu_case(ref_all_keys[k], DIST_TWO_DISTINCT, (seg_shape_t)s, s & 1, 8, 20011, 0, 0, 500 + k * 8 + s);
            cpu_case(ref_all_keys[k], DIST_ALL_EQUAL, (seg_shape_t)s, 0, 4, 5003, 0, 0, 600 + k * 8 + s);
        }
}

static void test_threads_forced(void **state) {
    (void)state;
    static const unsigned threads[] = {1, 2, 3, 7};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; ++t) {
        set_threads(threads[t]);
        for (int s = 0; s < SEG_SHAPE_COUNT; ++s) {
            cpu_case(LIBSCAN_U32, DIST_UNIFORM, (seg_shape_t)s, 0, 4, 70001, 0, 0, 1000 + t * 8 + s);
            cpu_case(LIBSCAN_F64, DIST_FLOAT_SPECIALS, (seg_shape_t)s, 1, 8, 9001, 0, 0, 1100 + t * 8 + s);
        }
    }
    set_threads(0);
}

/* Bit ranges (integer keys, as the reference compares ranges of those). */
static void test_bit_ranges(void **state) {
    (void)state;
    static const unsigned ranges[][2] = {{0, 8}, {4, 12}, {8, 32}, {3, 29}, {5, 5}, {31, 32}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; ++i)
        for (int s = 0; s < SEG_SHAPE_COUNT; ++s) {
            cpu_case(LIBSCAN_U32, DIST_UNIFORM, (seg_shape_t)s, (int)i & 1, 4, 20011, ranges[i][0], ranges[i][1],
                     2000 + i * 8 + s);
            cpu_case(LIBSCAN_I32, DIST_UNIFORM, (seg_shape_t)s, (int)(i + 1) & 1, 0, 20011, ranges[i][0],
                     ranges[i][1], 2100 + i * 8 + s);
        }
    cpu_case(LIBSCAN_U64, DIST_UNIFORM, SEG_POWER_LAW, 0, 8, 30011, 3, 61, 2200);
    cpu_case(LIBSCAN_I64, DIST_UNIFORM, SEG_CLASS_EDGES, 1, 4, 30011, 40, 64, 2201);
}

/* 2^20 segments of 0 to 3 keys, and 2^20 of 256 u8 keys. */
static void test_2pow20_segments(void **state) {
    (void)state;
    const size_t segs = (size_t)1 << 20;
    rng_t r;
    rng_init(&r, "cpu-segsort-2^20", 0);
    uint64_t *off = malloc((segs + 1) * sizeof *off);
    assert_non_null(off);
    off[0] = 0;
    for (size_t s = 0; s < segs; ++s) off[s + 1] = off[s] + rng_below(&r, 4);
    const size_t n = (size_t)off[segs];
    uint16_t *keys = malloc(n * 2 + 2), *out = malloc(n * 2 + 2);
    uint32_t *vals = malloc(n * 4 + 4), *vout = malloc(n * 4 + 4);
    assert_true(keys && out && vals && vout);
    ref_fill(&r, LIBSCAN_U16, DIST_SIXTEEN_DISTINCT, keys, n);
    ref_iota(vals, n, 4);
    memcpy(out, keys, n * 2);
    memcpy(vout, vals, n * 4);
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_segmented_sort(out, vout, n, off, segs, LIBSCAN_U16, 4, NULL));
    size_t *perm = seg_ref_order(LIBSCAN_U16, keys, off, segs, 0, 0, 0);
    assert_non_null(perm);
    assert_int_equal(ref_first_mismatch(perm, n, 2, keys, out, 4, vals, vout), n);
    free(perm);
    free(keys);
    free(out);
    free(vals);
    free(vout);

    /* 2^20 segments of 256 u8 keys: each output segment is its keys counted out. */
    const size_t m = segs * 256;
    unsigned char *k8 = malloc(m);
    assert_non_null(k8);
    for (size_t s = 0; s <= segs; ++s) off[s] = (uint64_t)s * 256;
    for (size_t i = 0; i < m; ++i) k8[i] = (unsigned char)rng_u32(&r);
    size_t *hist = calloc(segs * 256, sizeof *hist);
    assert_non_null(hist);
    for (size_t i = 0; i < m; ++i) ++hist[(i / 256) * 256 + k8[i]];
    libscan_segsort_opts_t o = LIBSCAN_SEGSORT_OPTS_INIT;
    o.descending = 1;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_segmented_sort(k8, NULL, m, off, segs, LIBSCAN_U8, 0, &o));
    for (size_t s = 0; s < segs; ++s) {
        size_t at = s * 256;
        for (int d = 255; d >= 0; --d)
            for (size_t c = 0; c < hist[s * 256 + (size_t)d]; ++c, ++at)
                if (k8[at] != d) TFAIL("2^20 x 256 u8 descending: segment %zu position %zu is %u, expected %d", s,
                                       at - s * 256, k8[at], d);
    }
    free(hist);
    free(k8);
    free(off);
}

/* A segment above the per-thread limit (2^20 keys) between small ones takes
 * the threaded sort. */
static void test_segment_over_thread_limit(void **state) {
    (void)state;
    const size_t big = ((size_t)1 << 20) + 4099, n = big + 3000;
    rng_t r;
    rng_init(&r, "cpu-segsort-big", 0);
    uint64_t off[6] = {0, 1000, 1000, 1000 + big, 2500 + big, n};
    unsigned char *keys = malloc(n * 4), *out = malloc(n * 4), *vals = malloc(n * 8), *vout = malloc(n * 8);
    assert_true(keys && out && vals && vout);
    for (int rep = 0; rep < 2; ++rep) {
        ref_fill(&r, rep ? LIBSCAN_F32 : LIBSCAN_I32, rep ? DIST_FLOAT_SPECIALS : DIST_SIXTEEN_DISTINCT, keys, n);
        for (size_t i = 0; i < n * 8; ++i) vals[i] = (unsigned char)rng_u32(&r);
        memcpy(out, keys, n * 4);
        memcpy(vout, vals, n * 8);
        const libscan_dtype_t key = rep ? LIBSCAN_F32 : LIBSCAN_I32;
        libscan_segsort_opts_t o = LIBSCAN_SEGSORT_OPTS_INIT;
        o.descending = rep;
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_segmented_sort(out, vout, n, off, 5, key, 8, &o));
        size_t *perm = seg_ref_order(key, keys, off, 5, rep, 0, 0);
        assert_non_null(perm);
        assert_int_equal(ref_first_mismatch(perm, n, 4, keys, out, 8, vals, vout), n);
        free(perm);
    }
    free(keys);
    free(out);
    free(vals);
    free(vout);
}

/* Nothing to sort: no keys (with or without empty segments), one key, one
 * empty bit range. */
static void test_trivial_inputs(void **state) {
    (void)state;
    const uint64_t zero[4] = {0, 0, 0, 0};
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_segmented_sort(NULL, NULL, 0, zero, 0, LIBSCAN_U32, 0, NULL));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_segmented_sort(NULL, NULL, 0, zero, 3, LIBSCAN_U32, 0, NULL));
    uint32_t k[5] = {5, 4, 3, 2, 1}, v[5] = {0, 1, 2, 3, 4};
    const uint64_t one[2] = {0, 1}, all[2] = {0, 5}, split[3] = {0, 2, 5};
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_segmented_sort(k, v, 1, one, 1, LIBSCAN_U32, 4, NULL));
    assert_int_equal(k[0], 5);
    libscan_segsort_opts_t o = LIBSCAN_SEGSORT_OPTS_INIT;
    o.begin_bit = o.end_bit = 7;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_segmented_sort(k, v, 5, all, 1, LIBSCAN_U32, 4, &o));
    const uint32_t same[5] = {5, 4, 3, 2, 1};
    assert_memory_equal(k, same, sizeof same);
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_segmented_sort(k, v, 5, split, 2, LIBSCAN_U32, 4, NULL));
    const uint32_t want_k[5] = {4, 5, 1, 2, 3}, want_v[5] = {1, 0, 4, 3, 2};
    assert_memory_equal(k, want_k, sizeof want_k);
    assert_memory_equal(v, want_v, sizeof want_v);
}

/* Bad offsets and arguments: the status, and nothing written. */
static void test_cpu_errors(void **state) {
    (void)state;
    uint32_t k[4] = {4, 3, 2, 1}, v[4] = {0, 1, 2, 3};
    const uint32_t k0[4] = {4, 3, 2, 1}, v0[4] = {0, 1, 2, 3};
    const uint64_t not_zero[3] = {1, 2, 4}, decreasing[4] = {0, 3, 2, 4}, short_end[3] = {0, 2, 3},
                   beyond[3] = {0, 5, 4}, good[3] = {0, 2, 4};
    const uint64_t *bad[] = {not_zero, decreasing, short_end, beyond};
    const size_t bad_num[] = {2, 3, 2, 2};
    for (size_t i = 0; i < 4; ++i) {
        LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_segmented_sort(k, v, 4, bad[i], bad_num[i], LIBSCAN_U32, 4, NULL));
        assert_memory_equal(k, k0, sizeof k0);
        assert_memory_equal(v, v0, sizeof v0);
    }
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_segmented_sort(k, v, 4, good, 0, LIBSCAN_U32, 4, NULL));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_segmented_sort(k, v, 4, NULL, 2, LIBSCAN_U32, 4, NULL));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_segmented_sort(NULL, v, 4, good, 2, LIBSCAN_U32, 4, NULL));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_segmented_sort(k, NULL, 4, good, 2, LIBSCAN_U32, 4, NULL));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_segmented_sort(k, v, 4, good, 2, LIBSCAN_U32, 0, NULL));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_segmented_sort(k, v, 4, good, 2, LIBSCAN_U32, 2, NULL));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_segmented_sort(k, NULL, 4, good, 2, (libscan_dtype_t)8, 0, NULL));
    libscan_segsort_opts_t o = LIBSCAN_SEGSORT_OPTS_INIT;
    o.end_bit = 33;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_segmented_sort(k, NULL, 4, good, 2, LIBSCAN_U32, 0, &o));
    o.begin_bit = 9;
    o.end_bit = 8;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_segmented_sort(k, NULL, 4, good, 2, LIBSCAN_U32, 0, &o));
    LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE,
              libscan_cpu_segmented_sort(k, NULL, LIBSCAN_MAX_COUNT + 1, good, 2, LIBSCAN_U32, 0, NULL));
    LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE,
              libscan_cpu_segmented_sort(k, NULL, 4, good, LIBSCAN_MAX_COUNT + 1, LIBSCAN_U32, 0, NULL));
    assert_memory_equal(k, k0, sizeof k0);
    assert_memory_equal(v, v0, sizeof v0);
}

#define FAKE(a) ((void *)(uintptr_t)(a))

/* The GPU entry point's errors that need no CUDA call, and the temp query. */
static void test_gpu_api_argument_errors(void **state) {
    (void)state;
    const size_t n = 100000;
    void *ki = FAKE(0x10000000), *ko = FAKE(0x20000000), *vi = FAKE(0x30000000), *vo = FAKE(0x40000000);
    const uint64_t *off = FAKE(0x50000000);
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE,
              libscan_segmented_sort(ki, ko, NULL, NULL, n, off, 4, (libscan_dtype_t)8, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_segmented_sort(ki, ko, vi, vo, n, off, 4, LIBSCAN_U32, 2, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_segmented_sort(ki, ko, vi, vo, n, off, 4, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_segmented_sort(ki, ko, NULL, NULL, n, NULL, 4, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_segmented_sort(NULL, ko, NULL, NULL, n, off, 4, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_segmented_sort(ki, ko, vi, NULL, n, off, 4, LIBSCAN_U32, 4, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_segmented_sort(ki, ko, NULL, NULL, n, off, 0, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE,
              libscan_segmented_sort(ki, ko, NULL, NULL, LIBSCAN_MAX_COUNT + 1, off, 4, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE,
              libscan_segmented_sort(ki, ko, NULL, NULL, n, off, LIBSCAN_MAX_COUNT + 1, LIBSCAN_U32, 0, NULL, 0));
    libscan_segsort_opts_t o = LIBSCAN_SEGSORT_OPTS_INIT;
    o.end_bit = 65;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_segmented_sort(ki, ko, NULL, NULL, n, off, 4, LIBSCAN_U64, 0, &o, 0));
    o.end_bit = 0;
    /* The entry path's checks, all before any CUDA call. */
    o.temp_bytes = 16;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_segmented_sort(ki, ko, NULL, NULL, n, off, 4, LIBSCAN_U32, 0, &o, 0));
    o.temp_bytes = 0;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER,
              libscan_segmented_sort((char *)ki + 2, ko, NULL, NULL, n, off, 4, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER,
              libscan_segmented_sort(ki, ko, NULL, NULL, n, (const uint64_t *)((char *)off + 4), 4, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_segmented_sort(ki, ki, NULL, NULL, n, off, 4, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP,
              libscan_segmented_sort(ki, ko, NULL, NULL, n, (const uint64_t *)((char *)ko + 64), 4, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_segmented_sort(ki, ko, vi, (char *)ki + 8, n, off, 4, LIBSCAN_U32, 4, NULL, 0));
    size_t need = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_sort_temp_bytes(n, 4, LIBSCAN_U32, 0, &need));
    assert_true(need >= n * 4);
    o.d_temp = FAKE(0x60000000);
    o.temp_bytes = need - 1;
    LS_EXPECT(LIBSCAN_ERROR_TEMP_TOO_SMALL, libscan_segmented_sort(ki, ko, NULL, NULL, n, off, 4, LIBSCAN_U32, 0, &o, 0));
    o.d_temp = (char *)ko + 64;
    o.temp_bytes = need;
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_segmented_sort(ki, ko, NULL, NULL, n, off, 4, LIBSCAN_U32, 0, &o, 0));

    /* The temp query. */
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_segmented_sort_temp_bytes(n, 4, LIBSCAN_U32, 0, NULL));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_segmented_sort_temp_bytes(n, 4, (libscan_dtype_t)8, 0, &need));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_segmented_sort_temp_bytes(n, 4, LIBSCAN_U32, 3, &need));
    LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE, libscan_segmented_sort_temp_bytes(LIBSCAN_MAX_COUNT + 1, 4, LIBSCAN_U32, 0, &need));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_sort_temp_bytes(0, 0, LIBSCAN_U32, 0, &need));
    assert_int_equal(need, 0);
    /* Up to one tile of keys, every segment fits one block: no temp. */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_sort_temp_bytes(2048, 1, LIBSCAN_U64, 8, &need));
    assert_int_equal(need, 0);
    size_t k4 = 0, k8 = 0, p8 = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_sort_temp_bytes(n, 1000, LIBSCAN_U32, 0, &k4));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_sort_temp_bytes(n, 1000, LIBSCAN_U64, 0, &k8));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_sort_temp_bytes(n, 1000, LIBSCAN_U64, 8, &p8));
    assert_true(k4 >= n * 4 + LIBSCAN_TEMP_ALIGNMENT && k8 >= n * 8 && p8 >= n * 16 && k4 < k8 && k8 < p8);
}

/* The temp query against sort.h's stated bound: the alternate keys and
 * values, then at most 1.5 bytes a key of bookkeeping when neither keys nor
 * values exceed 4 bytes, 2.8 for narrower keys with 8-byte values, 4.8 for
 * 8-byte keys, twice that from 2^30 keys, and 16 bytes a segment (plus a
 * few KB of rounding and counters); far less with few segments. Host
 * arithmetic only: no allocation, so sizes past 2^31 are checked too. */
static void test_temp_bound(void **state) {
    (void)state;
    static const libscan_dtype_t keys[] = {LIBSCAN_U8, LIBSCAN_U16, LIBSCAN_U32, LIBSCAN_U64};
    static const size_t counts[] = {4097, 300007, (size_t)1 << 24, ((size_t)1 << 31) + 5};
    for (size_t k = 0; k < 4; ++k)
        for (size_t vb = 0; vb <= 8; vb += 4)
            for (size_t c = 0; c < 4; ++c) {
                const size_t n = counts[c], ks = libscan_dtype_size(keys[k]);
                double per_key = ks == 8 ? 4.8 : vb == 8 ? 2.8 : 1.5;
                if (n >= (size_t)1 << 30) per_key *= 2;
                const size_t seg_counts[] = {1, 64, n / 1000 + 1, n};
                for (size_t g = 0; g < 4; ++g) {
                    const size_t segs = seg_counts[g];
                    size_t need = 0;
                    LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_sort_temp_bytes(n, segs, keys[k], vb, &need));
                    const size_t copies = n * ks + n * vb;
                    assert_true(need >= copies);
                    const double extra = (double)(need - copies);
                    const double bound = per_key * (double)n + 16.0 * (double)(segs + 1) + 8192.0;
                    if (extra > bound)
                        TFAIL("%s keys, %zu-byte values, n=%zu, %zu segments: %.0f bytes beyond the copies, bound %.0f",
                              libscan_dtype_name(keys[k]), vb, n, segs, extra, bound);
                    /* 64 segments: look-back words for the tiles (at most 0.5 bytes a
                       key), digit counts for 64 rows (at most 16 KB each). */
                    if (segs == 64 && extra > 0.6 * (double)n + 16384.0 * 64 + 8192.0)
                        TFAIL("%s keys, n=%zu, 64 segments: %.0f bytes of bookkeeping", libscan_dtype_name(keys[k]), n,
                              extra);
                }
            }
}

int main(void) {
    test_begin("test_segsort_cpu");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_type_shape_direction),
        cmocka_unit_test(test_stability_few_distinct),
        cmocka_unit_test(test_threads_forced),
        cmocka_unit_test(test_bit_ranges),
        cmocka_unit_test(test_2pow20_segments),
        cmocka_unit_test(test_segment_over_thread_limit),
        cmocka_unit_test(test_trivial_inputs),
        cmocka_unit_test(test_temp_bound),
        cmocka_unit_test(test_cpu_errors),
        cmocka_unit_test(test_gpu_api_argument_errors),
    };
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
