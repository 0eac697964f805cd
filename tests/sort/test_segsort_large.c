/* test_segsort_large.c -- a segmented sort with one segment of more than
 * 2^31 keys (labels gpu, large): 2^31 + 4099 random u8 keys between two
 * small segments and an empty one, descending, caller temp. Expected output
 * from a per-segment histogram of the input (a counting sort written here):
 * every segment must hold its own keys, in order. Needs about 9 GB of free
 * GPU memory and 4.5 GB of host memory (skipped otherwise). Prints the
 * sort's time. */
#include "support/harness.h"
#include <libscan/sort.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_u8_segment_over_2pow31(void **state) {
    (void)state;
    test_require_gpu();
    const size_t big = ((size_t)1 << 31) + 4099;
    const uint64_t off[5] = {0, 1000, 1000, 1000 + big, 1000 + big + 5003};
    const size_t num = 4, n = (size_t)off[num];
    size_t need = 0, free_b = 0, total_b = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_sort_temp_bytes(n, num, LIBSCAN_U8, 0, &need));
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (free_b < 2 * n + need + ((size_t)256 << 20))
        test_skip("needs %zu MiB of free GPU memory, %zu MiB free", (2 * n + need) >> 20, free_b >> 20);
    unsigned char *h = malloc(n);
    uint64_t *hist = calloc(num * 256, 8);
    if (!h || !hist) test_skip("needs about 2.2 GB of host memory");
    rng_t r;
    rng_init(&r, "segsort-large", 0);
    for (size_t s = 0; s < num; ++s)
        for (size_t i = (size_t)off[s]; i < (size_t)off[s + 1]; ++i) {
            h[i] = (unsigned char)rng_u32(&r);
            hist[s * 256 + h[i]]++;
        }
    void *d_in = NULL, *d_out = NULL, *temp = NULL;
    uint64_t *d_off = NULL;
    CUDA_CHECK(cudaMalloc(&d_in, n));
    CUDA_CHECK(cudaMalloc(&d_out, n));
    CUDA_CHECK(cudaMalloc(&temp, need));
    CUDA_CHECK(cudaMalloc((void **)&d_off, sizeof off));
    CUDA_CHECK(cudaMemcpy(d_in, h, n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_off, off, sizeof off, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_out, 0xAB, n));
    libscan_segsort_opts_t o = LIBSCAN_SEGSORT_OPTS_INIT;
    o.descending = 1;
    o.d_temp = temp;
    o.temp_bytes = need;
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    CUDA_CHECK(cudaEventRecord(a, 0));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_sort(d_in, d_out, NULL, NULL, n, d_off, num, LIBSCAN_U8, 0, &o, 0));
    CUDA_CHECK(cudaEventRecord(b, 0));
    CUDA_SYNC();
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    printf("# segmented sort of %zu u8 keys (one segment of %zu): %.2f ms\n", n, big, ms);
    CUDA_CHECK(cudaMemcpy(h, d_out, n, cudaMemcpyDeviceToHost));
    for (size_t s = 0; s < num; ++s) {
        size_t at = (size_t)off[s];
        for (int d = 255; d >= 0; --d)
            for (uint64_t c = 0; c < hist[s * 256 + (size_t)d]; ++c, ++at)
                if (h[at] != d) TFAIL("segment %zu, key %zu: %u, expected %d", s, at - (size_t)off[s], h[at], d);
    }
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(temp));
    CUDA_CHECK(cudaFree(d_off));
    free(h);
    free(hist);
}

int main(void) {
    test_begin("test_segsort_large");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_u8_segment_over_2pow31)};
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
