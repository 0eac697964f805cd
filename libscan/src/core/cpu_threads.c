/* cpu_threads.c -- see cpu_threads.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "cpu_threads.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

/* LIBSCAN_CPU_THREADS as a count, or 0 when it is unset or not a plain
 * decimal whole number >= 1 (then the automatic choice applies). */
static unsigned env_threads(void) {
    const char *s = getenv("LIBSCAN_CPU_THREADS");
    if (!s || !*s) return 0;
    unsigned long v = 0;
    for (const char *p = s; *p; ++p) {
        if (*p < '0' || *p > '9') return 0;
        v = v * 10u + (unsigned long)(*p - '0');
        if (v > LIBSCAN__CPU_MAX_THREADS) v = LIBSCAN__CPU_MAX_THREADS; /* no overflow on long strings */
    }
    return (unsigned)v;
}

static unsigned usable_cpus(void) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online < 1) online = 1;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        const int mine = CPU_COUNT(&set);
        if (mine >= 1 && mine < online) online = mine;
    }
    return online > (long)LIBSCAN__CPU_MAX_THREADS ? LIBSCAN__CPU_MAX_THREADS : (unsigned)online;
}

unsigned libscan__cpu_threads(size_t items, size_t grain) {
    unsigned n = env_threads();
    if (n) return items < n ? (items ? (unsigned)items : 1u) : n;
    n = usable_cpus();
    const size_t by_size = grain ? items / grain : items;
    if (by_size < n) n = by_size ? (unsigned)by_size : 1u;
    return n;
}

void libscan__split(size_t n, unsigned parts, unsigned part, size_t *begin, size_t *end) {
    const size_t q = n / parts, r = n % parts;
    *begin = (size_t)part * q + (part < r ? part : r);
    *end = *begin + q + (part < r ? 1 : 0);
}

struct libscan__team {
    libscan__team_fn fn;
    void *ctx;
    unsigned size;
    /* The start gate: workers wait on it until the size is final. */
    pthread_mutex_t gate;
    pthread_cond_t open;
    int go;
    pthread_barrier_t barrier;
};

typedef struct worker {
    libscan__team_t *team;
    unsigned t;
    pthread_t id;
} worker_t;

static void *worker_main(void *arg) {
    worker_t *w = arg;
    libscan__team_t *team = w->team;
    pthread_mutex_lock(&team->gate);
    while (!team->go) pthread_cond_wait(&team->open, &team->gate);
    pthread_mutex_unlock(&team->gate);
    /* Past the final size only when the barrier could not be made: then the
     * calling thread does all the work alone. */
    if (w->t < team->size) team->fn(team->ctx, team, w->t);
    return NULL;
}

unsigned libscan__team_size(const libscan__team_t *team) { return team->size; }

void libscan__team_barrier(libscan__team_t *team) {
    if (team->size > 1) pthread_barrier_wait(&team->barrier);
}

unsigned libscan__team_run(unsigned threads, libscan__team_fn fn, void *ctx) {
    libscan__team_t team;
    team.fn = fn;
    team.ctx = ctx;
    team.size = 1;
    team.go = 0;
    if (threads > LIBSCAN__CPU_MAX_THREADS) threads = LIBSCAN__CPU_MAX_THREADS;
    worker_t *workers = NULL;
    if (threads > 1) workers = malloc((threads - 1) * sizeof(worker_t));
    if (!workers || pthread_mutex_init(&team.gate, NULL) != 0) {
        free(workers);
        fn(ctx, &team, 0);
        return 1;
    }
    if (pthread_cond_init(&team.open, NULL) != 0) {
        pthread_mutex_destroy(&team.gate);
        free(workers);
        fn(ctx, &team, 0);
        return 1;
    }
    /* Workers start with every signal blocked, so a process's handlers run
     * on its own threads, never on the library's. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    unsigned started = 0;
    for (unsigned i = 0; i + 1 < threads; ++i) {
        workers[i].team = &team;
        workers[i].t = i + 1;
        if (pthread_create(&workers[i].id, NULL, worker_main, &workers[i]) != 0) break;
        ++started;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    team.size = started + 1;
    if (team.size > 1 && pthread_barrier_init(&team.barrier, NULL, team.size) != 0) {
        /* No barrier: the workers that exist get nothing to do. */
        team.size = 1;
    }
    pthread_mutex_lock(&team.gate);
    team.go = 1;
    pthread_cond_broadcast(&team.open);
    pthread_mutex_unlock(&team.gate);
    fn(ctx, &team, 0);
    for (unsigned i = 0; i < started; ++i) pthread_join(workers[i].id, NULL);
    if (team.size > 1) pthread_barrier_destroy(&team.barrier);
    pthread_cond_destroy(&team.open);
    pthread_mutex_destroy(&team.gate);
    free(workers);
    return team.size;
}
