/* rs_threads.h -- the two shapes of concurrency the out-of-core sort uses:
 * a parallel loop over independent tasks (the merge's parts, the pieces of a
 * large read or write), and one job in the background while the caller goes
 * on (reading and spilling beside the chunk sort, reading and writing beside
 * the merge). Plain pthreads; the threads start with every signal blocked,
 * so the program's handlers run on the caller's thread. Nothing here
 * prints. */
#ifndef RS_THREADS_H
#define RS_THREADS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* One task of a parallel loop: task in [0, ntasks), thread in [0, nthreads)
 * (the caller is thread 0), so a task may use per-thread scratch. */
typedef void (*rs_task_fn)(void *ctx, size_t task, unsigned thread);

/* Runs fn for every task on up to nthreads threads, the caller among them;
 * tasks are handed out in increasing order. Returns when all are done. A
 * thread that cannot be created leaves its share to the others. */
void rs_parallel_for(size_t ntasks, unsigned nthreads, rs_task_fn fn, void *ctx);

/* One background job. Zero-initialise. */
typedef struct rs_bg {
    pthread_t th;
    bool running;
    void (*fn)(void *);
    void *ctx;
} rs_bg_t;

/* Starts fn(ctx) on a new thread; when no thread can be created, runs it
 * here before returning (slower, same result). b must be idle. */
void rs_bg_start(rs_bg_t *b, void (*fn)(void *), void *ctx);

/* Waits until the job started on b has finished. No-op when none runs. */
void rs_bg_wait(rs_bg_t *b);

/* The thread count of the out-of-core merge: RADIXSORT_MERGE_THREADS when
 * set (1..1024), else the CPUs the process may run on (at most 64). Returns
 * 0 with *n set, or -1 with a message for a bad value in err. */
int rs_thread_count(unsigned *n, char *err, size_t errlen);

#endif
