/* parallel.c -- row bands on every online CPU (parallel.h). */
#define _POSIX_C_SOURCE 200809L
#include "parallel.h"

#include <pthread.h>

#include "common/threads.h"

typedef struct band {
    blur_rows_fn fn;
    void *ctx;
    size_t begin, end;
} band_t;

static void *run_band(void *p) {
    const band_t *b = (const band_t *)p;
    if (b->begin < b->end) b->fn(b->ctx, b->begin, b->end);
    return NULL;
}

int blur_online_cpus(void) {
    const unsigned n = app_usable_cpus();
    return n > BLUR_MAX_THREADS ? BLUR_MAX_THREADS : (int)n;
}

void blur_parallel_rows(int threads, size_t rows, blur_rows_fn fn, void *ctx) {
    if (threads < 1) threads = blur_online_cpus();
    if (threads > BLUR_MAX_THREADS) threads = BLUR_MAX_THREADS;
    if ((size_t)threads > rows) threads = rows ? (int)rows : 1;
    band_t bands[BLUR_MAX_THREADS];
    pthread_t tid[BLUR_MAX_THREADS];
    int started[BLUR_MAX_THREADS];
    const size_t T = (size_t)threads;
    for (size_t t = 0; t < T; ++t) { /* rows * t < 2^30 * 2^8: no overflow */
        bands[t] = (band_t){fn, ctx, rows * t / T, rows * (t + 1) / T};
        started[t] = t > 0 && app_thread_start(&tid[t], run_band, &bands[t]) == 0;
    }
    run_band(&bands[0]);
    for (size_t t = 1; t < T; ++t) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            run_band(&bands[t]);
    }
}
