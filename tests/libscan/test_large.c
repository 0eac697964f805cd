/* test_large.c -- one scan of more than 2^31 elements (labels gpu, large):
 * an inclusive u32 sum in place over 2^31 + 4099 small random values, with a
 * host carry-in, caller temp and d_total, checked element by element against
 * a CPU running sum (mod 2^32). The input is generated in chunks from a
 * seeded stream and regenerated for the check, so the host never holds the
 * whole array. Needs about 8.6 GB of free GPU memory (skipped otherwise).
 * Prints how long the scan took. */
#include "support/harness.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK ((size_t)1 << 26) /* elements per host chunk (256 MiB) */

/* Values 0..255, eight per random word; a chunk consumes ceil(len/8) words. */
static void gen_chunk(rng_t *r, uint32_t *buf, size_t len) {
    for (size_t i = 0; i < len; i += 8) {
        uint64_t x = rng_u64(r);
        for (size_t b = 0; b < 8 && i + b < len; ++b) buf[i + b] = (uint32_t)((x >> (8 * b)) & 0xFFu);
    }
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_u32_sum_in_place_over_2pow31(void **state) {
    (void)state;
    test_require_gpu();
    const size_t n = ((size_t)1 << 31) + 4099;
    size_t need = 0, free_b = 0, total_b = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(n, LIBSCAN_U32, &need));
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const size_t want = n * 4 + need + ((size_t)256 << 20);
    if (free_b < want)
        test_skip("a scan of %zu u32 needs about %zu MiB of free GPU memory; %zu MiB of %zu MiB are free", n,
                  want >> 20, free_b >> 20, total_b >> 20);

    uint32_t *d = NULL, *d_total = NULL;
    void *d_temp = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d, n * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_total, 4));
    CUDA_CHECK(cudaMalloc(&d_temp, need));
    CUDA_CHECK(cudaMemset(d_total, 0xFF, 4));
    uint32_t *h = malloc(CHUNK * 4), *expect_in = malloc(CHUNK * 4);
    if (!h || !expect_in) TFAIL("out of host memory");

    rng_t r;
    rng_init(&r, "large", 0);
    const uint32_t init = rng_u32(&r);
    rng_t data_start = r; /* the data stream, replayed for the check */
    double t0 = now_s();
    for (size_t at = 0; at < n; at += CHUNK) {
        size_t len = n - at < CHUNK ? n - at : CHUNK;
        gen_chunk(&r, h, len);
        CUDA_CHECK(cudaMemcpy(d + at, h, len * 4, cudaMemcpyHostToDevice));
    }
    double t_upload = now_s() - t0;

    libscan_scan_opts_t opts = LIBSCAN_SCAN_OPTS_INIT;
    opts.init = &init;
    opts.d_total = d_total;
    opts.d_temp = d_temp;
    opts.temp_bytes = need;
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start, 0));
    libscan_status_t st = libscan_inclusive_scan(d, d, n, LIBSCAN_U32, LIBSCAN_OP_SUM, &opts, 0);
    CUDA_CHECK(cudaEventRecord(stop, 0));
    if (st != LIBSCAN_SUCCESS) TFAIL("scan of %zu elements returned %d (%s)", n, (int)st, libscan_status_string(st));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_SYNC();
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    print_message("inclusive u32 sum in place of %zu elements (2^31 + 4099): %.3f ms on the GPU, %.1f GB/s "
                  "(read + write); upload took %.1f s\n",
                  n, (double)ms, (double)n * 8.0 / ((double)ms * 1e6), t_upload);

    uint32_t total = 0;
    CUDA_CHECK(cudaMemcpy(&total, d_total, 4, cudaMemcpyDeviceToHost));
    r = data_start;
    uint32_t running = init;
    t0 = now_s();
    for (size_t at = 0; at < n; at += CHUNK) {
        size_t len = n - at < CHUNK ? n - at : CHUNK;
        gen_chunk(&r, expect_in, len);
        CUDA_CHECK(cudaMemcpy(h, d + at, len * 4, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < len; ++i) {
            running += expect_in[i];
            if (h[i] != running)
                TFAIL("element %zu (of %zu) is %" PRIu32 ", expected %" PRIu32 " (input %" PRIu32 ", carry-in %" PRIu32
                      ")",
                      at + i, n, h[i], running, expect_in[i], init);
        }
    }
    if (total != running) TFAIL("d_total is %" PRIu32 ", expected %" PRIu32, total, running);
    print_message("checked all %zu elements and the total against a CPU running sum in %.1f s\n", n, now_s() - t0);

    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaFree(d));
    CUDA_CHECK(cudaFree(d_total));
    CUDA_CHECK(cudaFree(d_temp));
    free(h);
    free(expect_in);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u32_sum_in_place_over_2pow31),
    };
    test_begin("test_large");
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
