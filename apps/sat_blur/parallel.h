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

/* The CPUs this process may use (app_usable_cpus: its affinity mask), 1..BLUR_MAX_THREADS. */
int blur_online_cpus(void);

/* Runs fn over [0, rows) in min(threads, rows) bands of nearly equal size
 * and returns when all are done; threads <= 0 means blur_online_cpus() (a
 * caller that already runs one job per core passes 1). A thread that cannot
 * be created has its band run on the calling thread instead: the work always
 * completes. Results never depend on the thread count. */
void blur_parallel_rows(int threads, size_t rows, blur_rows_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
