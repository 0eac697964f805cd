/* test_segmented_large.c -- one segmented u32 sum with head flags over
 * 2^31 + 4099 elements (labels gpu, large), in place to save memory (about
 * 10.6 GB of GPU memory). Input and flags are a function of the index, so
 * the host makes and checks them in chunks and never holds the whole array;
 * every element is checked against a running 64-bit reference. */
#include "support/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK ((size_t)1 << 24)

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}
static uint32_t value_at(uint64_t salt, size_t i) { return (uint32_t)mix(salt ^ (uint64_t)i); }
/* Segments of about 1000 elements on average, some of them very long. */
static unsigned char flag_at(uint64_t salt, size_t i) {
    uint64_t h = mix(~salt + 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1));
    return (unsigned char)((h % 1000) == 0 ? 1 + (h >> 56) % 255 : 0);
}

static void test_u32_sum_flags_beyond_2p31(void **state) {
    (void)state;
    test_require_gpu();
    const size_t n = ((size_t)1 << 31) + 4099;
    const uint64_t salt = test_seed();
    uint32_t *d_data;
    unsigned char *d_flags;
    CUDA_CHECK(cudaMalloc((void **)&d_data, n * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_flags, n));
    uint32_t *h = malloc(CHUNK * 4);
    unsigned char *hf = malloc(CHUNK);
    if (!h || !hf) TFAIL("out of host memory");
    for (size_t b = 0; b < n; b += CHUNK) {
        size_t k = n - b < CHUNK ? n - b : CHUNK;
        for (size_t i = 0; i < k; ++i) h[i] = value_at(salt, b + i), hf[i] = flag_at(salt, b + i);
        CUDA_CHECK(cudaMemcpy(d_data + b, h, k * 4, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_flags + b, hf, k, cudaMemcpyHostToDevice));
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_inclusive_scan(d_data, d_data, n, d_flags, LIBSCAN_U32,
                                                                LIBSCAN_OP_SUM, NULL, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("segmented u32 sum, %zu elements in place: %.3f ms (with library temp)\n", n,
           (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
    uint64_t acc = 0;
    for (size_t b = 0; b < n; b += CHUNK) {
        size_t k = n - b < CHUNK ? n - b : CHUNK;
        CUDA_CHECK(cudaMemcpy(h, d_data + b, k * 4, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < k; ++i) {
            const size_t j = b + i;
            if (j == 0 || flag_at(salt, j)) acc = 0;
            acc += value_at(salt, j);
            if (h[i] != (uint32_t)acc) {
                const unsigned got = h[i], want = (uint32_t)acc;
                free(h);
                free(hf);
                TFAIL("element %zu: got %u, expected %u", j, got, want);
            }
        }
    }
    free(h);
    free(hf);
    CUDA_CHECK(cudaFree(d_data));
    CUDA_CHECK(cudaFree(d_flags));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u32_sum_flags_beyond_2p31),
    };
    test_begin("test_segmented_large");
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
