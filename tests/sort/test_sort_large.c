/* test_sort_large.c -- one sort of more than 2^31 keys (labels gpu,
 * large): 2^31 + 4099 random u32 keys, out of place with caller temp, then
 * checked on the host: non-decreasing, and the same multiset as the input
 * (a 2^16-bucket histogram of the high halves plus an order-independent
 * hash of every key). Needs about 26 GB of free GPU memory and 17 GB of host
 * memory (skipped otherwise). Prints the sort's time. */
#include "support/harness.h"
#include <libscan/sort.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

static void test_u32_over_2pow31(void **state) {
    (void)state;
    test_require_gpu();
    const size_t n = ((size_t)1 << 31) + 4099;
    size_t need = 0, free_b = 0, total_b = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(n, LIBSCAN_U32, 0, LIBSCAN_SORT_OUT_OF_PLACE, &need));
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (free_b < 2 * n * 4 + need + ((size_t)256 << 20))
        test_skip("needs %zu MiB of free GPU memory, %zu MiB free", (2 * n * 4 + need) >> 20, free_b >> 20);
    uint32_t *h = malloc(n * 4);
    uint64_t *hist_in = calloc(65536, 8), *hist_out = calloc(65536, 8);
    if (!h || !hist_in || !hist_out) test_skip("needs about 9 GB of host memory");
    rng_t r;
    rng_init(&r, "large", 0);
    uint64_t hash_in = 0, hash_out = 0;
    for (size_t i = 0; i < n; ++i) {
        h[i] = rng_u32(&r);
        hist_in[h[i] >> 16]++;
        hash_in += mix(h[i]);
    }
    void *d_in = NULL, *d_out = NULL, *temp = NULL;
    CUDA_CHECK(cudaMalloc(&d_in, n * 4));
    CUDA_CHECK(cudaMalloc(&d_out, n * 4));
    CUDA_CHECK(cudaMalloc(&temp, need));
    CUDA_CHECK(cudaMemcpy(d_in, h, n * 4, cudaMemcpyHostToDevice));
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    o.d_temp = temp;
    o.temp_bytes = need;
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    CUDA_CHECK(cudaEventRecord(a, 0));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort(d_in, d_out, NULL, NULL, n, LIBSCAN_U32, 0, &o, 0));
    CUDA_CHECK(cudaEventRecord(b, 0));
    CUDA_SYNC();
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    printf("# sort of %zu u32 keys: %.2f ms\n", n, ms);
    CUDA_CHECK(cudaMemcpy(h, d_out, n * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) {
        if (i > 0 && h[i - 1] > h[i]) TFAIL("not sorted at %zu: %u > %u", i, h[i - 1], h[i]);
        hist_out[h[i] >> 16]++;
        hash_out += mix(h[i]);
    }
    assert_memory_equal(hist_in, hist_out, 65536 * 8);
    assert_true(hash_in == hash_out);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(temp));
    free(h);
    free(hist_in);
    free(hist_out);
}

int main(void) {
    test_begin("test_sort_large");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_u32_over_2pow31)};
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return test_exit_code(failed);
}
