/* threads.h -- the programs' own threads: how many CPUs they may use, and
 * how a helper thread is started.
 *
 * Every helper thread starts with every signal blocked, so that the
 * programs' handlers (cli.h's clean-up of temporary outputs) run on their
 * own threads, never on a worker's in the middle of its work.
 *
 * Plain C; link app_common and write #include "common/threads.h". Nothing
 * here prints. Thread-safe. */
#ifndef APP_COMMON_THREADS_H
#define APP_COMMON_THREADS_H

#include <pthread.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The CPUs this process may run on: its affinity mask (taskset, cgroups'
 * cpusets), no more than the online CPUs; the online CPUs where the mask is
 * unknown. Always >= 1. */
unsigned app_usable_cpus(void);

/* pthread_create(th, NULL, fn, arg) with every signal blocked in the new
 * thread (the caller's mask is left as it was). Returns pthread_create's
 * result: 0, or an errno. */
int app_thread_start(pthread_t *th, void *(*fn)(void *), void *arg);

#ifdef __cplusplus
}
#endif
#endif
