/* test_sort_lib.c -- the GPU sort of sort.h (label gpu) against the qsort
 * reference: every key type x direction x keys/pairs(4, 8 bytes) x
 * distribution at sizes 0, 1, tile +-1 (both tile shapes) and 2^20+7; the
 * out-of-place, double-buffer and argsort entry points; bit ranges; caller
 * temp and streams; the 1-bit split reference sort (libscan scan); U8/U16
 * keys bitwise equal to libscan_cpu_sort; opts = NULL (the temp cache)
 * bitwise equal to caller temp for every key type and entry point; sorts
 * with nothing to order taking no temp; keys without values through the
 * any-order first pass and through every pass in order; the MSD path of
 * 4- and 8-byte keys and the stable one of 4-byte keys with 4-byte values
 * (forced), and their fallback to the passes; and 2^28 u32 pairs
 * checked exactly (sorted, a permutation, stable). Outputs are poisoned before every sort. */
#include "support/harness.h"
#include "sort_reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MODE_OUT_OF_PLACE, MODE_DOUBLE_BUFFER, MODE_ARGSORT };

/* sort_internal.h's switch (libscan_static exports it): 3 makes every pass
 * keep the order of equal digits (test_any_order_first_pass). */
void libscan__sort_force_path(int path);
enum { PATH_AUTO = 0, PATH_STABLE = 3, PATH_MSD = 4 };
/* sort_internal.h: where the MSD path's decision lies in a sort's temp. */
size_t libscan__sort_msd_taken_offset(size_t count, size_t key_bytes, size_t value_bytes);
size_t libscan__sort_msd_crowded_offset(size_t count, size_t key_bytes, size_t value_bytes);

static void *dmalloc(size_t bytes) {
    void *p = NULL;
    CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
    return p;
}

/* One sort on the GPU, checked against the reference. */
static void gpu_case(libscan_dtype_t key, ref_dist_t dist, int desc, size_t vb, size_t n, unsigned begin,
                     unsigned end, int mode, int caller_temp, uint64_t idx) {
    const size_t ks = libscan_dtype_size(key);
    rng_t r;
    rng_init(&r, "gpu-sort", idx);
    unsigned char *keys = malloc(n * ks + 8), *out = malloc(n * ks + 8);
    unsigned char *vals = malloc(n * 8 + 8), *vout = malloc(n * 8 + 8);
    ref_fill(&r, key, dist, keys, n);
    if (vb) ref_iota(vals, n, vb);
    if (vb && mode != MODE_ARGSORT) /* random values: the payload must move with its key */
        for (size_t i = 0; i < n * vb; ++i) vals[i] = (unsigned char)rng_u32(&r);

    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    o.descending = desc;
    o.begin_bit = begin;
    o.end_bit = end;
    void *dk0 = dmalloc(n * ks), *dk1 = dmalloc(n * ks), *dv0 = dmalloc(n * 8), *dv1 = dmalloc(n * 8);
    CUDA_CHECK(cudaMemcpy(dk0, keys, n * ks, cudaMemcpyHostToDevice));
    if (vb && mode != MODE_ARGSORT) CUDA_CHECK(cudaMemcpy(dv0, vals, n * vb, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(dk1, 0xAB, n * ks + 0));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    CUDA_CHECK(cudaMemset(dv1, 0xAB, n * 8));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    void *temp = NULL;
    if (caller_temp) {
        const libscan_sort_mode_t m = mode == MODE_OUT_OF_PLACE ? LIBSCAN_SORT_OUT_OF_PLACE
                                 : mode == MODE_DOUBLE_BUFFER ? LIBSCAN_SORT_DOUBLE_BUFFER
                                                              : LIBSCAN_SORT_ARGSORT;
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(n, key, vb, m, &o.temp_bytes));
        temp = dmalloc(o.temp_bytes);
        o.d_temp = temp;
    }
    const void *res_k = dk1, *res_v = dv1;
    if (mode == MODE_OUT_OF_PLACE) {
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort(dk0, dk1, vb ? dv0 : NULL, vb ? dv1 : NULL, n, key, vb, &o, 0));
    } else if (mode == MODE_DOUBLE_BUFFER) {
        libscan_double_buffer_t db = {{dk0, dk1}, {vb ? dv0 : NULL, vb ? dv1 : NULL}, 0};
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_double_buffer(&db, n, key, vb, &o, 0));
        const int passes = libscan_sort_num_passes(key, begin, end);
        assert_int_equal(db.selector, passes & 1);
        res_k = db.d_keys[db.selector];
        res_v = db.d_values[db.selector];
    } else {
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_argsort(dk0, (idx & 1) ? NULL : dk1, dv1, n, key, vb, &o, 0));
        if (idx & 1) res_k = NULL;
    }
    CUDA_SYNC();
    if (res_k) CUDA_CHECK(cudaMemcpy(out, res_k, n * ks, cudaMemcpyDeviceToHost));
    if (vb) CUDA_CHECK(cudaMemcpy(vout, res_v, n * vb, cudaMemcpyDeviceToHost));
    size_t *perm = ref_order(key, keys, n, desc, begin, end);
    if (!res_k) memcpy(out, keys, 0); /* argsort without keys_out: check the indices only */
    size_t bad = res_k ? ref_first_mismatch(perm, n, ks, keys, out, vb, vals, vout)
                       : ref_first_mismatch(perm, n, 0, keys, out, vb, vals, vout);
    if (bad != n)
        TFAIL("gpu sort mode %d %s %s %s values=%zu n=%zu bits [%u,%u) temp=%d: first mismatch at %zu", mode,
              libscan_dtype_name(key), ref_dist_name(dist), desc ? "desc" : "asc", vb, n, begin, end, caller_temp,
              bad);
    free(perm);
    CUDA_CHECK(cudaFree(dk0));
    CUDA_CHECK(cudaFree(dk1));
    CUDA_CHECK(cudaFree(dv0));
    CUDA_CHECK(cudaFree(dv1));
    if (temp) CUDA_CHECK(cudaFree(temp));
    free(keys);
    free(out);
    free(vals);
    free(vout);
}

static const size_t kSizes[] = {0, 1, 2, 6143, 6144, 6145, 4095, 4096, 4097, 100003};

static void test_every_type_direction_distribution(void **state) {
    (void)state;
    test_require_gpu();
    uint64_t idx = 0;
    for (int k = 0; k < 8; ++k)
        for (int d = 0; d < DIST_COUNT; ++d)
            for (int desc = 0; desc < 2; ++desc)
                for (size_t vi = 0; vi < 3; ++vi)
                    for (size_t s = 0; s < sizeof kSizes / sizeof kSizes[0]; ++s) {
                        const size_t vbs[3] = {0, 4, 8};
                        if (test_size_allowed(kSizes[s]))
                            gpu_case(ref_all_keys[k], (ref_dist_t)d, desc, vbs[vi], kSizes[s], 0, 0,
                                     (int)(idx % 2), (int)(idx / 2 % 2), idx);
                        ++idx;
                    }
}

static void test_prime_near_2pow20(void **state) {
    (void)state;
    test_require_gpu();
    const size_t n = test_capped_n(((size_t)1 << 20) + 7, 1);
    uint64_t idx = 5000;
    for (int k = 0; k < 8; ++k)
        for (int d = 0; d < DIST_COUNT; ++d) {
            gpu_case(ref_all_keys[k], (ref_dist_t)d, (int)(idx & 1), (idx % 3) * 4, n, 0, 0, MODE_OUT_OF_PLACE, 0,
                     idx);
            ++idx;
        }
}

static void test_stability_pairs_equal_keys(void **state) {
    (void)state;
    test_require_gpu();
    for (int k = 0; k < 8; ++k)
        for (int desc = 0; desc < 2; ++desc) {
            gpu_case(ref_all_keys[k], DIST_TWO_DISTINCT, desc, 4, test_capped_n(200003, 1), 0, 0, MODE_ARGSORT, 0,
                     6000 + k * 2 + desc);
            gpu_case(ref_all_keys[k], DIST_ALL_EQUAL, desc, 8, test_capped_n(70001, 1), 0, 0, MODE_ARGSORT, 1,
                     6100 + k * 2 + desc);
        }
}

static void test_bit_ranges(void **state) {
    (void)state;
    test_require_gpu();
    /* {4, 28}: three passes, so the double buffer's middle pass writes the
     * input's buffer (never the one it reads). */
    const unsigned ranges[][2] = {{4, 20}, {0, 1}, {31, 32}, {8, 8}, {0, 13}, {5, 32}, {4, 28}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; ++i)
        for (int mode = 0; mode < 3; ++mode) {
            gpu_case(LIBSCAN_U32, DIST_UNIFORM, (int)i & 1, 4, 50021, ranges[i][0], ranges[i][1], mode, 0, 7000 + i * 3 + mode);
            gpu_case(LIBSCAN_I32, DIST_UNIFORM, (int)(i + 1) & 1, mode == MODE_ARGSORT ? 8 : 0, 50021, ranges[i][0],
                     ranges[i][1], mode, 1, 7100 + i * 3 + mode);
        }
    gpu_case(LIBSCAN_U64, DIST_UNIFORM, 0, 8, 30011, 3, 61, MODE_DOUBLE_BUFFER, 0, 7200);
    gpu_case(LIBSCAN_I64, DIST_UNIFORM, 1, 4, 30011, 40, 64, MODE_OUT_OF_PLACE, 0, 7201);
    gpu_case(LIBSCAN_U64, DIST_UNIFORM, 1, 4, 30011, 0, 40, MODE_DOUBLE_BUFFER, 1, 7202); /* five passes */
    gpu_case(LIBSCAN_I64, DIST_UNIFORM, 0, 8, 30011, 8, 64, MODE_DOUBLE_BUFFER, 0, 7203); /* seven passes */
}

static void test_argsort_all_types(void **state) {
    (void)state;
    test_require_gpu();
    for (int k = 0; k < 8; ++k)
        for (size_t ib = 4; ib <= 8; ib += 4)
            for (size_t s = 0; s < sizeof kSizes / sizeof kSizes[0]; ++s)
                if (test_size_allowed(kSizes[s]))
                    gpu_case(ref_all_keys[k], DIST_SIXTEEN_DISTINCT, (int)s & 1, ib, kSizes[s], 0, 0, MODE_ARGSORT,
                             (int)ib == 8, 8000 + k * 100 + ib * 10 + s);
}

/* The 1-bit split sort (libscan's C API scan) and the radix sort agree. */
static void test_split_reference(void **state) {
    (void)state;
    test_require_gpu();
    const size_t n = test_capped_n(100003, 1);
    rng_t r;
    rng_init(&r, "split", 0);
    uint32_t *keys = malloc(n * 4), *split = malloc(n * 4), *out = malloc(n * 4);
    ref_fill(&r, LIBSCAN_U32, DIST_UNIFORM, keys, n);
    memcpy(split, keys, n * 4);
    if (ref_split_sort_u32(split, n) != 0) TFAIL("split reference sort failed");
    void *d_in = dmalloc(n * 4), *d_out = dmalloc(n * 4);
    CUDA_CHECK(cudaMemcpy(d_in, keys, n * 4, cudaMemcpyHostToDevice));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort(d_in, d_out, NULL, NULL, n, LIBSCAN_U32, 0, NULL, 0));
    CUDA_CHECK(cudaMemcpy(out, d_out, n * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i)
        if (out[i] != split[i]) TFAIL("radix sort and split sort differ at %zu: %u vs %u", i, out[i], split[i]);
    /* The split sort itself agrees with qsort. */
    size_t *perm = ref_order(LIBSCAN_U32, keys, n, 0, 0, 0);
    assert_int_equal(ref_first_mismatch(perm, n, 4, keys, split, 0, NULL, NULL), n);
    free(perm);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(keys);
    free(split);
    free(out);
}

/* On a created stream with caller temp, twice with the same temp: the same
 * (correct) result, and the input is untouched (out-of-place). */
static void test_stream_and_temp_reuse(void **state) {
    (void)state;
    test_require_gpu();
    const size_t n = test_capped_n(300007, 1);
    rng_t r;
    rng_init(&r, "stream", 0);
    float *keys = malloc(n * 4), *out = malloc(n * 4), *back = malloc(n * 4);
    ref_fill(&r, LIBSCAN_F32, DIST_FLOAT_SPECIALS, keys, n);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    size_t tb = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(n, LIBSCAN_F32, 0, LIBSCAN_SORT_OUT_OF_PLACE, &tb));
    void *d_in = dmalloc(n * 4), *d_out = dmalloc(n * 4), *temp = dmalloc(tb);
    CUDA_CHECK(cudaMemcpy(d_in, keys, n * 4, cudaMemcpyHostToDevice));
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    o.d_temp = temp;
    o.temp_bytes = tb;
    size_t *perm = ref_order(LIBSCAN_F32, keys, n, 0, 0, 0);
    for (int rep = 0; rep < 2; ++rep) {
        CUDA_CHECK(cudaMemsetAsync(d_out, 0xCD, n * 4, s));
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort(d_in, d_out, NULL, NULL, n, LIBSCAN_F32, 0, &o, s));
        CUDA_CHECK(cudaStreamSynchronize(s));
        CUDA_CHECK(cudaMemcpy(out, d_out, n * 4, cudaMemcpyDeviceToHost));
        assert_int_equal(ref_first_mismatch(perm, n, 4, keys, out, 0, NULL, NULL), n);
    }
    CUDA_CHECK(cudaMemcpy(back, d_in, n * 4, cudaMemcpyDeviceToHost));
    assert_memory_equal(back, keys, n * 4);
    free(perm);
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(temp));
    free(keys);
    free(out);
    free(back);
}

/* Host memory is rejected (unless the device reads pageable memory). */
static void test_host_pointer_rejected(void **state) {
    (void)state;
    test_require_gpu();
    int pageable = 0, dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, dev));
    if (pageable) test_skip("this device can read pageable host memory");
    uint32_t host[64] = {0};
    void *d = dmalloc(256);
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_sort(host, d, NULL, NULL, 64, LIBSCAN_U32, 0, NULL, 0));
    CUDA_CHECK(cudaFree(d));
}

/* U8 and U16 keys (and pairs) on the GPU: bitwise equal to libscan_cpu_sort
 * (sort.h promises one result on both), and the CPU result equal to the
 * qsort reference, so a bug shared by both sorts' key map still fails. Sizes
 * past one tile and past 2^20, where one digit holds many tiles' keys. */
static void test_u8_u16_gpu_equals_cpu(void **state) {
    (void)state;
    test_require_gpu();
    const libscan_dtype_t keys_of[2] = {LIBSCAN_U8, LIBSCAN_U16};
    const ref_dist_t dists[4] = {DIST_UNIFORM, DIST_SIXTEEN_DISTINCT, DIST_LOW_BYTE, DIST_ALL_EQUAL};
    const size_t sizes[3] = {7681, 100003, ((size_t)1 << 20) + 3};
    uint64_t idx = 9000;
    for (int k = 0; k < 2; ++k)
        for (int d = 0; d < 4; ++d)
            for (size_t si = 0; si < 3; ++si) {
                const libscan_dtype_t key = keys_of[k];
                const size_t ks = libscan_dtype_size(key), n = test_capped_n(sizes[si], 1);
                const size_t vb = (idx & 1) ? 4 : 0;
                const int desc = (int)((idx >> 1) & 1);
                /* A bit range inside the key on some U16 cases: [3, 11). */
                const unsigned begin = key == LIBSCAN_U16 && si == 1 ? 3 : 0, end = begin ? 11 : 0;
                rng_t r;
                rng_init(&r, "u8-u16", idx);
                unsigned char *keys = malloc(n * ks), *gpu_k = malloc(n * ks), *cpu_k = malloc(n * ks);
                uint32_t *vals = malloc(n * 4), *gpu_v = malloc(n * 4), *cpu_v = malloc(n * 4);
                assert_true(keys && gpu_k && cpu_k && vals && gpu_v && cpu_v);
                ref_fill(&r, key, dists[d], keys, n);
                for (size_t i = 0; i < n; ++i) vals[i] = rng_u32(&r);
                libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
                o.descending = desc;
                o.begin_bit = begin;
                o.end_bit = end;
                void *dk = dmalloc(n * ks), *dko = dmalloc(n * ks), *dv = dmalloc(n * 4), *dvo = dmalloc(n * 4);
                CUDA_CHECK(cudaMemcpy(dk, keys, n * ks, cudaMemcpyHostToDevice));
                CUDA_CHECK(cudaMemcpy(dv, vals, n * 4, cudaMemcpyHostToDevice));
                CUDA_CHECK(cudaMemset(dko, 0xAB, n * ks));
                CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
                CUDA_CHECK(cudaMemset(dvo, 0xAB, n * 4));
                CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
                LS_EXPECT(LIBSCAN_SUCCESS,
                          libscan_sort(dk, dko, vb ? dv : NULL, vb ? dvo : NULL, n, key, vb, &o, 0));
                CUDA_SYNC();
                CUDA_CHECK(cudaMemcpy(gpu_k, dko, n * ks, cudaMemcpyDeviceToHost));
                if (vb) CUDA_CHECK(cudaMemcpy(gpu_v, dvo, n * 4, cudaMemcpyDeviceToHost));
                memcpy(cpu_k, keys, n * ks);
                memcpy(cpu_v, vals, n * 4);
                LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_sort(cpu_k, vb ? cpu_v : NULL, n, key, vb, &o));
                size_t *perm = ref_order(key, keys, n, desc, begin, end);
                assert_non_null(perm);
                const size_t bad = ref_first_mismatch(perm, n, ks, keys, cpu_k, vb, vals, cpu_v);
                if (bad != n)
                    TFAIL("cpu sort %s %s n=%zu: differs from the reference at %zu", libscan_dtype_name(key),
                          ref_dist_name(dists[d]), n, bad);
                if (memcmp(gpu_k, cpu_k, n * ks) || (vb && memcmp(gpu_v, cpu_v, n * 4)))
                    TFAIL("gpu sort %s %s %s values=%zu n=%zu bits [%u,%u): differs from libscan_cpu_sort",
                          libscan_dtype_name(key), ref_dist_name(dists[d]), desc ? "desc" : "asc", vb, n, begin,
                          end);
                free(perm);
                CUDA_CHECK(cudaFree(dk));
                CUDA_CHECK(cudaFree(dko));
                CUDA_CHECK(cudaFree(dv));
                CUDA_CHECK(cudaFree(dvo));
                free(keys);
                free(gpu_k);
                free(cpu_k);
                free(vals);
                free(gpu_v);
                free(cpu_v);
                ++idx;
            }
}

/* What one call of a mode wrote: keys, values (or indices), selector. */
typedef struct sort_result {
    unsigned char *keys, *values;
    int selector;
} sort_result_t;

/* One call of `mode` on the host inputs, with opts as given (NULL allowed);
 * the outputs are poisoned first. */
static sort_result_t run_mode(int mode, libscan_dtype_t key, const void *keys, const void *vals, size_t n,
                              size_t vb, const libscan_sort_opts_t *opts, cudaStream_t s) {
    const size_t ks = libscan_dtype_size(key);
    sort_result_t res = {malloc(n * ks + 1), malloc(n * 8 + 1), 0};
    void *dk0 = dmalloc(n * ks), *dk1 = dmalloc(n * ks), *dv0 = dmalloc(n * 8), *dv1 = dmalloc(n * 8);
    CUDA_CHECK(cudaMemcpy(dk0, keys, n * ks, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dv0, vals, n * 8, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(dk1, 0xAB, n * ks));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    CUDA_CHECK(cudaMemset(dv1, 0xAB, n * 8));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    const void *rk = dk1, *rv = dv1;
    if (mode == MODE_OUT_OF_PLACE) {
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort(dk0, dk1, vb ? dv0 : NULL, vb ? dv1 : NULL, n, key, vb, opts, s));
    } else if (mode == MODE_DOUBLE_BUFFER) {
        libscan_double_buffer_t db = {{dk0, dk1}, {vb ? dv0 : NULL, vb ? dv1 : NULL}, 0};
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_double_buffer(&db, n, key, vb, opts, s));
        res.selector = db.selector;
        rk = db.d_keys[db.selector];
        rv = db.d_values[db.selector];
    } else {
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_argsort(dk0, dk1, dv1, n, key, vb, opts, s));
    }
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaMemcpy(res.keys, rk, n * ks, cudaMemcpyDeviceToHost));
    if (vb) CUDA_CHECK(cudaMemcpy(res.values, rv, n * vb, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dk0));
    CUDA_CHECK(cudaFree(dk1));
    CUDA_CHECK(cudaFree(dv0));
    CUDA_CHECK(cudaFree(dv1));
    return res;
}

/* opts = NULL (temp from the temp cache) and the same call with caller temp
 * give bitwise the same keys, values, indices and selector, and the right
 * ones; so do non-NULL options without temp. Every key type and mode, on
 * the legacy stream and a created one, some cases right after
 * libscan_temp_cache_release() (the cache then takes new memory). */
static void test_null_opts_equal_caller_temp(void **state) {
    (void)state;
    test_require_gpu();
    cudaStream_t created;
    CUDA_CHECK(cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking));
    const size_t sizes[2] = {6145, ((size_t)1 << 20) + 7};
    uint64_t idx = 9500;
    for (int k = 0; k < 8; ++k)
        for (int mode = 0; mode < 3; ++mode)
            for (size_t si = 0; si < 2; ++si) {
                const libscan_dtype_t key = ref_all_keys[k];
                const size_t ks = libscan_dtype_size(key), n = test_capped_n(sizes[si], 1);
                const size_t vb = mode == MODE_ARGSORT ? ((idx & 1) ? 8 : 4) : (idx % 3) * 4;
                const int desc = (int)((idx >> 2) & 1);
                cudaStream_t s = (idx & 2) ? created : 0;
                const libscan_sort_mode_t m = mode == MODE_OUT_OF_PLACE ? LIBSCAN_SORT_OUT_OF_PLACE
                                              : mode == MODE_DOUBLE_BUFFER ? LIBSCAN_SORT_DOUBLE_BUFFER
                                                                           : LIBSCAN_SORT_ARGSORT;
                rng_t r;
                rng_init(&r, "null-opts", idx);
                unsigned char *keys = malloc(n * ks), *vals = malloc(n * 8);
                assert_true(keys && vals);
                ref_fill(&r, key, (idx & 4) ? DIST_TWO_DISTINCT : DIST_UNIFORM, keys, n);
                for (size_t i = 0; i < n * 8; ++i) vals[i] = (unsigned char)rng_u32(&r);

                libscan_sort_opts_t with_temp = LIBSCAN_SORT_OPTS_INIT, no_temp = LIBSCAN_SORT_OPTS_INIT;
                with_temp.descending = no_temp.descending = desc;
                LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(n, key, vb, m, &with_temp.temp_bytes));
                void *temp = dmalloc(with_temp.temp_bytes);
                CUDA_CHECK(cudaMemset(temp, 0x5A, with_temp.temp_bytes)); /* no zeroed-temp luck */
                CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
                with_temp.d_temp = temp;
                if (idx % 5 == 0) LS_EXPECT(LIBSCAN_SUCCESS, libscan_temp_cache_release());
                /* opts = NULL is ascending: compare it with ascending caller temp. */
                const libscan_sort_opts_t *cache_opts = desc ? &no_temp : NULL;
                sort_result_t a = run_mode(mode, key, keys, vals, n, vb, cache_opts, s);
                sort_result_t b = run_mode(mode, key, keys, vals, n, vb, &with_temp, s);
                if (memcmp(a.keys, b.keys, n * ks) || (vb && memcmp(a.values, b.values, n * vb)) ||
                    a.selector != b.selector)
                    TFAIL("mode %d %s %s values=%zu n=%zu: opts %s and caller temp differ", mode,
                          libscan_dtype_name(key), desc ? "desc" : "asc", vb, n, cache_opts ? "without temp" : "NULL");
                size_t *perm = ref_order(key, keys, n, desc, 0, 0);
                assert_non_null(perm);
                const size_t bad = mode == MODE_ARGSORT
                                       ? ref_first_mismatch(perm, n, ks, keys, b.keys, 0, NULL, NULL)
                                       : ref_first_mismatch(perm, n, ks, keys, b.keys, vb, vals, b.values);
                if (bad != n)
                    TFAIL("mode %d %s values=%zu n=%zu: first mismatch with the reference at %zu", mode,
                          libscan_dtype_name(key), vb, n, bad);
                if (mode == MODE_ARGSORT)
                    for (size_t i = 0; i < n; ++i) {
                        const uint64_t got = vb == 4 ? ((const uint32_t *)(const void *)b.values)[i]
                                                     : ((const uint64_t *)(const void *)b.values)[i];
                        if (got != perm[i]) TFAIL("argsort %s: index [%zu] = %llu, expected %zu",
                                                  libscan_dtype_name(key), i, (unsigned long long)got, perm[i]);
                    }
                free(perm);
                free(a.keys);
                free(a.values);
                free(b.keys);
                free(b.values);
                CUDA_CHECK(cudaFree(temp));
                free(keys);
                free(vals);
                ++idx;
            }
    CUDA_CHECK(cudaStreamDestroy(created));
}

/* Keys without values over the whole key: the first pass ranks the keys of
 * one digit in any order (shared atomics, or matches where a warp sees few
 * digits), the other passes in order; with LIBSCAN__SORT_PATH_STABLE every
 * pass keeps the order (the bench's baseline). Both give the reference's
 * keys, bitwise, for every key type and direction, on distributions that
 * take each ranking (uniform and low-byte keys: atomics; 16-distinct: the
 * matches; float specials: -0.0/+0.0 and NaN payloads, distinct keys that
 * must not merge), in full tiles of both shapes and a partial last one; and
 * a bit range that starts or ends inside the key keeps ties in input order
 * whatever the path (I32 and U64 keys without values, few distinct values in
 * the range, so most keys tie on it). */
static void test_any_order_first_pass(void **state) {
    (void)state;
    test_require_gpu();
    const ref_dist_t dists[4] = {DIST_UNIFORM, DIST_LOW_BYTE, DIST_SIXTEEN_DISTINCT, DIST_FLOAT_SPECIALS};
    const size_t n = test_capped_n(((size_t)1 << 20) + 7, 1);
    uint64_t idx = 9800;
    for (int path = 0; path < 2; ++path) {
        libscan__sort_force_path(path ? PATH_STABLE : PATH_AUTO);
        for (int k = 0; k < 8; ++k)
            for (int d = 0; d < 4; ++d) {
                gpu_case(ref_all_keys[k], dists[d], (int)(idx & 1), 0, n, 0, 0, (int)(idx % 2), (int)(idx / 2 % 2),
                         idx);
                ++idx;
            }
        gpu_case(LIBSCAN_I32, DIST_UNIFORM, 0, 0, 200003, 0, 6, MODE_OUT_OF_PLACE, 0, idx++);
        gpu_case(LIBSCAN_I32, DIST_UNIFORM, 1, 0, 200003, 27, 32, MODE_DOUBLE_BUFFER, 1, idx++);
        gpu_case(LIBSCAN_U64, DIST_UNIFORM, 0, 0, 200003, 0, 12, MODE_OUT_OF_PLACE, 1, idx++);
        gpu_case(LIBSCAN_U64, DIST_UNIFORM, 1, 0, 200003, 55, 64, MODE_DOUBLE_BUFFER, 0, idx++);
    }
    libscan__sort_force_path(PATH_AUTO);
}

/* The distributions the MSD tests sort: three the path takes, three whose
 * buckets outgrow its block (low-byte: one bucket; 16-distinct; all-equal),
 * which the passes then sort. */
static const ref_dist_t kMsdDists[6] = {DIST_UNIFORM,  DIST_SORTED,           DIST_FLOAT_SPECIALS,
                                        DIST_LOW_BYTE, DIST_SIXTEEN_DISTINCT, DIST_ALL_EQUAL};

/* The MSD path's decision in a sort's caller temp (msd_sort.cuh's
 * MsdState::taken), read after the sort, and (crowded, when given) how many
 * buckets the stable path sorted by bytes; frees the temp. */
static int msd_decision(libscan_sort_opts_t *o, size_t n, size_t key_bytes, size_t value_bytes, unsigned *crowded) {
    unsigned taken = 0;
    CUDA_CHECK(cudaMemcpy(&taken, (char *)o->d_temp + libscan__sort_msd_taken_offset(n, key_bytes, value_bytes), 4,
                          cudaMemcpyDeviceToHost));
    if (crowded)
        CUDA_CHECK(cudaMemcpy(crowded, (char *)o->d_temp + libscan__sort_msd_crowded_offset(n, key_bytes, value_bytes),
                              4, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(o->d_temp));
    o->d_temp = NULL;
    return (int)taken;
}

/* qsort order of u32 keys, for the hand-made cases below. */
static int cmp_u32(const void *a, const void *b) {
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* One u32 sort with caller temp (offset `shift` keys into its device
 * buffers, so that the input may start off a 16-byte boundary); checks the
 * keys against qsort and returns the MSD path's decision read from the temp
 * (msd_sort.cuh's MsdState::taken). */
static int msd_u32_case(const uint32_t *keys, size_t n, size_t shift, int mode) {
    uint32_t *want = malloc(n * 4 + 4), *got = malloc(n * 4 + 4);
    memcpy(want, keys, n * 4);
    qsort(want, n, 4, cmp_u32);
    uint32_t *dk = dmalloc((n + shift) * 4), *dk1 = dmalloc((n + shift) * 4);
    CUDA_CHECK(cudaMemcpy(dk + shift, keys, n * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(dk1, 0xAB, (n + shift) * 4));
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    const libscan_sort_mode_t m = mode == MODE_DOUBLE_BUFFER ? LIBSCAN_SORT_DOUBLE_BUFFER : LIBSCAN_SORT_OUT_OF_PLACE;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(n, LIBSCAN_U32, 0, m, &o.temp_bytes));
    o.d_temp = dmalloc(o.temp_bytes); /* cudaMalloc: aligned, so the scratch starts at d_temp */
    CUDA_CHECK(cudaMemset(o.d_temp, 0xAB, o.temp_bytes));
    CUDA_CHECK(cudaDeviceSynchronize());
    const uint32_t *result = dk1 + shift;
    if (mode == MODE_DOUBLE_BUFFER) {
        libscan_double_buffer_t buf = {{dk + shift, dk1 + shift}, {NULL, NULL}, 0};
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_double_buffer(&buf, n, LIBSCAN_U32, 0, &o, 0));
        result = buf.d_keys[buf.selector];
    } else {
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort(dk + shift, dk1 + shift, NULL, NULL, n, LIBSCAN_U32, 0, &o, 0));
    }
    CUDA_SYNC();
    CUDA_CHECK(cudaMemcpy(got, result, n * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i)
        if (got[i] != want[i]) TFAIL("u32 sort of %zu keys: [%zu] = %u, want %u", n, i, got[i], want[i]);
    const int taken = msd_decision(&o, n, 4, 0, NULL);
    CUDA_CHECK(cudaFree(dk));
    CUDA_CHECK(cudaFree(dk1));
    free(want);
    free(got);
    return taken;
}

/* The MSD path (msd_sort.cuh; forced here at every size, the library takes
 * it in MsdTuning's sizes): 4- and 8-byte keys without values over the
 * whole key, every such key type and direction, out of place and double buffer, bitwise equal to
 * the reference on distributions it sorts (uniform, sorted, float
 * specials) and on those whose buckets outgrow its block, which the passes
 * then sort (low-byte: one bucket; 16-distinct; all-equal). Hand-made u32
 * cases pin the decision: a bucket of exactly the block's 4608 keys is
 * taken, 4609 are not; input off a 16-byte boundary (the histogram's head);
 * keys spread over every bucket of both top bytes; 2^24 uniform keys. */
static void test_msd_path(void **state) {
    (void)state;
    test_require_gpu();
    const libscan_dtype_t keys48[6] = {LIBSCAN_U32, LIBSCAN_I32, LIBSCAN_F32, LIBSCAN_U64, LIBSCAN_I64, LIBSCAN_F64};
    const size_t sizes[3] = {4095, 4099, ((size_t)1 << 20) + 7}; /* below and above kScratchMinKeys */
    uint64_t idx = 9900;
    libscan__sort_force_path(PATH_MSD);
    for (int k = 0; k < 6; ++k)
        for (int d = 0; d < 6; ++d)
            for (int z = 0; z < 3; ++z) {
                gpu_case(keys48[k], kMsdDists[d], (int)(idx & 1), 0, test_capped_n(sizes[z], 1), 0, 0, (int)(idx / 2 % 2),
                         1, idx);
                ++idx;
            }

    rng_t r;
    rng_init(&r, "msd", 0);
    const size_t big = test_capped_n((size_t)1 << 24, 1);
    /* Room for every hand-made case below (3 x 65536 keys the largest), whatever the cap on `big`. */
    uint32_t *keys = malloc((big > 3 * 65536 ? big : 3 * 65536) * 4);
    assert_non_null(keys);
    /* One bucket (top 16 bits 0x1234) of 4608 keys, then of 4609, among a few others. */
    for (int extra = 0; extra < 2; ++extra) {
        const size_t n = 4608 + (size_t)extra + 1000;
        for (size_t i = 0; i < n; ++i) keys[i] = i < 4608u + (size_t)extra ? 0x12340000u | (rng_u32(&r) & 0xffffu) : rng_u32(&r) | 0x80000000u;
        const int taken = msd_u32_case(keys, n, 0, MODE_OUT_OF_PLACE);
        if (taken != !extra) TFAIL("a bucket of %d keys: MSD taken = %d", 4608 + extra, taken);
    }
    /* Off a 16-byte boundary by 1..3 keys, and through the double buffer. */
    for (size_t shift = 1; shift < 4; ++shift) {
        const size_t n = 100003 + shift;
        for (size_t i = 0; i < n; ++i) keys[i] = rng_u32(&r);
        if (!msd_u32_case(keys, n, shift, shift == 2 ? MODE_DOUBLE_BUFFER : MODE_OUT_OF_PLACE))
            TFAIL("uniform keys off a 16-byte boundary by %zu: MSD not taken", shift);
    }
    /* Every bucket: key i's top 16 bits are i mod 65536, 3 keys each. */
    for (size_t i = 0; i < 3 * 65536; ++i) keys[i] = ((uint32_t)(i % 65536) << 16) | (rng_u32(&r) & 0xffffu);
    if (!msd_u32_case(keys, 3 * 65536, 0, MODE_DOUBLE_BUFFER)) TFAIL("3 keys in every bucket: MSD not taken");
    for (size_t i = 0; i < big; ++i) keys[i] = rng_u32(&r);
    if (!msd_u32_case(keys, big, 0, MODE_OUT_OF_PLACE)) TFAIL("%zu uniform keys: MSD not taken", big);
    free(keys);
    libscan__sort_force_path(PATH_AUTO);
}

/* A key and where it came from: the stable order is (key, index). */
typedef struct {
    uint32_t key, index;
} keyed_t;
static int cmp_keyed(const void *a, const void *b) {
    const keyed_t *x = a, *y = b;
    if (x->key != y->key) return (x->key > y->key) - (x->key < y->key);
    return (x->index > y->index) - (x->index < y->index);
}

/* One u32/u32 pairs sort with caller temp: out of place with `vals`, or an
 * argsort (vals NULL: the values are the indices), the output keys and
 * values kshift and vshift items past a 16-byte boundary (where the local
 * sort works); checks keys and values against the stable order (qsort by
 * key, then index) and returns the MSD path's decision read from the temp. */
static int msd_pairs_case_at(const uint32_t *keys, const uint32_t *vals, size_t n, size_t kshift, size_t vshift,
                             unsigned *crowded) {
    keyed_t *want = malloc(n * sizeof(keyed_t));
    uint32_t *got = malloc(n * 4), *gotv = malloc(n * 4);
    for (size_t i = 0; i < n; ++i) want[i] = (keyed_t){keys[i], (uint32_t)i};
    qsort(want, n, sizeof(keyed_t), cmp_keyed);
    uint32_t *dk = dmalloc(n * 4), *dk1_base = dmalloc((n + kshift) * 4), *dv = dmalloc(n * 4),
             *dv1_base = dmalloc((n + vshift) * 4);
    uint32_t *dk1 = dk1_base + kshift, *dv1 = dv1_base + vshift;
    CUDA_CHECK(cudaMemcpy(dk, keys, n * 4, cudaMemcpyHostToDevice));
    if (vals) CUDA_CHECK(cudaMemcpy(dv, vals, n * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(dk1_base, 0xAB, (n + kshift) * 4));
    CUDA_CHECK(cudaMemset(dv1_base, 0xAB, (n + vshift) * 4));
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(n, LIBSCAN_U32, 4, vals ? LIBSCAN_SORT_OUT_OF_PLACE : LIBSCAN_SORT_ARGSORT,
                                                       &o.temp_bytes));
    o.d_temp = dmalloc(o.temp_bytes);
    CUDA_CHECK(cudaMemset(o.d_temp, 0xAB, o.temp_bytes));
    CUDA_CHECK(cudaDeviceSynchronize());
    if (vals) LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort(dk, dk1, dv, dv1, n, LIBSCAN_U32, 4, &o, 0));
    else LS_EXPECT(LIBSCAN_SUCCESS, libscan_argsort(dk, dk1, dv1, n, LIBSCAN_U32, 4, &o, 0));
    CUDA_SYNC();
    CUDA_CHECK(cudaMemcpy(got, dk1, n * 4, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(gotv, dv1, n * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) {
        const uint32_t v = vals ? vals[want[i].index] : want[i].index;
        if (got[i] != want[i].key || gotv[i] != v)
            TFAIL("u32/u32 %s of %zu pairs: [%zu] = (%u, %u), want (%u, %u)", vals ? "sort" : "argsort", n, i, got[i],
                  gotv[i], want[i].key, v);
    }
    /* The items before the outputs are never written. */
    uint32_t before[4];
    CUDA_CHECK(cudaMemcpy(before, dk1_base, kshift * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < kshift; ++i)
        if (before[i] != 0xABABABABu) TFAIL("%zu pairs: key slot %zu before the output written", n, i);
    CUDA_CHECK(cudaMemcpy(before, dv1_base, vshift * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < vshift; ++i)
        if (before[i] != 0xABABABABu) TFAIL("%zu pairs: value slot %zu before the output written", n, i);
    const int taken = msd_decision(&o, n, 4, 4, crowded);
    CUDA_CHECK(cudaFree(dk));
    CUDA_CHECK(cudaFree(dk1_base));
    CUDA_CHECK(cudaFree(dv));
    CUDA_CHECK(cudaFree(dv1_base));
    free(want);
    free(got);
    free(gotv);
    return taken;
}
static int msd_pairs_case(const uint32_t *keys, const uint32_t *vals, size_t n) {
    return msd_pairs_case_at(keys, vals, n, 0, 0, NULL);
}

/* The stable MSD path of 4-byte keys with 4-byte values (msd_sort.cuh;
 * forced): u32, i32 and f32 keys with random values and as argsorts, both
 * directions, out of place and double buffer, equal to the stable
 * reference on distributions it sorts and on those it hands to the passes.
 * Hand-made u32 cases: keys with many equals in small buckets (the
 * stability of every move); a bucket of exactly 4577 pairs taken and one of
 * 4578 not (the block's 4608 less 31 keys of slack); buckets sorted by bins
 * and by bytes in one call, at the bound between them; pairs in every bucket;
 * buckets of 0 to 12 pairs with the outputs off a 16-byte boundary (keys and
 * values by different amounts: the local sort's window of whole lines);
 * 2^24 uniform pairs and argsort. */
static void test_msd_pairs_path(void **state) {
    (void)state;
    test_require_gpu();
    const libscan_dtype_t keys4[3] = {LIBSCAN_U32, LIBSCAN_I32, LIBSCAN_F32};
    const size_t sizes[3] = {4095, 4099, ((size_t)1 << 20) + 7};
    uint64_t idx = 9950;
    libscan__sort_force_path(PATH_MSD);
    for (int k = 0; k < 3; ++k)
        for (int d = 0; d < 6; ++d)
            for (int z = 0; z < 3; ++z) {
                gpu_case(keys4[k], kMsdDists[d], (int)(idx & 1), 4, test_capped_n(sizes[z], 1), 0, 0, (int)(idx % 3), 1,
                         idx);
                ++idx;
            }

    rng_t r;
    rng_init(&r, "msd-pairs", 0);
    const size_t big = test_capped_n((size_t)1 << 24, 1), equal = test_capped_n(((size_t)1 << 20) + 3, 1);
    size_t room = big > 6 * 65536 ? big : 6 * 65536; /* 6 x 65536: buckets of b mod 13 pairs */
    if (equal > room) room = equal;
    uint32_t *keys = malloc(room * 4), *vals = malloc(room * 4);
    assert_non_null(keys);
    assert_non_null(vals);
    for (size_t i = 0; i < room; ++i) vals[i] = rng_u32(&r);
    /* Top 16 bits uniform, low 16 bits one of 3: ~16 pairs a bucket, most of them equal keys. */
    {
        const size_t n = equal;
        for (size_t i = 0; i < n; ++i) keys[i] = (rng_u32(&r) & 0xffff0000u) | (rng_u32(&r) % 3u * 0x5555u);
        if (!msd_pairs_case(keys, vals, n)) TFAIL("equal keys in small buckets: MSD not taken");
        if (!msd_pairs_case(keys, NULL, n)) TFAIL("equal keys in small buckets, argsort: MSD not taken");
    }
    /* The local sort's block holds 4608 pairs, less 31 for the keys it may read before a bucket;
     * here the bucket starts 1001 keys (off a line) into the output, its values 1003. */
    for (int extra = 0; extra < 2; ++extra) {
        const size_t n = 4577 + (size_t)extra + 1001;
        for (size_t i = 0; i < n; ++i)
            keys[i] = i < 4577u + (size_t)extra ? 0x92340000u | (rng_u32(&r) & 0xffu) : rng_u32(&r) >> 1;
        const int taken = msd_pairs_case_at(keys, vals, n, 0, 2, NULL);
        if (taken != !extra) TFAIL("a bucket of %d pairs: MSD taken = %d", 4577 + extra, taken);
    }
    /* The local sort by bins hands a bucket with a bin of more than 16 keys to the sort by bytes
     * (sort_tuning.cuh's MsdPairsTuning: 2^12 bins of the 16 low bits, kLocalMaxBin 16): a bucket
     * with 16 keys in one bin stays, one with 17 goes, the others (uniform) stay. */
    {
        const size_t n = equal;
        for (size_t i = 0; i < n; ++i) {
            uint32_t k;
            do k = rng_u32(&r);
            while ((k >> 16) == 0x1234u || (k >> 16) == 0x5678u);
            keys[i] = i < 16 ? 0x12340000u | (rng_u32(&r) & 0xfu) : i < 33 ? 0x56780000u | (rng_u32(&r) & 0xfu) : k;
        }
        unsigned crowded = 99;
        if (!msd_pairs_case_at(keys, vals, n, 0, 0, &crowded)) TFAIL("bins of 16 and 17 pairs: MSD not taken");
        if (crowded != 1) TFAIL("bins of 16 and 17 pairs: %u buckets sorted by bytes, want 1", crowded);
    }
    /* 512 buckets (one in 128), odd ones with their 16 low bits one of 5 (crowded where they hold
     * more than 16 pairs), even ones uniform: both sorts in one call, crowded buckets counted on
     * the host. */
    {
        const size_t n = equal;
        uint32_t *bins = malloc(n * 4);
        assert_non_null(bins);
        for (size_t i = 0; i < n; ++i) {
            const uint32_t x = rng_u32(&r) & 0x1ffu;
            keys[i] = x << 23 | (x & 1u ? rng_u32(&r) % 5u : rng_u32(&r) & 0xffffu);
            bins[i] = keys[i] >> 4; /* bucket and bin */
        }
        qsort(bins, n, 4, cmp_u32);
        unsigned want = 0, last_bucket = 0x10000u;
        for (size_t i = 0, j; i < n; i = j) {
            for (j = i; j < n && bins[j] == bins[i]; ++j) {}
            if (j - i > 16 && (bins[i] >> 12) != last_bucket) {
                ++want;
                last_bucket = bins[i] >> 12;
            }
        }
        free(bins);
        unsigned crowded = 0;
        if (!msd_pairs_case_at(keys, vals, n, 1, 3, &crowded)) TFAIL("crowded odd buckets: MSD not taken");
        if (want == 0 || crowded != want) TFAIL("crowded odd buckets: %u sorted by bytes, want %u", crowded, want);
    }
    for (size_t i = 0; i < 3 * 65536; ++i) keys[i] = ((uint32_t)(i % 65536) << 16) | (rng_u32(&r) & 0xffffu);
    if (!msd_pairs_case(keys, vals, 3 * 65536)) TFAIL("3 pairs in every bucket: MSD not taken");
    /* Bucket b holds b mod 13 pairs: buckets inside one chunk, across two, with whole chunks. */
    {
        size_t n = 0;
        for (uint32_t b = 0; b < 65536 && n < room; ++b)
            for (uint32_t j = 0; j < b % 13u && n < room; ++j) keys[n++] = (b << 16) | (rng_u32(&r) & 0xffffu);
        const size_t shifts[3][2] = {{1, 2}, {3, 0}, {0, 1}};
        for (int c = 0; c < 3; ++c)
            if (!msd_pairs_case_at(keys, c == 2 ? NULL : vals, n, shifts[c][0], shifts[c][1], NULL))
                TFAIL("buckets of 0 to 12 pairs, outputs off by %zu and %zu: MSD not taken", shifts[c][0],
                      shifts[c][1]);
    }
    for (size_t i = 0; i < big; ++i) keys[i] = rng_u32(&r);
    if (!msd_pairs_case(keys, vals, big)) TFAIL("%zu uniform pairs: MSD not taken", big);
    if (!msd_pairs_case(keys, NULL, big)) TFAIL("%zu uniform pairs, argsort: MSD not taken", big);
    free(keys);
    free(vals);
    libscan__sort_force_path(PATH_AUTO);
}

/* A sort with nothing to order (one key, or begin_bit == end_bit) uses no
 * temp (sort.h, "Temp"): caller temp in plain host memory is accepted, as
 * only its size and overlaps are checked, and the outputs are the inputs. */
static void test_nothing_to_order_uses_no_temp(void **state) {
    (void)state;
    test_require_gpu();
    enum { n = 5000 };
    static uint32_t keys[n], out[n];
    static uint64_t idx[n];
    rng_t r;
    rng_init(&r, "no-temp", 0);
    for (size_t i = 0; i < n; ++i) keys[i] = rng_u32(&r);
    void *dk = dmalloc(n * 4), *dko = dmalloc(n * 4), *di = dmalloc(n * 8);
    CUDA_CHECK(cudaMemcpy(dk, keys, n * 4, cudaMemcpyHostToDevice));
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    size_t sort_bytes = 0; /* one temp for both calls below: the larger ask */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(n, LIBSCAN_U32, 8, LIBSCAN_SORT_ARGSORT, &o.temp_bytes));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(n, LIBSCAN_U32, 0, LIBSCAN_SORT_OUT_OF_PLACE, &sort_bytes));
    if (sort_bytes > o.temp_bytes) o.temp_bytes = sort_bytes;
    o.d_temp = malloc(o.temp_bytes); /* host memory: never touched */
    assert_non_null(o.d_temp);
    o.begin_bit = 8;
    o.end_bit = 8;
    CUDA_CHECK(cudaMemset(dko, 0xAB, n * 4));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort(dk, dko, NULL, NULL, n, LIBSCAN_U32, 0, &o, 0));
    CUDA_SYNC();
    CUDA_CHECK(cudaMemcpy(out, dko, n * 4, cudaMemcpyDeviceToHost));
    assert_memory_equal(out, keys, n * 4);
    /* argsort keeping no keys: identity indices, input untouched. */
    CUDA_CHECK(cudaMemset(di, 0xAB, n * 8));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_argsort(dk, NULL, di, n, LIBSCAN_U32, 8, &o, 0));
    CUDA_SYNC();
    CUDA_CHECK(cudaMemcpy(idx, di, n * 8, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i)
        if (idx[i] != (uint64_t)i) TFAIL("argsort over an empty bit range: index [%zu] = %llu", i, (unsigned long long)idx[i]);
    CUDA_CHECK(cudaMemcpy(out, dk, n * 4, cudaMemcpyDeviceToHost));
    assert_memory_equal(out, keys, n * 4);
    /* One key, full range. */
    o.begin_bit = 0;
    o.end_bit = 0;
    CUDA_CHECK(cudaMemset(dko, 0xAB, 4));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort(dk, dko, NULL, NULL, 1, LIBSCAN_U32, 0, &o, 0));
    CUDA_SYNC();
    CUDA_CHECK(cudaMemcpy(out, dko, 4, cudaMemcpyDeviceToHost));
    assert_int_equal(out[0], keys[0]);
    free(o.d_temp);
    CUDA_CHECK(cudaFree(dk));
    CUDA_CHECK(cudaFree(dko));
    CUDA_CHECK(cudaFree(di));
}

/* 2^28 u32 pairs (values = positions): checked exactly without a 2^28 qsort:
 * keys non-decreasing, values a permutation, key_out[i] == key_in[value[i]],
 * and equal keys in increasing position (stable). */
static void test_2pow28_u32_pairs(void **state) {
    (void)state;
    test_require_gpu();
    const size_t n = (size_t)1 << 28;
    test_skip_above_cap(n, "the 2^28-pair sort");
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (free_b < n * 4 * 6) test_skip("needs %zu MiB of free GPU memory", (n * 24) >> 20);
    rng_t r;
    rng_init(&r, "2pow28", 0);
    uint32_t *keys = malloc(n * 4), *out = malloc(n * 4), *val = malloc(n * 4);
    unsigned char *seen = calloc(n / 8, 1);
    if (!keys || !out || !val || !seen) test_skip("needs about 4.3 GB of host memory");
    for (size_t i = 0; i < n; ++i) keys[i] = rng_u32(&r);
    void *dk = dmalloc(n * 4), *dko = dmalloc(n * 4), *dv = dmalloc(n * 4);
    CUDA_CHECK(cudaMemcpy(dk, keys, n * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(dko, 0xAB, n * 4));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    CUDA_CHECK(cudaMemset(dv, 0xAB, n * 4));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_argsort(dk, dko, dv, n, LIBSCAN_U32, 4, NULL, 0));
    CUDA_SYNC();
    CUDA_CHECK(cudaMemcpy(out, dko, n * 4, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(val, dv, n * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) {
        const uint32_t v = val[i];
        if (v >= n || (seen[v / 8] >> (v % 8)) & 1) TFAIL("index %u at %zu is out of range or repeated", v, i);
        seen[v / 8] |= (unsigned char)(1u << (v % 8));
        if (keys[v] != out[i]) TFAIL("key_out[%zu] = %u but key_in[%u] = %u", i, out[i], v, keys[v]);
        if (i > 0 && (out[i - 1] > out[i] || (out[i - 1] == out[i] && val[i - 1] > v)))
            TFAIL("order or stability broken at %zu", i);
    }
    CUDA_CHECK(cudaFree(dk));
    CUDA_CHECK(cudaFree(dko));
    CUDA_CHECK(cudaFree(dv));
    free(keys);
    free(out);
    free(val);
    free(seen);
}

int main(void) {
    test_begin("test_sort_lib");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_type_direction_distribution),
        cmocka_unit_test(test_prime_near_2pow20),
        cmocka_unit_test(test_stability_pairs_equal_keys),
        cmocka_unit_test(test_bit_ranges),
        cmocka_unit_test(test_argsort_all_types),
        cmocka_unit_test(test_split_reference),
        cmocka_unit_test(test_stream_and_temp_reuse),
        cmocka_unit_test(test_host_pointer_rejected),
        cmocka_unit_test(test_u8_u16_gpu_equals_cpu),
        cmocka_unit_test(test_null_opts_equal_caller_temp),
        cmocka_unit_test(test_nothing_to_order_uses_no_temp),
        cmocka_unit_test(test_any_order_first_pass),
        cmocka_unit_test(test_msd_path),
        cmocka_unit_test(test_msd_pairs_path),
        cmocka_unit_test(test_2pow28_u32_pairs),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return test_exit_code(failed);
}
