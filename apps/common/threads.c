/* threads.c -- see threads.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "threads.h"

#include <sched.h>
#include <signal.h>
#include <unistd.h>

unsigned app_usable_cpus(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        const int mine = CPU_COUNT(&set);
        if (mine >= 1 && mine < n) n = mine;
    }
    return (unsigned)n;
}

int app_thread_start(pthread_t *th, void *(*fn)(void *), void *arg) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    const int e = pthread_create(th, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return e;
}
