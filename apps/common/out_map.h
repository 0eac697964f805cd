/* out_map.h -- an output file written through a shared memory mapping
 * instead of pwrite (stream_io.h's sinks use it for binary outputs).
 *
 * Why: writing 1 GiB into a new file with pwrite costs 240-430 ms on the GPU
 * machine, whatever the threads (one file serialises its writers). With the
 * blocks allocated first (fallocate), the file mapped MAP_SHARED and its
 * pages faulted in ahead (MADV_POPULATE_WRITE, on threads, while the program
 * does its other work: starting the GPU, sorting), the data itself is a
 * memcpy of about 30 ms on several threads.
 *
 * Only for a regular file whose final size is known; every step may fail
 * (a file system without fallocate, EOPNOTSUPP; mmap refused; an old kernel
 * without MADV_POPULATE_WRITE, EINVAL), and then the caller writes with
 * pwrite as before. A real write error from fallocate (ENOSPC, EFBIG,
 * EDQUOT, EIO) is reported instead: the disk is full now, not later. The
 * environment variable LIBSCAN_OUT_MAP=0 turns mapping off (tests compare
 * both ways; read once per process).
 *
 * A store into a mapping whose file cannot take it (blocks gone, the file
 * truncated by someone else) raises SIGBUS; while a mapping is open a
 * handler turns that into one line "<prog>: <file>: write failed (disk full
 * or file truncated)", removes the pending temporary files (cli.h's signal
 * clean-up) and exits with APP_EXIT_INTERNAL.
 *
 * Plain C; link app_common, #include "common/out_map.h". Nothing here prints
 * except that handler. */
#ifndef APP_COMMON_OUT_MAP_H
#define APP_COMMON_OUT_MAP_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct app_omap app_omap_t; /* opaque */

/* false when LIBSCAN_OUT_MAP is "0": outputs are written with pwrite. */
bool app_omap_enabled(void);

/* Maps bytes [0, size) of regular file fd (open for reading and writing)
 * after allocating them (fallocate: the file is `size` bytes long after),
 * and starts `threads` threads faulting its pages in (0: none, the copies
 * fault them in themselves; for a caller with nothing to do meanwhile). `name` (copied) is
 * the file the SIGBUS message names. Returns the mapping, or NULL: mapping
 * is off or impossible here (*werr = 0: write with pwrite instead), or
 * fallocate found a write error (*werr = its errno: report it). */
app_omap_t *app_omap_open(int fd, unsigned long long size, int threads, const char *name, int *werr);

/* Waits for the prefault. true: copy into the mapping; false: the prefault
 * failed, the mapping is given up (write with pwrite; app_omap_close still
 * follows). Thread-safe: the first caller decides, before any copy. */
bool app_omap_ready(app_omap_t *m);

/* Copies n bytes from src to offset off of the file, on up to `threads`
 * threads. Only after app_omap_ready() said true. Thread-safe (distinct
 * ranges). */
void app_omap_copy(app_omap_t *m, unsigned long long off, const void *src, size_t n, int threads);

/* Unmaps and frees m (the data stays in the file: the page cache is the
 * file's). NULL is fine. */
void app_omap_close(app_omap_t *m);

#ifdef __cplusplus
}
#endif
#endif
