/* test_segsort_lib.c -- the GPU segmented sort (label gpu) against the
 * per-segment qsort reference (segsort_reference.h): every key type x
 * direction x keys/pairs (4, 8 bytes) x segment shape (one segment, empty
 * segments, 256-key segments, power-law sizes, sizes around every size class
 * and around 1-3 tiles of the device-wide passes); sizes past 2^20 (many
 * tiles per segment); 2^20 segments; bit ranges; the temp cache (opts = NULL) bitwise equal to caller
 * temp on the legacy and a created stream; trusted offsets; bad offsets
 * refused with nothing written; host offsets refused; calls with nothing to
 * order. Outputs are poisoned before every sort, and inputs checked
 * untouched. */
#include "support/harness.h"
#include "segsort_reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *dmalloc(size_t bytes) {
    void *p = NULL;
    CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
    return p;
}

typedef struct gpu_run {
    unsigned char *keys, *values; /* host copies of the outputs */
} gpu_run_t;

/* One GPU segmented sort of host keys/values/offsets; caller_temp: size and
 * pass temp, else opts without temp (or NULL when all defaults). */
static gpu_run_t gpu_sort(libscan_dtype_t key, const void *keys, const void *vals, size_t n, size_t vb,
                          const uint64_t *off, size_t num, const libscan_segsort_opts_t *base, int caller_temp,
                          cudaStream_t s) {
    const size_t ks = libscan_dtype_size(key);
    gpu_run_t res = {malloc(n * ks + 1), malloc(n * 8 + 1)};
    assert_true(res.keys && res.values);
    void *dki = dmalloc(n * ks), *dko = dmalloc(n * ks), *dvi = dmalloc(n * 8), *dvo = dmalloc(n * 8);
    uint64_t *doff = dmalloc((num + 1) * 8);
    CUDA_CHECK(cudaMemcpy(dki, keys, n * ks, cudaMemcpyHostToDevice));
    if (vb) CUDA_CHECK(cudaMemcpy(dvi, vals, n * vb, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(doff, off, (num + 1) * 8, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(dko, 0xAB, n * ks));
    CUDA_CHECK(cudaMemset(dvo, 0xAB, n * 8));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memsets before work on other streams */
    libscan_segsort_opts_t o = base ? *base : (libscan_segsort_opts_t)LIBSCAN_SEGSORT_OPTS_INIT;
    void *temp = NULL;
    if (caller_temp) {
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_sort_temp_bytes(n, num, key, vb, &o.temp_bytes));
        temp = o.temp_bytes ? dmalloc(o.temp_bytes) : NULL;
        if (temp) CUDA_CHECK(cudaMemset(temp, 0x5A, o.temp_bytes)); /* no zeroed-temp luck */
        CUDA_CHECK(cudaDeviceSynchronize());
        o.d_temp = temp;
    }
    const libscan_segsort_opts_t *op = (!base && !caller_temp) ? NULL : &o;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_sort(dki, dko, vb ? dvi : NULL, vb ? dvo : NULL, n, doff, num, key,
                                                      vb, op, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_SYNC();
    CUDA_CHECK(cudaMemcpy(res.keys, dko, n * ks, cudaMemcpyDeviceToHost));
    if (vb) CUDA_CHECK(cudaMemcpy(res.values, dvo, n * vb, cudaMemcpyDeviceToHost));
    /* The inputs are untouched. */
    unsigned char *back = malloc(n * 8 + 1);
    assert_non_null(back);
    CUDA_CHECK(cudaMemcpy(back, dki, n * ks, cudaMemcpyDeviceToHost));
    if (memcmp(back, keys, n * ks)) TFAIL("segmented sort wrote its input keys");
    if (vb) {
        CUDA_CHECK(cudaMemcpy(back, dvi, n * vb, cudaMemcpyDeviceToHost));
        if (memcmp(back, vals, n * vb)) TFAIL("segmented sort wrote its input values");
    }
    free(back);
    CUDA_CHECK(cudaFree(dki));
    CUDA_CHECK(cudaFree(dko));
    CUDA_CHECK(cudaFree(dvi));
    CUDA_CHECK(cudaFree(dvo));
    CUDA_CHECK(cudaFree(doff));
    if (temp) CUDA_CHECK(cudaFree(temp));
    return res;
}

/* One case checked against the reference (and, every third case, caller
 * temp bitwise equal to the temp cache). */
static void gpu_case(libscan_dtype_t key, ref_dist_t dist, seg_shape_t shape, int desc, size_t vb, size_t n,
                     unsigned begin, unsigned end, int trust, uint64_t idx) {
    const size_t ks = libscan_dtype_size(key);
    rng_t r;
    rng_init(&r, "gpu-segsort", idx);
    size_t num = 0;
    uint64_t *off = seg_make_offsets(&r, shape, n, &num);
    unsigned char *keys = malloc(n * ks + 8), *vals = malloc(n * 8 + 8);
    assert_true(off && keys && vals);
    ref_fill(&r, key, dist, keys, n);
    for (size_t i = 0; i < n * vb; ++i) vals[i] = (unsigned char)rng_u32(&r);
    libscan_segsort_opts_t o = LIBSCAN_SEGSORT_OPTS_INIT;
    o.descending = desc;
    o.begin_bit = begin;
    o.end_bit = end;
    o.trust_offsets = trust;
    gpu_run_t got = gpu_sort(key, keys, vals, n, vb, off, num, &o, (int)(idx & 1), 0);
    size_t *perm = seg_ref_order(key, keys, off, num, desc, begin, end);
    assert_non_null(perm);
    const size_t bad = ref_first_mismatch(perm, n, ks, keys, got.keys, vb, vals, got.values);
    if (bad != n)
        TFAIL("gpu segsort %s %s %s %s values=%zu n=%zu segments=%zu bits [%u,%u) temp=%s trust=%d: first mismatch "
              "at %zu",
              libscan_dtype_name(key), ref_dist_name(dist), seg_shape_name(shape), desc ? "desc" : "asc", vb, n, num,
              begin, end, (idx & 1) ? "caller" : "cache", trust, bad);
    if (idx % 3 == 0) {
        gpu_run_t other = gpu_sort(key, keys, vals, n, vb, off, num, &o, !(idx & 1), 0);
        if (memcmp(other.keys, got.keys, n * ks) || (vb && memcmp(other.values, got.values, n * vb)))
            TFAIL("gpu segsort %s %s n=%zu: caller temp and the temp cache differ", libscan_dtype_name(key),
                  seg_shape_name(shape), n);
        free(other.keys);
        free(other.values);
    }
    free(perm);
    free(got.keys);
    free(got.values);
    free(off);
    free(keys);
    free(vals);
}

static void test_every_type_shape_direction(void **state) {
    (void)state;
    test_require_gpu();
    uint64_t idx = 0;
    for (int k = 0; k < 8; ++k)
        for (int s = 0; s < SEG_SHAPE_COUNT; ++s)
            for (int desc = 0; desc < 2; ++desc)
                for (size_t vb = 0; vb <= 8; vb += 4, ++idx)
                    gpu_case(ref_all_keys[k], (ref_dist_t)(idx % DIST_COUNT), (seg_shape_t)s, desc, vb, 30011, 0, 0,
                             (int)(idx % 4 == 3), idx);
}

/* Segments of many tiles: past 2^20 keys, so one digit of a segment spans
 * many tiles and the device-wide passes carry across them. */
static void test_many_tiles(void **state) {
    (void)state;
    test_require_gpu();
    const size_t n = test_capped_n(((size_t)1 << 22) + 9, 1);
    uint64_t idx = 3000;
    for (int k = 0; k < 8; ++k, ++idx) {
        gpu_case(ref_all_keys[k], DIST_UNIFORM, SEG_ONE, (int)(idx & 1), (idx % 3) * 4, n, 0, 0, 0, idx);
        gpu_case(ref_all_keys[k], DIST_SIXTEEN_DISTINCT, SEG_POWER_LAW, (int)((idx >> 1) & 1), 8, n, 0, 0, 1,
                 idx + 100);
    }
    gpu_case(LIBSCAN_U32, DIST_TWO_DISTINCT, SEG_CLASS_EDGES, 0, 4, n, 0, 0, 0, 3200);
    /* Every tile size of the passes, keys and both value widths, whole
       cycles of the shape's sizes: segments of 1-3 tiles side by side, each
       its own look-back chain. */
    for (int k = 0; k < 8; ++k)
        for (size_t vb = 0; vb <= 8; vb += 4)
            gpu_case(ref_all_keys[k], (ref_dist_t)((k + vb) % DIST_COUNT), SEG_PASS_TILES, k & 1, vb,
                     test_capped_n(300007, 1), 0, 0, (int)(vb == 4), 3300 + (uint64_t)k * 3 + vb / 4);
}

static void test_stability_few_distinct(void **state) {
    (void)state;
    test_require_gpu();
    for (int k = 0; k < 8; ++k)
        for (int s = 0; s < SEG_SHAPE_COUNT; ++s) {
            gpu_case(ref_all_keys[k], DIST_TWO_DISTINCT, (seg_shape_t)s, s & 1, 8, 40009, 0, 0, 0, 500 + k * 8 + s);
            gpu_case(ref_all_keys[k], DIST_ALL_EQUAL, (seg_shape_t)s, 0, 4, 9001, 0, 0, 0, 600 + k * 8 + s);
        }
}

static void test_bit_ranges(void **state) {
    (void)state;
    test_require_gpu();
    static const unsigned ranges[][2] = {{0, 8}, {4, 12}, {8, 32}, {3, 29}, {5, 5}, {31, 32}, {0, 1}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; ++i)
        for (int s = 0; s < SEG_SHAPE_COUNT; ++s) {
            gpu_case(LIBSCAN_U32, DIST_UNIFORM, (seg_shape_t)s, (int)i & 1, 4, 50021, ranges[i][0], ranges[i][1], 0,
                     2000 + i * 8 + s);
            gpu_case(LIBSCAN_I32, DIST_UNIFORM, (seg_shape_t)s, (int)(i + 1) & 1, 0, 50021, ranges[i][0],
                     ranges[i][1], 0, 2100 + i * 8 + s);
        }
    gpu_case(LIBSCAN_U64, DIST_UNIFORM, SEG_POWER_LAW, 0, 8, 30011, 3, 61, 0, 2200);
    gpu_case(LIBSCAN_I64, DIST_UNIFORM, SEG_CLASS_EDGES, 1, 4, 30011, 40, 64, 0, 2201);
}

/* 2^20 segments of 0 to 63 keys (all three one-block classes' smallest),
 * u32 pairs; and 2^20 segments of 256 u16 keys. */
static void test_2pow20_segments(void **state) {
    (void)state;
    test_require_gpu();
    const size_t segs = (size_t)1 << 20;
    for (int shape = 0; shape < 2; ++shape) {
        rng_t r;
        rng_init(&r, "gpu-segsort-2^20", (uint64_t)shape);
        uint64_t *off = malloc((segs + 1) * sizeof *off);
        assert_non_null(off);
        off[0] = 0;
        for (size_t s = 0; s < segs; ++s) off[s + 1] = off[s] + (shape ? 256 : rng_below(&r, 64));
        const size_t n = (size_t)off[segs];
        if (!test_size_allowed(n)) {
            free(off);
            continue;
        }
        const libscan_dtype_t key = shape ? LIBSCAN_U16 : LIBSCAN_U32;
        const size_t ks = libscan_dtype_size(key), vb = shape ? 0 : 4;
        unsigned char *keys = malloc(n * ks), *vals = malloc(n * 4 + 4);
        assert_true(keys && vals);
        ref_fill(&r, key, DIST_UNIFORM, keys, n);
        ref_iota(vals, n, 4);
        libscan_segsort_opts_t o = LIBSCAN_SEGSORT_OPTS_INIT;
        o.descending = shape;
        gpu_run_t got = gpu_sort(key, keys, vals, n, vb, off, segs, &o, shape, 0);
        size_t *perm = seg_ref_order(key, keys, off, segs, shape, 0, 0);
        assert_non_null(perm);
        const size_t bad = ref_first_mismatch(perm, n, ks, keys, got.keys, vb, vals, got.values);
        if (bad != n) TFAIL("2^20 segments, shape %d: first mismatch at %zu", shape, bad);
        free(perm);
        free(got.keys);
        free(got.values);
        free(keys);
        free(vals);
        free(off);
    }
}

/* Bad offsets are refused before anything is written (the poisoned output
 * stays as it was); host offsets are refused. */
static void test_bad_offsets(void **state) {
    (void)state;
    test_require_gpu();
    const size_t n = 10000;
    uint32_t *keys = malloc(n * 4), *back = malloc(n * 4);
    assert_true(keys && back);
    for (size_t i = 0; i < n; ++i) keys[i] = (uint32_t)(n - i);
    void *dki = dmalloc(n * 4), *dko = dmalloc(n * 4);
    uint64_t *doff = dmalloc(8 * 8);
    CUDA_CHECK(cudaMemcpy(dki, keys, n * 4, cudaMemcpyHostToDevice));
    const uint64_t cases[][4] = {{1, 10, 20, n}, {0, 30, 20, n}, {0, 10, 20, n - 1}, {0, 10, n + 1, n}};
    for (size_t c = 0; c < 4; ++c) {
        CUDA_CHECK(cudaMemset(dko, 0xAB, n * 4));
        CUDA_CHECK(cudaMemcpy(doff, cases[c], sizeof cases[c], cudaMemcpyHostToDevice));
        LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT,
                  libscan_segmented_sort(dki, dko, NULL, NULL, n, doff, 3, LIBSCAN_U32, 0, NULL, 0));
        CUDA_SYNC();
        CUDA_CHECK(cudaMemcpy(back, dko, n * 4, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n; ++i)
            if (back[i] != 0xABABABABu) TFAIL("bad offsets case %zu: output written at %zu", c, i);
    }
    int pageable = 0, dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, dev));
    if (!pageable) {
        const uint64_t host_off[2] = {0, n};
        LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER,
                  libscan_segmented_sort(dki, dko, NULL, NULL, n, host_off, 1, LIBSCAN_U32, 0, NULL, 0));
    }
    CUDA_CHECK(cudaFree(dki));
    CUDA_CHECK(cudaFree(dko));
    CUDA_CHECK(cudaFree(doff));
    free(keys);
    free(back);
}

/* Trusted invalid offsets (decreasing, beyond the count, wrapping) give
 * unspecified outputs but never touch memory outside the buffers: guard
 * zones around the outputs and the temp stay poisoned, and the call
 * completes. */
static void test_trusted_invalid_offsets_stay_inside(void **state) {
    (void)state;
    test_require_gpu();
    const size_t n = 300007, guard = 4096, segs = 6;
    const uint64_t off[7] = {0, 200000, 100000, 250000, (uint64_t)1 << 50, 5, n};
    size_t need = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_sort_temp_bytes(n, segs, LIBSCAN_U32, 8, &need));
    unsigned char *h = malloc(n * 8 + 2 * guard);
    assert_non_null(h);
    for (size_t i = 0; i < n * 4; ++i) h[i] = (unsigned char)(i * 2654435761u >> 13);
    unsigned char *dk = dmalloc(n * 4), *dv = dmalloc(n * 8);
    unsigned char *dko = dmalloc(n * 4 + 2 * guard), *dvo = dmalloc(n * 8 + 2 * guard), *temp = dmalloc(need + 2 * guard);
    uint64_t *doff = dmalloc(sizeof off);
    CUDA_CHECK(cudaMemcpy(dk, h, n * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dv, h, n * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(doff, off, sizeof off, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(dko, 0xC3, n * 4 + 2 * guard));
    CUDA_CHECK(cudaMemset(dvo, 0xC3, n * 8 + 2 * guard));
    CUDA_CHECK(cudaMemset(temp, 0xC3, need + 2 * guard));
    CUDA_SYNC();
    libscan_segsort_opts_t o = LIBSCAN_SEGSORT_OPTS_INIT;
    o.trust_offsets = 1;
    o.d_temp = temp + guard;
    o.temp_bytes = need;
    LS_EXPECT(LIBSCAN_SUCCESS,
              libscan_segmented_sort(dk, dko + guard, dv, dvo + guard, n, doff, segs, LIBSCAN_U32, 8, &o, 0));
    CUDA_SYNC();
    unsigned char *const bufs[3] = {dko, dvo, temp};
    const size_t sizes[3] = {n * 4, n * 8, need};
    for (int b = 0; b < 3; ++b) {
        CUDA_CHECK(cudaMemcpy(h, bufs[b], guard, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(h + guard, bufs[b] + guard + sizes[b], guard, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < 2 * guard; ++i)
            if (h[i] != 0xC3) TFAIL("trusted invalid offsets: buffer %d written outside at guard byte %zu", b, i);
    }
    CUDA_CHECK(cudaFree(dk));
    CUDA_CHECK(cudaFree(dv));
    CUDA_CHECK(cudaFree(dko));
    CUDA_CHECK(cudaFree(dvo));
    CUDA_CHECK(cudaFree(temp));
    CUDA_CHECK(cudaFree(doff));
    free(h);
}

/* On a created stream, opts = NULL and caller temp: the same result; and
 * calls with nothing to order (no keys, one key, an empty bit range) copy or
 * do nothing, with no temp given. */
static void test_streams_and_trivial_calls(void **state) {
    (void)state;
    test_require_gpu();
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const size_t n = 100003;
    rng_t r;
    rng_init(&r, "gpu-segsort-stream", 0);
    size_t num = 0;
    uint64_t *off = seg_make_offsets(&r, SEG_POWER_LAW, n, &num);
    float *keys = malloc(n * 4);
    uint64_t *vals = malloc(n * 8);
    assert_true(off && keys && vals);
    ref_fill(&r, LIBSCAN_F32, DIST_FLOAT_SPECIALS, keys, n);
    ref_iota(vals, n, 8);
    gpu_run_t a = gpu_sort(LIBSCAN_F32, keys, vals, n, 8, off, num, NULL, 0, s);
    gpu_run_t b = gpu_sort(LIBSCAN_F32, keys, vals, n, 8, off, num, NULL, 1, s);
    assert_memory_equal(a.keys, b.keys, n * 4);
    assert_memory_equal(a.values, b.values, n * 8);
    size_t *perm = seg_ref_order(LIBSCAN_F32, keys, off, num, 0, 0, 0);
    assert_int_equal(ref_first_mismatch(perm, n, 4, keys, a.keys, 8, vals, a.values), n);
    free(perm);
    free(a.keys);
    free(a.values);
    free(b.keys);
    free(b.values);

    /* An empty bit range: the output is the input. */
    libscan_segsort_opts_t o = LIBSCAN_SEGSORT_OPTS_INIT;
    o.begin_bit = o.end_bit = 9;
    gpu_run_t c = gpu_sort(LIBSCAN_F32, keys, vals, n, 8, off, num, &o, 0, s);
    assert_memory_equal(c.keys, keys, n * 4);
    assert_memory_equal(c.values, vals, n * 8);
    free(c.keys);
    free(c.values);
    /* One key; no keys in three empty segments. */
    const uint64_t one[2] = {0, 1}, none[4] = {0, 0, 0, 0};
    gpu_run_t d = gpu_sort(LIBSCAN_F32, keys, vals, 1, 8, one, 1, NULL, 0, s);
    assert_memory_equal(d.keys, keys, 4);
    assert_memory_equal(d.values, vals, 8);
    free(d.keys);
    free(d.values);
    uint64_t *dnone = dmalloc(sizeof none);
    CUDA_CHECK(cudaMemcpy(dnone, none, sizeof none, cudaMemcpyHostToDevice));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_sort(NULL, NULL, NULL, NULL, 0, dnone, 3, LIBSCAN_U32, 0, NULL, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaFree(dnone));
    CUDA_CHECK(cudaStreamDestroy(s));
    free(off);
    free(keys);
    free(vals);
}

int main(void) {
    test_begin("test_segsort_lib");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_type_shape_direction),
        cmocka_unit_test(test_many_tiles),
        cmocka_unit_test(test_stability_few_distinct),
        cmocka_unit_test(test_bit_ranges),
        cmocka_unit_test(test_2pow20_segments),
        cmocka_unit_test(test_bad_offsets),
        cmocka_unit_test(test_trusted_invalid_offsets_stay_inside),
        cmocka_unit_test(test_streams_and_trivial_calls),
    };
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
