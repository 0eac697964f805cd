/* rs_threads.c -- see rs_threads.h. */
#include "rs_threads.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "common/cli.h"
#include "common/threads.h"

typedef struct loop {
    rs_task_fn fn;
    void *ctx;
    size_t ntasks;
    atomic_size_t next;
} loop_t;

typedef struct worker {
    loop_t *loop;
    unsigned thread;
} worker_t;

static void run_tasks(loop_t *l, unsigned thread) {
    for (;;) {
        const size_t t = atomic_fetch_add(&l->next, 1);
        if (t >= l->ntasks) return;
        l->fn(l->ctx, t, thread);
    }
}

static void *worker_main(void *arg) {
    const worker_t *w = arg;
    run_tasks(w->loop, w->thread);
    return NULL;
}

#define MAX_THREADS 1024

void rs_parallel_for(size_t ntasks, unsigned nthreads, rs_task_fn fn, void *ctx) {
    if (ntasks == 0) return;
    if (nthreads > ntasks) nthreads = (unsigned)ntasks;
    if (nthreads > MAX_THREADS) nthreads = MAX_THREADS;
    loop_t l = {fn, ctx, ntasks, 0};
    pthread_t th[MAX_THREADS];
    worker_t w[MAX_THREADS];
    unsigned started = 0;
    for (unsigned i = 1; i < nthreads; ++i) {
        w[started].loop = &l;
        w[started].thread = started + 1; /* dense: a failed create leaves no gap */
        if (app_thread_start(&th[started], worker_main, &w[started]) != 0) break;
        ++started;
    }
    run_tasks(&l, 0);
    for (unsigned i = 0; i < started; ++i) pthread_join(th[i], NULL);
}

static void *bg_main(void *arg) {
    rs_bg_t *b = arg;
    b->fn(b->ctx);
    return NULL;
}

void rs_bg_start(rs_bg_t *b, void (*fn)(void *), void *ctx) {
    b->fn = fn;
    b->ctx = ctx;
    b->running = app_thread_start(&b->th, bg_main, b) == 0;
    if (!b->running) fn(ctx);
}

void rs_bg_wait(rs_bg_t *b) {
    if (!b->running) return;
    pthread_join(b->th, NULL);
    b->running = false;
}

int rs_thread_count(unsigned *n, char *err, size_t errlen) {
    const char *s = getenv("RADIXSORT_MERGE_THREADS");
    if (s) {
        uint64_t v = 0;
        char why[160];
        if (app_parse_u64(s, 1, MAX_THREADS, &v, why, sizeof why)) {
            snprintf(err, errlen, "RADIXSORT_MERGE_THREADS: %s", why);
            return -1;
        }
        *n = (unsigned)v;
        return 0;
    }
    const unsigned c = app_usable_cpus(); /* taskset, cgroups' cpusets */
    *n = c > 64 ? 64 : c;
    return 0;
}
