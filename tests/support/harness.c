/* harness.c -- see harness.h. */
#include "support/harness.h"

#include <stdint.h>
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

/* ---- LIBSCAN_TEST_MAX_N ---------------------------------------------------- */

int test_parse_max_n(const char *text, size_t *cap, char *why, size_t why_len) {
    char dummy[8];
    if (!why || why_len == 0) why = dummy, why_len = sizeof dummy;
    why[0] = '\0';
    *cap = 0;
    if (!text || !*text) return 0;
    size_t v = 0;
    for (const char *p = text; *p; ++p) {
        if (*p < '0' || *p > '9') {
            snprintf(why, why_len, "not a plain decimal number of elements");
            return -1;
        }
        const size_t d = (size_t)(*p - '0');
        if (v > (SIZE_MAX - d) / 10) {
            snprintf(why, why_len, "too large");
            return -1;
        }
        v = v * 10 + d;
    }
    if (v == 0) {
        snprintf(why, why_len, "0 is no cap (unset the variable to run every size)");
        return -1;
    }
    if (v < TEST_MAX_N_MIN) {
        snprintf(why, why_len, "below the smallest cap, %zu elements", TEST_MAX_N_MIN);
        return -1;
    }
    *cap = v;
    return 1;
}

static int max_n_state = -1; /* -1 not read yet, else read (or set) */
static size_t max_n_value = 0;

size_t test_max_n(void) {
    if (max_n_state < 0) {
        const char *v = getenv("LIBSCAN_TEST_MAX_N");
        char why[128];
        if (test_parse_max_n(v, &max_n_value, why, sizeof why) < 0) {
            /* A mistyped cap must not quietly run the full sizes. */
            fprintf(stderr, "LIBSCAN_TEST_MAX_N=%s: %s; give a whole number of elements >= %zu, or unset it\n", v,
                    why, TEST_MAX_N_MIN);
            exit(1);
        }
        max_n_state = 1;
    }
    return max_n_value;
}

void test_set_max_n(size_t cap) {
    max_n_value = cap;
    max_n_state = 1;
}

int test_size_allowed(size_t n) {
    const size_t cap = test_max_n();
    return cap == 0 || n <= cap;
}

size_t test_filter_sizes(size_t *sizes, size_t count) {
    size_t k = 0;
    for (size_t i = 0; i < count; ++i)
        if (test_size_allowed(sizes[i])) sizes[k++] = sizes[i];
    return k;
}

size_t test_capped_n(size_t n, size_t items) {
    const size_t cap = test_max_n();
    if (items == 0) items = 1;
    if (cap == 0 || n <= cap / items) return n;
    const size_t limit = cap / items;
    if (limit < 64) return limit ? limit : 1;
    size_t m = limit - limit % 64 + n % 64;
    if (m > limit) m -= 64;
    return m;
}

size_t test_capped_side(size_t side, size_t channels) {
    const size_t cap = test_max_n();
    if (channels == 0) channels = 1;
    const size_t per = cap / channels;
    if (cap == 0 || side <= per / (side ? side : 1)) return side;
    size_t s = 1;
    while ((s + 1) <= per / (s + 1)) ++s; /* at most sqrt(cap) steps */
    return s;
}

int test_reps(int full) { return test_max_n() && full > TEST_CAPPED_REPS ? TEST_CAPPED_REPS : full; }

void test_skip_above_cap(size_t n, const char *what) {
    if (!test_size_allowed(n))
        test_skip("LIBSCAN_TEST_MAX_N=%zu: %s has %zu elements, above the cap", test_max_n(), what, n);
}

void test_begin(const char *suite) {
    const size_t cap = test_max_n(); /* first: a bad value stops the suite before anything runs */
    printf("libscan test suite %s (libscan %s)\n", suite, libscan_version_string());
    if (cap)
        printf("LIBSCAN_TEST_MAX_N=%zu: sizes above it left out (single large cases run smaller or are skipped, "
               "repetitions at most %d)\n",
               cap, TEST_CAPPED_REPS);
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
