/* harness.h -- what every cmocka suite of libscan shares: GPU availability
 * (skip, or fail under LIBSCAN_REQUIRE_GPU=1), counted skips, the exit code
 * convention (77 = skipped, for ctest's SKIP_RETURN_CODE), and checked
 * CUDA/libscan calls whose failure messages carry the run's seed.
 * Include from .c files only (it includes cmocka). */
#ifndef LIBSCAN_TEST_HARNESS_H
#define LIBSCAN_TEST_HARNESS_H

#include "support/cm.h"
#include "support/rng.h"

#include <cuda_runtime_api.h>
#include "libscan/libscan.h"

/* Exit code of a suite whose tests were all skipped (none failed). */
#define TEST_EXIT_SKIPPED 77

/* Returns 1 when a usable CUDA device is present. Otherwise it does not
 * return: the running test is skipped with the reason (counted, see
 * test_exit_code), or fails when LIBSCAN_REQUIRE_GPU is set to 1. Call it
 * first in every test that needs the GPU. */
int test_require_gpu(void);

/* 1 when a usable CUDA device is present (no skip, no failure). */
int test_gpu_present(void);

/* Skip the running test with a reason (counted). Does not return. */
void test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Number of tests skipped through test_skip()/test_require_gpu(). */
int test_skipped_count(void);

/* Prints the suite's banner and the seed; applies LIBSCAN_TEST_FILTER (a
 * cmocka test-name pattern such as "test_chain*") when set. Call at the top
 * of main(). */
void test_begin(const char *suite);

/* What main() returns: nonzero when tests failed, TEST_EXIT_SKIPPED when
 * none failed but some were skipped (ctest then shows the suite as
 * skipped, never as passed), 0 when every test ran and passed. */
int test_exit_code(int failed);

/* fail_msg() with the seed appended. */
#define TFAIL(...) test_fail_seeded(__FILE__, __LINE__, __VA_ARGS__)
void test_fail_seeded(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A checked CUDA runtime call. */
#define CUDA_CHECK(call)                                                                                 \
    do {                                                                                                 \
        cudaError_t cuda_check_e_ = (call);                                                              \
        if (cuda_check_e_ != cudaSuccess)                                                                \
            TFAIL("%s failed: %s (%s)", #call, cudaGetErrorName(cuda_check_e_), cudaGetErrorString(cuda_check_e_)); \
    } while (0)

/* Synchronise the device and check for asynchronous errors. */
#define CUDA_SYNC() CUDA_CHECK(cudaDeviceSynchronize())

/* A libscan call that must return `expect`. */
#define LS_EXPECT(expect, call)                                                                           \
    do {                                                                                                  \
        libscan_status_t ls_expect_got_ = (call);                                                         \
        libscan_status_t ls_expect_want_ = (expect);                                                      \
        if (ls_expect_got_ != ls_expect_want_)                                                            \
            TFAIL("%s returned %d (%s), expected %d (%s)", #call, (int)ls_expect_got_,                    \
                  libscan_status_string(ls_expect_got_), (int)ls_expect_want_,                            \
                  libscan_status_string(ls_expect_want_));                                                \
    } while (0)

#endif
