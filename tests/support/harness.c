/* harness.c -- see harness.h. */
#include "support/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_skipped = 0;

static int require_gpu_env(void) {
    const char *v = getenv("LIBSCAN_REQUIRE_GPU");
    return v && *v && strcmp(v, "0") != 0;
}

static int gpu_state = -1; /* -1 unknown, 0 absent, 1 present */
static char gpu_reason[512];

int test_gpu_present(void) {
    if (gpu_state < 0) {
        int n = 0;
        cudaError_t e = cudaGetDeviceCount(&n);
        if (e != cudaSuccess) {
            snprintf(gpu_reason, sizeof gpu_reason, "no usable CUDA device: cudaGetDeviceCount failed with %s (%s)",
                     cudaGetErrorName(e), cudaGetErrorString(e));
            gpu_state = 0;
        } else if (n <= 0) {
            snprintf(gpu_reason, sizeof gpu_reason, "no CUDA device (cudaGetDeviceCount gave 0)");
            gpu_state = 0;
        } else if ((e = cudaFree(NULL)) != cudaSuccess) { /* creates the context */
            snprintf(gpu_reason, sizeof gpu_reason, "CUDA device present but unusable: %s (%s)",
                     cudaGetErrorName(e), cudaGetErrorString(e));
            gpu_state = 0;
        } else {
            gpu_state = 1;
        }
        (void)cudaGetLastError();
    }
    return gpu_state;
}

int test_require_gpu(void) {
    if (test_gpu_present()) return 1;
    if (require_gpu_env()) {
        fail_msg("LIBSCAN_REQUIRE_GPU is set but there is %s", gpu_reason);
    }
    test_skip("needs a GPU: %s", gpu_reason);
    return 0; /* not reached */
}

void test_skip(const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    print_message("SKIPPED because %s\n", buf);
    ++g_skipped;
    skip();
}

int test_skipped_count(void) { return g_skipped; }

void test_begin(const char *suite) {
    printf("libscan test suite %s (libscan %s)\n", suite, libscan_version_string());
    const char *filter = getenv("LIBSCAN_TEST_FILTER");
    if (filter && *filter) {
        printf("running only the tests matching LIBSCAN_TEST_FILTER=%s\n", filter);
        cmocka_set_test_filter(filter);
    }
    (void)test_seed();
    fflush(stdout);
}

int test_exit_code(int failed) {
    if (failed) return failed > 0 && failed < TEST_EXIT_SKIPPED ? failed : 1;
    if (g_skipped) {
        printf("%d test(s) skipped: exiting with %d so that ctest reports this suite as skipped\n", g_skipped,
               TEST_EXIT_SKIPPED);
        return TEST_EXIT_SKIPPED;
    }
    return 0;
}

void test_fail_seeded(const char *file, int line, const char *fmt, ...) {
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fail_msg("%s:%d: %s [seed %llu: LIBSCAN_TEST_SEED=%llu repeats it]", file, line, buf, test_seed(), test_seed());
}
