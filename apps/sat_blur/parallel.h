/* parallel.h -- the host side of sat_blur on every core: a range of rows
 * cut into one contiguous band per online CPU, each band on its own pthread
 * (the calling thread takes the first). Used for the pixel conversions and
 * the radius maps, whose rows are independent. */
#ifndef LIBSCAN_SAT_BLUR_PARALLEL_H
#define LIBSCAN_SAT_BLUR_PARALLEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BLUR_MAX_THREADS 256

/* The work of rows [begin, end): ctx is the caller's. */
typedef void (*blur_rows_fn)(void *ctx, size_t begin, size_t end);

/* The number of online CPUs (sysconf), 1..BLUR_MAX_THREADS. */
int blur_online_cpus(void);

/* The thread count of blur_parallel_rows: n >= 1, or 0 (the default) for
 * blur_online_cpus(). For tests and measurements (results never depend on
 * it); not thread-safe against running conversions. */
void blur_parallel_set_threads(int n);

/* Runs fn over [0, rows) in min(threads, rows) bands of nearly equal size
 * and returns when all are done. A thread that cannot be created has its
 * band run on the calling thread instead: the work always completes.
 * threads < 1 counts as 1. */
void blur_parallel_rows_n(int threads, size_t rows, blur_rows_fn fn, void *ctx);

/* The same on blur_online_cpus() threads (or the count set above). */
void blur_parallel_rows(size_t rows, blur_rows_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
