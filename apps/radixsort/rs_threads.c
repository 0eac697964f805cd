/* rs_threads.c -- see rs_threads.h. */
#define _GNU_SOURCE /* sched_getaffinity */
#include "rs_threads.h"

#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "common/cli.h"

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

/* pthread_create with every signal blocked in the new thread, so that the
 * program's handlers (which remove its temporary outputs) run on its own
 * threads, as libscan's CPU threads and apps/common's do. */
static int spawn(pthread_t *th, void *(*fn)(void *), void *arg) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    const int e = pthread_create(th, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return e;
}

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
        if (spawn(&th[started], worker_main, &w[started]) != 0) break;
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
    b->running = spawn(&b->th, bg_main, b) == 0;
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
    /* The CPUs this process may run on (taskset, cgroups' cpusets), else
       the online ones. */
    long c = -1;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) c = CPU_COUNT(&set);
    if (c < 1) c = sysconf(_SC_NPROCESSORS_ONLN);
    *n = c < 1 ? 1 : c > 64 ? 64 : (unsigned)c;
    return 0;
}
