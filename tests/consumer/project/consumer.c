/* consumer.c -- a C11 program that uses libscan's C API as an outside
 * project would. It checks that the header compiles as C, that the library
 * links and that the host-only functions answer; then, if a GPU is present,
 * it scans a small array and checks a few values. Without a GPU it says
 * "no GPU, skipped run" and exits 0: this program tests building and linking. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <libscan/libscan.h>

static int failures = 0;

#define CHECK(cond)                                                                                                   \
    do {                                                                                                              \
        if (!(cond)) {                                                                                                \
            fprintf(stderr, "consumer: check failed at line %d: %s\n", __LINE__, #cond);                              \
            ++failures;                                                                                               \
        }                                                                                                             \
    } while (0)

static void host_checks(void) {
    CHECK(libscan_version() == LIBSCAN_VERSION);
    CHECK(strcmp(libscan_version_string(), LIBSCAN_VERSION_STRING) == 0);
    CHECK(libscan_status_string(LIBSCAN_SUCCESS) != NULL);
    CHECK(libscan_status_string((libscan_status_t)12345) != NULL);
    CHECK(libscan_dtype_size(LIBSCAN_I64) == sizeof(int64_t));
    CHECK(strcmp(libscan_op_name(LIBSCAN_OP_MAX), "max") == 0);
    size_t temp = 0;
    CHECK(libscan_scan_temp_bytes(1u << 20, LIBSCAN_U32, &temp) == LIBSCAN_SUCCESS);
    CHECK(libscan_scan_temp_bytes(1, LIBSCAN_U32, NULL) == LIBSCAN_ERROR_NULL_POINTER);
    /* Rejected before anything touches the device. */
    CHECK(libscan_inclusive_scan(NULL, NULL, 10, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, 0) ==
          LIBSCAN_ERROR_NULL_POINTER);
}

static int gpu_present(void) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return count > 0;
}

#define N 1000

static void gpu_checks(void) {
    int64_t host[N], out[N];
    for (int i = 0; i < N; ++i) host[i] = (i % 7) - 2; /* -2 .. 4 */

    int64_t *d_in = NULL, *d_out = NULL;
    CHECK(cudaMalloc((void **)&d_in, sizeof host) == cudaSuccess);
    CHECK(cudaMalloc((void **)&d_out, sizeof host) == cudaSuccess);
    if (!d_in || !d_out) return;
    CHECK(cudaMemcpy(d_in, host, sizeof host, cudaMemcpyHostToDevice) == cudaSuccess);

    libscan_status_t st = libscan_inclusive_scan(d_in, d_out, N, LIBSCAN_I64, LIBSCAN_OP_SUM, NULL, 0);
    if (st != LIBSCAN_SUCCESS) fprintf(stderr, "consumer: inclusive scan: %s\n", libscan_status_string(st));
    CHECK(st == LIBSCAN_SUCCESS);
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost) == cudaSuccess);
    int64_t run = 0;
    for (int i = 0; i < N; ++i) {
        run += host[i];
        if (out[i] != run) {
            fprintf(stderr, "consumer: inclusive sum [%d] = %" PRId64 ", expected %" PRId64 "\n", i, out[i], run);
            ++failures;
            break;
        }
    }

    /* Exclusive max with a carry-in, in place. */
    int64_t init = 3;
    libscan_scan_opts_t opts = LIBSCAN_SCAN_OPTS_INIT;
    opts.init = &init;
    st = libscan_exclusive_scan(d_in, d_in, N, LIBSCAN_I64, LIBSCAN_OP_MAX, &opts, 0);
    CHECK(st == LIBSCAN_SUCCESS);
    CHECK(cudaMemcpy(out, d_in, sizeof out, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(out[0] == 3);
    CHECK(out[1] == 3);   /* max(3, -2) */
    CHECK(out[7] == 4);   /* max(3, -2 .. 4) */
    CHECK(out[N - 1] == 4);

    cudaFree(d_in);
    cudaFree(d_out);
}

int main(void) {
    printf("consumer: libscan %s (headers %s)\n", libscan_version_string(), LIBSCAN_VERSION_STRING);
    host_checks();
    if (gpu_present()) {
        gpu_checks();
    } else {
        printf("no GPU, skipped run\n");
    }
    if (failures) {
        fprintf(stderr, "consumer: %d check(s) failed\n", failures);
        return 1;
    }
    printf("consumer: ok\n");
    return 0;
}
