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
 * cmocka test-name pattern such as "test_chain*") when set; reads
 * LIBSCAN_TEST_MAX_N (see below: exits with status 1 on a bad value, else
 * prints the cap once when one is set). Call at the top of main(). */
void test_begin(const char *suite);

/* What main() returns: nonzero when tests failed, TEST_EXIT_SKIPPED when
 * none failed but some were skipped (ctest then shows the suite as
 * skipped, never as passed), 0 when every test ran and passed. */
int test_exit_code(int failed);

/* ---- quick mode: LIBSCAN_TEST_MAX_N ------------------------------------------
 * LIBSCAN_TEST_MAX_N=<elements> caps the sizes the suites use, so that a run
 * under compute-sanitizer (10-100x slower) fits its time. Unset or empty:
 * no cap, nothing changes. The value must be a plain decimal whole number
 * >= TEST_MAX_N_MIN; anything else ("abc", "0", "1e6", " 42", "1000") is
 * rejected: test_begin() prints why on stderr and exits with status 1, so a
 * mistyped cap never silently runs the full sizes. The floor keeps the
 * suites' fixed small cases (several tiles of every scan, the grid scan's
 * path up to 65536 elements) out of reach of the cap. "Elements" are what a
 * case scans: array elements, or pixels x channels for images.
 * Under a cap: size lists leave out the sizes above it; single-size cases
 * whose checks do not depend on the size run at a size under it; cases that
 * exist for their size (2^28 elements, a 16384^2 image) are skipped with the
 * reason; repetition loops run at most TEST_CAPPED_REPS times. */
#define TEST_MAX_N_MIN ((size_t)65536)
#define TEST_CAPPED_REPS 3

/* Parses a LIBSCAN_TEST_MAX_N value. Returns 0 for NULL or "" (no cap;
 * *cap = 0), 1 for a valid cap (stored in *cap), -1 for an invalid value
 * (*cap = 0, the reason in why, which may be NULL). Pure: reads no
 * environment. */
int test_parse_max_n(const char *text, size_t *cap, char *why, size_t why_len);

/* The cap in elements, 0 for none. Read from the environment once (an
 * invalid value: message on stderr, exit status 1). */
size_t test_max_n(void);

/* Replaces the cap for the rest of the process (0: none). For the harness's
 * own tests; suites take the cap from the environment. */
void test_set_max_n(size_t cap);

/* 1 when a case of n elements may run (no cap, or n <= cap), else 0. */
int test_size_allowed(size_t n);

/* Leaves out the sizes above the cap from sizes[0..count), keeping the
 * order; returns how many are left. */
size_t test_filter_sizes(size_t *sizes, size_t count);

/* For a case of `items` arrays (or rows) of n elements each: n when
 * n * items fits the cap (or there is none), else the largest m with
 * m * items <= cap and m == n (mod 64), so ragged sizes stay ragged
 * (at least 1). items 0 counts as 1. */
size_t test_capped_n(size_t n, size_t items);

/* For a side x side image of `channels` samples per pixel: side when it fits
 * the cap (or there is none), else the largest s with s * s * channels <= cap
 * (at least 1). channels 0 counts as 1. */
size_t test_capped_side(size_t side, size_t channels);

/* Repetitions of a loop: full without a cap, at most TEST_CAPPED_REPS with
 * one. */
int test_reps(int full);

/* Skips the running test (counted, see test_exit_code) when n elements are
 * above the cap; `what` names the case in the reason. Returns otherwise. */
void test_skip_above_cap(size_t n, const char *what);

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
