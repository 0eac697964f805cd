/* bench_cpu_sort.c -- the CPU path of sort.h and compact.h (libscan_cpu_*)
 * timed on host memory: keys (u32, f32, u64), u32/u32 pairs, argsort,
 * is_sorted, sort_unique, select_if and partition_if, at 2^26 and 2^28
 * elements by default. Each case copies its random input into the work
 * buffer (not timed), then times one call with CLOCK_MONOTONIC; the median
 * and the minimum of --reps runs are printed (and the median CPU time of
 * the process: all its threads, so it shows how much of a shared machine a
 * run got), with the thread count the
 * library used (LIBSCAN_CPU_THREADS, else every CPU the process may run on).
 * Every sorted result is checked with libscan_cpu_is_sorted before it
 * counts. Compare against numpy with bench/radixsort/cpu_sort_numpy.py on
 * the same machine, in the same session.
 *
 *   bench_cpu_sort [--log2n 26,28] [--reps 5] [--cases u32,f32,u64,pairs,...]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <libscan/compact.h>
#include <libscan/sort.h>

static const char *const kAllCases = "u32,f32,u64,pairs,argsort,is_sorted,unique,select,partition";

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* User + system CPU time of the whole process (every thread), seconds. */
static double cpu_s(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

static uint64_t rng_next(uint64_t *s) { /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void *xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "bench_cpu_sort: out of memory (%zu bytes)\n", bytes);
        exit(2);
    }
    return p;
}

static void die_status(const char *what, libscan_status_t st) {
    fprintf(stderr, "bench_cpu_sort: %s: %s\n", what, libscan_status_string(st));
    exit(2);
}

/* One timed call of case `name` on work buffers already filled. Returns
 * wall seconds; *cpu = the CPU seconds the process spent meanwhile. */
static double run_once(const char *name, libscan_dtype_t key, void *keys, void *vals, void *out, void *rej,
                       size_t n, size_t *result, double *cpu) {
    libscan_status_t st = LIBSCAN_SUCCESS;
    const double c0 = cpu_s(), t0 = now_s();
    if (!strcmp(name, "pairs")) st = libscan_cpu_sort(keys, vals, n, key, 4, NULL);
    else if (!strcmp(name, "argsort")) st = libscan_cpu_argsort(keys, vals, n, key, 4, NULL);
    else if (!strcmp(name, "is_sorted")) st = libscan_cpu_is_sorted(keys, n, key, NULL, result);
    else if (!strcmp(name, "unique")) st = libscan_cpu_sort_unique(keys, NULL, n, key, 0, NULL, result);
    else if (!strcmp(name, "select") || !strcmp(name, "partition")) {
        libscan_pred_t p = {LIBSCAN_PRED_LT, {.u = (uint64_t)1 << 31}, {.u = 0}};
        if (!strcmp(name, "select")) st = libscan_cpu_select_if(keys, out, result, n, key, &p, NULL);
        else st = libscan_cpu_partition_if(keys, out, rej, result, n, key, &p, NULL);
    } else st = libscan_cpu_sort(keys, NULL, n, key, 0, NULL);
    const double t = now_s() - t0;
    *cpu = cpu_s() - c0;
    if (st != LIBSCAN_SUCCESS) die_status(name, st);
    return t;
}

static void bench_case(const char *name, size_t n, int reps) {
    libscan_dtype_t key = LIBSCAN_U32;
    if (!strcmp(name, "f32")) key = LIBSCAN_F32;
    if (!strcmp(name, "u64")) key = LIBSCAN_U64;
    const size_t ks = libscan_dtype_size(key);
    unsigned char *src = xmalloc(n * ks), *keys = xmalloc(n * ks);
    uint32_t *vals = NULL, *vsrc = NULL;
    unsigned char *out = NULL, *rej = NULL;
    uint64_t seed = 0x5eed0000u + n;
    for (size_t i = 0; i < n; ++i) {
        const uint64_t r = rng_next(&seed);
        if (key == LIBSCAN_F32) {
            const float f = (float)((double)(r >> 11) * 0x1p-53 * 2.0 - 1.0) * 1e6f;
            memcpy(src + i * 4, &f, 4);
        } else {
            memcpy(src + i * ks, &r, ks);
        }
    }
    const int pairs = !strcmp(name, "pairs"), argsort = !strcmp(name, "argsort");
    const int presorted = !strcmp(name, "is_sorted") || !strcmp(name, "unique");
    if (pairs || argsort) {
        vals = xmalloc(n * 4);
        vsrc = xmalloc(n * 4);
        for (size_t i = 0; i < n; ++i) vsrc[i] = (uint32_t)i;
    }
    if (!strcmp(name, "select") || !strcmp(name, "partition")) {
        out = xmalloc(n * ks);
        rej = xmalloc(n * ks);
        memset(out, 0, n * ks);
        memset(rej, 0, n * ks);
    }
    if (presorted) {
        /* A sorted input of u32 keys from a pool of n/4 values: about a
         * quarter kept by unique; is_sorted reads all of it. */
        for (size_t i = 0; i < n; ++i) {
            const uint32_t v = (uint32_t)(rng_next(&seed) % (n / 4 + 1));
            memcpy(src + i * 4, &v, 4);
        }
        libscan_status_t st = libscan_cpu_sort(src, NULL, n, key, 0, NULL);
        if (st != LIBSCAN_SUCCESS) die_status("presort", st);
    }
    memset(keys, 0, n * ks); /* fault the pages in before timing */
    if (vals) memset(vals, 0, n * 4);
    double *t = xmalloc((size_t)reps * sizeof(double)), *c = xmalloc((size_t)reps * sizeof(double));
    size_t result = 0;
    for (int r = 0; r < reps; ++r) {
        memcpy(keys, src, n * ks);
        if (pairs) memcpy(vals, vsrc, n * 4);
        t[r] = run_once(name, key, keys, vals, out, rej, n, &result, &c[r]);
        if (!presorted && out == NULL) {
            size_t bad = 0;
            libscan_status_t st = libscan_cpu_is_sorted(keys, n, key, NULL, &bad);
            if (st != LIBSCAN_SUCCESS || bad != n) {
                fprintf(stderr, "bench_cpu_sort: %s n=%zu: not sorted at %zu\n", name, n, bad);
                exit(1);
            }
        }
    }
    qsort(t, (size_t)reps, sizeof(double), cmp_double);
    qsort(c, (size_t)reps, sizeof(double), cmp_double);
    const double med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    const double cmed = reps % 2 ? c[reps / 2] : 0.5 * (c[reps / 2 - 1] + c[reps / 2]);
    const char *env = getenv("LIBSCAN_CPU_THREADS");
    printf("| %-9s | 2^%-2d | %-4s | %9.1f | %9.1f | %8.1f | %9.1f |\n", name, __builtin_ctzll((unsigned long long)n),
           env && *env ? env : "auto", med * 1e3, t[0] * 1e3, (double)n / med * 1e-6, cmed * 1e3);
    fflush(stdout);
    free(t);
    free(c);
    free(src);
    free(keys);
    free(vals);
    free(vsrc);
    free(out);
    free(rej);
}

int main(int argc, char **argv) {
    const char *log2n = "26,28", *cases = kAllCases;
    int reps = 5;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--log2n") && i + 1 < argc) log2n = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cases") && i + 1 < argc) cases = argv[++i];
        else {
            printf("usage: %s [--log2n 26,28] [--reps 5] [--cases %s]\n"
                   "Set LIBSCAN_CPU_THREADS=N to force N threads.\n", argv[0], kAllCases);
            return strcmp(argv[i], "--help") ? 1 : 0;
        }
    }
    if (reps < 1) reps = 1;
    cpu_set_t set;
    const int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
    printf("CPU path, %d CPUs usable, %ld online; median and min of %d runs\n\n", cpus,
           sysconf(_SC_NPROCESSORS_ONLN), reps);
    printf("| case      | n    | thr  | median ms |    min ms | Melem/s  |    CPU ms |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- |\n");
    char list[256], nlist[64];
    snprintf(nlist, sizeof nlist, "%s", log2n);
    for (char *np = strtok(nlist, ","); np; np = strtok(NULL, ",")) {
        const size_t n = (size_t)1 << atoi(np);
        snprintf(list, sizeof list, "%s", cases);
        char *save = NULL;
        for (char *c = strtok_r(list, ",", &save); c; c = strtok_r(NULL, ",", &save)) bench_case(c, n, reps);
    }
    return 0;
}
