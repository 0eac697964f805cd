/* par_io.h -- one byte range of a file read or written by several threads at
 * once, with pread/pwrite at offsets (stream_io.h builds on it).
 *
 * Why threads: a read from the page cache is a memory copy done by the
 * kernel on the calling thread, about 5-7 GB/s on one core; a 1 GiB file
 * read by one thread takes 0.15-0.2 s before anything else can start. Pieces
 * of a few MiB taken in turn by several threads run that copy on several
 * cores.
 *
 * Plain C; link app_common, #include "common/par_io.h". Nothing here prints.
 * Every function may be called from any thread. */
#ifndef APP_COMMON_PAR_IO_H
#define APP_COMMON_PAR_IO_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Returned (instead of an errno) when the file ended before the range did. */
#define APP_IO_SHORT (-1)

/* Threads for file I/O: the environment variable LIBSCAN_IO_THREADS (1 to
 * 64) when set and valid, else the online CPUs, at most 8 (the page cache
 * copy stops scaling around there). Read once per process. */
int app_io_threads(void);

/* Called on each piece of a read once it is in memory, on the thread that
 * read it (e.g. to swap its bytes); ctx as given. */
typedef void (*app_piece_fn)(void *piece, size_t bytes, void *ctx);

/* Reads len bytes at file offset off into buf, on up to `threads` threads.
 * Pieces are multiples of `align` bytes from buf (align divides 4096; 1 for
 * none), so an element never straddles two. `after` may be NULL. Returns 0,
 * the errno of a failed pread, or APP_IO_SHORT when the file ended first. */
int app_pread_full(int fd, void *buf, size_t len, unsigned long long off, int threads, size_t align,
                   app_piece_fn after, void *ctx);

/* Writes len bytes from buf at file offset off, on up to `threads` threads.
 * Returns 0 or the errno of the failed pwrite (ENOSPC, EFBIG, EIO, ...). */
int app_pwrite_full(int fd, const void *buf, size_t len, unsigned long long off, int threads);

/* Writes len bytes from buf at the descriptor's position, in order: for
 * standard output, a pipe or a device, where offsets mean nothing. Returns
 * 0 or an errno. */
int app_write_full(int fd, const void *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
